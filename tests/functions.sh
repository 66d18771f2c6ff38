# shellcheck shell=bash
# tests/functions.sh -- the one shell helper file of the mtag test suites:
# every suite's scripts (tests/ts/SUITE/run and what they run beside it)
# source it, as ". "$(dirname "$0")/../../functions.sh"".  Bash only.
#
# A suite prints one line per test case:
#     PASS: name
#     FAIL: name: why
#     SKIP: name: why
# and may print anything else (indented or prefixed "# ") as detail.
# tests/run-suites counts those lines; a suite that exits non-zero without
# printing a FAIL line is counted as one failure of its own.

# The top of the tree: from this file's place, whatever the depth of the
# script that sources it (tests/run-suites exports it too).
TOP=${TOP:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
# SUITE, BUILD_ROOT and BUILD (this suite's products: build/SUITE/).
# shellcheck source=tools/lib/suite.sh
. "$TOP/tools/lib/suite.sh"

t_pass() { printf 'PASS: %s\n' "$1"; }
t_fail() { printf 'FAIL: %s: %s\n' "$1" "${2:-failed}"; T_FAILED=$((${T_FAILED:-0} + 1)); }
t_skip() { printf 'SKIP: %s: %s\n' "$1" "${2:-skipped}"; }
t_info() { printf '# %s\n' "$*"; }

# t_check NAME CMD... -- run CMD, PASS if it exits 0.
t_check() {
	_n=$1; shift
	if "$@"; then t_pass "$_n"; else t_fail "$_n" "command failed: $*"; fi
}

# expect NAME WANT_RC GREP_STDOUT GREP_STDERR -- CMD...
# Run CMD with its output in $T/out and $T/err ($T: the suite's scratch
# directory); PASS NAME when it exits WANT_RC, its stdout holds
# GREP_STDOUT, its stderr GREP_STDERR (fixed strings; an empty pattern
# skips that check) and no sanitizer reported anything; else FAIL NAME with
# what differed.  A suite tunes it with variables, set before the calls:
#   EXPECT_PREFIX     put before NAME (mtagctl's cli.sh: "cli/")
#   EXPECT_STDIN      CMD's stdin (faultd: /dev/null); unset: the caller's
#   EXPECT_OUT_CHARS  how much of stdout a FAIL quotes (default 400)
expect() {
	local name=${EXPECT_PREFIX:-}$1 want=$2 out_pat=$3 err_pat=$4 rc
	local d=${T:?expect needs T, the scratch directory of the suite}
	shift 5
	if [ -n "${EXPECT_STDIN:-}" ]; then
		"$@" >"$d/out" 2>"$d/err" <"$EXPECT_STDIN"
	else
		"$@" >"$d/out" 2>"$d/err"
	fi
	rc=$?
	if [ "$rc" != "$want" ]; then
		t_fail "$name" "exit status $rc, want $want; stderr: $(head -c 400 "$d/err")"
	elif [ -n "$out_pat" ] && ! grep -qF -- "$out_pat" "$d/out"; then
		t_fail "$name" "stdout lacks '$out_pat': $(head -c "${EXPECT_OUT_CHARS:-400}" "$d/out")"
	elif [ -n "$err_pat" ] && ! grep -qF -- "$err_pat" "$d/err"; then
		t_fail "$name" "stderr lacks '$err_pat': $(head -c 400 "$d/err")"
	elif grep -q 'Sanitizer' "$d/err"; then
		t_fail "$name" "sanitizer report: $(grep -m1 Sanitizer "$d/err")"
	else
		t_pass "$name"
	fi
}

# Milliseconds since the epoch, for stage timings.
t_now_ms() { date +%s%3N; }

# t_boot_verdict NAME RC CONSOLE TIMEOUT DONEFILE... -- the verdict of one
# tests/helpers/vm/boot run: PASS NAME when qemu exited 0 and the guest wrote every
# DONEFILE before it powered off; else FAIL NAME with what happened
# (timeout, qemu's status, the missing file) and the console's last lines.
# Returns non-zero on FAIL.
t_boot_verdict() {
	local name=$1 rc=$2 console=$3 timeout=$4 f last
	shift 4
	last=$(tail -5 "$console" 2>/dev/null | tr -d '\r' | tr '\n' '|')
	if [ "$rc" -eq 124 ]; then
		t_fail "$name" "guest did not power off within ${timeout}s (killed); console: $console, last lines: $last"
		return 1
	elif [ "$rc" -ne 0 ]; then
		t_fail "$name" "qemu exited with status $rc; console: $console"
		return 1
	fi
	for f; do
		if [ ! -f "$f" ]; then
			t_fail "$name" "guest powered off without finishing (no ${f##*/}); console: $console, last lines: $last"
			return 1
		fi
	done
	t_pass "$name"
}
