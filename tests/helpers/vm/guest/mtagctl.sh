# shellcheck shell=bash
# mtagctl.sh -- the mtagctl / mtag-faultd part of the VM proof; sourced by
# matrix.sh after the mode columns (uses its helpers).
#
#   mtagctl/status-sync        nginx, memcached, ssh: "protected" under sync
#   mtagctl/status-redis       redis-server (jemalloc, MALLOC_CONF=mtag:false):
#                              "not protected: heap not tagged"
#   mtagctl/status-restart     a policy change + daemon-reload without a
#                              restart: "restart needed"
#   mtagctl/status-exit        exit 1 while a service is not as asked
#   mtagctl/status-unwrapped   a local drop-in sorting after
#                              zz-mtag-launcher.conf resets ExecStart=: the
#                              verdict names it, the generator warned
#   mtagctl/BUG/faults         mtagctl faults --json lists the injected sync
#                              fault: unit, pid, tid, cause right; with the
#                              core, "certain" and the injector's 32 bytes
#   mtagctl/BUG/journal        one MSGID_FAULT entry per kernel fault line
#   mtagctl/prometheus-path    the textfile directory appears: the timer starts
#   mtagctl/prometheus-exit    the service exits 0 with a service not as asked
#   mtagctl/prometheus         the textfile the timer's service writes
#                              parses and counts the faults by cause
#   mtagctl/catalog            journalctl -x explains the fault entry
#   mtagctl/cpu-preferred      the sandboxed mtag-cpu-preferred.service
#                              writes the policy's cpu-preferred mode
MSGID_FAULT=5fda042e18d64e2e9d913704e87926cb

mtagctl_section() {
	local t0 v u out rc svc bug n0 k0 trig pid tid j cause conf size nk nj
	if [ ! -x /usr/bin/mtagctl ]; then
		skip mtagctl "mtagctl not installed in the image"
		return
	fi
	if [ "$HAVE_TCF" != yes ] || [ "$HAVE_MTAG_LIBC" != yes ]; then
		skip mtagctl "needs the mtag kernel and libc"
		return
	fi
	t0=$(date +%s)
	systemctl is-active -q mtag-faultd.service && pass mtagctl/faultd-running ||
		fail mtagctl/faultd-running "mtag-faultd.service is $(systemctl is-active mtag-faultd.service)"

	# ---- status under sync, and redis-server (its own allocator).
	{
		echo "# written by the mtag VM test (tests/helpers/vm/guest/mtagctl.sh)"
		for u in $UNITS redis-server.service; do echo "$u sync"; done
	} >/etc/mtag/policy.conf
	# redis-server's jemalloc (+mtag1 in the image) with its off switch:
	# the heap stays untagged whatever the mode, the case this checks.
	mkdir -p /run/systemd/system/redis-server.service.d
	printf '[Service]\nEnvironment=MALLOC_CONF=mtag:false\n' \
		>/run/systemd/system/redis-server.service.d/zz-mtag-jemalloc-off.conf
	# The image's drop-ins set LimitCORE=0 (no cores from the matrix's
	# many crashes); this section reads the cores of nginx and memcached.
	# The 6.1 kernel hands a piped core_pattern an unlimited %c whatever
	# RLIMIT_CORE says, 6.12 the service's own limit, which
	# systemd-coredump honours ("Resource limits disable core dumping"):
	# the limit is lifted here, as an admin who wants cores does.
	for u in nginx.service memcached.service; do
		mkdir -p "/run/systemd/system/$u.d"
		printf '[Service]\nLimitCORE=infinity\n' >"/run/systemd/system/$u.d/zz-mtag-test-core.conf"
	done
	systemctl daemon-reload
	for u in $UNITS redis-server.service; do systemctl restart "$u"; done
	for svc in nginx memcached ssh; do wait_for 30 svc_ok "$svc"; done
	wait_for 20 bash -c 'timeout 2 bash -c "exec 3<>/dev/tcp/127.0.0.1/6379 && printf \"PING\r\n\" >&3 && head -1 <&3" | grep -q PONG'
	out=$(mtagctl --json status 2>"$R/mtagctl-status.err"); rc=$?
	mtagctl --no-pager status >"$R/mtagctl-status.txt" 2>&1
	info "mtagctl status (sync, redis-server too):"
	while IFS= read -r l; do info "  $l"; done <"$R/mtagctl-status.txt"
	for u in $UNITS; do
		v=$(jq -r --arg u "$u" '.[] | select(.unit == $u) | .verdict + ": " + .reason' <<<"$out")
		[[ "$v" == "protected: "* ]] && pass "mtagctl/status-sync/$u" ||
			fail "mtagctl/status-sync/$u" "verdict '$v' (status exit $rc, $(head -c 300 "$R/mtagctl-status.err"))"
	done
	v=$(jq -r '.[] | select(.unit == "redis-server.service") | .verdict + ": " + .reason' <<<"$out")
	[[ "$v" == "not protected: heap not tagged"* ]] && pass mtagctl/status-redis ||
		fail mtagctl/status-redis "redis-server.service: '$v'"
	[ "$rc" = 1 ] && pass mtagctl/status-exit || fail mtagctl/status-exit "exit $rc with redis not as asked, want 1"
	# status -p of an nginx worker.
	out=$(mtagctl status -p "$(nginx_workers | cut -d' ' -f1)" 2>&1)
	grep -q '^verdict: *protected' <<<"$out" && grep -q '^unit: *nginx.service' <<<"$out" &&
		pass mtagctl/status-pid || fail mtagctl/status-pid "$(tr '\n' '|' <<<"$out")"

	# ---- a real overflow and a real use-after-free, under sync.
	for sb in nginx:overflow memcached:uaf; do
		svc=${sb%%:*} bug=${sb#*:}
		n0=$(ev_count); k0=$(kmsg_count)
		local since; since=$(date +%s)
		svc_bug "$svc" "$bug" >/dev/null
		wait_for 10 ev_trigger "$n0" "$bug" >/dev/null
		trig=$(ev_trigger "$n0" "$bug")
		pid=$(field pid "$trig"); tid=$(field tid "$trig")
		if [ -z "$pid" ]; then
			fail "mtagctl/$bug/faults" "the trigger did not reach $svc"
			continue
		fi
		# The structured entry, and the core (systemd-coredump).
		wait_for 20 bash -c "journalctl -q -o cat MESSAGE_ID=$MSGID_FAULT MTAG_TID=$tid | grep -q ."
		wait_for 30 bash -c "coredumpctl -q --no-pager list COREDUMP_PID=$pid 2>/dev/null | grep -q ."
		sleep 1
		j=$(mtagctl faults --json --since "@$since" 2>"$R/mtagctl-faults.err" |
			jq -c --arg t "$tid" '[.[] | select(.tid == ($t | tonumber))] | .[0]')
		mtagctl --no-pager faults --since "@$since" >"$R/mtagctl-faults-$bug.txt" 2>&1
		info "mtagctl faults ($svc, $bug):"
		while IFS= read -r l; do info "  $l"; done <"$R/mtagctl-faults-$bug.txt"
		local want_cause=$bug; [ "$bug" = uaf ] && want_cause=use-after-free
		cause=$(jq -r .cause <<<"$j"); conf=$(jq -r .confidence <<<"$j"); size=$(jq -r .allocation_size <<<"$j")
		local ok=1 why=""
		[ "$(jq -r .unit <<<"$j")" = "$svc.service" ] || { ok=0; why="$why; unit $(jq -r .unit <<<"$j")"; }
		[ "$(jq -r .pid <<<"$j")" = "$pid" ] || { ok=0; why="$why; pid $(jq -r .pid <<<"$j"), want $pid"; }
		[ "$cause" = "$want_cause" ] || { ok=0; why="$why; cause '$cause', want $want_cause"; }
		[ "$(jq -r .action <<<"$j")" = signal ] || { ok=0; why="$why; action $(jq -r .action <<<"$j")"; }
		[ $ok = 1 ] && pass "mtagctl/$bug/faults" || fail "mtagctl/$bug/faults" "${why#; }: $j"
		# With the core: certain, and the exact size the injector
		# allocated (32 bytes, tests/helpers/progs/mtebug-bugs.h).
		if [ "$(jq -r '.core != null' <<<"$j")" = true ]; then
			if [ "$bug" = overflow ]; then
				[ "$conf" = certain ] && [ "$size" = 32 ] && pass "mtagctl/$bug/core-size" ||
					fail "mtagctl/$bug/core-size" "confidence '$conf', allocation_size '$size', want certain and 32; core note: $(jq -r .core.note <<<"$j")"
			else
				[ "$conf" = certain ] || [ "$conf" = likely ] && pass "mtagctl/$bug/core-cause" ||
					fail "mtagctl/$bug/core-cause" "confidence '$conf'; core note: $(jq -r .core.note <<<"$j")"
			fi
		else
			fail "mtagctl/$bug/core" "no core of pid $pid found by mtagctl ($(coredumpctl -q --no-pager list 2>&1 | tail -2 | tr '\n' '|'))"
		fi
		nk=$(kmsg_since "$k0" | grep -c "tag check fault in .*\[$tid\]")
		nj=$(journalctl -q -o cat "MESSAGE_ID=$MSGID_FAULT" "MTAG_TID=$tid" | wc -l)
		[ "$nk" -ge 1 ] && [ "$nk" = "$nj" ] && pass "mtagctl/$bug/journal" ||
			fail "mtagctl/$bug/journal" "$nk kernel lines, $nj structured entries for thread $tid"
		wait_for 30 svc_ok "$svc"
	done
	journalctl -o verbose MESSAGE_ID=$MSGID_FAULT >"$R/fault-entries.txt" 2>&1
	out=$(journalctl -x -q --no-pager -n 1 MESSAGE_ID=$MSGID_FAULT 2>&1)
	grep -q 'mtagctl faults' <<<"$out" && pass mtagctl/catalog || fail mtagctl/catalog "journalctl -x shows no catalog text: $(head -c 300 <<<"$out")"

	# ---- Prometheus: the timer's service writes the textfile.
	# The exporter's directory appears after boot, as when
	# prometheus-node-exporter is installed after mtag: the path unit
	# starts the timer, no reboot.
	local was_timer
	was_timer=$(systemctl is-active mtag-prometheus.timer 2>&1)
	mkdir -p /var/lib/prometheus/node-exporter
	if wait_for 20 systemctl -q is-active mtag-prometheus.timer; then
		pass mtagctl/prometheus-path
	else
		fail mtagctl/prometheus-path "timer $(systemctl is-active mtag-prometheus.timer 2>&1) (before the directory: $was_timer), path $(systemctl is-active mtag-prometheus.path 2>&1)"
	fi
	# redis-server is not as asked here, and the service still succeeds:
	# that is in the file, not in a failed unit.
	if systemctl start mtag-prometheus.service && ! systemctl -q is-failed mtag-prometheus.service; then
		pass mtagctl/prometheus-exit
	else
		fail mtagctl/prometheus-exit "$(systemctl status mtag-prometheus.service 2>&1 | tail -5 | tr '\n' '|')"
	fi
	local pf=/var/lib/prometheus/node-exporter/mtag.prom
	cp "$pf" "$R/mtag.prom" 2>/dev/null
	if [ ! -s "$pf" ]; then
		fail mtagctl/prometheus "$pf not written: $(systemctl status mtag-prometheus.service 2>&1 | tail -5 | tr '\n' '|')"
	else
		# A parser of the text format (0.0.4): every sample is
		# NAME{LABELS} VALUE with a TYPE line for NAME before it.
		out=$(awk '
			/^# TYPE / { type[$3] = $4; next }
			/^# HELP / || /^$/ { next }
			/^#/ { print "bad comment: " $0; bad++; next }
			{
				line = $0
				if (!match(line, /^[a-zA-Z_:][a-zA-Z0-9_:]*/)) { print "bad name: " line; bad++; next }
				name = substr(line, 1, RLENGTH); rest = substr(line, RLENGTH + 1)
				if (substr(rest, 1, 1) == "{") {
					if (!match(rest, /^\{([a-zA-Z_][a-zA-Z0-9_]*="([^"\\]|\\.)*",?)*\}/)) { print "bad labels: " line; bad++; next }
					rest = substr(rest, RLENGTH + 1)
				}
				if (rest !~ /^ [-+]?([0-9]+(\.[0-9]*)?([eE][-+]?[0-9]+)?|NaN|[-+]Inf)$/) { print "bad value: " line; bad++; next }
				if (!(name in type)) { print "no TYPE for " name; bad++ }
				n++
			}
			END { print n + 0 " samples, " bad + 0 " errors" }' "$pf")
		local ov uf
		ov=$(sed -n 's/^mtag_faults_total{unit="nginx.service",cause="overflow"} //p' "$pf")
		uf=$(sed -n 's/^mtag_faults_total{unit="memcached.service",cause="use-after-free"} //p' "$pf")
		# nginx's heap ratio: smaps of its www-data workers read from
		# inside the sandbox (CAP_SYS_PTRACE, ProtectProc=invisible).
		local hr
		hr=$(sed -n 's/^mtag_heap_tagged_ratio{unit="nginx.service"} //p' "$pf")
		if [[ "$(tail -1 <<<"$out")" == *" 0 errors" ]] && [ "${ov:-0}" -ge 1 ] && [ "${uf:-0}" -ge 1 ] &&
			awk -v r="${hr:-0}" 'BEGIN { exit !(r >= 0.05) }' &&
			grep -q '^mtag_protected{unit="nginx.service"} 1$' "$pf" &&
			grep -q '^mtag_as_asked{unit="redis-server.service"} 0$' "$pf" &&
			grep -q '^mtag_build_info{version="[^"]*"} 1$' "$pf" &&
			grep -q '^# TYPE mtag_faults_suppressed_total counter$' "$pf"; then
			pass mtagctl/prometheus
			info "prometheus: $(tail -1 <<<"$out"); nginx overflow faults $ov, memcached use-after-free faults $uf"
		else
			fail mtagctl/prometheus "parser: $(tr '\n' '|' <<<"$out"); nginx overflow '$ov', memcached uaf '$uf', nginx heap ratio '$hr'"
		fi
	fi

	# ---- the policy changes, no restart: "restart needed".
	sed -i 's/^nginx.service sync$/nginx.service async/' /etc/mtag/policy.conf
	# Before the daemon-reload the generator's drop-in still hands the
	# launcher the old entry: a restart alone would not apply the edit.
	v=$(mtagctl --json status nginx.service | jq -r '.[0].verdict + ": " + .[0].reason')
	[[ "$v" == "not protected: daemon-reload and restart needed: the policy changed since the last daemon-reload"* ]] &&
		pass mtagctl/status-reload || fail mtagctl/status-reload "after a policy edit without daemon-reload: '$v'"
	systemctl daemon-reload
	v=$(mtagctl --json status nginx.service | jq -r '.[0].verdict + ": " + .[0].reason')
	[[ "$v" == "not protected: restart needed"* ]] && pass mtagctl/status-restart ||
		fail mtagctl/status-restart "after a policy change without restart: '$v'"
	info "after the policy change, no restart: nginx.service $v"
	# A local drop-in read after the generator's resets ExecStart=:
	# systemd runs it unwrapped; mtagctl and the generator say so.
	mkdir -p /etc/systemd/system/nginx.service.d
	printf '[Service]\nExecStart=\nExecStart=/usr/sbin/nginx -g "daemon on; master_process on;"\n' \
		>/etc/systemd/system/nginx.service.d/zzz-local.conf
	systemctl daemon-reload
	v=$(mtagctl --json status nginx.service | jq -r '.[0].verdict + ": " + .[0].reason')
	[[ "$v" == "not protected: unwrapped: /etc/systemd/system/nginx.service.d/zzz-local.conf"* ]] &&
		pass mtagctl/status-unwrapped || fail mtagctl/status-unwrapped "with zzz-local.conf: '$v'"
	info "with a late drop-in: nginx.service $v"
	journalctl -b -o cat --no-pager 2>/dev/null | grep -qF 'nginx.service: /etc/systemd/system/nginx.service.d/zzz-local.conf sorts after zz-mtag-launcher.conf' &&
		pass mtagctl/generator-warns-unwrapped ||
		fail mtagctl/generator-warns-unwrapped "no generator warning in the journal: $(journalctl -b -o cat --no-pager | grep -m3 mtag-generator | tr '\n' '|')"
	rm -f /etc/systemd/system/nginx.service.d/zzz-local.conf
	systemctl daemon-reload
	systemctl stop redis-server.service
	rm -f /run/systemd/system/redis-server.service.d/zz-mtag-jemalloc-off.conf \
		/run/systemd/system/nginx.service.d/zz-mtag-test-core.conf \
		/run/systemd/system/memcached.service.d/zz-mtag-test-core.conf
	systemctl daemon-reload

	# ---- mtag-cpu-preferred.service, sandboxed (no capabilities, no
	# network, read-only file system but /sys), still writes every CPU's
	# preferred mode.
	local c0 want bad=""
	c0=$(cat /sys/devices/system/cpu/cpu0/mte_tcf_preferred 2>/dev/null)
	if [ -z "$c0" ]; then
		skip mtagctl/cpu-preferred "no /sys/devices/system/cpu/cpu0/mte_tcf_preferred"
	else
		want=sync; [ "$c0" = sync ] && want=async
		cp /etc/mtag/policy.conf "$R/policy.conf.saved"
		echo "cpu-preferred $want" >>/etc/mtag/policy.conf
		systemctl restart mtag-cpu-preferred.service
		for f in /sys/devices/system/cpu/cpu[0-9]*/mte_tcf_preferred; do
			[ "$(cat "$f")" = "$want" ] || bad="$bad $f=$(cat "$f")"
		done
		if systemctl -q is-active mtag-cpu-preferred.service && [ -z "$bad" ]; then
			pass mtagctl/cpu-preferred
		else
			fail mtagctl/cpu-preferred "want $want:$bad; $(systemctl status mtag-cpu-preferred.service 2>&1 | tail -4 | tr '\n' '|')"
		fi
		cp "$R/policy.conf.saved" /etc/mtag/policy.conf
		for f in /sys/devices/system/cpu/cpu[0-9]*/mte_tcf_preferred; do echo "$c0" >"$f"; done
	fi
	info "mtagctl part took $(( $(date +%s) - t0 ))s"
}
