# oracle.sh -- systemd as the oracle for mtag-generator (issue 25); sourced
# by matrix.sh after the mtagctl part (uses lib.sh's helpers).
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
# Exec*Ex entries cut to path, argv[] and flags (no runtime state).
oracle_dump() {
	local out=$1 p args=()
	shift
	for p in Id DropInPaths $ORACLE_PROPS; do args+=(-p "$p"); done
	printf '%s\n' "$@" | xargs -n 200 systemctl show --no-pager "${args[@]}" |
		sed -E 's/ ; start_time=\[[^]]*\] ; stop_time=\[[^]]*\] ; pid=[^;]* ; code=[^;]* ; status=[^}]* \}/ }/g' |
		awk 'BEGIN { RS = ""; FS = "\n" }
		{ id = ""; for (i = 1; i <= NF; i++) if ($i ~ /^Id=/) id = substr($i, 4)
		  for (i = 1; i <= NF; i++) if ($i !~ /^Id=/) print id "\t" $i }' | sort >"$out"
}

# The ExecStartEx entries of LINE ("{ path=P ; argv[]=A ; flags=F }
# ...") one per line as "P<TAB>A<TAB>F".
oracle_entries() {
	sed -E 's/^ExecStartEx=//; s/\} \{/}\n{/g' <<<"$1" | grep -v '^$' |
		sed -nE 's/^\{ path=(.*) ; argv\[\]=(.*) ; flags=(.*) \}$/\1\t\2\t\3/p'
}

oracle_section() {
	local t0 units before after u n_units=0 n_wrapped=0 n_same=0 bad_exec="" bad_other="" missing=""
	local vendor_off b a be ae eb ea i ok lb la
	if [ "$HAVE_LAUNCHER" != yes ]; then
		skip oracle "mtag-launcher not in the image"
		return
	fi
	t0=$(date +%s)
	before=$R/oracle-before.txt after=$R/oracle-after.txt
	echo '# oracle: nothing named' >/etc/mtag/policy.conf
	systemctl daemon-reload
	units=$( { systemctl list-unit-files --type=service --no-legend --no-pager | awk '{print $1}' | grep -v '@\.service$'
		   systemctl list-units --all --type=service --no-legend --no-pager --plain | awk '{print $1}' | grep '@.*\.service$'; } | sort -u)
	oracle_dump "$before" $units
	echo '*.service sync' >/etc/mtag/policy.conf
	systemctl daemon-reload
	oracle_dump "$after" $units
	echo '# oracle: done' >/etc/mtag/policy.conf
	systemctl daemon-reload
	vendor_off=$(cat /usr/lib/mtag/policy.d/*.conf 2>/dev/null | awk '$2 == "off" {print $1}')

	for u in $units; do
		n_units=$((n_units + 1))
		b=$(awk -F'\t' -v u="$u" '$1 == u {print $2}' "$before")
		a=$(awk -F'\t' -v u="$u" '$1 == u {print $2}' "$after")
		be=$(grep '^ExecStartEx=' <<<"$b")
		ae=$(grep '^ExecStartEx=' <<<"$a")
		if grep -q '^DropInPaths=.*/zz-mtag-launcher\.conf' <<<"$a"; then
			n_wrapped=$((n_wrapped + 1))
			eb=$(oracle_entries "$be")
			ea=$(oracle_entries "$ae")
			ok=1
			[ -n "$eb" ] && [ "$(wc -l <<<"$eb")" = "$(wc -l <<<"$ea")" ] || ok=0
			i=0
			while [ $ok = 1 ] && IFS= read -r lb && IFS= read -r la <&3; do
				local P A F P2 A2 F2 a0 rest
				IFS=$'\t' read -r P A F <<<"$lb"
				IFS=$'\t' read -r P2 A2 F2 <<<"$la"
				a0=${A%% *}; rest=${A#"$a0"}
				[ "$P2" = /usr/sbin/mtag-launcher ] && [ "$F2" = "$F" ] || ok=0
				# "launcher --unit=U -- ARGV", or for "@": "--argv0 ARGV0 -- PATH ARGV[1..]"
				[ "$A2" = "/usr/sbin/mtag-launcher --unit=$u -- $A" ] ||
					[ "$A2" = "/usr/sbin/mtag-launcher --unit=$u --argv0 $a0 -- $P$rest" ] || ok=0
			done <<<"$eb" 3<<<"$ea"
			[ $ok = 1 ] || bad_exec="$bad_exec $u: [$be] -> [$ae];"
		else
			[ "$be" = "$ae" ] || bad_exec="$bad_exec $u (not wrapped, changed): [$be] -> [$ae];"
			if [ -n "$(oracle_entries "$be")" ] && ! grep -qxF "$u" <<<"$vendor_off" &&
			   ! grep -q 'mtag-launcher' <<<"$be"; then
				missing="$missing $u"
			fi
		fi
		# Everything else.
		diff <(grep -v '^ExecStartEx=\|^DropInPaths=\|^ExecPaths=' <<<"$b") \
		     <(grep -v '^ExecStartEx=\|^DropInPaths=\|^ExecPaths=' <<<"$a") >/dev/null ||
			bad_other="$bad_other $u: $(diff <(grep -v '^ExecStartEx=\|^DropInPaths=\|^ExecPaths=' <<<"$b") <(grep -v '^ExecStartEx=\|^DropInPaths=\|^ExecPaths=' <<<"$a") | grep '^[<>]' | head -4 | tr '\n' ' ');"
		[ "$(grep '^DropInPaths=' <<<"$b" | tr ' ' '\n' | sed 's/^DropInPaths=//' | grep . | sort)" = \
		  "$(grep '^DropInPaths=' <<<"$a" | tr ' ' '\n' | sed 's/^DropInPaths=//' | grep . | grep -v '^/run/systemd/generator/.*/zz-mtag-launcher\.conf$' | sort)" ] ||
			bad_other="$bad_other $u: DropInPaths $(grep '^DropInPaths=' <<<"$b") -> $(grep '^DropInPaths=' <<<"$a");"
		lb=$(grep '^ExecPaths=' <<<"$b" | sed 's/^ExecPaths=//' | tr ' ' '\n' | grep . | sort)
		la=$(grep '^ExecPaths=' <<<"$a" | sed 's/^ExecPaths=//' | tr ' ' '\n' | grep . | sort)
		if [ "$lb" != "$la" ]; then
			if ! grep -q '^NoExecPaths=.' <<<"$b" ||
			   [ "$lb" != "$(grep -vxF /usr/sbin/mtag-launcher <<<"$la")" ]; then
				bad_other="$bad_other $u: ExecPaths [$lb] -> [$la];"
			fi
		fi
		[ "$b" = "$a" ] && n_same=$((n_same + 1))
	done
	info "oracle: $n_units service units, $n_wrapped wrapped by mtag-generator, $n_same untouched; systemctl show in $R/oracle-{before,after}.txt"
	[ "$n_wrapped" -gt 0 ] && [ -z "$bad_exec" ] && pass oracle/wrapped-as-parsed ||
		fail oracle/wrapped-as-parsed "$n_wrapped wrapped;${bad_exec:0:1500}"
	[ -z "$bad_other" ] && pass oracle/nothing-else || fail oracle/nothing-else "${bad_other:0:1500}"
	[ -z "$missing" ] && pass oracle/all-wrapped || fail oracle/all-wrapped "not wrapped though they have an ExecStart=:$missing"
	info "oracle part took $(( $(date +%s) - t0 ))s"
}
