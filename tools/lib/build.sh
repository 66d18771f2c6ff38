# shellcheck shell=bash
# tools/lib/build.sh -- what mtag's build scripts share: messages, stage
# timing, the cache key, the cache-hit test and the build lock.
#
# A script sets PROG (the name its messages start with) and sources this
# file:
#     PROG=build-foo
#     . "$(dirname "$0")/lib/build.sh"
# It also sets TOP, BUILD and MTAG_CACHE (below) when they are not set.
#
# The heavy builds keep their results in $MTAG_CACHE/<component>/<key>/,
# where <key> (cache_key) is a hash of every input that decides what the
# result contains: source package versions, patches, configuration, and the
# text of the functions that run the build steps (declare -f), not the
# whole script, so that tidying a script's messages or its locking does not
# throw its cache away.  A result is written under <key>.tmp and renamed,
# or marked finished last, so that it can be read without the lock: the
# cache is checked before the lock is taken (a hit never waits behind
# another build) and again after (another build may have made it).

: "${PROG:=${0##*/}}"
# shellcheck source=tools/lib/debian-archive.sh
. "$(dirname "${BASH_SOURCE[0]}")/debian-archive.sh"
TOP=${TOP:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
# shellcheck source=tools/lib/suite.sh
. "$(dirname "${BASH_SOURCE[0]}")/suite.sh"
MTAG_CACHE=${MTAG_CACHE:-/var/cache/mtag}
# When the script started (milliseconds), and when its last stage ended.
BUILD_T0=$(date +%s%3N)
BUILD_T_STAGE=$BUILD_T0
# LOG_ELAPSED=N: messages carry the seconds since the start, N wide.
LOG_ELAPSED=${LOG_ELAPSED:-}

# log MESSAGE... -- one line on stderr: "PROG: MESSAGE".
log() {
	if [ -n "$LOG_ELAPSED" ]; then
		printf '%s: [%*ds] %s\n' "$PROG" "$LOG_ELAPSED" "$(build_elapsed)" "$*" >&2
	else
		printf '%s: %s\n' "$PROG" "$*" >&2
	fi
}

# die MESSAGE... -- log "error: MESSAGE" and exit 1.
die() {
	log "error: $*"
	exit 1
}

# build_elapsed -- whole seconds since the script started.
build_elapsed() { echo $(( ($(date +%s%3N) - BUILD_T0) / 1000 )); }

# stage NAME CMD... -- run CMD, print how long it took (and its status when
# it failed), return its status.
stage() {
	local name=$1 t0 rc=0
	shift
	t0=$(date +%s%3N)
	"$@" || rc=$?
	log "$(printf 'stage %-9s %6.1fs%s' "$name" "$(( $(date +%s%3N) - t0 ))e-3" \
		"$([ $rc -eq 0 ] || echo " (failed, status $rc)")")"
	BUILD_T_STAGE=$(date +%s%3N)
	return $rc
}

# stage_done NAME -- print how long it took since the previous stage ended
# (for scripts whose stages are straight-line code).
stage_done() {
	local t
	t=$(date +%s%3N)
	log "$(printf 'stage %-9s %6.1fs' "$1" "$(( t - BUILD_T_STAGE ))e-3")"
	BUILD_T_STAGE=$t
}

# log_total -- print how long the whole script took.
log_total() {
	log "$(printf 'total %.1fs' "$(( $(date +%s%3N) - BUILD_T0 ))e-3")"
}

# cache_key -- the key of the inputs read on stdin: 16 hex digits of their
# SHA-256.
cache_key() { sha256sum | cut -c1-16; }

# cache_hit FILE -- whether FILE, the last thing a finished result gets
# (a marker, or the main file of a result renamed into place), exists.
cache_hit() { [ -f "$1" ]; }

# build_lock FD FILE WHAT -- take the exclusive lock FILE on descriptor FD,
# saying that it waits for WHAT when another build holds it.  The lock is
# held until the script exits.
build_lock() {
	local fd=$1 file=$2 what=$3
	mkdir -p "$(dirname "$file")"
	eval "exec $fd>\"\$file\""
	if ! flock -n "$fd"; then
		log "waiting for $what to finish"
		flock "$fd"
	fi
}
