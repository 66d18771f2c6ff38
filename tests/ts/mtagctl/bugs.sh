#!/bin/bash
# tests/ts/mtagctl/bugs.sh -- "mtagctl bugs" over two hosts' journals (issue 37,
# a bug's identity): mtag-faultd (ASan build) makes the fault entries of
# each host from kernel lines and a recorded /proc of its own (the same
# nginx build mapped at other addresses on each host, as ASLR does), with
# a dpkg database that owns the object; the entries, with the fields
# journald adds, go through systemd-journal-remote into one directory, and
# mtagctl bugs -D reads it back: the same bug on both hosts is one line
# with 2 hosts, another bug another line, and forged entries count for
# nothing.
. "$(dirname "$0")/../../functions.sh"
set -u
cd "$TOP" || exit 1
C=$BUILD/asan/mtagctl
F=$BUILD/asan/mtag-faultd
JR=/lib/systemd/systemd-journal-remote
if [ ! -x "$JR" ]; then
	t_skip bugs "systemd-journal-remote is not installed (sh tools/install-deps launcher)"
	exit 0
fi
mkdir -p "$BUILD/test-logs"
if ! make -s mtagctl-asan faultd-asan >"$BUILD/test-logs/mtagctl-bugs-build.log" 2>&1; then
	t_fail bugs/build "make mtagctl-asan faultd-asan failed: $(tail -3 "$BUILD/test-logs/mtagctl-bugs-build.log")"
	exit 1
fi
export ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 NO_COLOR=1 TZ=UTC
T=$(mktemp -d /tmp/mtagctl-bugs.XXXXXX)
trap 'rm -rf "$T"' EXIT

# The object: an ELF with a GNU build-id (any program of the system).
mkdir -p "$T/obj" "$T/dpkg/info"
cp /bin/true "$T/obj/nginx"
OBJ=$T/obj/nginx
ino=$(stat -c %i "$OBJ")
bid=$(LC_ALL=C readelf -n "$OBJ" 2>/dev/null | sed -n 's/^ *Build ID: //p')
printf '/.\n/usr\n%s\n' "$OBJ" >"$T/dpkg/info/nginx-core:arm64.list"
printf '/.\n/usr/bin/other\n' >"$T/dpkg/info/other.list"
printf '%s\n' 'Package: other' 'Status: install ok installed' 'Architecture: all' 'Version: 1' '' \
	'Package: nginx-core' 'Status: install ok installed' 'Architecture: arm64' 'Version: 1.22.1-9' '' >"$T/dpkg/status"

# proc HOST PID TID BASE -- a recorded /proc of HOST: nginx PID (thread
# TID) with the object mapped at BASE.
proc() {
	local p=$T/proc-$1
	mkdir -p "$p/$2/task/$3"
	printf '%x-%x r-xp 00000000 fe:01 %s   %s\n' $(($4)) $(($4 + 0xda000)) "$ino" "$OBJ" >"$p/$2/maps"
	ln -sfn / "$p/$2/root"
	ln -sfn "$OBJ" "$p/$2/exe"
	echo nginx >"$p/$2/task/$3/comm"
	printf 'Name:\tnginx\nMTE_TCF:\tsync\n' >"$p/$2/task/$3/status"
}
proc a 150 157 0xaaaab0b90000
proc b 300 301 0xbbbbc0000000
line() { # TID PID PC TAGS POINTER_TAG(one hex digit)
	printf 'mte: sync tag check fault in nginx[%d]: addr 0x0%s00007fbb594d80 pointer tag 0x%s memory tag 0x0 pc 0x%x pid %d tags %s cgroup /system.slice/nginx.service\n' \
		"$1" "$5" "$5" $(($3)) "$2" "$4"
}
OVF='ffffffff[0]22222222' UAF='00000000[0]00000000'
# The same overflow at offset 0xba1c0 of the object: twice on host-a,
# once on host-b (another base address); a use-after-free at 0x1234 on
# host-b only.
# An async fault of host-a's nginx (no pc): its coarse line.
{
	line 157 150 0xaaaab0c4a1c0 "$OVF" f
	line 157 150 0xaaaab0c4a1c0 "$OVF" f
	echo 'mte: async tag check fault in nginx[157]: pid 150 cgroup /system.slice/nginx.service'
} >"$T/a.kmsg"
{
	line 301 300 0xbbbbc00ba1c0 "$OVF" f
	line 301 300 0xbbbbc0001234 "$UAF" 5
} >"$T/b.kmsg"
for h in a b; do
	"$F" --from-stdin --proc "$T/proc-$h" --dpkg-admindir "$T/dpkg" <"$T/$h.kmsg" >"$T/$h.entries" 2>"$T/$h.err"
done
if grep -q Sanitizer "$T/a.err" "$T/b.err"; then
	t_fail bugs/faultd "$(grep -m1 Sanitizer "$T/a.err" "$T/b.err")"
fi
sig1=$(sed -n 's/^MTAG_SIGNATURE=//p' "$T/a.entries" | head -1)
sigb=$(sed -n 's/^MTAG_SIGNATURE=//p' "$T/b.entries" | tr '\n' ' ')
# The signature as bugid.h defines it, computed here on its own.
want1=$(printf 'mtag-bug-v1\0%s\0overflow\0ba1c0' "$bid" | sha256sum | cut -c1-16)
want2=$(printf 'mtag-bug-v1\0%s\0use-after-free\0%s' "$bid" 1234 | sha256sum | cut -c1-16)
want3=$(printf 'mtag-bug-v1\0%s\0async\0' "$bid" | sha256sum | cut -c1-16)
# stack CALLER -- the stack signature of want1 reached from the object at
# +CALLER, then +0x5678 and +0x9abc (bugid.h), computed on its own.
stack() {
	printf 'mtag-stack-v1\0%s\0%s\0%s\0%s\0%s\0%s\0%s\0' "$want1" "$bid" "$1" "$bid" 5678 "$bid" 9abc |
		sha256sum | cut -c1-16
}
stack1=$(stack 1238) stack2=$(stack 2000)
if [ -z "$bid" ]; then
	t_fail bugs/faultd-signature "$OBJ has no build-id (readelf -n)"
elif [ "$sig1" = "$want1" ] && [ "$sigb" = "$want1 $want2 " ] &&
     [ "$(sed -n 's/^MTAG_SIGNATURE=//p' "$T/a.entries" | tr '\n' ' ')" = "$want1 $want1 $want3 " ] &&
     grep -qxF "MTAG_BUILD_ID=$bid" "$T/a.entries" && grep -qxF 'MTAG_OFFSET=0xba1c0' "$T/b.entries" &&
     grep -qxF "MTAG_OBJECT=$OBJ" "$T/b.entries" && grep -qxF 'MTAG_PACKAGE=nginx-core:arm64' "$T/a.entries" &&
     grep -qxF 'MTAG_PACKAGE_VERSION=1.22.1-9' "$T/b.entries"; then
	t_pass bugs/faultd-signature
else
	t_fail bugs/faultd-signature "host-a $sig1, host-b $sigb; want $want1 (both), $want2: $(grep '^MTAG_\(OBJ\|OFF\|BUI\|PACK\|SIG\|BUG\)' "$T/a.entries" "$T/b.entries" | head -c 900)"
fi

# to_export HOST BOOT T0 [FIELD=VALUE...] -- faultd's entries on stdin as
# journald would store them from mtag-faultd.service of HOST (the extra
# fields instead of the usual trusted ones when given).
to_export() {
	local host=$1 boot=$2 t=$3 mid
	shift 3
	mid=$(printf '%s' "$host" | md5sum | cut -c1-32)
	awk -v host="$host" -v mid="$mid" -v boot="$boot" -v t="$t" -v extra="$*" '
	function head() {
		printf "__REALTIME_TIMESTAMP=%d000000\n__MONOTONIC_TIMESTAMP=%d000000\n", t, t - 1765000000 + 10
		printf "_BOOT_ID=%s\n_MACHINE_ID=%s\n_HOSTNAME=%s\n_TRANSPORT=journal\n_GID=0\n", boot, mid, host
		if (extra != "") { n = split(extra, x, " "); for (i = 1; i <= n; i++) print x[i] }
		else printf "_UID=0\n_COMM=mtag-faultd\n_EXE=/usr/lib/mtag/mtag-faultd\n_SYSTEMD_UNIT=mtag-faultd.service\n"
		t += 60
	}
	BEGIN { start = 1 }
	/^$/ { print; start = 1; next }
	{ if (start) head(); start = 0; print }'
}
T0=1765000000 # Sat 2025-12-06 05:46:40 UTC
to_export host-a aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa1 $T0 <"$T/a.entries" >"$T/a.export"
to_export host-b bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb1 $((T0 + 30)) <"$T/b.entries" >"$T/b.export"
# host-b keeps a core (systemd-coredump, Storage=journal: the core in its
# entry) of its nginx (tests/helpers/mkcore.py): the faulting thread at
# the overflow's pc, called from the object at +0x1238, then by frame
# records from +0x5678 and +0x9abc.  Host-a has none: the bug is still
# one line.
python3 tests/helpers/mkcore.py "$OBJ" "$bid" 0xbbbbc0000000 300 301 "$T/b.core"
python3 - "$T/b.core" "$T/b.core.export" $((T0 + 200)) <<'PY'
import hashlib, struct, sys
core, out, t = open(sys.argv[1], 'rb').read(), sys.argv[2], int(sys.argv[3])
mid = hashlib.md5(b'host-b').hexdigest()
text = ('__REALTIME_TIMESTAMP=%d000000\n__MONOTONIC_TIMESTAMP=%d000000\n_BOOT_ID=bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb1\n'
        '_MACHINE_ID=%s\n_HOSTNAME=host-b\n_TRANSPORT=journal\n_UID=0\n_GID=0\n_COMM=systemd-coredum\n'
        'MESSAGE_ID=fc2e22bc6ee647b6b90729ab34a250b1\nMESSAGE=Process 300 (nginx) of user 33 dumped core.\n'
        'COREDUMP_PID=300\nCOREDUMP_SIGNAL=11\n' % (t, t - 1765000000 + 10, mid))
with open(out, 'wb') as f:
    f.write(text.encode() + b'COREDUMP\n' + struct.pack('<Q', len(core)) + core + b'\n\n')
PY
cat "$T/b.core.export" >>"$T/b.export"
# The frames entries mtag-faultd writes when a core comes (faultd's
# journal suite checks them): host-b's core above, and host-a's of the
# same bug from another caller; and a forged one with a third stack
# (root, but not mtag-faultd): STACKS 2.
frames() { # STACK
	printf '%s\n' "MESSAGE=frames" MESSAGE_ID=b57edd2ae7164f9a90260005d212d684 "MTAG_SIGNATURE=$want1" \
		"MTAG_STACK_SIGNATURE=$1" ''
}
frames "$stack1" | to_export host-b bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb1 $((T0 + 210)) >>"$T/b.export"
frames "$stack2" | to_export host-a aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa1 $((T0 + 400)) >>"$T/a.export"
frames "$(stack 3000)" | to_export host-a aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa1 $((T0 + 500)) _UID=0 >>"$T/a.export"
# host-c: forgeries of host-a's first entry (its signature): root, but no
# trusted field names mtag-faultd (a root program that exited before
# journald read its /proc); a user with mtag-faultd's name.
sed -n '/^MESSAGE=/,/^$/p' "$T/a.entries" | sed '/^$/q' >"$T/one.entry"
{
	to_export host-c ccccccccccccccccccccccccccccccc1 $((T0 + 600)) _UID=0 <"$T/one.entry"
	to_export host-c ccccccccccccccccccccccccccccccc1 $((T0 + 700)) _UID=1000 _COMM=mtag-faultd <"$T/one.entry"
} >"$T/c.export"
mkdir -p "$T/remote"
ok=1
for h in a b c; do
	"$JR" --output="$T/remote/host-$h.journal" "$T/$h.export" 2>>"$T/jr.log" || ok=
done
[ -n "$ok" ] && t_pass bugs/journal-remote ||
	{ t_fail bugs/journal-remote "systemd-journal-remote: $(tail -3 "$T/jr.log")"; exit 1; }

D=(--no-pager -D "$T/remote")
"$C" "${D[@]}" bugs >"$T/bugs.out" 2>"$T/bugs.err"
rc=$?
sed 's/^/#   /' "$T/bugs.out"
rows=$(sed -n '2,/^$/p' "$T/bugs.out" | grep -c .)
l1=$(sed -n 2p "$T/bugs.out") l2=$(grep "^$want2 " "$T/bugs.out") l3=$(grep "^$want3 " "$T/bugs.out")
# SIGNATURE HOSTS FAULTS CAUSE STACKS UNITS FIRST(4 words) LAST(4 words) PACKAGE(2) OBJECT HOSTNAMES
fields() { awk '{ print $1, $2, $3, $4, $5, $6, $15, $16, $17, $18 }' <<<"$1"; }
if [ $rc != 0 ] || grep -q Sanitizer "$T/bugs.err"; then
	t_fail bugs/two-hosts-one-line "status $rc: $(head -c 400 "$T/bugs.err")"
elif [ "$rows" != 3 ]; then
	t_fail bugs/two-hosts-one-line "$rows bugs listed, want 3"
elif [ "$(fields "$l1")" != "$want1 2 3 overflow 2 nginx.service nginx-core:arm64 1.22.1-9 $OBJ+0xba1c0 host-a,host-b" ]; then
	t_fail bugs/two-hosts-one-line "first line: $(fields "$l1")"
elif [ "$(fields "$l2")" != "$want2 1 1 use-after-free - nginx.service nginx-core:arm64 1.22.1-9 $OBJ+0x1234 host-b" ]; then
	t_fail bugs/two-hosts-one-line "second line: $(fields "$l2")"
else
	t_pass bugs/two-hosts-one-line
fi
# The async fault: its own line, marked coarse (no offset: no pc).
# CAUSE is async; OBJECT is "PATH (no pc: coarse)".
if [ "$(awk '{ print $1, $2, $3, $4, $5, $6, $15, $16, $17, $18, $19, $20, $21 }' <<<"$l3")" = \
     "$want3 1 1 async - nginx.service nginx-core:arm64 1.22.1-9 $OBJ (no pc: coarse) host-a" ]; then
	t_pass bugs/async-coarse-line
else
	t_fail bugs/async-coarse-line "want $want3 ... async ... $OBJ (no pc: coarse): $l3"
fi
grep -qxF '3 bugs in 5 faults; 1 async (no pc: one line per program build, not per bug); 1 entry not written by mtag-faultd ignored.' "$T/bugs.out" &&
	t_pass bugs/forgeries-ignored || t_fail bugs/forgeries-ignored "$(tail -1 "$T/bugs.out")"
# First and last seen: host-a's first fault and its second, a minute
# later (host-b's came in between).
grep -q "^$want1 .* Sat 2025-12-06 05:46:40 UTC  Sat 2025-12-06 05:47:40 UTC " "$T/bugs.out" &&
	t_pass bugs/first-last || t_fail bugs/first-last "$l1"

# JSON: the same columns.
if "$C" "${D[@]}" -o json bugs | python3 -c '
import json, sys
want1, want2, obj, bid, want3 = sys.argv[1:6]
stacks = sys.argv[6:8]
d = json.load(sys.stdin)
assert [b["signature"] for b in d][0] == want1 and sorted(b["signature"] for b in d[1:]) == sorted([want2, want3]), d
a = [b for b in d if b["signature"] == want3][0]
assert a["coarse"] is True and a["cause"] == "async" and a["offset"] is None and a["build_id"] == bid, a
d = [b for b in d if b["signature"] != want3]
assert not d[0]["coarse"] and not d[1]["coarse"], d
assert d[0]["stack_signatures"] == sorted(stacks) and d[1]["stack_signatures"] == [] and a["stack_signatures"] == [], d
b = d[0]
assert (b["hosts"], b["faults"], b["cause"], b["units"]) == (2, 3, "overflow", ["nginx.service"]), b
assert (b["package"], b["version"], b["object"], b["offset"], b["build_id"]) == ("nginx-core:arm64", "1.22.1-9", obj, "0xba1c0", bid), b
assert [h["hostname"] for h in b["host_list"]] == ["host-a", "host-b"], b
assert all(len(h["machine_id"]) == 32 for h in b["host_list"]), b
assert b["first_usec"] == 1765000000000000 and b["last_usec"] == 1765000060000000, b
assert d[1]["hosts"] == 1 and d[1]["cause"] == "use-after-free", d[1]
' "$want1" "$want2" "$OBJ" "$bid" "$want3" "$stack1" "$stack2" 2>"$T/py.err"; then
	t_pass bugs/json
else
	t_fail bugs/json "$(tail -3 "$T/py.err")"
fi
# -n 1: the bug on most hosts only; -u: another unit has none (status 1).
[ "$("$C" "${D[@]}" --no-legend bugs -n 1 | awk '{ print $1 }')" = "$want1" ] &&
	t_pass bugs/lines-1 || t_fail bugs/lines-1 "$("$C" "${D[@]}" --no-legend bugs -n 1)"
"$C" "${D[@]}" bugs -u redis >"$T/out" 2>&1
rc=$?
[ $rc = 1 ] && grep -q '^0 bugs in 0 faults' "$T/out" && t_pass bugs/unit-none ||
	t_fail bugs/unit-none "status $rc: $(head -c 300 "$T/out")"
out=$("$C" "${D[@]}" bugs -f 2>&1)
rc=$?
[ $rc = 2 ] && grep -q "go with 'faults'" <<<"$out" && t_pass bugs/no-follow || t_fail bugs/no-follow "status $rc: $out"
# mtagctl faults shows each fault's identity.
"$C" --no-pager --no-core --file "$T/remote/host-b.journal" faults >"$T/faults.out" 2>&1
grep -qF "    bug:    $want1  $OBJ+0xba1c0  build-id $bid  package nginx-core:arm64 1.22.1-9" "$T/faults.out" &&
grep -qF "    bug:    $want2  $OBJ+0x1234" "$T/faults.out" && t_pass bugs/faults-show-identity ||
	t_fail bugs/faults-show-identity "$(grep -m3 'bug:\|note:' "$T/faults.out")"
# Host-b's core: the top frames by build-id and offset (libdw unwinds it,
# by frame records: the object here is no arm64 file), and the stack
# signature under the bug's, computed here on its own.  The bug's
# signature is the one host-a, without a core, has.
"$C" --no-pager --file "$T/remote/host-b.journal" faults >"$T/frames.out" 2>&1
bad=
for l in "    bug:    $want1  $OBJ+0xba1c0  build-id $bid  package nginx-core:arm64 1.22.1-9" \
	 "    frames: #0 $bid+0xba1c0  $OBJ" "            #1 $bid+0x1238  $OBJ" \
	 "            #3 $bid+0x9abc  $OBJ" "    stack:  $stack1  (the signature and the callers: one per path to the faulting instruction)"; do
	grep -qxF -- "$l" "$T/frames.out" || bad="$bad; lacks '$l'"
done
grep -q Sanitizer "$T/frames.out" && bad="$bad; $(grep -m1 Sanitizer "$T/frames.out")"
[ -z "$bad" ] && t_pass bugs/core-frames || t_fail bugs/core-frames "${bad#; }: $(grep -A6 "bug:    $want1" "$T/frames.out" | head -12)"
"$C" --no-pager --file "$T/remote/host-b.journal" -o json faults | python3 -c '
import json, sys
bid, stack1 = sys.argv[1:3]
f = json.load(sys.stdin)[0]
assert [(x["build_id"], x["offset"]) for x in f["frames"]] == [(bid, o) for o in ("0xba1c0", "0x1238", "0x5678", "0x9abc")], f["frames"]
assert f["stack_signature"] == stack1 and f["signature_coarse"] is False, f
' "$bid" "$stack1" 2>"$T/py.err" && t_pass bugs/core-frames-json || t_fail bugs/core-frames-json "$(tail -2 "$T/py.err")"
"$C" --no-pager --no-core --file "$T/remote/host-b.journal" -o json faults | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert [f["signature"] for f in d] == sys.argv[1:3], d
assert d[0]["offset"] == "0xba1c0" and d[0]["package_version"] == "1.22.1-9", d[0]
' "$want1" "$want2" 2>"$T/py.err" && t_pass bugs/faults-json-identity || t_fail bugs/faults-json-identity "$(tail -2 "$T/py.err")"
exit 0
