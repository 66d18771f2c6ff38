# shellcheck shell=bash disable=SC2034 # the variables are for the scripts that source this
# lib.sh -- helpers for the in-guest scripts (matrix.sh, demo.sh); bash.
# Runs inside the VM as root, from the host's share at /mnt/mtagtest.

S=${S:-/mnt/mtagtest}
R=$S/results
mkdir -p "$R"
RESULTS=$R/results.txt
EV=/run/mtag-test/events
UNITS="nginx.service memcached.service ssh.service"
# Daemons on jemalloc (libjemalloc2 +mtag1 in the image): matrix.sh's
# jemalloc section, under sync only.
JEMALLOC_UNITS="redis-server.service named.service"
MSGID_APPLIED=bf385b8ac1d643ae9fd31184e584bd06

pass() { echo "PASS: $1" | tee -a "$RESULTS"; }
fail() { echo "FAIL: $1: $2" | tee -a "$RESULTS"; }
skip() { echo "SKIP: $1: $2" | tee -a "$RESULTS"; }
info() { echo "# $*" | tee -a "$RESULTS"; }
uptime_s() { cut -d' ' -f1 /proc/uptime; }

# ------------------------------------------------------------ what we have
HAVE_LAUNCHER=no; [ -x /usr/sbin/mtag-launcher ] && HAVE_LAUNCHER=yes
HAVE_TCF=no; grep -q '^MTE_TCF:' /proc/self/status && HAVE_TCF=yes
HAVE_KREPORT=no; [ -e /proc/sys/abi/mte_fault_report ] && HAVE_KREPORT=yes
HW_MTE=no; grep -qw mte /proc/cpuinfo && HW_MTE=yes
LIBC_VERSION=$(dpkg-query -W -f='${Version}' libc6 2>/dev/null)
HAVE_MTAG_LIBC=no; case "$LIBC_VERSION" in *+mtag*) HAVE_MTAG_LIBC=yes ;; esac

HAVE_REPORT=no; grep -q '^MTE_Report:' /proc/self/status && HAVE_REPORT=yes

# report: sync checking under the kernel's report-only mode
mode_tunable() { case "$1" in off) echo 0 ;; async) echo 1 ;; sync|report) echo 3 ;; asymm) echo 5 ;; esac; }
mode_tcf() { case "$1" in off) echo none ;; async) echo async ;; sync|report) echo sync ;; asymm) echo sync,async ;; esac; }
# The re-enable time of the report column, and the CPU time the inject
# library's "spin" trigger uses (more than that).
REPORT_REENABLE=${MTAG_REPORT_REENABLE:-300ms}
# The async column tests plain async: its crashes must not upgrade the
# next start (upgrade.sh tests that).
mode_opts() { case "$1" in report) echo " reenable=$REPORT_REENABLE" ;; async) echo " upgrade=no" ;; esac; }

cursor() { journalctl -n0 --show-cursor 2>/dev/null | sed -n 's/^-- cursor: //p'; }
# since CURSOR: every journal message after CURSOR.  No field matches here:
# systemd 252's journalctl --after-cursor with matches skips the first
# matching entry.
since() { journalctl --after-cursor="$1" -o cat --no-pager 2>/dev/null; }
# Kernel log lines, counted from the ring (dmesg), since line N.
kmsg_count() { dmesg | wc -l; }
kmsg_since() { dmesg | tail -n +"$(( $1 + 1 ))"; }
# applied_entry UNIT: the launcher's MESSAGE_ID=applied journal entry
# (export format) of the unit's current start.
applied_entry() {
	local inv; inv=$(systemctl show -p InvocationID --value "$1")
	[ -n "$inv" ] || return 0
	journalctl -o export MESSAGE_ID=$MSGID_APPLIED _SYSTEMD_INVOCATION_ID="$inv" 2>/dev/null |
		awk 'BEGIN{RS=""} {l=$0} END{print l}'
}

# ------------------------------------------------------------ policy
# set_policy MODE: every test unit gets MODE, through /etc/mtag/policy.conf
# and the generator (systemctl daemon-reload), then a restart.  Without the
# launcher in the image, GLIBC_TUNABLES from a runtime drop-in instead (the
# cases then SKIP).
set_policy() {
	local mode=$1 u
	if [ "$HAVE_LAUNCHER" = yes ]; then
		mkdir -p /etc/mtag
		{
			echo "# written by the mtag VM test (tests/helpers/vm/guest)"
			for u in $UNITS; do echo "$u $mode$(mode_opts "$mode")"; done
		} >/etc/mtag/policy.conf
		rm -rf /run/systemd/system/*.service.d/zz-mtag-direct.conf
	else
		for u in $UNITS; do
			mkdir -p "/run/systemd/system/$u.d"
			printf '[Service]\nEnvironment=GLIBC_TUNABLES=glibc.mem.tagging=%s\n' \
				"$(mode_tunable "$mode")" >"/run/systemd/system/$u.d/zz-mtag-direct.conf"
		done
	fi
	systemctl daemon-reload
}

# policy_line UNIT: "/etc/mtag/policy.conf:N" of UNIT's entry.
policy_line() { echo "/etc/mtag/policy.conf:$(grep -n "^$1 " /etc/mtag/policy.conf | head -1 | cut -d: -f1)"; }

main_pid() { systemctl show -p MainPID --value "$1"; }
nginx_workers() { local m; m=$(main_pid nginx.service); [ "$m" -gt 0 ] 2>/dev/null && pgrep -P "$m" | tr '\n' ' '; }
tcf_of() { sed -n 's/^MTE_TCF:[[:space:]]*//p' "/proc/$1/status" 2>/dev/null; }
# status_of PID[/task/TID] KEY: the value of KEY: in that status file.
status_of() { sed -n "s/^$2:[[:space:]]*//p" "/proc/$1/status" 2>/dev/null; }
mt_maps() { grep -c '^VmFlags:.* mt' "/proc/$1/smaps" 2>/dev/null; }

# ------------------------------------------------------------ clients
# Each prints the first line (or byte count) of the answer, empty if none.
http_get() {
	timeout 15 bash -c 'exec 3<>/dev/tcp/127.0.0.1/80 || exit 1
		printf "GET %s HTTP/1.0\r\nHost: localhost\r\n\r\n" "$1" >&3
		head -1 <&3 | tr -d "\r"' _ "$1" 2>/dev/null
}
mc_cmd() {
	timeout 15 bash -c 'exec 3<>/dev/tcp/127.0.0.1/11211 || exit 1
		printf "%s\r\n" "$1" >&3
		head -1 <&3 | tr -d "\r"' _ "$1" 2>/dev/null
}
# ssh_ident IDENT: connect, read the server's identification, send IDENT
# and print "<server ident> +N" with N the bytes the server sent next (its
# KEXINIT; 0 when the connection was dropped).
ssh_ident() {
	timeout 15 bash -c 'exec 3<>/dev/tcp/127.0.0.1/22 || exit 1
		IFS= read -r banner <&3
		printf "%s\r\n" "$1" >&3
		n=$(timeout 10 head -c 64 <&3 | wc -c)
		printf "%s +%s\n" "${banner%$(printf "\r")}" "$n"' _ "$1" 2>/dev/null
}

# svc_seq SVC WORD...: send the triggers MTAGBUG-WORD one after another on
# one connection, so that one thread of the service reads them all; print
# one answer per trigger (ssh: one identification line carrying them all,
# which sshd reads a byte at a time, and one answer).
svc_seq() {
	local svc=$1 ident w; shift
	case "$svc" in
	nginx)
		timeout 60 bash -c 'exec 3<>/dev/tcp/127.0.0.1/80 || exit 1
			for w; do
				printf "GET /MTAGBUG-%s HTTP/1.1\r\nHost: localhost\r\n\r\n" "$w" >&3
				IFS= read -r st <&3 || exit 1
				len=0
				while IFS= read -r h <&3; do
					h=${h%$(printf "\r")}
					[ -z "$h" ] && break
					case "$h" in [Cc]ontent-[Ll]ength:*) len=${h#*:}; len=${len// /} ;; esac
				done
				[ "$len" -gt 0 ] && head -c "$len" <&3 >/dev/null
				echo "${st%$(printf "\r")}"
			done' _ "$@" 2>/dev/null ;;
	memcached)
		timeout 60 bash -c 'exec 3<>/dev/tcp/127.0.0.1/11211 || exit 1
			for w; do
				printf "MTAGBUG-%s\r\n" "$w" >&3
				IFS= read -r a <&3 || exit 1
				echo "${a%$(printf "\r")}"
			done' _ "$@" 2>/dev/null ;;
	ssh)
		ident=SSH-2.0-mtagtest
		for w; do ident="$ident.MTAGBUG-$w"; done
		ssh_ident "$ident" ;;
	esac
}

# redis_cmd LINE: one inline command to redis-server, its first reply line.
redis_cmd() {
	timeout 10 bash -c 'exec 3<>/dev/tcp/127.0.0.1/6379 || exit 1
		printf "%s\r\n" "$1" >&3
		IFS= read -r a <&3 && echo "${a%$(printf "\r")}"' _ "$1" 2>/dev/null
}
# dns_query NAME: a query over TCP (named reads TCP through libuv's read(),
# which the injection library sees) for NAME, and the answer's status.
dns_query() {
	timeout 15 dig +tcp +tries=1 +time=5 @127.0.0.1 "$1" A 2>/dev/null |
		sed -n 's/.*status: \([A-Z]*\),.*/status \1/p' | head -1
}

# svc_ok SVC: the service answers an ordinary request.
svc_ok() {
	case "$1" in
	redis-server) [ "$(redis_cmd PING)" = +PONG ] ;;
	# The apex of 127.in-addr.arpa: bookworm's named.conf.default-zones
	# serves it, trixie's bind9 9.20 (no default-zones, no localhost zone)
	# its automatic empty zone (RFC 6303); neither needs the network.
	named) [ "$(dns_query 127.in-addr.arpa)" = "status NOERROR" ] ;;
	nginx) http_get / | grep -q '^HTTP/1\.[01] 200' ;;
	memcached) mc_cmd version | grep -q '^VERSION ' ;;
	ssh) ssh_ident SSH-2.0-mtagtest | grep -q '^SSH-2.0-OpenSSH.* +[1-9]' ;;
	esac
}
# svc_bug SVC BUG: send the request that triggers BUG; print the answer.
svc_bug() {
	case "$1" in
	redis-server) redis_cmd "MTAGBUG-$2" ;;
	named) dns_query "MTAGBUG-$2.example" ;;
	nginx) http_get "/MTAGBUG-$2" ;;
	memcached) mc_cmd "MTAGBUG-$2" ;;
	ssh) ssh_ident "SSH-2.0-MTAGBUG-$2" ;;
	esac
}
# answered SVC ANSWER: the bug request completed normally.
answered() {
	case "$1" in
	redis-server) [[ "$2" == -ERR* ]] ;;
	named) [[ "$2" == "status "* ]] ;;
	nginx) [[ "$2" == HTTP/1.?\ * ]] ;;
	memcached) [ "$2" = ERROR ] ;;
	ssh) [[ "$2" == SSH-2.0-*\ +[1-9]* ]] ;;
	esac
}

# wait_for SECS CMD...: poll CMD every 0.2 s.
wait_for() {
	local end=$(( $(date +%s) + $1 )); shift
	until "$@"; do
		[ "$(date +%s)" -ge "$end" ] && return 1
		sleep 0.2
	done
}
