# shellcheck shell=bash
# postgres.sh -- sourced by matrix.sh: PostgreSQL under "sync", started by
# Debian's own postgresql@VERSION-main.service (pg_ctlcluster, which replaces the
# whole environment with the cluster's "environment" file, so no
# GLIBC_TUNABLES reaches postgres): the policy reaches every process through
# the kernel's exec default (patches/linux/0006) and the mtag glibc, with
# nothing edited on the way.
#   postgres/wrapped        the generator wrapped the unit
#   postgres/env-cleaned    no tunable in the postmaster's environment
#   postgres/proc-status    every process of the cgroup: MTE_TCF sync,
#                           MTE_ExecDefault "sync heap", PROT_MTE mappings
#   postgres/mtagctl        mtagctl status: protected, mode from the kernel
#   postgres/overflow       a heap overflow injected into a backend by a
#                           real SQL request: SIGSEGV si_code 9 in that
#                           backend, the postmaster's "terminated by signal
#                           11" in its log, the kernel's report (with the
#                           unit's cgroup), and postgres serves
#                           again after its crash recovery
# The injection library (test only) reaches the backends through the
# cluster's environment file, the one channel pg_ctlcluster passes on; it
# carries no MTE setting.

# The image's PostgreSQL major version: 15 on bookworm, 17 on trixie (the
# cluster Debian's package made when it was installed).
PG_VER=$(ls /etc/postgresql 2>/dev/null | sort -n | tail -1)
PG_UNIT=postgresql@${PG_VER:-none}-main.service
PG_ENVFILE=/etc/postgresql/$PG_VER/main/environment
PG_LOG=/var/log/postgresql/postgresql-$PG_VER-main.log

pg_sql() { # SQL -> output (psql as postgres, over the Unix socket)
	timeout 20 runuser -u postgres -- psql -X -A -t -q -c "$1" 2>&1
}
pg_ok() { [ "$(pg_sql 'SELECT 41+1')" = 42 ]; }
pg_pids() {
	cat "/sys/fs/cgroup/system.slice/system-postgresql.slice/$PG_UNIT/cgroup.procs" 2>/dev/null
}

postgres_section() {
	local t0 n0 k0 p bad="" got="" trig pid tid segv code addr krep ok why

	t0=$(date +%s)
	if ! systemctl cat "$PG_UNIT" >/dev/null 2>&1; then
		skip postgres "no $PG_UNIT in the image (postgresql not installed)"
		return
	fi
	if [ "$HAVE_LAUNCHER" != yes ] || [ "$HAVE_MTAG_LIBC" != yes ] || [ "$HAVE_TCF" != yes ]; then
		skip postgres "needs the launcher, the mtag libc and the mtag kernel"
		return
	fi
	grep -q '^LD_PRELOAD' "$PG_ENVFILE" ||
		printf "# mtag VM test only: the fault injection library\nLD_PRELOAD = '/usr/lib/mtag-test/libmtaginject.so'\n" \
			>>"$PG_ENVFILE"
	printf '# written by the mtag VM test (tests/helpers/vm/guest/postgres.sh)\n%s sync\n' "$PG_UNIT" \
		>/etc/mtag/policy.conf
	systemctl daemon-reload
	if systemctl show -p ExecStart "$PG_UNIT" | grep -q mtag-launcher; then
		pass postgres/wrapped
	else
		fail postgres/wrapped "ExecStart not wrapped: $(systemctl show -p ExecStart "$PG_UNIT" | cut -c1-200)"
	fi
	systemctl restart "$PG_UNIT" ||
		fail postgres/start "systemctl restart $PG_UNIT: $(systemctl status "$PG_UNIT" 2>&1 | tail -5 | tr '\n' '|')"
	if ! wait_for 60 pg_ok; then
		fail postgres/serving "psql does not answer: $(pg_sql 'SELECT 1' | tail -2 | tr '\n' ' ')"
		return
	fi
	pass postgres/serving
	info "postgres started and answered in $(( $(date +%s) - t0 ))s"

	# One backend more: the connection's process, held open while checked.
	runuser -u postgres -- psql -X -q -c 'SELECT pg_sleep(6)' >/dev/null 2>&1 &
	local sleeper=$!
	sleep 2

	local pm; pm=$(head -1 "/var/lib/postgresql/$PG_VER/main/postmaster.pid" 2>/dev/null)
	if [ -n "$pm" ] && ! tr '\0' '\n' <"/proc/$pm/environ" | grep -qE '^(GLIBC_TUNABLES|_MTAG_ENABLE)='; then
		pass postgres/env-cleaned
		info "postgres: postmaster $pm environment: $(tr '\0' ' ' <"/proc/$pm/environ" | cut -c1-200)"
	else
		fail postgres/env-cleaned "postmaster ${pm:-?}: a tunable in its environment, or no postmaster"
	fi

	local n=0
	for p in $(pg_pids); do
		local tcf ed mt comm
		tcf=$(tcf_of "$p"); ed=$(status_of "$p" MTE_ExecDefault); mt=$(mt_maps "$p")
		comm=$(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | cut -c1-40)
		[ -n "$tcf" ] || continue	# gone
		n=$((n + 1))
		got="$got $p:$tcf/mt=$mt"
		[ "$tcf" = sync ] && [ "$ed" = "sync heap" ] && [ "${mt:-0}" -gt 0 ] ||
			bad="$bad [$p $comm: MTE_TCF $tcf, MTE_ExecDefault '$ed', $mt mt mappings]"
	done
	if [ "$n" -ge 5 ] && [ -z "$bad" ]; then
		pass postgres/proc-status
		info "postgres: $n processes, every one sync with tagged heap:$got"
	else
		fail postgres/proc-status "$n processes;${bad:- too few}"
	fi

	local st; st=$(mtagctl --no-pager --no-legend status "$PG_UNIT" 2>&1)
	if grep -q "protected: sync in .*mode from the kernel's exec default" <<<"$st"; then
		pass postgres/mtagctl
	else
		fail postgres/mtagctl "$(tr -s ' ' <<<"$st" | cut -c1-400)"
	fi
	info "postgres: mtagctl status: $(tr -s ' ' <<<"$st" | cut -c1-300)"
	wait "$sleeper" 2>/dev/null

	# The bug, by a real SQL request: the backend reads it from its socket.
	# (pg_ctlcluster sends postgres's own log to PG_LOG, not the journal.)
	n0=$(ev_count); k0=$(kmsg_count)
	local l0; l0=$(wc -l <"$PG_LOG" 2>/dev/null || echo 0)
	local answer; answer=$(pg_sql "SELECT 'MTAGBUG-overflow'")
	wait_for 10 ev_trigger "$n0" overflow >/dev/null
	trig=$(ev_trigger "$n0" overflow)
	ok=1 why=""
	if [ -z "$trig" ]; then
		fail postgres/overflow "the trigger never reached a backend (no event in $EV); psql said '$answer'"
		return
	fi
	pid=$(field pid "$trig"); tid=$(field tid "$trig")
	wait_for 10 grep -q "pid=$pid .*SIGSEGV" "$EV"
	segv=$(ev_since "$n0" | grep -m1 "pid=$pid .*SIGSEGV")
	code=$(field si_code "$segv"); addr=$(field addr "$segv")
	[ "$code" = 9 ] || { ok=0; why="$why; want SIGSEGV si_code=9, got '${segv:-no SIGSEGV}'"; }
	grep -q MTAGBUG <<<"$answer" && { ok=0; why="$why; the query was answered ('$answer')"; }
	wait_for 30 bash -c "tail -n +$((l0 + 1)) '$PG_LOG' | grep -q 'server process (PID $pid) was terminated by signal 11'"
	local death; death=$(tail -n +$((l0 + 1)) "$PG_LOG" | grep -m1 "server process (PID $pid) was terminated by signal 11" | sed 's/^.*LOG: *//')
	[ -n "$death" ] || { ok=0; why="$why; no 'server process (PID $pid) was terminated by signal 11' in $PG_LOG: $(tail -n +$((l0 + 1)) "$PG_LOG" | tail -3 | tr '\n' '|')"; }
	wait_for 60 pg_ok || { ok=0; why="$why; postgres does not answer after its crash recovery"; }
	[ $ok = 1 ] && pass postgres/overflow || fail postgres/overflow "${why#; }"
	[ $ok = 1 ] && info "postgres: backend $pid SIGSEGV si_code=$code addr=$addr; $death; serving again"

	wait_for 5 bash -c "dmesg | tail -n +$((k0 + 1)) | grep -q 'tag check fault in .*\[$tid\]'"
	krep=$(kmsg_since "$k0" | grep -m1 "tag check fault in .*\[$tid\]" | sed 's/^\[ *[0-9.]*\] //')
	if [[ "$krep" == *"mte: sync tag check fault in "*" pointer tag "*" memory tag "*"cgroup /system.slice/system-postgresql.slice/$PG_UNIT"* ]]; then
		pass postgres/overflow/kernel-report
		info "postgres: kernel: $krep"
	else
		fail postgres/overflow/kernel-report "no sync report for thread $tid in postgres's cgroup: '${krep:-none}'"
	fi

	systemctl stop "$PG_UNIT"
	info "postgres section took $(( $(date +%s) - t0 ))s"
}
