#!/bin/bash
# jemalloc-guest.sh -- the guest half of make bench-jemalloc
# (tools/bench-jemalloc): redis-server on three allocators, measured with
# redis-benchmark on 127.0.0.1, rounds interleaved a, b, c, a, b, c, ...
#
#   a  stock   Debian's libjemalloc2 5.3.0-1 (from the share, copied to
#              /run/mtag-bench/stock, reached with LD_LIBRARY_PATH), tag
#              checking off
#   b  off     the image's libjemalloc2 +mtag1, tag checking off
#   c  sync    the image's libjemalloc2 +mtag1 under
#              mtag-launcher --mode sync (glibc.mem.tagging=3: the process
#              checks tags, jemalloc tags its heap)
#
# Each run: a fresh redis-server (no persistence), checks of what it runs
# on (the libjemalloc.so.2 it mapped, MTE_TCF, whether malloc'd memory is
# in PROT_MTE mappings), a fixed load (DEBUG POPULATE), its memory
# (VmRSS, smaps_rollup Rss, Rss of mappings with the mt flag, redis's
# used_memory: tests/helpers/bench/jemalloc-report checks that under sync the
# loaded heap is in PROT_MTE mappings and otherwise none is), FLUSHALL,
# then redis-benchmark for a fixed number of requests per test.
# Parameters come from $S/params (written by the host); results go to
# $S/results/bench.txt, one fact a line, for tests/helpers/bench/jemalloc-report.
set -u
S=/mnt/mtagtest
R=$S/results
mkdir -p "$R"
OUT=$R/bench.txt
: >"$OUT"
# shellcheck disable=SC1091
. "$S/params"
ROUNDS=${ROUNDS:-3}
REQUESTS=${REQUESTS:-10000}
CLIENTS=${CLIENTS:-10}
TESTS=${TESTS:-set,get,incr,lpush,lpop}
POPULATE=${POPULATE:-100000}
VALUE=${VALUE:-64}
PORT=6380
LAUNCHER=/usr/sbin/mtag-launcher
STOCK=/run/mtag-bench/stock
T0=$(date +%s)

say() { echo "$*" | tee -a "$OUT"; }
cli() { redis-cli -h 127.0.0.1 -p $PORT "$@"; }

say "info guest kernel $(uname -r), $(nproc) CPUs, libjemalloc2 $(dpkg-query -W -f='${Version}' libjemalloc2), redis $(redis-server --version | sed -n 's/.*v=\([^ ]*\).*/\1/p'), libc6 $(dpkg-query -W -f='${Version}' libc6)"
say "info params rounds $ROUNDS requests $REQUESTS clients $CLIENTS tests $TESTS populate $POPULATE value $VALUE"

mkdir -p "$STOCK"
cp "$S"/stock/usr/lib/aarch64-linux-gnu/libjemalloc.so.2 "$STOCK"/ || { say "error no stock library in the share"; exit 1; }
say "info stock library $(sha256sum "$STOCK/libjemalloc.so.2" | cut -c1-16), image library $(sha256sum /usr/lib/aarch64-linux-gnu/libjemalloc.so.2 | cut -c1-16)"
[ -x "$LAUNCHER" ] || { say "error no $LAUNCHER in the image"; exit 1; }

# The image's redis-server service would hold port 6379 and CPU: stopped.
systemctl stop redis-server.service 2>/dev/null
systemctl stop named.service 2>/dev/null

start_redis() {
	local mode=$1 tag=$2 log=/run/mtag-bench/redis-$2.log
	local args=(redis-server --port "$PORT" --bind 127.0.0.1 --save "" --appendonly no
		--daemonize no --enable-debug-command yes --logfile "$log" --dir /run/mtag-bench)
	case "$mode" in
	stock) LD_LIBRARY_PATH=$STOCK "${args[@]}" </dev/null & ;;
	off) "${args[@]}" </dev/null & ;;
	sync) "$LAUNCHER" --quiet --mode sync -- "${args[@]}" </dev/null & ;;
	esac
	PID=$!
	for _ in $(seq 1 300); do
		[ "$(cli ping 2>/dev/null)" = PONG ] && return 0
		kill -0 "$PID" 2>/dev/null || break
		sleep 0.2
	done
	say "error $tag: redis-server did not answer: $(tail -3 "$log" 2>/dev/null | tr '\n' ' ')"
	return 1
}

stop_redis() {
	cli shutdown nosave >/dev/null 2>&1
	for _ in $(seq 1 100); do kill -0 "$PID" 2>/dev/null || break; sleep 0.1; done
	kill -9 "$PID" 2>/dev/null
	wait "$PID" 2>/dev/null
}

# What the process runs on: the library it mapped, its check mode, and
# the kB of its resident memory in PROT_MTE mappings (VmFlags "mt").
check_process() {
	local mode=$1 tag=$2 lib tcf mt
	lib=$(awk '/libjemalloc\.so/ { print $6; exit }' /proc/"$PID"/maps)
	tcf=$(sed -n 's/^MTE_TCF:[[:space:]]*//p' /proc/"$PID"/status)
	mt=$(awk '/^[0-9a-f]+-[0-9a-f]+ / { rss = 0 } /^Rss:/ { rss = $2 }
		/^VmFlags:/ { if ($0 ~ / mt/) t += rss } END { print t + 0 }' /proc/"$PID"/smaps)
	say "check $tag lib $lib tcf ${tcf:-unknown} mt_kb $mt"
	case "$mode" in
	stock) [ "$lib" = "$STOCK/libjemalloc.so.2" ] && [ "$mt" -eq 0 ] ;;
	off) [ "$lib" = /usr/lib/aarch64-linux-gnu/libjemalloc.so.2 ] && [ "$mt" -eq 0 ] ;;
	sync) [ "$lib" = /usr/lib/aarch64-linux-gnu/libjemalloc.so.2 ] && [ "$mt" -gt 0 ] &&
		[[ "${tcf:-sync}" == sync* ]] ;;
	esac || { say "error $tag: not running as mode $mode should (lib $lib, MTE_TCF ${tcf:-?}, $mt kB tagged)"; return 1; }
}

memory() {
	local tag=$1 round=$2 vmrss rss mt
	vmrss=$(sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\) kB/\1/p' /proc/"$PID"/status)
	rss=$(sed -n 's/^Rss:[[:space:]]*\([0-9]*\) kB/\1/p' /proc/"$PID"/smaps_rollup)
	mt=$(awk '/^[0-9a-f]+-[0-9a-f]+ / { rss = 0 } /^Rss:/ { rss = $2 }
		/^VmFlags:/ { if ($0 ~ / mt/) t += rss } END { print t + 0 }' /proc/"$PID"/smaps)
	say "mem $tag $round vmrss_kb $vmrss smaps_rss_kb $rss mt_kb $mt used_memory $(cli info memory | sed -n 's/^used_memory:\([0-9]*\).*/\1/p')"
}

errors=0
for round in $(seq 1 "$ROUNDS"); do
	for m in a:stock b:off c:sync; do
		tag=${m%%:*} mode=${m#*:}
		t=$(date +%s)
		start_redis "$mode" "$tag" || { errors=$((errors + 1)); continue; }
		check_process "$mode" "$tag" || errors=$((errors + 1))
		# The fixed load: POPULATE keys of VALUE bytes, then the memory.
		if [ "$(cli debug populate "$POPULATE" key "$VALUE")" != OK ]; then
			say "error $tag: DEBUG POPULATE failed"; errors=$((errors + 1))
		fi
		[ "$(cli dbsize)" = "$POPULATE" ] || { say "error $tag: dbsize $(cli dbsize)"; errors=$((errors + 1)); }
		memory "$tag" "$round"
		cli flushall >/dev/null
		# redis-benchmark --csv: "test","rps",... one line a test.
		redis-benchmark -h 127.0.0.1 -p $PORT -n "$REQUESTS" -c "$CLIENTS" -t "$TESTS" --csv 2>/dev/null |
			awk -F'"' -v tag="$tag" -v round="$round" 'NR > 1 && $2 != "" { printf "rps %s %s %s %s\n", tag, round, $2, $4 }' |
			tee -a "$OUT"
		kill -0 "$PID" 2>/dev/null || { say "error $tag: redis-server died during the benchmark"; errors=$((errors + 1)); }
		stop_redis
		say "time $tag $round $(( $(date +%s) - t ))"
	done
done
say "info errors $errors, bench took $(( $(date +%s) - T0 ))s, guest uptime $(cut -d' ' -f1 /proc/uptime)s"
echo done >"$R/bench.done"
