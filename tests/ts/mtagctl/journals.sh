#!/bin/bash
# tests/ts/mtagctl/journals.sh -- mtagctl faults over other machines'
# journals, as an admin reads a collector: two hosts' journals go through
# systemd-journal-upload into a systemd-journal-remote on loopback, and
# mtagctl reads the directory it wrote (-D), a file (--file), with the
# journalctl options (-b, -n, -r, --since, --until, -o).  The hosts'
# journals are made from export-format text (systemd-journal-remote reads
# it), with a forged entry that mtagctl must not believe.
. "$(dirname "$0")/../../functions.sh"
set -u
cd "$TOP" || exit 1
C=$BUILD/asan/mtagctl
JR=/lib/systemd/systemd-journal-remote
JU=/lib/systemd/systemd-journal-upload
if [ ! -x "$JR" ] || [ ! -x "$JU" ]; then
	t_skip journals "systemd-journal-remote is not installed (sh tools/install-deps launcher)"
	exit 0
fi
if ! make -s mtagctl-asan >"$BUILD/test-logs/mtagctl-journals-build.log" 2>&1; then
	t_fail journals/build "make mtagctl-asan failed"
	exit 1
fi
export ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 NO_COLOR=1 TZ=UTC
T=$(mktemp -d /tmp/mtagctl-journals.XXXXXX)
rp=
trap '[ -n "$rp" ] && kill "$rp" 2>/dev/null; rm -rf "$T"' EXIT

A1=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa1 A2=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa2 B1=bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb1
T0=1765000000 # Sat 2025-12-06 05:46:40 UTC
# entry HOST BOOT SECONDS UNIT PID [UID]: one fault entry, export format.
entry() {
	printf '%s\n' \
		"__REALTIME_TIMESTAMP=${3}000000" \
		"__MONOTONIC_TIMESTAMP=$(( ($3 - T0 + 10) * 1000000 ))" \
		"_BOOT_ID=$2" \
		"_MACHINE_ID=$(printf '%s' "$1" | md5sum | cut -c1-32)" \
		"_HOSTNAME=$1" \
		"_TRANSPORT=journal" \
		"_UID=${6:-0}" \
		"_GID=0" \
		"_COMM=mtag-faultd" \
		"SYSLOG_IDENTIFIER=mtag-faultd" \
		"MESSAGE_ID=5fda042e18d64e2e9d913704e87926cb" \
		"MESSAGE=$4: MTE tag check fault in $4" \
		"MTAG_UNIT=$4" \
		"MTAG_PID=$5" \
		"MTAG_TID=$5" \
		"MTAG_COMM=${4%%.*}" \
		"MTAG_FAULT_KIND=sync" \
		"MTAG_FAULT_ACTION=signal" \
		"MTAG_CAUSE=overflow" \
		""
}
{
	entry host-a "$A1" $T0 nginx.service 10
	# A user's forgery: the same fields, from uid 1000.
	entry host-a "$A1" $((T0 + 60)) forged.service 11 1000
	entry host-a "$A2" $((T0 + 300)) redis-server.service 12
} >"$T/a.export"
entry host-b "$B1" $((T0 + 400)) nginx.service 20 >"$T/b.export"
mkdir -p "$T/hosts" "$T/remote"
for h in a b; do
	"$JR" --output="$T/hosts/$h.journal" "$T/$h.export" 2>>"$T/jr.log" ||
		{ t_fail journals/export "systemd-journal-remote could not read $h.export: $(tail -3 "$T/jr.log")"; exit 1; }
done
# The collector: systemd-journal-remote on loopback; the hosts upload.
port=$(( 20000 + $$ % 20000 ))
"$JR" --listen-http="127.0.0.1:$port" --split-mode=host --output="$T/remote/" 2>>"$T/jr.log" &
rp=$!
for _ in $(seq 50); do
	(exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
	sleep 0.1
done
ok=1
for h in a b; do
	timeout 60 "$JU" --follow=no --url="http://127.0.0.1:$port" --file="$T/hosts/$h.journal" 2>>"$T/jr.log" || ok=
done
kill "$rp"
wait "$rp" 2>/dev/null
rp=
if [ -n "$ok" ] && ls "$T"/remote/*.journal >/dev/null 2>&1; then
	t_pass journals/upload
else
	t_fail journals/upload "journal-upload to journal-remote failed: $(tail -3 "$T/jr.log")"
	exit 1
fi

# got NAME WANT CMD... -- HOST:UNIT of each fault CMD lists, in order.
got() {
	local name=$1 want=$2 out
	shift 2
	out=$("$@" 2>&1 | sed -n 's/^[A-Z][a-z][a-z] [0-9-]* [0-9:]* UTC  \(host-[ab]\)  \([^ ]*\)  .*/\1:\2/p' | tr '\n' ' ')
	if [ "$out" = "$want" ]; then
		t_pass "journals/$name"
	else
		t_fail "journals/$name" "got '$out', want '$want'"
	fi
}
D=(--no-pager --no-core -D "$T/remote")
all='host-a:nginx.service host-a:redis-server.service host-b:nginx.service '
got directory "$all" "$C" "${D[@]}" faults
got file-a 'host-a:nginx.service host-a:redis-server.service ' \
	"$C" --no-pager --no-core --file "$T/hosts/a.journal" faults
got files "$all" "$C" --no-pager --no-core --file "$T/hosts/a.journal" --file "$T/hosts/b.journal" faults
got reverse 'host-b:nginx.service host-a:redis-server.service host-a:nginx.service ' "$C" "${D[@]}" faults -r
got lines-1 'host-b:nginx.service ' "$C" "${D[@]}" faults -n 1
got lines-2-reverse 'host-b:nginx.service host-a:redis-server.service ' "$C" "${D[@]}" faults -r -n2
got since 'host-a:redis-server.service host-b:nginx.service ' "$C" "${D[@]}" faults --since '2025-12-06 05:50'
got until 'host-a:nginx.service host-a:redis-server.service ' \
	"$C" "${D[@]}" faults --until 'Sat 2025-12-06 05:51:40 UTC'
got window-last 'host-a:redis-server.service ' "$C" "${D[@]}" faults --since @$((T0 + 1)) --until @$((T0 + 399)) -n 5
got unit 'host-a:nginx.service host-b:nginx.service ' "$C" "${D[@]}" faults -u nginx
got boot-last 'host-b:nginx.service ' "$C" "${D[@]}" faults -b
got boot-first 'host-a:nginx.service ' "$C" "${D[@]}" faults -b 1
got boot-prev 'host-a:redis-server.service ' "$C" "${D[@]}" faults -b -1
got boot-id 'host-a:nginx.service ' "$C" "${D[@]}" faults -b "$A1"
got boot-id-offset 'host-a:redis-server.service ' "$C" "${D[@]}" faults -b "$A1+1"
out=$("$C" "${D[@]}" faults -b 7 2>&1)
rc=$?
[ $rc = 2 ] && grep -q 'no such boot in the journal (it holds 3)' <<<"$out" &&
	t_pass journals/boot-out-of-range || t_fail journals/boot-out-of-range "status $rc: $out"
# Every timestamp mtagctl prints is a --since it takes: the second fault's.
second=$("$C" "${D[@]}" faults | grep '^[A-Z]' | sed -n '2s/  host-.*//p')
got since-printed 'host-a:redis-server.service host-b:nginx.service ' "$C" "${D[@]}" faults --since "$second"
# JSON and cat.
if "$C" "${D[@]}" -o json faults | python3 -c '
import json, sys
d = json.load(sys.stdin)
hosts = [(f["hostname"], f["unit"]) for f in d]
assert hosts == [("host-a", "nginx.service"), ("host-a", "redis-server.service"), ("host-b", "nginx.service")], hosts
assert all(len(f["machine_id"]) == 32 for f in d), d
' 2>"$T/py.err"; then
	t_pass journals/json-hosts
else
	t_fail journals/json-hosts "$(tail -3 "$T/py.err")"
fi
out=$("$C" "${D[@]}" -o cat faults -n 1)
[ "$out" = "nginx.service: MTE tag check fault in nginx.service" ] && t_pass journals/output-cat ||
	t_fail journals/output-cat "'$out'"
"$C" "${D[@]}" -o json-pretty faults -n 1 | grep -q '"hostname": "host-b",$' &&
	t_pass journals/output-json-pretty || t_fail journals/output-json-pretty "no pretty hostname line"
out=$("$C" "${D[@]}" -o yaml faults 2>&1)
rc=$?
[ $rc = 2 ] && grep -q "expected short, json, json-pretty or cat" <<<"$out" &&
	t_pass journals/output-bad || t_fail journals/output-bad "status $rc: $out"
out=$("$C" -D "$T/remote" -m faults 2>&1)
rc=$?
[ $rc = 2 ] && grep -q "one of them" <<<"$out" && t_pass journals/one-source || t_fail journals/one-source "status $rc: $out"
out=$("$C" -D "$T/remote" status 2>&1)
rc=$?
[ $rc = 2 ] && grep -q "go with 'faults'" <<<"$out" && t_pass journals/faults-only ||
	t_fail journals/faults-only "status $rc: $out"
out=$("$C" "${D[@]}" faults -f -r 2>&1)
rc=$?
[ $rc = 2 ] && grep -q "not with --reverse or --until" <<<"$out" && t_pass journals/follow-reverse ||
	t_fail journals/follow-reverse "status $rc: $out"
exit 0
