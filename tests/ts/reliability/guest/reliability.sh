#!/bin/bash
# reliability.sh -- make reliability, in the guest (tests/ts/reliability/full).
# Three boots of one qemu run (the disk snapshot lives across reboots):
#   boot 1: 1. nginx under load with injected bugs (off, sync, report);
#           2. a burst of tag-check faults with mtag-faultd SIGKILLed and
#              journald restarted; 4. the policy rewritten in place while
#              units restart; then reboot
#   boot 2: boot time and failed units without a glob; writes
#           "*.service sync"; reboot
#   boot 3: the same with the glob; units wrapped; power off
# Results: key=value files in $S/results/ (load.tsv, burst.env, boot.tsv,
# policy.env), read by tools/reliability-table through the host harness.
S=/mnt/mtagtest
. "$S/lib.sh"
set -u
STATE=/var/lib/mtag-reliability
mkdir -p "$STATE"
boot=$(( $(cat "$STATE/boots" 2>/dev/null || echo 0) + 1 ))
echo $boot >"$STATE/boots"
sync
MSGID_FAULT=5fda042e18d64e2e9d913704e87926cb
info "boot $boot at $(uptime_s)s"

# boot_figures N: time to multi-user.target and failed units of this boot.
boot_figures() {
	local t
	for _ in $(seq 120); do
		t=$(systemd-analyze time 2>/dev/null) && break
		sleep 1
	done
	echo "$t" >"$R/boot$1-analyze.txt"
	systemctl --failed --no-legend --plain 2>/dev/null | awk '{print $1}' | sort >"$R/boot$1-failed.txt"
	# "multi-user.target @1min 2.345s" (the default target may be
	# graphical.target, which systemd-analyze time names instead)
	systemd-analyze critical-chain multi-user.target >"$R/boot$1-chain.txt" 2>&1
	local mu; mu=$(sed -n 's/^multi-user.target @\([^ ]*\( [0-9.]*m\?s\)\?\).*/\1/p' "$R/boot$1-chain.txt" | head -1)
	local secs; secs=$(awk '{s = 0; for (i = 1; i <= NF; i++) { v = $i; if (v ~ /min$/) { sub(/min$/, "", v); s += v * 60 } else if (v ~ /ms$/) { sub(/ms$/, "", v); s += v / 1000 } else if (v ~ /s$/) { sub(/s$/, "", v); s += v } } printf "%.3f", s}' <<<"$mu")
	local kern; kern=$(sed -n 's/^Startup finished in \([^ ]*\) (kernel).*/\1/p' <<<"$t")
	local wrapped; wrapped=$(ls /run/systemd/generator/*.service.d/zz-mtag-launcher.conf 2>/dev/null | wc -l)
	local services; services=$(systemctl list-units --type=service --state=active,activating,failed --no-legend --plain | wc -l)
	local launched; launched=$(journalctl -b -o cat "MESSAGE_ID=$MSGID_APPLIED" --output-fields=MTAG_UNIT 2>/dev/null | sort -u | wc -l)
	printf 'boot\t%s\tmulti_user_s\t%s\tkernel\t%s\tfailed\t%s\twrapped\t%s\tservices\t%s\tlaunched_units\t%s\n' \
		"$1" "$secs" "$kern" "$(wc -l <"$R/boot$1-failed.txt")" "$wrapped" "$services" "$launched" >>"$R/boot.tsv"
	info "boot $1: multi-user.target after ${secs}s in user space, $(wc -l <"$R/boot$1-failed.txt") failed units ($(tr '\n' ' ' <"$R/boot$1-failed.txt")), $wrapped units wrapped, $launched started through the launcher, $services services"
}

reboot_now() {
	sync
	info "rebooting at $(uptime_s)s"
	systemctl reboot
	sleep 600
}

# ---------------------------------------------------------------- boot 2, 3
if [ $boot = 2 ]; then
	boot_figures 2
	mkdir -p /etc/mtag
	printf '# make reliability: every service\n*.service sync\n' >/etc/mtag/policy.conf
	reboot_now
elif [ $boot = 3 ]; then
	boot_figures 3
	cp /etc/mtag/policy.conf "$R/boot3-policy.conf"
	journalctl -b -p err -o short-monotonic --no-pager >"$R/boot3-errors.txt" 2>&1
	touch "$R/reliability.done"
	exit 0
elif [ $boot != 1 ]; then
	exit 0
fi

boot_figures 1
# ---------------------------------------------------------------- 1. load
N_REQ=${REL_REQUESTS:-4000}
EVERY=${REL_BUG_EVERY:-50}
CONC=${REL_CONCURRENCY:-4}
REENABLE=${REL_REENABLE:-100ms}
# totals: the accounting of the whole boot (burst-account)
totals() { bash "$S/burst-account" -b; }
val() { sed -n "s/^$1=//p" <<<"$2"; }
printf 'mode\tsent\tanswered\tbugs_sent\tbugs_answered\tab_failed\tworker_deaths\treq_per_s\tkernel_lines\tsuppressed_lines\tfaultd_entries\tlost\tduplicates\tseconds\n' >"$R/load.tsv"
for mode in off sync report; do
	mkdir -p /etc/mtag
	printf 'nginx.service %s%s\n' "$mode" "$([ $mode = report ] && echo " reenable=$REENABLE")" >/etc/mtag/policy.conf
	systemctl daemon-reload
	systemctl restart nginx.service
	wait_for 30 svc_ok nginx
	a0=$(totals)
	errl=$(wc -l </var/log/nginx/error.log 2>/dev/null || echo 0)
	rounds=$((N_REQ / EVERY)) ok=0 fail=0 bugs_ok=0 tsum=0 t0=$(date +%s.%N)
	for i in $(seq $rounds); do
		# The bug request goes in while ab's batch runs (so that under
		# sync the requests a dying worker has in flight count too).
		( sleep 0.2
		  timeout 10 bash -c 'exec 3<>/dev/tcp/127.0.0.1/80 && printf "GET /MTAGBUG-overflow HTTP/1.0\r\n\r\n" >&3 && head -1 <&3' >/run/rel-bug.out 2>/dev/null ) &
		bp=$!
		# -r: go on after a connection reset (a worker that died).
		out=$(ab -q -r -n $((EVERY - 1)) -c "$CONC" -s 10 http://127.0.0.1/ 2>&1)
		c=$(sed -n 's/^Complete requests: *//p' <<<"$out"); f=$(sed -n 's/^Failed requests: *//p' <<<"$out")
		n2=$(sed -n 's/^Non-2xx responses: *//p' <<<"$out")
		tt=$(sed -n 's/^Time taken for tests: *\([0-9.]*\).*/\1/p' <<<"$out")
		good=$(( ${c:-0} - ${f:-0} - ${n2:-0} )); [ $good -lt 0 ] && good=0
		ok=$((ok + good)); fail=$((fail + EVERY - 1 - good))
		tsum=$(awk -v a="$tsum" -v b="${tt:-0}" 'BEGIN {print a + b}')
		wait $bp
		ans=$(cat /run/rel-bug.out 2>/dev/null)
		[[ "$ans" == HTTP/1.* ]] && bugs_ok=$((bugs_ok + 1))
	done
	secs=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN {printf "%.1f", b - a}')
	sleep 3
	wait_for 30 svc_ok nginx
	a1=$(totals)
	deaths=$(tail -n +$((errl + 1)) /var/log/nginx/error.log 2>/dev/null | grep -c 'exited on signal 11')
	rps=$(awk -v n="$ok" -v t="$tsum" 'BEGIN {printf "%.1f", (t > 0 ? n / t : 0)}')
	d() { echo $(( $(val "$1" "$a1") - $(val "$1" "$a0") )); }
	printf '%s\t%d\t%d\t%d\t%d\t%d\t%d\t%s\t%d\t%d\t%d\t%d\t%d\t%s\n' "$mode" $((rounds * EVERY)) $((ok + bugs_ok)) \
		$rounds $bugs_ok $fail "$deaths" "$rps" "$(d kernel_lines)" "$(d suppressed_lines)" "$(d faultd_entries)" \
		"$(d lost)" "$(d duplicates)" "$secs" >>"$R/load.tsv"
	info "load $mode: $((ok + bugs_ok)) of $((rounds * EVERY)) answered ($bugs_ok of $rounds bug requests), $fail failed, $deaths worker deaths, $rps req/s, kernel lines $(d kernel_lines), faultd entries $(d faultd_entries), ${secs}s"
done
cp /var/log/nginx/error.log "$R/nginx-error.log" 2>/dev/null

# ---------------------------------------------------------------- 2. burst
PROCS=${REL_BURST_PROCS:-50} PER=${REL_BURST_FAULTS:-200}
install -m 755 "$S/faultburst" /usr/local/bin/faultburst
a0=$(totals)
t0=$(date +%s.%N)
# One transient service per process: the kernel's rate limit is per
# cgroup (10 lines / 5 s), so more cgroups give faultd more lines.
units=$PROCS
for i in $(seq "$units"); do
	systemd-run --quiet --wait --unit="faultburst-$i" --property=Type=exec /usr/local/bin/faultburst 1 "$PER" &
done
# mtag-faultd SIGKILLed at a random point (systemd restarts it), journald
# restarted once.
( sleep "0.$((RANDOM % 9 + 1))"; systemctl kill -s KILL mtag-faultd.service; echo "faultd killed at $(uptime_s)s" >>"$R/burst.log"
  sleep "1.$((RANDOM % 9))"; systemctl restart systemd-journald.service; echo "journald restarted at $(uptime_s)s" >>"$R/burst.log" ) &
wait
burst_s=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN {printf "%.1f", b - a}')
faults=0
for i in $(seq "$units"); do
	f=$(journalctl -b -u "faultburst-$i" -o cat | sed -n 's/^faultburst: \([0-9]*\) faults.*/\1/p')
	faults=$((faults + ${f:-0}))
done
# Until faultd is back and caught up (its entries stop growing).
wait_for 60 systemctl is-active -q mtag-faultd.service
last=-1
for _ in $(seq 60); do
	n=$(journalctl -b -o cat MESSAGE_ID=$MSGID_FAULT | wc -l)
	[ "$n" = "$last" ] && break
	last=$n; sleep 2
done
a1=$(totals)
restarts=$(systemctl show -p NRestarts --value mtag-faultd.service)
kdmesg=$(dmesg | grep -c 'tag check fault in faultburst')
{
	echo "faults=$faults"
	echo "processes=$PROCS"
	echo "cgroups=$units"
	echo "burst_s=$burst_s"
	echo "faultd_restarts=$restarts"
	echo "journald_restarts=1"
	echo "dmesg_fault_lines=$kdmesg"
	for k in kernel_lines suppressed_lines suppressed faultd_entries lost duplicates orphans; do
		echo "$k=$(( $(val $k "$a1") - $(val $k "$a0") ))"
	done
} >"$R/burst.env"
info "burst: $(tr '\n' ' ' <"$R/burst.env")"

# ---------------------------------------------------------------- 4. policy
# Rewritten in place by policy-writer while memcached and nginx restart
# (daemon-reload, restart) in a loop: every start must be through the
# launcher in its mode, from a file:line.
cat >/etc/mtag/policy.conf <<-'EOF'
nginx.service sync
memcached.service report reenable=10s
EOF
systemctl daemon-reload
c0=$(journalctl -n0 --show-cursor | sed -n 's/^-- cursor: //p')
rm -f /run/policy-writer.stop
# The writer (an editor that rewrites in place: truncate, part, pause
# 0-20 ms, rest; again after 60-250 ms): the same two entries, a comment
# that changes.
(
	n=0
	while [ ! -e /run/policy-writer.stop ]; do
		t=$(printf '# version %d\nnginx.service sync\nmemcached.service report reenable=10s\n_' $n); t=${t%_}
		cut=$((RANDOM % (${#t} + 1)))
		# (not right after a newline: see tests/ts/reliability/policy-writer)
		while [ $cut -gt 0 ] && [ $cut -lt ${#t} ] && [ "${t:cut-1:1}" = $'\n' ]; do cut=$((cut + 1)); done
		: >/etc/mtag/policy.conf
		printf '%s' "${t:0:cut}" >>/etc/mtag/policy.conf
		sleep "$(printf 0.%03d $((RANDOM % 20)))"
		printf '%s' "${t:cut}" >>/etc/mtag/policy.conf
		n=$((n + 1))
		sleep "$(printf 0.%03d $((RANDOM % 190 + 60)))"
	done
	echo $n
) >"$R/policy-writes.txt" &
wp=$!
starts=0 start_fail=0 t0=$(date +%s)
ROUNDS=${REL_POLICY_ROUNDS:-20}
for i in $(seq "$ROUNDS"); do
	ts=$(date +%s%N)
	systemctl daemon-reload
	te=$(date +%s%N)
	echo $(( (te - ts) / 1000000 )) >>"$R/policy-reload-ms.txt"
	for u in nginx.service memcached.service; do
		if systemctl restart "$u"; then starts=$((starts + 1)); else start_fail=$((start_fail + 1)); fi
	done
done
touch /run/policy-writer.stop; wait $wp
policy_s=$(( $(date +%s) - t0 ))
# What the launcher applied at each start (its journal entries).
# (No field match with --after-cursor: systemd 252 skips the first match.)
journalctl --after-cursor="$c0" -o json --no-pager 2>/dev/null >"$R/policy-journal.json"
jq -r --arg id "$MSGID_APPLIED" 'select(.MESSAGE_ID == $id) | [.MTAG_UNIT, .MTAG_MODE, .MTAG_POLICY_SOURCE] | @tsv' \
	<"$R/policy-journal.json" >"$R/policy-applied.tsv"
applied=$(wc -l <"$R/policy-applied.tsv")
wrong=$(awk -F'\t' '!(($1 == "nginx.service" && $2 == "sync") || ($1 == "memcached.service" && $2 == "report")) || $3 !~ /^\/etc\/mtag\/policy.conf:[0-9]+$/' "$R/policy-applied.tsv" | wc -l)
errors=$(jq -r 'select(.MESSAGE_ID == "45b1f191647949c384fa4bd2829040bd") | .MESSAGE' <"$R/policy-journal.json" | tee "$R/policy-errors.txt" | wc -l)
rm -f "$R/policy-journal.json"
{
	echo "rounds=$ROUNDS"
	echo "rewrites=$(cat "$R/policy-writes.txt")"
	echo "starts=$starts"
	echo "start_failures=$start_fail"
	echo "applied_entries=$applied"
	echo "wrong_mode_or_source=$wrong"
	echo "config_errors=$errors"
	echo "seconds=$policy_s"
	echo "reload_ms_median=$(sort -n "$R/policy-reload-ms.txt" | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}')"
} >"$R/policy.env"
info "policy: $(tr '\n' ' ' <"$R/policy.env")"
# Back to no policy for boot 2's baseline.
rm -f /etc/mtag/policy.conf
reboot_now
