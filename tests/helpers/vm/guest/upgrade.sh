# shellcheck shell=bash
# upgrade.sh -- the upgraded start after an async fault (issue 21), sourced
# by matrix.sh: memcached under "async upgrade=WINDOW".
#
#   upgrade/async-crash        the injected overflow kills memcached with
#                              SIGSEGV si_code 8 (async, no address), the
#                              kernel's async line, systemd restarts it
#   upgrade/faultd-next        mtag-faultd's entry of that fault says the next
#                              start is upgraded (MTAG_UPGRADE_NEXT=yes)
#   upgrade/upgraded-start     the launcher's entry of the new start
#                              (MTAG_MODE=sync MTAG_UPGRADED_FROM=async, the
#                              window, the async fault's kernel cursor)
#   upgrade/every-thread-sync  every thread of the new instance: MTE_Upgrade
#                              "sync until ...", MTE_TCF still async (asked)
#   upgrade/mtagctl-status     "upgraded to sync until HH:MM:SS after the
#                              async fault at ..."
#   upgrade/sync-report        the same bug again: si_code 9 with the address,
#                              the kernel's sync line with both tags, cause
#                              overflow in faultd's entry, MTAG_UPGRADED_FROM
#                              = the async fault's kernel cursor
#   upgrade/mtagctl-faults     the two linked: "async fault at A -> upgraded
#                              start at B (sync until C) -> sync fault at D:
#                              <cause>"
#   upgrade/after-sync-crash   the next start (after a sync fault) is plain
#                              async
#   upgrade/limit              another async crash this boot: no upgraded
#                              start (MTAG_UPGRADE_NEXT=limit, the launcher's
#                              refusal), every thread async
#   upgrade/back-to-async      "the next boot" (the per-boot marker removed):
#                              an async crash, an upgraded start; the window
#                              passes: every thread back to async in the same
#                              process, and the bug then faults with
#                              si_code 8
#   upgrade/prometheus         mtag_upgrades_total{unit="memcached.service"}
MSGID_UPGRADED=d3d846a8a0754fd988029222defb736a
MSGID_FAULT=5fda042e18d64e2e9d913704e87926cb
UPGRADE_WINDOW=${MTAG_UPGRADE_WINDOW:-45s}
UPGRADE_WINDOW_S=${UPGRADE_WINDOW%s}

# upg_entry MSGID CURSOR [FIELD=VALUE]: the last entry with MSGID (and
# FIELD=VALUE) after CURSOR, in export format.  Filtered here, not with
# journalctl matches: systemd 252's --after-cursor with matches skips the
# first matching entry (lib.sh).
upg_entry() {
	journalctl --after-cursor="$2" -o export 2>/dev/null |
		awk -v id="MESSAGE_ID=$1" -v f="${3:-}" 'BEGIN{RS=""; FS="\n"}
			{ ok = 0; okf = (f == "")
			  for (i = 1; i <= NF; i++) { if ($i == id) ok = 1; if ($i == f) okf = 1 }
			  if (ok && okf) l = $0 }
			END { print l }'
}
# upg_wait SECS MSGID CURSOR [FIELD=VALUE]: until there is such an entry.
upg_present() { [ -n "$(upg_entry "$@")" ]; }
upg_wait() { local secs=$1; shift; wait_for "$secs" upg_present "$@"; }
upg_field() { sed -n "s/^$1=//p" <<<"$2" | head -1; }

# upg_threads PID: "TID:MTE_TCF:MTE_Upgrade" of every thread.
upg_threads() {
	local d t
	for d in /proc/"$1"/task/*; do
		[ -d "$d" ] || continue
		t=${d##*/}
		printf '%s:%s:%s\n' "$t" "$(status_of "$1/task/$t" MTE_TCF)" "$(status_of "$1/task/$t" MTE_Upgrade)"
	done
}
# all_threads PID WANT-UPGRADE-PREFIX: every thread async, with MTE_Upgrade
# starting with WANT ("sync until" or "none").
all_threads() {
	local l n=0
	while IFS=: read -r t tcf up; do
		[ -n "$t" ] || continue
		n=$((n + 1))
		[ "$tcf" = async ] && [[ "$up" == "$2"* ]] || return 1
	done <<<"$(upg_threads "$1")"
	[ $n -gt 1 ]
}

# upg_crash WANT-CODE CURSOR-VAR: trigger the overflow in memcached, wait
# for its death and the restarted instance; sets UPG_SEGV, UPG_PID (the
# dead one), UPG_NEWPID.
upg_crash() {
	local n0 trig pid
	n0=$(ev_count)
	UPG_BEFORE=$(main_pid memcached.service)
	svc_bug memcached overflow >/dev/null
	wait_for 10 ev_trigger "$n0" overflow >/dev/null
	trig=$(ev_trigger "$n0" overflow)
	pid=$(field pid "$trig")
	wait_for 10 grep -q "pid=$pid .*SIGSEGV" "$EV"
	UPG_SEGV=$(ev_since "$n0" | grep -m1 "pid=${pid:-x} .*SIGSEGV")
	UPG_PID=$pid
	wait_for 60 bash -c "p=\$(systemctl show -p MainPID --value memcached.service); [ \"\$p\" -gt 0 ] && [ \"\$p\" != '$UPG_BEFORE' ]"
	wait_for 30 svc_ok memcached
	UPG_NEWPID=$(main_pid memcached.service)
}

upgrade_section() {
	local tm c k0 e e2 up tcur kl ka why ok code addr out v c2 p
	tm=$(date +%s)
	if [ "$HAVE_LAUNCHER" != yes ] || [ "$HAVE_TCF" != yes ] || [ ! -x /usr/bin/mtagctl ]; then
		skip upgrade "needs the mtag kernel, the launcher and mtagctl"
		return
	fi
	if ! grep -q '^MTE_Upgrade:' /proc/self/status; then
		skip upgrade "this kernel has no timed upgrade (no MTE_Upgrade in /proc/self/status: patch 0008)"
		return
	fi
	{
		echo "# written by the mtag VM test (tests/helpers/vm/guest/upgrade.sh)"
		echo "memcached.service async upgrade=$UPGRADE_WINDOW"
	} >/etc/mtag/policy.conf
	# A fresh boot's state for the unit (earlier sections ran it under
	# other policies).
	rm -f /run/mtag/upgrade/memcached.service.* /run/mtag/upgrade-grant/memcached.service
	systemctl daemon-reload
	systemctl restart memcached.service
	wait_for 30 svc_ok memcached || { fail upgrade/serving "memcached does not answer"; return; }
	if systemctl cat memcached.service | grep -q '^ExecStartPre=+/usr/sbin/mtag-launcher --upgrade-prepare --unit=%n$'; then
		pass upgrade/generator-prepare
	else
		fail upgrade/generator-prepare "no ExecStartPre=+... --upgrade-prepare: $(systemctl cat memcached.service | grep -i exec | tr '\n' '|')"
	fi
	p=$(main_pid memcached.service)
	all_threads "$p" none && pass upgrade/starts-async ||
		fail upgrade/starts-async "$(upg_threads "$p" | tr '\n' ' ')"

	# ---- 1. the async crash
	c=$(cursor); k0=$(kmsg_count)
	upg_crash
	code=$(field si_code "$UPG_SEGV")
	kl=$(kmsg_since "$k0" | grep -m1 "mte: async tag check fault in .*\[" | sed 's/^\[ *[0-9.]*\] //')
	ok=1 why=""
	[ "$code" = 8 ] || { ok=0; why="$why; want si_code 8, got '${UPG_SEGV:-no SIGSEGV}'"; }
	[[ "$kl" == *"cgroup /system.slice/memcached.service"* ]] || { ok=0; why="$why; kernel line '$kl'"; }
	since "$c" | grep -q '^memcached.service: Main process exited, code=.*status=11/SEGV' ||
		{ ok=0; why="$why; no status=11/SEGV"; }
	[ -n "$UPG_NEWPID" ] && [ "$UPG_NEWPID" != "$UPG_BEFORE" ] || { ok=0; why="$why; not restarted"; }
	result upgrade/async-crash $ok "${why#; }"
	info "upgrade: async crash: event '$UPG_SEGV'; kernel: $kl; restarted $UPG_BEFORE -> $UPG_NEWPID"
	upg_wait 20 "$MSGID_FAULT" "$c" MTAG_FAULT_KIND=async
	e=$(upg_entry "$MSGID_FAULT" "$c" MTAG_FAULT_KIND=async)
	tcur=$(upg_field MTAG_KERNEL_CURSOR "$e")
	[ "$(upg_field MTAG_UPGRADE_NEXT "$e")" = yes ] && pass upgrade/faultd-next ||
		fail upgrade/faultd-next "faultd's entry: $(grep -a '^MESSAGE=\|^MTAG_UPG\|^MTAG_FAULT_KIND' <<<"$e" | tr '\n' '|')"
	info "upgrade: faultd: $(upg_field MESSAGE "$e")"

	# ---- 2. the upgraded start
	upg_wait 20 "$MSGID_UPGRADED" "$c"
	up=$(upg_entry "$MSGID_UPGRADED" "$c")
	ok=1 why=""
	[ "$(upg_field MTAG_MODE "$up")" = sync ] && [ "$(upg_field MTAG_UPGRADED_FROM "$up")" = async ] ||
		{ ok=0; why="$why; MTAG_MODE/MTAG_UPGRADED_FROM"; }
	[ "$(upg_field _SYSTEMD_UNIT "$up")" = memcached.service ] || { ok=0; why="$why; _SYSTEMD_UNIT"; }
	[ -n "$tcur" ] && [ "$(upg_field MTAG_UPGRADE_FAULT_CURSOR "$up")" = "$tcur" ] ||
		{ ok=0; why="$why; MTAG_UPGRADE_FAULT_CURSOR '$(upg_field MTAG_UPGRADE_FAULT_CURSOR "$up")' is not the async fault's kernel cursor '$tcur'"; }
	[ "$(upg_field MTAG_UPGRADE_NSEC "$up")" = "$((UPGRADE_WINDOW_S * 1000000000))" ] || { ok=0; why="$why; MTAG_UPGRADE_NSEC"; }
	result upgrade/upgraded-start $ok "${why#; }: $(grep -a '^MESSAGE=\|^MTAG_\|^_PID' <<<"$up" | tr '\n' '|')"
	info "upgrade: launcher: $(upg_field MESSAGE "$up")"
	info "upgrade: launcher fields: $(grep -a '^MTAG_' <<<"$up" | tr '\n' ' ')"
	p=$UPG_NEWPID
	if all_threads "$p" "sync until"; then
		pass upgrade/every-thread-sync
	else
		fail upgrade/every-thread-sync "$(upg_threads "$p" | tr '\n' ' ')"
	fi
	info "upgrade: threads of $p (TID:MTE_TCF:MTE_Upgrade): $(upg_threads "$p" | tr '\n' ' ')"
	v=$(mtagctl --json status memcached.service 2>/dev/null | jq -r '.[0].verdict + ": " + .[0].reason')
	[[ "$v" == "protected: "*"; upgraded to sync until "[0-9]*:[0-9]*:[0-9]*" after the async fault at "[0-9]*:[0-9]*:[0-9]* ]] &&
		pass upgrade/mtagctl-status || fail upgrade/mtagctl-status "'$v'"
	info "upgrade: mtagctl status memcached.service: $v"

	# ---- 3. the same bug in the window: an exact report
	c2=$(cursor); k0=$(kmsg_count)
	upg_crash
	code=$(field si_code "$UPG_SEGV"); addr=$(field addr "$UPG_SEGV")
	kl=$(kmsg_since "$k0" | grep -m1 "mte: sync tag check fault in .*\[" | sed 's/^\[ *[0-9.]*\] //')
	upg_wait 20 "$MSGID_FAULT" "$c2" MTAG_FAULT_KIND=sync
	e2=$(upg_entry "$MSGID_FAULT" "$c2" MTAG_FAULT_KIND=sync)
	ok=1 why=""
	[ "$code" = 9 ] && [ -n "$addr" ] || { ok=0; why="$why; want si_code 9 with an address, got '${UPG_SEGV:-no SIGSEGV}'"; }
	[ "$UPG_PID" = "$p" ] || { ok=0; why="$why; the fault was in $UPG_PID, not the upgraded $p"; }
	ka=$(sed -n 's/.* addr \(0x[0-9a-f]*\) pointer tag 0x[0-9a-f] memory tag 0x[0-9a-f] pc 0x.*/\1/p' <<<"$kl")
	[ -n "$ka" ] && [ -n "$addr" ] && [ $((ka)) -eq $((addr)) ] ||
		{ ok=0; why="$why; kernel line '$kl' (signal's address '$addr')"; }
	[ "$(upg_field MTAG_MODE "$e2")" != async ] || { ok=0; why="$why; faultd's MTAG_MODE says async"; }
	[ "$(upg_field MTAG_CAUSE "$e2")" = overflow ] || { ok=0; why="$why; cause '$(upg_field MTAG_CAUSE "$e2")'"; }
	[ "$(upg_field MTAG_UPGRADED_FROM "$e2")" = "$tcur" ] || { ok=0; why="$why; MTAG_UPGRADED_FROM '$(upg_field MTAG_UPGRADED_FROM "$e2")', want '$tcur'"; }
	result upgrade/sync-report $ok "${why#; }"
	info "upgrade: sync crash: event '$UPG_SEGV'"
	info "upgrade: kernel: $kl"
	info "upgrade: faultd: $(upg_field MESSAGE "$e2")"
	out=$(mtagctl faults --no-pager -u memcached.service --since "@$tm" 2>&1)
	if grep -q "upgrade: async fault at [0-9:]* -> upgraded start at [0-9:]* (sync until [0-9:]*) -> sync fault at [0-9:]*: .*overflow" <<<"$out"; then
		pass upgrade/mtagctl-faults
	else
		fail upgrade/mtagctl-faults "$(tr '\n' '|' <<<"$out" | head -c 1500)"
	fi
	printf '%s\n' "$out" >"$R/upgrade-mtagctl-faults.txt"
	info "upgrade: mtagctl faults -u memcached.service (also results/upgrade-mtagctl-faults.txt):"
	while IFS= read -r l; do info "  $l"; done <<<"$out"

	# ---- 4. after the sync crash: a plain async start
	p=$UPG_NEWPID
	all_threads "$p" none && pass upgrade/after-sync-crash ||
		fail upgrade/after-sync-crash "$(upg_threads "$p" | tr '\n' ' ')"

	# ---- 5. the crash loop: another async crash this boot, no upgrade
	c=$(cursor)
	upg_crash
	code=$(field si_code "$UPG_SEGV")
	upg_wait 20 "$MSGID_FAULT" "$c" MTAG_FAULT_KIND=async
	e=$(upg_entry "$MSGID_FAULT" "$c" MTAG_FAULT_KIND=async)
	p=$UPG_NEWPID
	ok=1 why=""
	[ "$code" = 8 ] || { ok=0; why="$why; si_code '$code'"; }
	[ "$(upg_field MTAG_UPGRADE_NEXT "$e")" = limit ] || { ok=0; why="$why; MTAG_UPGRADE_NEXT '$(upg_field MTAG_UPGRADE_NEXT "$e")'"; }
	all_threads "$p" none || { ok=0; why="$why; threads $(upg_threads "$p" | tr '\n' ' ')"; }
	[ -z "$(upg_entry "$MSGID_UPGRADED" "$c")" ] || { ok=0; why="$why; an upgraded start"; }
	result upgrade/limit $ok "${why#; }"
	info "upgrade: crash loop: faultd: $(upg_field MESSAGE "$e")"

	# ---- 6. the next boot's upgraded start outlives its window
	rm -f /run/mtag/upgrade/memcached.service.used	# as /run after a reboot
	c=$(cursor)
	upg_crash
	upg_wait 20 "$MSGID_UPGRADED" "$c"
	p=$UPG_NEWPID
	ok=1 why=""
	all_threads "$p" "sync until" || { ok=0; why="$why; not upgraded: $(upg_threads "$p" | tr '\n' ' ')"; }
	up=$(upg_entry "$MSGID_UPGRADED" "$c")
	local until_s; until_s=$(( $(upg_field MTAG_UPGRADE_UNTIL_USEC "$up") / 1000000 ))
	info "upgrade: second upgraded start, $p until $(date -d "@$until_s" +%T); waiting"
	while [ "$(date +%s)" -le "$((until_s + 1))" ]; do sleep 1; done
	# Each thread picks its own mode again at its next context switch:
	# a request to every worker thread, and some time.
	for _ in 1 2 3 4 5 6; do svc_ok memcached; done
	sleep 2
	wait_for 20 all_threads "$p" none || { ok=0; why="$why; after the window: $(upg_threads "$p" | tr '\n' ' ')"; }
	[ "$(main_pid memcached.service)" = "$p" ] || { ok=0; why="$why; restarted"; }
	info "upgrade: after the window, threads of $p (TID:MTE_TCF:MTE_Upgrade): $(upg_threads "$p" | tr '\n' ' ')"
	c2=$(cursor)
	upg_crash
	code=$(field si_code "$UPG_SEGV")
	[ "$UPG_PID" = "$p" ] && [ "$code" = 8 ] ||
		{ ok=0; why="$why; the bug after the window: pid $UPG_PID, '$UPG_SEGV' (want si_code 8 in $p)"; }
	result upgrade/back-to-async $ok "${why#; }"
	info "upgrade: the bug after the window, same process $p: '$UPG_SEGV'"

	# ---- 7. the Prometheus file counts them
	out=$(mtagctl status --prometheus=- 2>&1)
	grep -qx 'mtag_upgrades_total{unit="memcached.service"} 2' <<<"$out" &&
		pass upgrade/prometheus ||
		fail upgrade/prometheus "$(grep 'upgrade\|error' <<<"$out" | tr '\n' '|' | head -c 600)"
	info "upgrade: $(grep '^mtag_upgrades_total' <<<"$out")"
	info "upgrade section took $(( $(date +%s) - tm ))s"
}
