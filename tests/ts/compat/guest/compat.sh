#!/bin/bash
# compat.sh -- the compatibility run, inside the booted arm64 guest (one
# boot; tests/ts/compat/run puts it on the share with daemons.list, the names
# to run, lib.sh and daemons.sh).
#
# For each daemon, one at a time, and each mode in off, sync: the mode set
# the normal way (/etc/mtag/policy.conf "UNIT MODE", systemctl daemon-reload,
# the generator wraps the unit), systemctl start, then its smoke request
# (daemons.sh) until it answers or the time is up, two more requests, and
# what ran: the tag-check mode (MTE_TCF) of every process of the unit's
# cgroup, how much of its anonymous memory is tagged (mtagctl status: smaps
# "mt"), the kernel's tag-check fault lines naming its cgroup (no fault is
# injected here: any fault is the daemon's own), restarts and cores, and
# how long it took to start and to serve.  Then systemctl stop.
#
# Writes $S/results/: compat.tsv (one line per daemon and mode, header
# first), versions.tsv (Debian package versions), meta.txt, evidence/
# (kernel lines, mtagctl faults with the core's backtrace, the unit's
# journal, for every daemon and mode that faulted or did not serve),
# compat.done at the end.
set -u
S=${S:-/mnt/mtagtest}
export S
. "$S/lib.sh"
. "$S/daemons.sh"
LIST=$S/daemons.list
NAMES=$(cat "$S/names")
MODES=${MTAG_COMPAT_MODES:-off sync}
TSV=$R/compat.tsv
EVD=$R/evidence
mkdir -p "$EVD"
: >"$RESULTS"
T0=$(date +%s)

field_of() { awk -v n="$1" -v c="$2" '!/^#/ && $1 == n {print $c}' "$LIST"; }
clean() { tr '\t\n' '  ' | sed 's/  *$//'; }
ms() { date +%s%3N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN{printf "%.1f", (b - a) / 1000}'; }

# ------------------------------------------------------------ the guest
{
	echo "started=$(date -u +%FT%TZ)"
	echo "kernel=$(uname -r)"
	echo "libc6=$LIBC_VERSION"
	echo "launcher=$(dpkg-query -W -f='${Version}' mtag-launcher 2>/dev/null || echo none)"
	echo "hw_mte=$HW_MTE"
	echo "mte_tcf_in_proc=$HAVE_TCF"
	echo "fault_report=$HAVE_KREPORT"
	echo "debian=$(cat /etc/debian_version)"
	echo "systemd=$(dpkg-query -W -f='${Version}' systemd)"
	echo "boot_s=$(uptime_s)"
	echo "names=$(paste -sd" " <<<"$NAMES")"
} >"$R/meta.txt"
info "guest: kernel $(uname -r), libc6 $LIBC_VERSION, hw mte $HW_MTE, MTE_TCF $HAVE_TCF, boot took $(uptime_s)s"

# Package versions of every daemon run.
: >"$R/versions.tsv"
for n in $NAMES; do
	for p in $(field_of "$n" 3 | tr , ' '); do
		printf '%s\t%s\t%s\n' "$n" "$p" "$(dpkg-query -W -f='${Version}' "$p" 2>/dev/null || echo missing)" >>"$R/versions.tsv"
	done
done

# Nothing of the list runs before its turn (socket activation, a package
# that enabled itself anyway).
for n in $NAMES; do
	u=$(field_of "$n" 2)
	was=$(systemctl is-active "$u" 2>/dev/null)
	[ "$was" = active ] && info "$u was active at boot (stopped)"
	read -ra extra <<<"$(field_of "$n" 6 | tr , ' ' | sed 's/^-$//')"
	systemctl stop "$u" "${extra[@]}" 2>/dev/null
done
# nginx (the proxies' backend) serves on port 80.
systemctl is-active -q nginx.service || systemctl start nginx.service

printf 'name\tunit\tmode\twrapped\tstart_rc\tstart_s\tserve_s\tserves\trequests\tactive_after\tnrestarts\tprocesses\ttcf\tanon_kb\ttagged_kb\tverdict\treason\tfaults\tfault_line\tcores\tmalloc_anon_kb\tmalloc_tagged_kb\tallocator\n' >"$TSV"

# smoke NAME: one smoke request, with a hard timeout (a daemon that takes
# the connection and never answers).  TOKEN: a fresh word per request.
smoke() {
	TOKEN=$(tr -dc a-z0-9 </dev/urandom | head -c 12)
	START_EPOCH=$START_EPOCH TOKEN=$TOKEN timeout -k 5 120 bash -c \
		'. "$S/lib.sh" && . "$S/daemons.sh" && "smoke_$1"' _ "$1" >>"$EVD/smoke-$1.log" 2>&1
}

# procs_of UNIT: the PIDs of its cgroup (nested cgroups too).
procs_of() {
	local cg; cg=$(systemctl show -p ControlGroup --value "$1")
	[ -n "$cg" ] && [ -d "/sys/fs/cgroup$cg" ] || return 0
	find "/sys/fs/cgroup$cg" -name cgroup.procs -exec cat {} + 2>/dev/null | sort -nu
}

run_one() {
	local n=$1 mode=$2 u t0 t1 t2 rc serves=no serve_s=- start_s wrapped k0 deadline
	local reqs=0 active nrest pids p comm tcf procs="" tcfs="" j anon=0 tagged=0 verdict reason
	local flines nf=0 cores=0 fl=""
	u=$(field_of "$n" 2)
	local extra; read -ra extra <<<"$(field_of "$n" 6 | tr , ' ' | sed 's/^-$//')"
	{
		echo "# written by the mtag compat run (tests/ts/compat/guest/compat.sh)"
		echo "$u $mode"
	} >/etc/mtag/policy.conf
	systemctl daemon-reload
	wrapped=no
	systemctl show -p ExecStart "$u" | grep -q mtag-launcher && wrapped=yes
	systemctl reset-failed "$u" 2>/dev/null
	# Started meanwhile (socket activation: syslog.socket, rpcbind.socket)
	# under the previous policy: stop it, or "start" would be a no-op.
	if systemctl -q is-active "$u"; then
		info "$n/$mode: $u was active before its start (socket activation?): stopped"
		systemctl stop "$u" "${extra[@]}"
	fi
	k0=$(kmsg_count)
	START_EPOCH=$(date +%s)
	t0=$(ms)
	timeout 300 systemctl start "$u"; rc=$?
	t1=$(ms)
	start_s=$(secs "$t0" "$t1")
	deadline=$(( $(date +%s) + ${SMOKE_WAIT:-120} ))
	while :; do
		if smoke "$n"; then
			t2=$(ms); serves=yes; serve_s=$(secs "$t0" "$t2"); reqs=1
			break
		fi
		[ "$(date +%s)" -ge "$deadline" ] && break
		# Failed to start and nothing will restart it.
		[ "$rc" != 0 ] && [ "$(systemctl show -p Restart --value "$u")" = no ] &&
			! systemctl -q is-active "$u" && break
		sleep 1
	done
	if [ $serves = yes ]; then
		for _ in 1 2; do
			smoke "$n" && reqs=$((reqs + 1))
		done
	fi
	sleep 2
	active=$(systemctl is-active "$u")
	nrest=$(systemctl show -p NRestarts --value "$u")

	# Every process of the cgroup: command, tag-check mode.
	pids=$(procs_of "$u")
	declare -A cnt=()
	for p in $pids; do
		comm=$(cat "/proc/$p/comm" 2>/dev/null) || continue
		tcf=$(tcf_of "$p"); tcf=${tcf:-unknown}
		cnt["$comm($tcf)"]=$(( ${cnt["$comm($tcf)"]:-0} + 1 ))
		[[ ",$tcfs," == *",$tcf,"* ]] || tcfs="${tcfs:+$tcfs,}$tcf"
	done
	procs=$(for p in "${!cnt[@]}"; do echo "$p x${cnt[$p]}"; done | sort | paste -sd, | sed 's/,/, /g')
	unset cnt
	# The memory malloc can hand out: anonymous memory of mappings with
	# no file ([heap], arenas, mmap'd chunks, an own allocator's), not the
	# copy-on-write pages of the libraries' data nor [stack]; how much of
	# it is tagged; and which allocator the processes load.
	local pa=0 pm=0 allocs="" a
	for p in $pids; do
		read -r a b < <(awk '/^[0-9a-f]+-[0-9a-f]+ / {path = $6; anonmap = (path == "" || path == "[heap]")}
			/^Anonymous:/ {cur = $2}
			/^VmFlags:/ {if (anonmap) {pa += cur; if ($0 ~ / mt( |$)/) pm += cur}; cur = 0}
			END {print pa + 0, pm + 0}' "/proc/$p/smaps" 2>/dev/null)
		pa=$((pa + ${a:-0})); pm=$((pm + ${b:-0}))
		# The smaps itself, for mtagctl's tests (tests/ts/mtagctl/data/daemons;
		# "smaps-*" stays out of the published evidence).
		if [ "$mode" = sync ]; then cp "/proc/$p/smaps" "$EVD/smaps-$n-$mode-$p.txt" 2>/dev/null; fi
		a=glibc
		if grep -q 'libjemalloc' "/proc/$p/maps" 2>/dev/null; then a=jemalloc
		elif grep -q 'libtcmalloc' "/proc/$p/maps" 2>/dev/null; then a=tcmalloc
		elif ! grep -q '/libc\.so' "/proc/$p/maps" 2>/dev/null; then a=no-libc
		fi
		[[ ",$allocs," == *",$a,"* ]] || allocs="${allocs:+$allocs,}$a"
	done

	# mtagctl: heap tagging and its verdict.
	j=$(mtagctl --json status "$u" 2>/dev/null | jq -c '.[0] // empty' 2>/dev/null)
	if [ -n "$j" ]; then
		anon=$(jq -r '.heap.anonymous_kb' <<<"$j"); tagged=$(jq -r '.heap.tagged_kb' <<<"$j")
		verdict=$(jq -r '.verdict' <<<"$j"); reason=$(jq -r '.reason' <<<"$j")
	else
		verdict=unknown; reason="mtagctl status gave nothing: $(mtagctl --json status "$u" 2>&1 | head -c 200)"
	fi

	# The kernel's tag-check fault lines of this unit since the start.
	flines=$(kmsg_since "$k0" | grep 'tag check fault' | grep -F "/$u")
	[ -n "$flines" ] && nf=$(grep -c . <<<"$flines") && fl=$(head -1 <<<"$flines" | sed 's/^\[ *[0-9.]*\] //')
	cores=$(coredumpctl -q --no-pager --no-legend list --since "@$START_EPOCH" _SYSTEMD_UNIT="$u" 2>/dev/null | grep -c .)

	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' \
		"$n" "$u" "$mode" "$wrapped" "$rc" "$start_s" "$serve_s" "$serves" "$reqs/3" "$active" \
		"${nrest:-0}" "$(clean <<<"${procs:--}")" "${tcfs:--}" "$anon" "$tagged" "$verdict" \
		"$(clean <<<"$reason")" "$nf" "$(clean <<<"${fl:--}")" "$cores" "$pa" "$pm" "${allocs:--}" >>"$TSV"
	info "$n/$mode: wrapped=$wrapped start rc=$rc ${start_s}s serves=$serves (${serve_s}s, $reqs/3 requests) active=$active restarts=${nrest:-0} procs=[$procs] heap ${tagged}/${anon} kB tagged, $verdict; malloc-able ${pm}/${pa} kB tagged, allocator $allocs; faults=$nf cores=$cores"

	# Every process: what it is, its mode, whether the launcher's
	# tunable reached it (its environment at exec).
	{
		echo "== $n ($u) under $mode: the processes of the cgroup"
		for p in $pids; do
			printf 'pid %s ppid %s uid %s comm %s AT_SECURE %s MTE_TCF %s tunable %s exe %s cmdline %s\n' "$p" \
				"$(awk '/^PPid:/ {print $2}' "/proc/$p/status" 2>/dev/null)" \
				"$(awk '/^Uid:/ {print $2 "/" $3}' "/proc/$p/status" 2>/dev/null)" \
				"$(cat "/proc/$p/comm" 2>/dev/null)" \
				"$(od -An -v -tu8 -w16 "/proc/$p/auxv" 2>/dev/null | awk '$1 == 23 {print $2}')" "$(tcf_of "$p")" \
				"$(tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -m1 '^GLIBC_TUNABLES=' || echo none)" \
				"$(readlink "/proc/$p/exe" 2>/dev/null)" \
				"$(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | cut -c1-160)"
		done
	} >"$EVD/procs-$n-$mode.txt"

	# Evidence for whatever went wrong.
	if [ "$nf" -gt 0 ] || [ "$serves" = no ] || [ "$cores" -gt 0 ]; then
		local e=$EVD/$n-$mode.txt
		{
			echo "== $n ($u) under $mode: serves=$serves start rc=$rc active=$active restarts=${nrest:-0} faults=$nf cores=$cores"
			echo "== kernel (tag check fault lines and what else the kernel said since the start)"
			kmsg_since "$k0" | sed 's/^\[ *[0-9.]*\] //'
			echo "== mtagctl faults --unit $u"
			mtagctl --no-pager faults --unit "$u" --since "@$START_EPOCH" 2>&1
			echo "== coredumpctl info"
			coredumpctl --no-pager info --since "@$START_EPOCH" _SYSTEMD_UNIT="$u" 2>&1 | head -80
			echo "== systemctl status"
			systemctl --no-pager -l status "$u" 2>&1 | head -30
			echo "== journal of $u since the start"
			journalctl --no-pager -o short-monotonic -u "$u" --since "@$START_EPOCH" 2>&1 | head -150
		} >"$e" 2>&1
	fi

	# The unit and what activates it (its sockets: DISABLE in the list).
	timeout 180 systemctl stop "$u" "${extra[@]}" || { systemctl kill -s KILL "$u"; sleep 2; }
	systemctl reset-failed "$u" 2>/dev/null
}

for n in $NAMES; do
	tn=$(date +%s)
	if ! declare -F "smoke_$n" >/dev/null; then
		info "$n: no smoke_$n in daemons.sh"
		continue
	fi
	if declare -F "setup_$n" >/dev/null; then
		"setup_$n" >"$EVD/setup-$n.log" 2>&1 || info "$n: setup_$n failed: $(tail -3 "$EVD/setup-$n.log" | clean)"
	fi
	for mode in $MODES; do
		run_one "$n" "$mode"
	done
	info "$n took $(( $(date +%s) - tn ))s"
done

rm -f /etc/mtag/policy.conf
systemctl daemon-reload
echo "finished=$(date -u +%FT%TZ)" >>"$R/meta.txt"
echo "run_s=$(( $(date +%s) - T0 ))" >>"$R/meta.txt"
journalctl -b -o short-monotonic >"$R/journal.txt" 2>&1
dmesg >"$R/dmesg.txt" 2>&1
info "compat run took $(( $(date +%s) - T0 ))s, guest uptime $(uptime_s)s"
echo done >"$R/compat.done"
