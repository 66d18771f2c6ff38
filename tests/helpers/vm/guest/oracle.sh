# shellcheck shell=bash
# oracle.sh -- systemd as the oracle for mtag-generator (issue 25); sourced
# by matrix.sh after the mtagctl part (uses lib.sh's helpers).  The guest
# dumps `systemctl show` before and after; tests/helpers/vm/oracle-check judges the
# dumps on the host (the cases below).
#
#   oracle/wrapped-as-parsed   for every service unit of the image (every
#                              unit file but templates, and every loaded
#                              instance), `systemctl show` before and after
#                              "*.service sync" + daemon-reload: where the
#                              generator's drop-in is loaded, each
#                              ExecStart= command is exactly the one systemd
#                              parsed before, run through mtag-launcher
#                              (path, argv, flags); elsewhere ExecStart= is
#                              untouched
#   oracle/nothing-else        every other property compared (Exec*= but
#                              ExecStart=, Type, User, environment, paths,
#                              limits...) is the same; DropInPaths= gains
#                              only the generator's file; ExecPaths= only
#                              the launcher, and only for NoExecPaths= units
#   oracle/all-wrapped         every unit with an ExecStart= before is
#                              wrapped, but those with a vendor "off"
#                              default or that run the launcher already
ORACLE_PROPS="ExecStartEx ExecStartPreEx ExecStartPostEx ExecConditionEx ExecReloadEx ExecStopEx ExecStopPostEx
Type User Group DynamicUser Environment EnvironmentFiles PassEnvironment WorkingDirectory RootDirectory
NoExecPaths ExecPaths ReadOnlyPaths InaccessiblePaths Restart RestartUSec TimeoutStartUSec LimitCORE LimitNOFILE
NoNewPrivileges ProtectSystem ProtectHome PrivateTmp CapabilityBoundingSet AmbientCapabilities
SystemCallFilter MemoryDenyWriteExecute KillMode RemainAfterExit PIDFile BusName StandardOutput
StandardError SyslogIdentifier Nice OOMScoreAdjust UMask"

# oracle_dump FILE UNIT...: one line per unit and property, "UNIT<TAB>PROP=VALUE",
# Exec*Ex entries cut to path, argv[] and flags (no runtime state), in
# systemd's order.
oracle_dump() {
	local out=$1 p args=()
	shift
	for p in Id LoadState DropInPaths $ORACLE_PROPS; do args+=(-p "$p"); done
	printf '%s\n' "$@" | xargs -n 200 systemctl show --no-pager "${args[@]}" |
		sed -E 's/ ; start_time=\[[^]]*\] ; stop_time=\[[^]]*\] ; pid=[^;]* ; code=[^;]* ; status=[^}]* \}/ }/g' |
		awk 'BEGIN { RS = ""; FS = "\n" }
		{ id = ""; for (i = 1; i <= NF; i++) if ($i ~ /^Id=/) id = substr($i, 4)
		  for (i = 1; i <= NF; i++) if ($i !~ /^Id=/) print id "\t" $i }' >"$out"
}

oracle_section() {
	local t0 units=()
	if [ "$HAVE_LAUNCHER" != yes ]; then
		skip oracle "mtag-launcher not in the image"
		return
	fi
	t0=$(date +%s)
	echo '# oracle: nothing named' >/etc/mtag/policy.conf
	systemctl daemon-reload
	mapfile -t units < <( { systemctl list-unit-files --type=service --no-legend --no-pager | awk '{print $1}' | grep -v '@\.service$'
		   systemctl list-units --all --type=service --no-legend --no-pager --plain | awk '{print $1}' | grep '@.*\.service$'; } | sort -u)
	oracle_dump "$R/oracle-before.txt" "${units[@]}"
	echo '*.service sync' >/etc/mtag/policy.conf
	systemctl daemon-reload
	oracle_dump "$R/oracle-after.txt" "${units[@]}"
	echo '# oracle: done' >/etc/mtag/policy.conf
	systemctl daemon-reload
	cat /usr/lib/mtag/policy.d/*.conf >"$R/oracle-vendor.txt" 2>/dev/null
	info "oracle: systemctl show of ${#units[@]} service units before and after '*.service sync' in $R/oracle-{before,after}.txt (judged on the host: tests/helpers/vm/oracle-check); took $(( $(date +%s) - t0 ))s"
}
