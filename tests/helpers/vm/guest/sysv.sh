# shellcheck shell=bash
# sysv.sh -- sourced by matrix.sh: a service that has only a SysV init
# script (as Debian's slapd), so systemd-sysv-generator makes its unit, and
# whose script starts the daemon with a cleaned environment (env -i, as
# supervisors do): "mtagsysv.service sync" reaches the daemon through the
# drop-in mtag-generator writes for the generated unit and the kernel's
# exec default, with no tunable on the way.
#   sysv/wrapped       the generated unit runs "/etc/init.d/mtagsysv start"
#                      through mtag-launcher (drop-in zz-mtag-launcher.conf)
#   sysv/env-cleaned   no tunable in the daemon's environment
#   sysv/proc-status   the daemon (memcached on port 11299): MTE_TCF sync,
#                      MTE_ExecDefault "sync heap", PROT_MTE mappings
#   sysv/mtagctl       mtagctl status: protected, mode from the kernel
#   sysv/overflow      the injected heap overflow, by a real request: the
#                      daemon dies of SIGSEGV si_code 9, the kernel's report
#                      names the unit's cgroup

SYSV_UNIT=mtagsysv.service
SYSV_PORT=11299

sysv_mc() {
	timeout 15 bash -c 'exec 3<>/dev/tcp/127.0.0.1/'$SYSV_PORT' || exit 1
		printf "%s\r\n" "$1" >&3
		head -1 <&3 | tr -d "\r"' _ "$1" 2>/dev/null
}
sysv_ok() { sysv_mc version | grep -q '^VERSION '; }

sysv_section() {
	local t0 pid tcf ed mt st n0 k0 trig tid segv code answer krep ok why
	t0=$(date +%s)
	if [ "$HAVE_LAUNCHER" != yes ] || [ "$HAVE_MTAG_LIBC" != yes ] || [ "$HAVE_TCF" != yes ]; then
		skip sysv "needs the launcher, the mtag libc and the mtag kernel"
		return
	fi
	cat >/etc/init.d/mtagsysv <<-SCRIPT
	#!/bin/sh
	### BEGIN INIT INFO
	# Provides:          mtagsysv
	# Required-Start:    \$remote_fs
	# Required-Stop:     \$remote_fs
	# Default-Start:     2 3 4 5
	# Default-Stop:      0 1 6
	# Short-Description: mtag VM test: memcached from a SysV script
	### END INIT INFO
	case "\$1" in
	start)
		# A cleaned environment, as supervisors make it; the injection
		# library (test only) is the one variable passed on.
		exec env -i LD_PRELOAD=/usr/lib/mtag-test/libmtaginject.so \\
			/usr/bin/memcached -d -u memcache -l 127.0.0.1 -p $SYSV_PORT ;;
	stop)
		pkill -f "^/usr/bin/memcached .*-p $SYSV_PORT\\\$"; exit 0 ;;
	*)
		echo "usage: \$0 start|stop"; exit 3 ;;
	esac
	SCRIPT
	chmod 755 /etc/init.d/mtagsysv
	printf '# written by the mtag VM test (tests/helpers/vm/guest/sysv.sh)\n%s sync\n' "$SYSV_UNIT" \
		>/etc/mtag/policy.conf
	systemctl daemon-reload
	if [ "$(systemctl show -p SourcePath --value "$SYSV_UNIT")" = /etc/init.d/mtagsysv ] &&
		systemctl show -p ExecStart "$SYSV_UNIT" | grep -q 'path=/usr/sbin/mtag-launcher .*argv\[\]=.* /etc/init.d/mtagsysv start' &&
		systemctl show -p DropInPaths --value "$SYSV_UNIT" | grep -q zz-mtag-launcher.conf; then
		pass sysv/wrapped
	else
		fail sysv/wrapped "SourcePath '$(systemctl show -p SourcePath --value "$SYSV_UNIT")', $(systemctl show -p ExecStart "$SYSV_UNIT" | cut -c1-250)"
	fi
	info "sysv: $(systemctl show -p ExecStart --value "$SYSV_UNIT" | cut -c1-250)"
	systemctl start "$SYSV_UNIT" ||
		fail sysv/start "systemctl start $SYSV_UNIT: $(systemctl status "$SYSV_UNIT" 2>&1 | tail -5 | tr '\n' '|')"
	if ! wait_for 30 sysv_ok; then
		fail sysv/serving "memcached on $SYSV_PORT does not answer"
		systemctl stop "$SYSV_UNIT"; rm -f /etc/init.d/mtagsysv; systemctl daemon-reload
		return
	fi
	# memcached drops to user memcache before it could write a pid file
	# under /run: its pid from the unit's cgroup.
	pid=$(for p in $(cat "/sys/fs/cgroup/system.slice/$SYSV_UNIT/cgroup.procs" 2>/dev/null); do
		[ "$(cat "/proc/$p/comm" 2>/dev/null)" = memcached ] && echo "$p"; done | head -1)
	if [ -n "$pid" ] && grep -q "/$SYSV_UNIT\$" "/proc/$pid/cgroup" &&
		! tr '\0' '\n' <"/proc/$pid/environ" | grep -qE '^(GLIBC_TUNABLES|_MTAG_ENABLE)='; then
		pass sysv/env-cleaned
		info "sysv: memcached $pid environment: $(tr '\0' ' ' <"/proc/$pid/environ" | cut -c1-200)"
	else
		fail sysv/env-cleaned "memcached ${pid:-?}: not in $SYSV_UNIT's cgroup or a tunable in its environment"
	fi
	tcf=$(tcf_of "$pid"); ed=$(status_of "$pid" MTE_ExecDefault); mt=$(mt_maps "$pid")
	if [ "$tcf" = sync ] && [ "$ed" = "sync heap" ] && [ "${mt:-0}" -gt 0 ]; then
		pass sysv/proc-status
	else
		fail sysv/proc-status "memcached $pid: MTE_TCF '$tcf', MTE_ExecDefault '$ed', ${mt:-0} mt mappings"
	fi
	st=$(mtagctl --no-pager --no-legend status "$SYSV_UNIT" 2>&1)
	if grep -q "protected: sync in .*mode from the kernel's exec default" <<<"$st"; then
		pass sysv/mtagctl
	else
		fail sysv/mtagctl "$(tr -s ' ' <<<"$st" | cut -c1-400)"
	fi
	info "sysv: mtagctl status: $(tr -s ' ' <<<"$st" | cut -c1-300)"

	n0=$(ev_count); k0=$(kmsg_count)
	answer=$(sysv_mc MTAGBUG-overflow)
	wait_for 10 ev_trigger "$n0" overflow >/dev/null
	trig=$(ev_trigger "$n0" overflow)
	ok=1 why=""
	if [ -z "$trig" ]; then
		fail sysv/overflow "the trigger never reached memcached (no event in $EV); it said '$answer'"
	else
		tid=$(field tid "$trig")
		wait_for 10 grep -q "pid=$pid .*SIGSEGV" "$EV"
		segv=$(ev_since "$n0" | grep -m1 "pid=$pid .*SIGSEGV")
		code=$(field si_code "$segv")
		[ "$code" = 9 ] || { ok=0; why="$why; want SIGSEGV si_code=9, got '${segv:-no SIGSEGV}'"; }
		[ "$answer" = ERROR ] && { ok=0; why="$why; the request was answered"; }
		wait_for 5 bash -c "dmesg | tail -n +$((k0 + 1)) | grep -q 'tag check fault in .*\[$tid\]'"
		krep=$(kmsg_since "$k0" | grep -m1 "tag check fault in .*\[$tid\]" | sed 's/^\[ *[0-9.]*\] //')
		[[ "$krep" == *"mte: sync tag check fault in "*"cgroup /system.slice/$SYSV_UNIT"* ]] ||
			{ ok=0; why="$why; no sync report in $SYSV_UNIT's cgroup: '${krep:-none}'"; }
		[ $ok = 1 ] && pass sysv/overflow || fail sysv/overflow "${why#; }"
		[ $ok = 1 ] && info "sysv: memcached $pid SIGSEGV si_code=$code; kernel: $krep"
	fi
	systemctl stop "$SYSV_UNIT"
	rm -f /etc/init.d/mtagsysv
	systemctl daemon-reload
	info "sysv section took $(( $(date +%s) - t0 ))s"
}
