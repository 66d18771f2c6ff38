#!/bin/bash
# tests/ts/mtagctl/cli.sh -- mtagctl's command line on the host (ASan+UBSan
# build): options and exit statuses, status -p over a recorded /proc tree
# (modes, threads that differ, report mode, heap tagging from smaps), its
# JSON (parsed by python3), --since, and faults without any entry.  The
# verbs that need systemd and the journal of a real MTE machine run in the
# VM (tests/helpers/vm/guest/mtagctl.sh).
. "$(dirname "$0")/../../functions.sh"
set -u
cd "$TOP" || exit 1
if ! make -s mtagctl-asan >"$BUILD/test-logs/mtagctl-cli-build.log" 2>&1; then
	t_fail cli/build "make mtagctl-asan failed: $(tail -3 "$BUILD/test-logs/mtagctl-cli-build.log")"
	exit 1
fi
C=$BUILD/asan/mtagctl
export ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 NO_COLOR=1
T=$(mktemp -d /tmp/mtagctl-cli.XXXXXX)
trap 'rm -rf "$T"' EXIT

# expect (tests/functions.sh): the cases are cli/NAME; a FAIL quotes 600
# characters of stdout.
EXPECT_PREFIX=cli/ EXPECT_OUT_CHARS=600

expect help 0 'status [UNIT...]' '' -- "$C" --help
expect help-verb 0 'faults ' '' -- "$C" help
expect version 0 "mtagctl $(dpkg-parsechangelog -l debian/changelog -S Version)" '' -- "$C" --version
expect bad-verb 2 '' "unknown verb 'frob'" -- "$C" frob
expect bad-option 2 '' "Try 'mtagctl --help'" -- "$C" --frob
expect bad-pid 2 '' "--pid 'abc': not a process ID" -- "$C" status -p abc
expect pid-and-units 2 '' 'status takes units or --pid, not both' -- "$C" status -p 1 nginx.service
expect unit-with-status 2 '' "go with 'faults', not 'status'" -- "$C" status --unit nginx
expect pid-with-faults 2 '' "go with 'status', not 'faults'" -- "$C" faults -p 1
expect prom-with-json 2 '' 'no units, --pid or --json with it' -- "$C" status --prometheus --json
expect bad-json 2 '' '--json=yaml: expected pretty or short' -- "$C" --json=yaml status
expect check-args 2 '' 'check takes no arguments' -- "$C" check extra
expect since-bad 2 '' "--since 'banana': expected a timestamp of systemd.time(7)" -- "$C" faults --since banana
expect since-bad-span 2 '' "--since '-5 parsecs'" -- "$C" faults --since '-5 parsecs'
for s in today yesterday now -1h '2d ago' '2026-12-04' '2026-12-04 10:00' '10:30:15' @1700000000; do
	expect "since-ok/$s" 1 '0 faults' '' -- "$C" --no-pager faults --since "$s" --no-core
done
expect faults-none-json 1 '' '' -- "$C" faults --json --no-core
[ "$(cat "$T/out")" = "[]" ] && t_pass cli/faults-none-json-empty || t_fail cli/faults-none-json-empty "'$(cat "$T/out")'"

# A recorded /proc: pid 4242 "ngi\"nx" (a quote in its name, for the JSON)
# in report mode, sync, with three threads: 4243 suspended by a reported
# fault, 4244 running another mode; smaps with a tagged heap.
P=$T/proc
mkproc() { # PID TID TCF REPORT CHECKING
	mkdir -p "$P/$1/task/$2"
	printf 'Name:\t%s\nPid:\t%s\nMTE_TCF:\t%s\nMTE_TagInclude:\t0xfffe\nMTE_Report:\t%s\nMTE_ReportReenable:\t300000000\nMTE_ReportChecking:\t%s\n' \
		'ngi"nx' "$2" "$3" "$4" "$5" >"$P/$1/task/$2/status"
}
mkproc 4242 4242 sync on active
mkproc 4242 4243 sync on suspended
mkproc 4242 4244 none on active
cp "$P/4242/task/4242/status" "$P/4242/status"
cat >"$P/4242/smaps" <<'SMAPS'
aaaab0000000-aaaab0100000 r-xp 00000000 fe:01 1234 /usr/sbin/nginx
Size:               1024 kB
Anonymous:             0 kB
VmFlags: rd ex mr mw me
ffff80000000-ffff80400000 rw-p 00000000 00:00 0 [heap]
Size:               4096 kB
Anonymous:          3000 kB
VmFlags: rd wr mr mw me ac mt
ffff90000000-ffff90100000 rw-p 00000000 00:00 0
Size:               1024 kB
Anonymous:          1000 kB
VmFlags: rd wr mr mw me ac
ffffd2a00000-ffffd2a21000 rw-p 00000000 00:00 0                          [stack]
Size:                132 kB
Anonymous:           100 kB
VmFlags: rd wr mr mw me gd ac
SMAPS
expect pid-show 0 'pid 4242 (ngi"nx)' '' -- "$C" --no-pager --proc "$P" status -p 4242
out=$(cat "$T/out")
ok=1
for want in 'tag checking:   sync (some threads differ)' 'tag mask:       0xfffe' \
	'heap tagging:   yes (3000 of 4000 kB malloc-able memory tagged; 3000 of 4100 kB anonymous memory in 1 mt mappings of 4)' \
	'report mode:    on (checks come back in a thread after 300ms of its CPU time)' \
	'threads:        3, tag checking suspended by a reported fault in 1: 4243, 1 with another mode (thread 4244: none)'; do
	grep -qxF -- "$want" <<<"$out" || { ok=0; t_fail "cli/pid-fields" "no line '$want' in: $(tr '\n' '|' <<<"$out")"; }
done
[ $ok = 1 ] && t_pass cli/pid-fields
if grep -qw mte /proc/cpuinfo 2>/dev/null; then
	t_skip cli/pid-verdict-nomte "this host has MTE"
else
	grep -qxF 'verdict:        not protected: no MTE in this CPU or kernel' <<<"$out" &&
		t_pass cli/pid-verdict-nomte || t_fail cli/pid-verdict-nomte "$(tail -1 <<<"$out")"
fi
# A process names itself: terminal escapes in its name (OSC retitle, CSI
# clear screen, BEL, an 8-bit C1 CSI, invalid UTF-8) are shown escaped.
mkdir -p "$P/4343/task/4343"
printf 'Name:\t\033]0;pwned\007\033[2J\302\233x\377\nPid:\t4343\nMTE_TCF:\tsync\nMTE_TagInclude:\t0xfffe\n' \
	>"$P/4343/task/4343/status"
cp "$P/4343/task/4343/status" "$P/4343/status"
: >"$P/4343/smaps"
expect pid-escape 0 'pid 4343 (\x1b]0;pwned\a\x1b[2J\xc2\x9bx\xff)' '' -- "$C" --no-pager --proc "$P" status -p 4343
if LC_ALL=C grep -q "$(printf '[\001-\010\013-\037\177]')" "$T/out"; then
	t_fail cli/pid-escape-raw "a control byte reached the output: $(od -c "$T/out" | head -3 | tr '\n' '|')"
else
	t_pass cli/pid-escape-raw
fi
# Issue 32: a mask with fewer than two non-zero tags is said; a process
# run from a set-group-ID program (a secure exec: the kernel drops report
# mode and the exec default) says so, with the program.
mkdir -p "$P/4545/task/4545" "$P/4646/task/4646"
printf 'Name:\tnarrow\nPid:\t4545\nMTE_TCF:\tsync\nMTE_TagInclude:\t0x0000\n' >"$P/4545/status"
cp "$P/4545/status" "$P/4545/task/4545/status"
: >"$P/4545/smaps"
expect pid-narrow-mask 0 'tag mask:       0x0000 (0 non-zero tags: too few, neighbouring allocations share their tag and faults go unseen)' '' -- \
	"$C" --no-pager --proc "$P" status -p 4545
printf 'Name:\tpostdrop\nPid:\t4646\nMTE_TCF:\tnone\nMTE_TagInclude:\t0xfffe\nMTE_Report:\toff\n' >"$P/4646/status"
cp "$P/4646/status" "$P/4646/task/4646/status"
: >"$P/4646/smaps"
printf '#!/bin/true\n' >"$T/postdrop"
chmod 2755 "$T/postdrop"
ln -s "$T/postdrop" "$P/4646/exe"
expect pid-secure-exec 0 "secure exec:    yes ($T/postdrop is set-group-ID): the kernel drops report mode and the exec default for it; it runs none" '' -- \
	"$C" --no-pager --proc "$P" status -p 4646
chmod 0755 "$T/postdrop"
"$C" --no-pager --proc "$P" status -p 4646 >"$T/out" 2>&1
grep -q '^secure exec:' "$T/out" && t_fail cli/pid-no-secure-exec "$(grep '^secure exec:' "$T/out")" || t_pass cli/pid-no-secure-exec
expect pid-json 0 '' '' -- "$C" --json --proc "$P" status -p 4242
if python3 - "$T/out" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["running"]["mode"] == "mixed (sync 2, none 1)", d["running"]
assert d["running"]["threads"] == 3 and d["running"]["threads_suspended"] == 1, d["running"]
assert d["heap"] == {"anonymous_kb": 4100, "tagged_kb": 3000, "malloc_kb": 4000, "malloc_tagged_kb": 3000}, d["heap"]
assert d["verdict"] in ("not protected", "protected", "report only"), d["verdict"]
assert set(d["faults"]) == {"total", "unknown", "overflow", "underflow", "use-after-free", "wild-pointer"}
PY
then t_pass cli/pid-json-parses; else t_fail cli/pid-json-parses "$(head -c 600 "$T/out")"; fi
expect pid-json-pretty 0 '  "unit": ' '' -- "$C" --json=pretty --proc "$P" status -p 4242
python3 -m json.tool "$T/out" >/dev/null && t_pass cli/pid-json-pretty-parses || t_fail cli/pid-json-pretty-parses "$(head -c 300 "$T/out")"
# Where the mode came from (kernel patch 0006's MTE_ExecDefault, the
# environment, AT_SECURE in auxv): a postgres whose supervisor cleaned the
# environment, and a process whose libc ignores the kernel's default.
mkorigin() { # PID TCF ENVIRON
	mkdir -p "$P/$1"
	printf 'Name:\tp%s\nMTE_TCF:\t%s\nMTE_TagInclude:\t0xfffe\nMTE_ExecDefault:\tsync heap\nMTE_ExecDefaultTagInclude:\t0xfffe\n' \
		"$1" "$2" >"$P/$1/status"
	: >"$P/$1/smaps"
	# $3 is the environment as a printf format ("A=1\0B=2\0").
	# shellcheck disable=SC2059
	printf "$3" >"$P/$1/environ"
}
mkorigin 5000 sync 'PGDATA=/var/lib/postgresql\0LANG=C\0'
mkorigin 5001 sync 'GLIBC_TUNABLES=glibc.mem.tagging=3\0'
mkorigin 5002 none 'LANG=C\0'
expect origin-kernel 0 'mode from:      the kernel'"'"'s exec default (no tunable in the environment)' '' -- \
	"$C" --no-pager --proc "$P" status -p 5000
grep -qxF 'exec default:   sync heap (the kernel'"'"'s, kept across exec)' "$T/out" &&
	t_pass cli/origin-execdef-line || t_fail cli/origin-execdef-line "$(tr '\n' '|' <"$T/out")"
expect origin-env 0 'mode from:      the environment (a glibc tunable)' '' -- \
	"$C" --no-pager --proc "$P" status -p 5001
expect origin-stock-libc 0 'mode from:      nowhere: this libc does not read the kernel'"'"'s default' '' -- \
	"$C" --no-pager --proc "$P" status -p 5002
expect origin-json 0 '' '' -- "$C" --json --proc "$P" status -p 5000
if python3 - "$T/out" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["running"]["mode_origin"] == {"environment": 0, "kernel": 1}, d["running"]
PY
then t_pass cli/origin-json-parses; else t_fail cli/origin-json-parses "$(head -c 600 "$T/out")"; fi
expect pid-missing 2 '' "cannot read $P/999: No such file or directory" -- "$C" --proc "$P" status -p 999
# check-packages (issue 36): whether libc6, libjemalloc2 and the kernel
# are mtag's builds, from a crafted dpkg status file and a recorded
# osrelease; one entry (stderr outside a unit) when one is Debian's, exit 0
# either way.
arch=$(dpkg --print-architecture)
mkdir -p "$T/dpkg" "$T/kproc/sys/kernel"
printf 'Package: libc6\nStatus: install ok installed\nArchitecture: %s\nVersion: 2.36-9+deb12u15\n\nPackage: libjemalloc2\nStatus: install ok installed\nArchitecture: %s\nVersion: 5.3.0-1+deb12u0+mtag1\n' \
	"$arch" "$arch" >"$T/dpkg/status"
echo 6.1.0-28-mtag >"$T/kproc/sys/kernel/osrelease"
expect check-packages-debian 0 '' \
	"mtagctl: warning: libc6 2.36-9+deb12u15 is Debian's build, not mtag's: the services that rely on it lose MTE protection (journalctl -x: what to do)" -- \
	"$C" --dpkg-admindir "$T/dpkg" --proc "$T/kproc" check-packages
[ "$(wc -l <"$T/err")" -eq 1 ] && [ ! -s "$T/out" ] && t_pass cli/check-packages-one-entry ||
	t_fail cli/check-packages-one-entry "$(head -c 600 "$T/err")"
echo 6.1.0-29-arm64 >"$T/kproc/sys/kernel/osrelease"
expect check-packages-kernel 0 '' "libc6 2.36-9+deb12u15 and kernel 6.1.0-29-arm64 are Debian's builds, not mtag's" -- \
	"$C" --dpkg-admindir "$T/dpkg" --proc "$T/kproc" check-packages
sed -i 's/2.36-9+deb12u15/2.36-9+deb12u14+mtag1/' "$T/dpkg/status"
echo 6.1.0-28-mtag >"$T/kproc/sys/kernel/osrelease"
expect check-packages-mtag 0 '' '' -- "$C" --dpkg-admindir "$T/dpkg" --proc "$T/kproc" check-packages
[ ! -s "$T/err" ] && [ ! -s "$T/out" ] && t_pass cli/check-packages-mtag-silent ||
	t_fail cli/check-packages-mtag-silent "$(head -c 600 "$T/err")"
expect check-packages-no-dpkg 0 '' '' -- "$C" --dpkg-admindir "$T/none" --proc "$T/kproc" check-packages
expect check-packages-args 2 '' 'check-packages takes no arguments' -- "$C" check-packages extra
expect check-packages-pid 2 '' "go with 'status', not 'check-packages'" -- "$C" check-packages -p 1

# The real /proc of this (non-MTE) host: no MTE_TCF lines.
sleep 30 & spid=$!
expect pid-real 0 "tag checking:   unknown (this kernel does not show MTE_TCF in /proc/$spid/status)" '' -- "$C" --no-pager status -p "$spid"
kill $spid 2>/dev/null; wait $spid 2>/dev/null

# The pager is not a way out of sudo (the class of CVE-2023-26604): as
# systemctl, mtagctl runs less with LESSSECURE=1 unless the effective uid
# owns the login session or $SYSTEMD_PAGERSECURE says otherwise.  In a real
# terminal (tmux), less's "!" command tries to create a file; "sudo from
# uid 1000's session" is this shell put into that session's cgroup, which
# is what sd_pid_get_owner_uid() reads.
# pager_escape NAME WANT(ran|refused) ENV... -- run mtagctl faults in tmux
# with ENV, type "!touch FILE" into its pager, and see whether FILE exists.
pager_escape() {
	local name=$1 want=$2 mark=$T/pager-$1 got
	shift 2
	rm -f "$mark"
	tmux -L mtagctl-cli -f /dev/null new-session -d -x 100 -y 20 \
		"env SYSTEMD_LESS=R $* $C faults --no-core; sleep 0.5"
	for _ in $(seq 50); do
		tmux -L mtagctl-cli capture-pane -p 2>/dev/null | grep -q '0 faults' && break
		sleep 0.1
	done
	tmux -L mtagctl-cli send-keys "!touch $mark" Enter
	# A loaded host can take seconds to run the shell: wait up to 10 s
	# for the mark when it should come, 2 s when it should not.
	local tries=20
	[ "$want" = ran ] && tries=100
	for _ in $(seq "$tries"); do
		[ -e "$mark" ] && break
		sleep 0.1
	done
	tmux -L mtagctl-cli send-keys Enter q
	for _ in $(seq 30); do
		tmux -L mtagctl-cli has-session 2>/dev/null || break
		sleep 0.1
	done
	tmux -L mtagctl-cli kill-server 2>/dev/null
	if [ -e "$mark" ]; then got=ran; else got=refused; fi
	if [ "$got" = "$want" ]; then t_pass "cli/pager-$name"
	else t_fail "cli/pager-$name" "the pager's ! command $got, want $want"; fi
}
if ! command -v tmux >/dev/null || ! command -v less >/dev/null; then
	t_skip cli/pager "tmux or less missing (sh tools/install-deps launcher)"
else
	# The harness can see a shell escape: one that is allowed runs.
	pager_escape explicit-off ran SYSTEMD_PAGERSECURE=0
	pager_escape explicit-on refused SYSTEMD_PAGERSECURE=1
	sess="" home=""
	for cg in /sys/fs/cgroup/unified /sys/fs/cgroup; do
		[ "$(stat -fc %T "$cg" 2>/dev/null)" = cgroup2fs ] || continue
		home=$cg$(sed -n 's/^0:://p' /proc/$$/cgroup)
		sess=$cg/user.slice/user-1000.slice/session-mtagctl-cli$$.scope
		mkdir -p "$sess" 2>/dev/null || sess=
		break
	done
	if [ -n "$sess" ] && echo $$ >"$sess/cgroup.procs" 2>/dev/null; then
		pager_escape sudo refused
		# $PAGER is not trusted under sudo either: less runs instead.
		pager_escape sudo-pager refused "PAGER='sh -c \"touch $T/pager-sudo-pager; cat\"'"
		pager_escape sudo-pagersecure-0 ran SYSTEMD_PAGERSECURE=0
		echo $$ >"$home/cgroup.procs"
		rmdir "$sess" "${sess%/*}" "${sess%/*/*}" 2>/dev/null
	else
		[ -n "$sess" ] && rmdir "$sess" 2>/dev/null
		t_skip cli/pager-sudo "cannot put this shell into a user-1000 session cgroup"
	fi
fi

# check and apply-cpu-preferred (the launcher suite runs the rest of check).
printf 'nginx.service sync\nbad line here\n' >"$T/policy.conf"; chmod 644 "$T/policy.conf"
expect check-error 1 '1 file read, 1 entry, 1 error' "$T/policy.conf:2:" -- "$C" check --config "$T/policy.conf"
expect cpu-pref-strict 78 '' 'the policy has errors and --strict was given' -- "$C" apply-cpu-preferred --strict --config "$T/policy.conf"
exit 0
