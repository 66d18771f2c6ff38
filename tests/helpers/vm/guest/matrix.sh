#!/bin/bash
# matrix.sh -- the mtag proof, inside the booted arm64 guest (one boot).
#
# For each policy mode (sync, async, off) set through /etc/mtag/policy.conf
# + daemon-reload + restart, for each service (nginx: master + workers;
# memcached: one event-loop process; ssh: a process per connection):
#   SVC/MODE/proc-status   /proc/PID/status MTE_TCF of every process = MODE
#   SVC/MODE/journal       the launcher's entry: unit, mode, policy source
#   SVC/MODE/BUG           BUG = overflow | uaf injected by a real request:
#                          sync: SIGSEGV si_code 9, async: si_code 8, death
#                          of the process that read it, service back and
#                          serving; off: the request completes, no trap
#   SVC/MODE/BUG/kernel-report   the kernel's "mte: ... tag check fault"
#                          line names that thread (sync: address and tags)
# and the report column (policy "report reenable=300ms"): on one
# connection, so in one thread of the service, the triggers spin BUG BUG
# spin BUG (spin: 400 ms of that thread's CPU time):
#   SVC/report/BUG         every request answered, no SIGSEGV, the process
#                          lives on, each BUG completed (as under off)
#   SVC/report/BUG/kernel-report  the report-mode kernel line names that
#                          thread, with address and both tags; the second
#                          BUG (checking off after the first) is not
#                          reported, the third (after the re-enable time)
#                          is: two lines for three bugs
#   SVC/report/BUG/proc-state  that thread: MTE_Report on, checking
#                          suspended; every other thread of the service:
#                          checking active (a thread an earlier bug of the
#                          column suspended stays so until it runs again)
# plus guest/* checks of the kernel, the libc and mtebug, postgres/*
# (postgres.sh: postgresql@VERSION-main under sync through the kernel's exec
# default, an injected bug in a backend), and mtagctl/*
# (mtagctl.sh: status verdicts, faults with causes and cores, the
# structured journal entries, the Prometheus file), upgrade/* (upgrade.sh:
# memcached under "async upgrade=": the upgraded start after an async
# crash, the exact report, the return to async, the per-boot limit).
# Prints PASS/FAIL/SKIP lines (also to $S/results/results.txt).
set -u
. "$(dirname "$0")/lib.sh"
MODES=${MTAG_MODES:-sync async off report}
SVCS=${MTAG_SVCS:-nginx memcached ssh}
BUGS=${MTAG_BUGS:-overflow uaf}
T0=$(date +%s)
declare -A REPORT_SUSPENDED=()	# SVC -> TIDs a report-column bug suspended
: >"$RESULTS"

info "guest: kernel $(uname -r), libc6 $LIBC_VERSION, launcher $(dpkg-query -W -f='${Version}' mtag-launcher 2>/dev/null || echo none)"
info "guest: hw mte=$HW_MTE MTE_TCF=$HAVE_TCF fault-report=$HAVE_KREPORT mtag-libc=$HAVE_MTAG_LIBC, boot took $(uptime_s)s"

# ------------------------------------------------------------ guest basics
[ "$HW_MTE" = yes ] && pass guest/hw-mte || fail guest/hw-mte "no 'mte' in /proc/cpuinfo Features"
if [ "$HAVE_TCF" = yes ] && [ "$HAVE_KREPORT" = yes ]; then
	pass guest/kernel-mtag
else
	skip guest/kernel-mtag "kernel $(uname -r) is not the mtag kernel (no MTE_TCF in /proc/self/status or no abi.mte_fault_report); build/kernel/Image missing?"
fi
if [ "$HAVE_MTAG_LIBC" = yes ]; then
	pass guest/libc-mtag1
	for bug in overflow uaf; do
		out=$(_MTAG_ENABLE=3 /usr/lib/mtag-test/mtebug $bug 2>&1); rc=$?
		if [ $rc -eq 139 ] && grep -q 'SIGSEGV si_code=9 ' <<<"$out"; then
			pass "guest/mtebug-_MTAG_ENABLE=3-$bug"
		else
			fail "guest/mtebug-_MTAG_ENABLE=3-$bug" "exit $rc: $(tr '\n' ' ' <<<"$out")"
		fi
	done
	out=$(_MTAG_ENABLE=0 /usr/lib/mtag-test/mtebug overflow 2>&1); rc=$?
	if [ $rc -eq 0 ] && grep -q 'overflow completed' <<<"$out"; then
		pass guest/mtebug-_MTAG_ENABLE=0-overflow
	else
		fail guest/mtebug-_MTAG_ENABLE=0-overflow "exit $rc: $(tr '\n' ' ' <<<"$out")"
	fi
else
	skip guest/libc-mtag1 "libc6 in the guest is $LIBC_VERSION, not the +mtag1 build (no build/debs/libc6_*+mtag1_arm64.deb when the image was made)"
	out=$(GLIBC_TUNABLES=glibc.mem.tagging=3 /usr/lib/mtag-test/mtebug overflow 2>&1)
	info "stock libc: GLIBC_TUNABLES=glibc.mem.tagging=3 mtebug overflow: $(tr '\n' ' ' <<<"$out")"
fi
if [ "$HAVE_LAUNCHER" = yes ]; then
	pass guest/launcher-installed
else
	skip guest/launcher-installed "mtag-launcher not in the image (no build/debs/mtag-launcher_*_arm64.deb); service cases run with GLIBC_TUNABLES set directly and SKIP"
fi

# OpenSSH 9.8 and later (trixie's 10.0) refuse a source address for a
# while after one of its sessions crashed (PerSourcePenalties, "crash:90"):
# sshd defending itself, and what an admin gets on trixie when MTE kills a
# session.  Every request of this test comes from 127.0.0.1 and most of
# them crash a session on purpose, so the test's own address is exempt
# here; bookworm's 9.2 has no such option (and refuses unknown ones).
if sshd -T 2>/dev/null | grep -qi '^persourcepenalties '; then
	printf 'PerSourcePenaltyExemptList 127.0.0.1,::1\n' >/etc/ssh/sshd_config.d/mtag-test.conf
	systemctl reload ssh.service || fail guest/ssh-penalties "systemctl reload ssh failed"
	info "guest: sshd has PerSourcePenalties ($(sshd -T 2>/dev/null | grep -i '^persourcepenalties ')): 127.0.0.1 and ::1 exempt for this test"
fi

# ------------------------------------------------------------ one case
# result NAME OK REASON: PASS/FAIL, or SKIP (with what happened) when the
# mode was not set through the launcher.
result() {
	local name=$1 ok=$2 why=$3
	if [ "$HAVE_LAUNCHER" != yes ]; then
		skip "$name" "no mtag-launcher; with GLIBC_TUNABLES set directly: $([ "$ok" = 1 ] && echo would pass || echo "would fail: $why")"
	elif [ "$ok" = 1 ]; then
		pass "$name"
	else
		fail "$name" "$why"
	fi
}

ev_since() { tail -n +"$(( $1 + 1 ))" "$EV" 2>/dev/null; }
ev_count() { if [ -f "$EV" ]; then wc -l <"$EV"; else echo 0; fi; }
# The events of one trigger: first "trigger=" line after line N.
ev_trigger() { ev_since "$1" | grep -m1 " trigger=$2\$"; }
field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<"$2"; }

# check_status SVC MODE
check_status() {
	local svc=$1 mode=$2 u=$1.service want pids p tcf bad="" got=""
	want=$(mode_tcf "$mode")
	pids=$(main_pid "$u")
	[ "$svc" = nginx ] && pids="$pids $(nginx_workers)"
	for p in $pids; do
		[ "$p" -gt 0 ] 2>/dev/null || { bad="$bad no-main-pid"; continue; }
		tcf=$(tcf_of "$p")
		got="$got $p:${tcf:-?}(mt=$(mt_maps "$p"))"
		if [ "$HAVE_TCF" = yes ]; then
			[ "$tcf" = "$want" ] || bad="$bad $p:$tcf"
		fi
		if [ "$mode" = report ]; then
			local rep; rep=$(status_of "$p" MTE_Report)
			got="$got,report=${rep:-?}"
			[ "$rep" = on ] || bad="$bad $p:MTE_Report=${rep:-missing}"
		fi
	done
	if [ "$HAVE_TCF" != yes ]; then
		skip "$svc/$mode/proc-status" "kernel has no MTE_TCF line (not the mtag kernel); pids(mt vmas):$got"
	elif [ -z "$bad" ] && [ -n "$pids" ]; then
		result "$svc/$mode/proc-status" 1 ""
		info "$svc/$mode: MTE_TCF$got"
	else
		result "$svc/$mode/proc-status" 0 "want MTE_TCF $want, got$got"
	fi
}

# check_journal SVC MODE
check_journal() {
	local svc=$1 mode=$2 u=$1.service e m src unit want
	if [ "$HAVE_LAUNCHER" != yes ]; then
		skip "$svc/$mode/journal" "no mtag-launcher in the image"
		return
	fi
	e=$(applied_entry "$u")
	unit=$(sed -n 's/^MTAG_UNIT=//p' <<<"$e")
	m=$(sed -n 's/^MTAG_MODE=//p' <<<"$e")
	src=$(sed -n 's/^MTAG_POLICY_SOURCE=//p' <<<"$e")
	want=$(policy_line "$u")
	if [ "$unit" = "$u" ] && [ "$m" = "$mode" ] && [ "$src" = "$want" ]; then
		pass "$svc/$mode/journal"
		info "$svc/$mode: journal MTAG_UNIT=$unit MTAG_MODE=$m MTAG_POLICY_SOURCE=$src MTAG_TUNABLE=$(sed -n 's/^MTAG_TUNABLE=//p' <<<"$e")"
	else
		fail "$svc/$mode/journal" "want unit=$u mode=$mode source=$want; launcher entry of this start (InvocationID $(systemctl show -p InvocationID --value "$u")): unit='$unit' mode='$m' source='$src'"
	fi
}

# check_report_bug SVC BUG: the report column (see the top).
check_report_bug() {
	local svc=$1 bug=$2 u=$1.service name=$1/report/$2
	local n0 k0 answers pid tid comm trigs tids nbug nlines lines why="" ok=1 a others
	n0=$(ev_count); k0=$(kmsg_count)
	if [ "$HAVE_REPORT" != yes ]; then
		skip "$name" "kernel has no report-only mode (no MTE_Report in /proc/self/status)"
		return
	fi
	answers=$(svc_seq "$svc" spin "$bug" "$bug" spin "$bug")
	wait_for 10 bash -c "[ \$(tail -n +$((n0 + 1)) $EV | grep -c ' $bug completed\$') -ge 3 ]"
	trigs=$(ev_since "$n0" | grep ' trigger=')
	if [ -z "$trigs" ]; then
		result "$name" 0 "the triggers never reached the service (no event in $EV); answers '$answers'"
		return
	fi
	pid=$(field pid "$(head -1 <<<"$trigs")"); tid=$(field tid "$(head -1 <<<"$trigs")")
	comm=$(field comm "$(head -1 <<<"$trigs")")
	# OpenSSH 10 (trixie) hands the client's identification from
	# sshd-session to the sshd-auth it execs for the pre-auth phase, which
	# reads it again: the connection's triggers are those of the process
	# that read the first one.
	others=$(grep -v " pid=$pid " <<<"$trigs")
	[ -z "$others" ] || info "$name: the identification was read again by $(sed -n 's/.* pid=\([0-9]*\) .* comm=\([^ ]*\) .*/\2[\1]/p' <<<"$others" | sort -u | tr '\n' ' ')(another process of the connection)"
	trigs=$(grep " pid=$pid " <<<"$trigs")
	tids=$(sed -n 's/.* tid=\([0-9]*\) .*/\1/p' <<<"$trigs" | sort -u | tr '\n' ' ')
	[ "$tids" = "$tid " ] || { ok=0; why="$why; the triggers were read by threads $tids, not one"; }
	[ "$(wc -l <<<"$trigs")" = 5 ] || { ok=0; why="$why; $(wc -l <<<"$trigs") triggers seen, want 5"; }
	nbug=$(ev_since "$n0" | grep -c "tid=$tid .* $bug completed\$")
	[ "$nbug" = 3 ] || { ok=0; why="$why; $nbug of 3 '$bug completed' events in thread $tid"; }
	ev_since "$n0" | grep -q 'SIGSEGV' && { ok=0; why="$why; trapped: $(ev_since "$n0" | grep -m1 SIGSEGV)"; }
	case "$svc" in
	ssh)
		answered ssh "$answers" || { ok=0; why="$why; no KEXINIT after the identification ('$answers')"; } ;;
	*)
		[ "$(wc -l <<<"$answers")" = 5 ] || { ok=0; why="$why; $(wc -l <<<"$answers") of 5 answers"; }
		while IFS= read -r a; do
			answered "$svc" "$a" || { ok=0; why="$why; answer '$a'"; }
		done <<<"$answers" ;;
	esac
	if [ "$svc" != ssh ]; then
		kill -0 "$pid" 2>/dev/null || { ok=0; why="$why; process $pid is gone"; }
	fi
	svc_ok "$svc" || { ok=0; why="$why; service no longer answers"; }
	result "$name" $ok "${why#; }"
	[ $ok = 1 ] && info "$name: $comm[$pid/$tid] ran spin $bug $bug spin $bug on one connection, all answered ($(tr '\n' ' ' <<<"$answers")), no SIGSEGV"

	# The kernel's lines: two for the three bugs, address and tags.
	wait_for 5 bash -c "[ \$(dmesg | tail -n +$((k0 + 1)) | grep -c 'tag check fault in .*\[$tid\]') -ge 2 ]"
	lines=$(kmsg_since "$k0" | grep "tag check fault in .*\[$tid\]" | sed 's/^\[ *[0-9.]*\] //')
	nlines=$(grep -c . <<<"$lines")
	ok=1 why=""
	[ "$nlines" = 2 ] || { ok=0; why="$why; $nlines kernel lines for thread $tid, want 2 (bug 1 and 3; bug 2 ran unchecked)"; }
	while IFS= read -r l; do
		[ -n "$l" ] || continue
		local ka pt mt
		ka=$(sed -n 's/.* addr \(0x[0-9a-f]*\) .*/\1/p' <<<"$l")
		pt=$(sed -n 's/.* pointer tag \(0x[0-9a-f]*\) .*/\1/p' <<<"$l")
		mt=$(sed -n 's/.* memory tag \([0-9a-fx]*\) .*/\1/p' <<<"$l")
		[[ "$l" == "mte: sync tag check fault in $comm[$tid]: addr "*" pc 0x"*" (report mode: tag checks off in this thread)" ]] ||
			{ ok=0; why="$why; not a report-mode line of $comm[$tid]"; }
		if [ -z "$ka" ] || [ -z "$pt" ] || [ -z "$mt" ]; then
			ok=0; why="$why; no address/tags"
		else
			[ $(( (ka >> 56) & 0xf )) -eq $((pt)) ] || { ok=0; why="$why; pointer tag $pt is not the tag of $ka"; }
			[ "$pt" != "$mt" ] || { ok=0; why="$why; pointer tag = memory tag"; }
		fi
	done <<<"$lines"
	result "$name/kernel-report" $ok "${why#; }: $(tr '\n' '|' <<<"$lines")"
	[ $ok = 1 ] && info "$name: kernel: $(head -1 <<<"$lines")"

	# /proc: the faulting thread's checking is off, every other thread's on.
	ok=1 why=""
	local p t st others=0
	if [ "$svc" = ssh ]; then
		# The connection process ends with the connection: only the
		# listener, which never faulted, is left.
		st=""
	else
		st=$(status_of "$pid/task/$tid" MTE_ReportChecking)
		[ "$st" = suspended ] || { ok=0; why="$why; thread $tid: MTE_ReportChecking '${st:-missing}', want suspended"; }
		[ "$(status_of "$pid/task/$tid" MTE_Report)" = on ] || { ok=0; why="$why; thread $tid: MTE_Report not on"; }
	fi
	# A thread suspended by an earlier bug of this column stays so until
	# it has run 300 ms of its own CPU time: an idle worker never does.
	local earlier=${REPORT_SUSPENDED[$svc]:-} kept=""
	for p in $(main_pid "$u") $([ "$svc" = nginx ] && nginx_workers); do
		# A glob would stay literal when the process is gone.
		# shellcheck disable=SC2045
		for t in $(ls "/proc/$p/task" 2>/dev/null); do
			[ "$t" = "$tid" ] && continue
			if [[ " $earlier " == *" $t "* ]]; then
				kept="$kept $t:$(status_of "$p/task/$t" MTE_ReportChecking)"
				continue
			fi
			others=$((others + 1))
			a=$(status_of "$p/task/$t" MTE_ReportChecking)
			[ "$a" = active ] || { ok=0; why="$why; thread $t of $p: MTE_ReportChecking '${a:-missing}'"; }
		done
	done
	[ "$others" -gt 0 ] || { ok=0; why="$why; no other thread to look at"; }
	[ "$svc" = ssh ] || REPORT_SUSPENDED[$svc]="$earlier $tid"
	result "$name/proc-state" $ok "${why#; }"
	[ $ok = 1 ] && info "$name: /proc: thread $tid ${st:-gone (ssh connection closed)}, $others other threads of the service active${kept:+ (not counted, suspended by the earlier bug of this column:$kept)}"
}

# check_bug SVC MODE BUG
check_bug() {
	local svc=$1 mode=$2 bug=$3 u=$1.service name=$1/$2/$3
	if [ "$mode" = report ]; then
		check_report_bug "$svc" "$bug"
		return
	fi
	local c n0 before_pid before_workers answer trig pid tid comm segv code addr why="" ok=1
	local errlog_lines krep k0
	c=$(cursor); n0=$(ev_count); k0=$(kmsg_count)
	before_pid=$(main_pid "$u"); before_workers=$(nginx_workers)
	errlog_lines=$(wc -l </var/log/nginx/error.log 2>/dev/null || echo 0)

	answer=$(svc_bug "$svc" "$bug")
	wait_for 10 ev_trigger "$n0" "$bug" >/dev/null
	trig=$(ev_trigger "$n0" "$bug")
	if [ -z "$trig" ]; then
		result "$name" 0 "the trigger never reached the service (no event in $EV); answer '$answer'"
		[ "$HAVE_KREPORT" = yes ] && skip "$name/kernel-report" "no trigger"
		return
	fi
	pid=$(field pid "$trig"); tid=$(field tid "$trig"); comm=$(field comm "$trig")

	if [ "$mode" = off ]; then
		wait_for 5 grep -q "pid=$pid tid=$tid .* $bug completed" "$EV"
		segv=$(ev_since "$n0" | grep "pid=$pid .*SIGSEGV")
		grep -q "pid=$pid tid=$tid .* $bug completed" "$EV" || { ok=0; why="$why; no '$bug completed' event"; }
		[ -z "$segv" ] || { ok=0; why="$why; trapped: $segv"; }
		answered "$svc" "$answer" || { ok=0; why="$why; request did not complete (answer '$answer')"; }
		# (sshd's connection process ends when the client hangs up; its
		# answer after the bug -- the KEXINIT -- shows it went on.)
		if [ "$svc" != ssh ]; then
			kill -0 "$pid" 2>/dev/null || { ok=0; why="$why; process $pid is gone"; }
		fi
		svc_ok "$svc" || { ok=0; why="$why; service no longer answers"; }
		result "$name" $ok "${why#; }"
		[ $ok = 1 ] && info "$name: $comm[$pid] ran the $bug, answered '$answer', no trap"
		krep=$(kmsg_since "$k0" | grep 'tag check fault')
		if [ "$HAVE_KREPORT" != yes ]; then
			skip "$name/kernel-report" "not the mtag kernel"
		elif [ -z "$krep" ]; then
			result "$name/kernel-report" 1 ""
		else
			result "$name/kernel-report" 0 "unexpected report: $krep"
		fi
		return
	fi

	local want_code=9; [ "$mode" = async ] && want_code=8
	wait_for 10 grep -q "pid=$pid .*SIGSEGV" "$EV"
	segv=$(ev_since "$n0" | grep -m1 "pid=$pid .*SIGSEGV")
	code=$(field si_code "$segv"); addr=$(field addr "$segv")
	if [ -z "$segv" ] && [ "$svc" = redis-server ]; then
		# redis has its own SIGSEGV handler (so the injection library
		# installs none): its crash report has the signal.
		wait_for 10 grep -q "crashed by signal: 11, si_code: " /var/log/redis/redis-server.log
		segv=$(grep "crashed by signal: 11, si_code: " /var/log/redis/redis-server.log | tail -1)
		code=$(sed -n 's/.*si_code: \([0-9]*\).*/\1/p' <<<"$segv")
		# (si_addr without the tag: no SA_EXPOSE_TAGBITS in redis)
		addr=""
	fi
	[ "$code" = "$want_code" ] || { ok=0; why="$why; want SIGSEGV si_code=$want_code, got '${segv:-no SIGSEGV}'"; }
	answered "$svc" "$answer" && { ok=0; why="$why; the request completed ('$answer')"; }
	# (a process that dumps core lives on until systemd-coredump has read
	# the core: seconds on a loaded host)
	wait_for 30 bash -c "! kill -0 $pid 2>/dev/null" || { ok=0; why="$why; process $pid still alive after 30 s"; }
	# The death, as the system saw it.
	local death=""
	case "$svc" in
	nginx)
		wait_for 10 bash -c "tail -n +$((errlog_lines + 1)) /var/log/nginx/error.log | grep -q 'worker process $pid exited on signal 11'"
		death=$(tail -n +$((errlog_lines + 1)) /var/log/nginx/error.log | grep -m1 "worker process $pid exited on signal 11")
		[ -n "$death" ] || { ok=0; why="$why; no 'worker process $pid exited on signal 11' in nginx's error.log"; }
		# Respawned worker, serving.
		wait_for 20 svc_ok nginx || { ok=0; why="$why; nginx does not answer afterwards"; }
		local now; now=$(nginx_workers)
		[ -n "$now" ] && ! grep -qw "$pid" <<<"$now" || { ok=0; why="$why; no replacement worker (before: $before_workers, now: $now)"; }
		[ "$(main_pid "$u")" = "$before_pid" ] || { ok=0; why="$why; master changed"; }
		death="$death; workers $before_workers-> $now"
		;;
	memcached | redis-server | named)
		wait_for 15 bash -c "journalctl --after-cursor='$c' -o cat | grep -q '^$u: Main process exited, code=.*status=11/SEGV'"
		death=$(since "$c" | grep -m1 "^$u: Main process exited, code=.*status=11/SEGV")
		[ -n "$death" ] || { ok=0; why="$why; no 'status=11/SEGV' for $u in the journal"; }
		wait_for 30 bash -c "[ \"\$(systemctl show -p MainPID --value $u)\" != $before_pid ] && systemctl -q is-active $u" ||
			{ ok=0; why="$why; systemd did not restart $u"; }
		wait_for 20 svc_ok "$svc" || { ok=0; why="$why; $svc does not answer afterwards"; }
		death="$death; restarted as pid $(main_pid "$u")"
		;;
	ssh)
		# A per-connection child died; the listener stays.
		death="connection process $pid gone"
		[ "$(main_pid "$u")" = "$before_pid" ] || { ok=0; why="$why; sshd listener changed ($before_pid -> $(main_pid "$u"))"; }
		wait_for 20 svc_ok ssh || { ok=0; why="$why; sshd does not answer afterwards"; }
		;;
	esac
	result "$name" $ok "${why#; }"
	[ $ok = 1 ] && info "$name: $comm[$pid/$tid] SIGSEGV si_code=$code addr=$addr; $death"

	# The kernel's report of that fault.
	if [ "$HAVE_KREPORT" != yes ]; then
		skip "$name/kernel-report" "not the mtag kernel (no abi.mte_fault_report)"
		return
	fi
	wait_for 5 bash -c "dmesg | tail -n +$((k0 + 1)) | grep -q 'tag check fault in .*\[$tid\]'"
	krep=$(kmsg_since "$k0" | grep -m1 "tag check fault in .*\[$tid\]" | sed 's/^\[ *[0-9.]*\] //')
	ok=1 why=""
	if [ -z "$krep" ]; then
		ok=0 why="no 'mte: ... tag check fault in ...[$tid]' kernel line (dmesg after: $(kmsg_since "$k0" | grep -m3 mte: | tr '\n' '|'))"
	elif [ "$mode" = sync ]; then
		local ka pt mt
		ka=$(sed -n 's/.* addr \(0x[0-9a-f]*\) .*/\1/p' <<<"$krep")
		pt=$(sed -n 's/.* pointer tag \(0x[0-9a-f]*\) .*/\1/p' <<<"$krep")
		mt=$(sed -n 's/.* memory tag \([0-9a-fx]*\) .*/\1/p' <<<"$krep")
		[[ "$krep" == *"mte: sync tag check fault in "* ]] || { ok=0; why="$why; not a sync report"; }
		[ -n "$ka" ] && [ -n "$pt" ] && [ -n "$mt" ] || { ok=0; why="$why; no address/tags"; }
		if [ -n "$ka" ] && [ -n "$addr" ] && [ $((ka)) -ne $((addr)) ]; then ok=0; why="$why; address $ka != si_addr $addr"; fi
		[ "$pt" != "$mt" ] || { ok=0; why="$why; pointer tag = memory tag"; }
		why="${why#; }: $krep"
	else
		[[ "$krep" == *"mte: async tag check fault in "* ]] || { ok=0; why="not an async report: $krep"; }
	fi
	result "$name/kernel-report" $ok "$why"
	[ $ok = 1 ] && info "$name: kernel: $krep"
}

# ------------------------------------------------------------ the matrix
for mode in $MODES; do
	tm=$(date +%s)
	set_policy "$mode"
	c=$(cursor)
	for svc in $SVCS; do
		u=$svc.service
		if [ "$HAVE_LAUNCHER" = yes ]; then
			if systemctl show -p ExecStart "$u" | grep -q mtag-launcher; then
				pass "$svc/$mode/wrapped"
			else
				fail "$svc/$mode/wrapped" "ExecStart not wrapped by mtag-generator: $(systemctl show -p ExecStart "$u" | cut -c1-200)"
			fi
		fi
		systemctl restart "$u" || fail "$svc/$mode/restart" "systemctl restart $u failed: $(systemctl status "$u" 2>&1 | tail -5 | tr '\n' '|')"
	done
	for svc in $SVCS; do
		wait_for 30 svc_ok "$svc" || { fail "$svc/$mode/serving" "does not answer after restart"; continue; }
		check_status "$svc" "$mode"
		check_journal "$svc" "$mode"
		for bug in $BUGS; do
			check_bug "$svc" "$mode" "$bug"
		done
	done
	info "mode $mode took $(( $(date +%s) - tm ))s"
done

# PostgreSQL through Debian's unmodified unit (tests/helpers/vm/guest/postgres.sh).
. "$(dirname "$0")/postgres.sh"
[ -z "${MTAG_NO_POSTGRES:-}" ] && postgres_section

# A service with only a SysV init script (tests/helpers/vm/guest/sysv.sh).
. "$(dirname "$0")/sysv.sh"
[ -z "${MTAG_NO_SYSV:-}" ] && sysv_section

# ------------------------------------------------------------ jemalloc
# Daemons on jemalloc (redis-server, named) with libjemalloc2 +mtag1, under
# sync: every process sync, the heap tagged (mtagctl status: "protected:
# jemalloc +mtag"), each injected bug (on jemalloc memory: the injection
# library calls the process's malloc, jemalloc's) traps with the kernel's
# report and the right cause in mtagctl faults, and the daemon serves
# again.
jemalloc_section() {
	local u svc v out since j cause want tm
	tm=$(date +%s)
	if ! dpkg-query -W -f='${Version}' libjemalloc2 2>/dev/null | grep -q '+mtag'; then
		skip jemalloc "libjemalloc2 in the guest is $(dpkg-query -W -f='${Version}' libjemalloc2 2>/dev/null || echo missing), not +mtag1"
		return
	fi
	if [ "$HAVE_LAUNCHER" != yes ] || [ "$HAVE_TCF" != yes ] || [ ! -x /usr/bin/mtagctl ]; then
		skip jemalloc "needs the mtag kernel, the launcher and mtagctl"
		return
	fi
	{
		echo "# written by the mtag VM test (tests/helpers/vm/guest/matrix.sh, jemalloc)"
		for u in $UNITS $JEMALLOC_UNITS; do echo "$u sync"; done
	} >/etc/mtag/policy.conf
	systemctl daemon-reload
	for u in $JEMALLOC_UNITS; do
		systemctl restart "$u" || fail "${u%.service}/sync/restart" "systemctl restart $u failed"
	done
	for u in $JEMALLOC_UNITS; do
		svc=${u%.service}
		wait_for 30 svc_ok "$svc" || { fail "$svc/sync/serving" "does not answer after restart"; continue; }
		check_status "$svc" sync
		out=$(mtagctl --json status "$u" 2>/dev/null)
		v=$(jq -r '.[0] | .verdict + ": " + .reason' <<<"$out")
		if [[ "$v" == "protected: jemalloc +mtag"* ]]; then
			pass "$svc/sync/heap-tagged"
			info "$svc/sync: mtagctl status: $v, heap $(jq -r '.[0] | "\(.tagged_kb) of \(.anon_kb) kB"' <<<"$out" 2>/dev/null) tagged"
		else
			fail "$svc/sync/heap-tagged" "mtagctl status: '$v'"
		fi
		for bug in $BUGS; do
			since=$(date +%s)
			check_bug "$svc" sync "$bug"
			wait_for 20 bash -c "mtagctl faults --json --since @$since 2>/dev/null | jq -e --arg u $u '[.[] | select(.unit == \$u)] | length > 0' >/dev/null"
			j=$(mtagctl faults --json --since "@$since" 2>/dev/null | jq -c --arg u "$u" '[.[] | select(.unit == $u)] | first')
			want=$bug; [ "$bug" = uaf ] && want=use-after-free
			cause=$(jq -r .cause <<<"$j" 2>/dev/null)
			if [ "$cause" = "$want" ]; then
				pass "$svc/sync/$bug/mtagctl-faults"
				info "$svc/sync/$bug: mtagctl faults: cause $cause, confidence $(jq -r .confidence <<<"$j"), pid $(jq -r .pid <<<"$j")"
			else
				fail "$svc/sync/$bug/mtagctl-faults" "cause '$cause', want $want: $j"
			fi
			wait_for 30 svc_ok "$svc"
		done
	done
	info "jemalloc section took $(( $(date +%s) - tm ))s"
}
[ -z "${MTAG_NO_JEMALLOC:-}" ] && jemalloc_section

# mtagctl and mtag-faultd (tests/helpers/vm/guest/mtagctl.sh).
. "$(dirname "$0")/mtagctl.sh"
[ -z "${MTAG_NO_MTAGCTL:-}" ] && mtagctl_section

# The upgraded start after an async fault (tests/helpers/vm/guest/upgrade.sh).
. "$(dirname "$0")/upgrade.sh"
[ -z "${MTAG_NO_UPGRADE:-}" ] && upgrade_section

# systemd as the oracle for the generator over every unit of the image
# (tests/helpers/vm/guest/oracle.sh).
. "$(dirname "$0")/oracle.sh"
[ -z "${MTAG_NO_ORACLE:-}" ] && oracle_section

# Leave the logs for the host (test-logs).
journalctl -b -o short-monotonic >"$R/journal.txt" 2>&1
cp "$EV" "$R/inject-events.txt" 2>/dev/null
cp /var/log/nginx/error.log "$R/nginx-error.log" 2>/dev/null
info "matrix took $(( $(date +%s) - T0 ))s, guest uptime $(uptime_s)s"
echo done >"$R/matrix.done"
