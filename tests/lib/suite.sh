# Shared helpers for mtag test suites (sourced by sh/bash scripts).
#
# A suite prints one line per test case:
#     PASS: name
#     FAIL: name: why
#     SKIP: name: why
# and may print anything else (indented or prefixed "# ") as detail.
# tests/run-suites counts those lines; a suite that exits non-zero without
# printing a FAIL line is counted as one failure of its own.

TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${BUILD:-$TOP/build}

t_pass() { printf 'PASS: %s\n' "$1"; }
t_fail() { printf 'FAIL: %s: %s\n' "$1" "${2:-failed}"; T_FAILED=$((${T_FAILED:-0} + 1)); }
t_skip() { printf 'SKIP: %s: %s\n' "$1" "${2:-skipped}"; }
t_info() { printf '# %s\n' "$*"; }

# t_check NAME CMD... -- run CMD, PASS if it exits 0.
t_check() {
	_n=$1; shift
	if "$@"; then t_pass "$_n"; else t_fail "$_n" "command failed: $*"; fi
}

# Milliseconds since the epoch, for stage timings.
t_now_ms() { date +%s%3N; }
