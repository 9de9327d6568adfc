#!/usr/bin/env bash
# bench/overload.sh: Keel under 10x overload (does it shed with fast 503s, and does its memory stay
# bounded?), and Keel holding 10 000 idle keep-alive connections beside Netty 4.2 (epoll).
#
# What it measures
#   Part A, overload. bin/keel serve (one loop) on CPU SERVER_CPU serves /benchmark/latency?ms=BLOCK_MS,
#   a handler that blocks its thread BLOCK_MS, with a known capacity of CAPACITY handlers at once:
#     worker-pool     --execution worker-pool --worker-threads CAPACITY --worker-queue WORKER_QUEUE
#     virtual-thread  --execution virtual-thread --virtual-thread-limit CAPACITY
#     route-limit     virtual threads, and a keel.yaml routes: entry with limit: CAPACITY (not by default)
#   so it answers at most CAPACITY x 1000 / BLOCK_MS req/s (50 x 1000 / 50 = 1000). The driver
#   (bench/overload-driver, plain non-blocking sockets, one thread, on CPU CLIENT_CPU) opens
#   CONNECTIONS keep-alive connections and offers OVERLOAD times that rate, open loop: each
#   millisecond it sends what is due on the connection idle the longest, whatever the answers do,
#   WARMUP seconds not counted, then DURATION seconds counted. Every answer's latency is recorded
#   with its status. Every second it samples the server's RSS (/proc/PID/status).
#     netty-floor     Netty's hello (epoll, one loop) at the same rate and connections, for
#                     DURATION_FLOOR seconds: the latency this machine and driver give an answer
#                     that costs nothing, the floor under the 503 figures (its "200" columns).
#   Part B, idle connections. Keel (its defaults, one loop; --max-connections above IDLE,
#   --idle-timeout 5m so the run outlives the keep-alive timeout) and Netty 4.2 (epoll, one loop),
#   one after the other: wrk warms the server up and measures GET /benchmark/hello alone
#   (wrk -t1 -cPROBE_CONNECTIONS -dPROBE_DURATION); after a full GC (jcmd GC.run) RSS and heap
#   are read; the driver opens IDLE connections, each does one GET and then stays idle; after
#   another full GC RSS and heap are read again; wrk measures hello again beside them; then each
#   idle connection sends one more GET, and the answers are counted.
#
# How to read the tables
#   Part A: offered req/s the driver's schedule; 200/503/other answers counted; unsent requests due
#   while all CONNECTIONS waited for an answer (the server held them all: not shedding); errors =
#   connections reset or closed under a request, timeouts = no answer within TIMEOUT_MS (goal for
#   both: 0); 503 and 200 p50/p99 in ms, from send to the whole answer (goal: 503 p99 < 10 ms; the
#   netty-floor row tells how much of it is this machine); RSS MiB at the first, largest and last
#   measured second (bounded: it levels off; the per-second series is in the results folder);
#   server CPU % over the measured seconds; Keel's loop lag p99 and max over warm-up and run (from
#   its /metrics before and after: a loop late by that much delays every answer it writes); driver
#   CPU % (near 100 % would make the driver the bottleneck) and its longest pause between two turns
#   of its loop (a pause delays every answer it reads: on a busy machine, that is where a high 503
#   p99 comes from when the loop lag is low; the series has both a second).
#   Part B: RSS MiB before and with the idle connections; (with - before) / IDLE in KiB per
#   connection, from RSS and from the Java heap after a full GC (goal: Keel's at or below Netty's);
#   hello req/s and p99 alone and beside the idle connections; how many idle connections answered
#   their first and their second request (must be IDLE both times).
#
# Usage
#   bench/overload.sh                                # both parts, ~5 min
#   DURATION=10 IDLE=2000 bench/overload.sh          # a quick pass
#   PARTS=idle bench/overload.sh                     # Part B only
#
# Environment (defaults in brackets)
#   PARTS ["overload idle"]   MODES ["worker-pool virtual-thread netty-floor"] (also: route-limit)
#   DURATION [60], WARMUP [10], DURATION_FLOOR [20]   seconds counted, not counted, of the floor row
#   BLOCK_MS [50], CAPACITY [50], WORKER_QUEUE [50], OVERLOAD [10], CONNECTIONS [2000], TIMEOUT_MS [5000]
#   IDLE [10000], PROBE_DURATION [10], PROBE_CONNECTIONS [16], IDLE_SERVERS ["keel netty"]
#   PORT [18095], SERVER_CPU [0], CLIENT_CPU [1], READY_TIMEOUT [60], KEEL_BIN [bin/keel]
#
# Output: the tables on stdout, progress on stderr; tables, per-second series, driver and wrk
# outputs, heap info and server logs under bench/results/overload-<timestamp>/ (gitignored).

set -euo pipefail

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$BENCH_DIR/.." && pwd)

PARTS=${PARTS:-"overload idle"} MODES=${MODES:-"worker-pool virtual-thread netty-floor"}
DURATION=${DURATION:-60} WARMUP=${WARMUP:-10} DURATION_FLOOR=${DURATION_FLOOR:-20}
BLOCK_MS=${BLOCK_MS:-50} CAPACITY=${CAPACITY:-50} WORKER_QUEUE=${WORKER_QUEUE:-50} OVERLOAD=${OVERLOAD:-10}
CONNECTIONS=${CONNECTIONS:-2000} TIMEOUT_MS=${TIMEOUT_MS:-5000}
IDLE=${IDLE:-10000} PROBE_DURATION=${PROBE_DURATION:-10} PROBE_CONNECTIONS=${PROBE_CONNECTIONS:-16}
IDLE_SERVERS=${IDLE_SERVERS:-"keel netty"}
PORT=${PORT:-18095} SERVER_CPU=${SERVER_CPU:-0} CLIENT_CPU=${CLIENT_CPU:-1} READY_TIMEOUT=${READY_TIMEOUT:-60}
KEEL_BIN=${KEEL_BIN:-$ROOT/bin/keel}
LOOPS=1
BASE="http://127.0.0.1:$PORT"
DRIVER_SRC="$BENCH_DIR/overload-driver/OverloadDriver.java"
DRIVER_CLASSES="$BENCH_DIR/overload-driver/target"

# shellcheck source-path=SCRIPTDIR source=lib/bench.sh
source "$BENCH_DIR/lib/bench.sh"
require_integers DURATION WARMUP DURATION_FLOOR BLOCK_MS CAPACITY WORKER_QUEUE OVERLOAD CONNECTIONS TIMEOUT_MS \
  IDLE PROBE_DURATION PROBE_CONNECTIONS PORT SERVER_CPU CLIENT_CPU READY_TIMEOUT
((DURATION > 0 && BLOCK_MS > 0 && CAPACITY > 0 && OVERLOAD > 0 && CONNECTIONS > 0 && IDLE > 0)) \
  || die "DURATION, BLOCK_MS, CAPACITY, OVERLOAD, CONNECTIONS and IDLE must be > 0"
for m in $MODES; do [[ " worker-pool virtual-thread route-limit netty-floor " == *" $m "* ]] || die "unknown mode '$m'"; done
for s in $IDLE_SERVERS; do [[ $s == keel || $s == netty ]] || die "unknown idle server '$s' (keel, netty)"; done
install_wrk_if_missing
require_tools "wrk: apt-get install -y wrk; taskset: util-linux" wrk taskset curl awk
require_cpus
use_java_25

# Every connection is a descriptor in the driver and one in the server.
need_fds=$((IDLE > CONNECTIONS ? IDLE + 1000 : CONNECTIONS + 1000))
(($(ulimit -Hn) >= need_fds)) || die "ulimit -Hn is $(ulimit -Hn); $need_fds open files are needed"
(($(ulimit -n) >= need_fds)) || ulimit -n "$need_fds"

CAPACITY_RPS=$((CAPACITY * 1000 / BLOCK_MS))
RATE=$((OVERLOAD * CAPACITY_RPS))
LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)

A_ROWS="" B_ROWS=""
trap 'exit_trap $? "$A_ROWS"' EXIT

# ---------------------------------------------------------------- servers ---

start_netty() { # log_file
  build_hello_jar netty-hello
  launch_server "netty (epoll)" "$1" "$JAVA_HOME/bin/java" -jar "$NETTY_JAR" --port "$PORT" --threads 1 --epoll
  wait_ready "$BASE/benchmark/hello" || { tail -n 30 "$1" >&2; die "netty $READY_ERROR (log: $1)"; }
}

# The JVM's used heap in KiB after a full GC (jcmd GC.run), from GC.heap_info: the sum of the "total"
# lines' "used", one line for G1, one a generation for the serial GC (a JVM on one CPU picks it).
heap_after_gc_kib() { # file for GC.heap_info
  "$JAVA_HOME/bin/jcmd" "$JVM_PID" GC.run >/dev/null
  sleep 1
  "$JAVA_HOME/bin/jcmd" "$JVM_PID" GC.heap_info >"$1"
  awk '/ total / { for (i = 1; i < NF; i++) if ($i == "used") { v = $(i + 1); sub(/K,?$/, "", v); kib += v } }
       END { print kib + 0 }' "$1"
}

rss_kib() { awk '/^VmRSS:/ { print $2 }' "/proc/$JVM_PID/status"; }

# --------------------------------------------------------- part A: overload ---

# /metrics once the load has stopped; the last requests may still hold the pool, so a 503 is tried again.
scrape_after() { # file
  local i
  for ((i = 0; i < 20; i++)); do
    curl -sf --max-time 10 "$BASE/metrics" >"$1" && return 0
    sleep 0.5
  done
  return 1
}

run_overload() { # mode
  local mode=$1 out="$OUT/overload-$1" duration=$DURATION path="/benchmark/latency?ms=$BLOCK_MS" line lag lag99 lagmax
  case $mode in
    worker-pool) start_server "$out.server.log" --execution worker-pool --worker-threads "$CAPACITY" --worker-queue "$WORKER_QUEUE" ;;
    virtual-thread) start_server "$out.server.log" --execution virtual-thread --virtual-thread-limit "$CAPACITY" ;;
    route-limit)
      printf 'routes:\n  - path: /benchmark/latency\n    execution: virtual-thread\n    limit: %d\n' "$CAPACITY" >"$out.keel.yaml"
      start_server "$out.server.log" --config "$out.keel.yaml" ;;
    netty-floor) start_netty "$out.server.log"; path=/benchmark/hello duration=$DURATION_FLOOR ;;
  esac
  locate_jvm || die "$mode: no JVM found under PID $SERVER_PID"
  # Before the load: during it /metrics is a request like the others, shed with 503 when full.
  if [[ $mode != netty-floor ]]; then curl -sf --max-time 10 "$BASE/metrics" >"$out.metrics-before.txt" || true; fi
  log "$mode: $RATE req/s on $CONNECTIONS connections to $path, ${WARMUP}s warm-up + ${duration}s"
  run_client "$out.driver.txt" "$JAVA_HOME/bin/java" -cp "$DRIVER_CLASSES" OverloadDriver load --port "$PORT" \
    --path "$path" --connections "$CONNECTIONS" --rate "$RATE" --duration "$duration" --warmup "$WARMUP" \
    --timeout-ms "$TIMEOUT_MS" --rss-pid "$JVM_PID" --clk-tck "$(getconf CLK_TCK)" --series "$out.series.tsv" \
    || { tail -n 20 "$out.driver.txt" >&2; die "$mode: the driver failed (output: $out.driver.txt)"; }
  line=$(grep '^offered=' "$out.driver.txt" | tail -n 1) || die "$mode: no result from the driver ($out.driver.txt)"
  kill -0 "$SERVER_PID" 2>/dev/null || die "$mode: the server died (log: $out.server.log)"
  lag="n/a n/a"
  if [[ $mode != netty-floor ]] && scrape_after "$out.metrics.txt" && [[ -s $out.metrics-before.txt ]]; then
    read -r lag99 lagmax _ < <(parse_metrics "$out.metrics-before.txt" "$out.metrics.txt" /benchmark/latency)
    lag="$lag99 $lagmax"
  fi
  printf '%s\t%s\t%s\n' "$mode" "$lag" "$line" >>"$A_ROWS"
  log "$mode: $line"
  stop_server
}

# ---------------------------------------------------- part B: idle connections ---

run_idle() { # server
  local server=$1 out="$OUT/idle-$1" go="$OUT/idle-$1.go" wrk_args rss0 heap0 rss1 heap1 i ready result
  case $server in
    keel) start_server "$out.server.log" --max-connections "$((IDLE + 1000))" --idle-timeout 5m ;;
    netty) start_netty "$out.server.log" ;;
  esac
  locate_jvm || die "$server: no JVM found under PID $SERVER_PID"
  wrk_args=(-t1 "-c$PROBE_CONNECTIONS" --latency "$BASE/benchmark/hello")
  run_wrk "$out.warmup.txt" "${wrk_args[@]}" -d5s || log "$server: warm-up wrk failed ($out.warmup.txt)"
  log "$server: hello alone, ${PROBE_DURATION}s"
  run_wrk "$out.alone.wrk.txt" "${wrk_args[@]}" "-d${PROBE_DURATION}s" || log "$server: wrk failed ($out.alone.wrk.txt)"
  heap0=$(heap_after_gc_kib "$out.heap-before.txt") rss0=$(rss_kib)
  log "$server: opening $IDLE idle connections"
  taskset -c "$CLIENT_CPU" "$JAVA_HOME/bin/java" -cp "$DRIVER_CLASSES" OverloadDriver idle --port "$PORT" \
    --path /benchmark/hello --connections "$IDLE" --timeout-ms "$TIMEOUT_MS" --go "$go" >"$out.driver.txt" 2>&1 </dev/null &
  BACKGROUND_CLIENT_PID=$!
  for ((i = 0; i < 1200; i++)); do
    ready=$(grep -m1 '^ready' "$out.driver.txt" || true)
    [[ -z $ready ]] || break
    kill -0 "$BACKGROUND_CLIENT_PID" 2>/dev/null || die "$server: the idle driver ended early ($out.driver.txt)"
    sleep 0.1
  done
  [[ -n $ready ]] || die "$server: $IDLE connections not open within 120 s"
  log "$server: $ready"
  heap1=$(heap_after_gc_kib "$out.heap-with.txt") rss1=$(rss_kib)
  log "$server: hello beside $IDLE idle connections, ${PROBE_DURATION}s"
  run_wrk "$out.idle.wrk.txt" "${wrk_args[@]}" "-d${PROBE_DURATION}s" || log "$server: wrk failed ($out.idle.wrk.txt)"
  : >"$go"
  wait "$BACKGROUND_CLIENT_PID" || die "$server: the idle driver failed ($out.driver.txt)"
  BACKGROUND_CLIENT_PID=""
  result=$(grep '^opened=' "$out.driver.txt") || die "$server: no result from the idle driver"
  log "$server: $result"
  read -r _ rps0 _ p99a _ _ < <(parse_wrk <"$out.alone.wrk.txt")
  read -r _ rps1 _ p99b _ notes < <(parse_wrk <"$out.idle.wrk.txt")
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$server" "$rss0" "$rss1" "$heap0" "$heap1" \
    "$rps0" "$rps1" "$p99a" "$p99b" "$notes" "$result" >>"$B_ROWS"
  stop_server
}

# ------------------------------------------------------------------ tables ---

emit_table() { # $1: optional remark for the heading
  TABLE_DONE=true
  {
    echo "## Keel under overload and holding idle connections ($(date -u +%Y-%m-%dT%H:%M:%SZ))${1:+ ($1)}"
    echo
    echo "Server on CPU $SERVER_CPU (one loop), driver and wrk on CPU $CLIENT_CPU;" \
      "$("$JAVA_HOME/bin/java" -version 2>&1 | head -n 1); $(git_desc);" \
      "load average before/after: $LOAD_BEFORE / $(cut -d' ' -f1-3 /proc/loadavg)"
    if [[ -s $A_ROWS ]]; then
      echo
      echo "Overload: /benchmark/latency?ms=$BLOCK_MS, capacity $CAPACITY at once = $CAPACITY_RPS req/s" \
        "(worker-pool: queue $WORKER_QUEUE), offered $RATE req/s open loop on $CONNECTIONS connections," \
        "${WARMUP}s warm-up + ${DURATION}s counted (netty-floor: /benchmark/hello, ${DURATION_FLOOR}s); timeout ${TIMEOUT_MS} ms"
      echo
      echo "| execution | offered | 200 | 503 | other | unsent | errors | timeouts | 503 p50 ms | 503 p99 ms | 200 p50 ms | 200 p99 ms | RSS MiB start / max / end | server CPU % | loop lag p99 / max ms | driver CPU % / max pause ms |"
      echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|"
      while IFS=$'\t' read -r mode lag line; do
        f() { field "$line" "$1"; }
        mib() { awk -v k="$1" 'BEGIN { printf (k < 0 ? "n/a" : "%.0f"), k / 1024 }'; }
        echo "| $mode | $(f offered) | $(f ok) | $(f shed) | $(f other) | $(f unsent)" \
          "| $(($(f errors) + $(f closed_idle) + $(f connect_errors))) | $(f timeouts)" \
          "| $(f shed_p50) | $(f shed_p99) | $(f ok_p50) | $(f ok_p99)" \
          "| $(mib "$(f rss_start_kib)") / $(mib "$(f rss_max_kib)") / $(mib "$(f rss_end_kib)")" \
          "| $(f server_cpu_pct) | ${lag/ / \/ } | $(f driver_cpu_pct) / $(f driver_max_gap_ms) |"
      done <"$A_ROWS"
    fi
    if [[ -s $B_ROWS ]]; then
      echo
      echo "Idle connections: $IDLE keep-alive connections, each after one GET /benchmark/hello; hello measured with" \
        "wrk -t1 -c$PROBE_CONNECTIONS -d${PROBE_DURATION}s alone and beside them; RSS and heap after a full GC"
      echo
      echo "| server | RSS MiB before | RSS MiB with $IDLE | RSS KiB per idle conn | heap KiB per idle conn | hello req/s alone / with | hello p99 ms alone / with | idle conns answered first / after |"
      echo "|---|---:|---:|---:|---:|---:|---:|---:|"
      while IFS=$'\t' read -r server rss0 rss1 heap0 heap1 rps0 rps1 p99a p99b notes result; do
        awk -v s="$server" -v r0="$rss0" -v r1="$rss1" -v h0="$heap0" -v h1="$heap1" -v n="$IDLE" \
          -v q0="$rps0" -v q1="$rps1" -v p0="$p99a" -v p1="$p99b" -v notes="$notes" \
          -v a0="$(field "$result" answered_first)" -v a1="$(field "$result" answered_after)" 'BEGIN {
            printf "| %s | %.0f | %.0f | %.2f | %.2f | %.0f / %.0f | %.2f / %.2f | %d / %d%s |\n", s, r0 / 1024, r1 / 1024,
              (r1 - r0) / n, (h1 - h0) / n, q0, q1, p0, p1, a0, a1, (notes == "-" ? "" : " (wrk: " notes ")") }'
      done <"$B_ROWS"
    fi
  } >"$OUT/table.md"
  cat "$OUT/table.md"
  log "wrote $OUT/table.md"
}

# ------------------------------------------------------------------- main ---

prepare_keel
mkdir -p "$DRIVER_CLASSES"
"$JAVA_HOME/bin/javac" -d "$DRIVER_CLASSES" "$DRIVER_SRC" || die "compiling $DRIVER_SRC failed"
make_out_dir
A_ROWS="$OUT/overload.tsv" B_ROWS="$OUT/idle.tsv"
: >"$A_ROWS"
: >"$B_ROWS"
log "results: $OUT; load average: $LOAD_BEFORE"
if [[ " $PARTS " == *" overload "* ]]; then
  for mode in $MODES; do run_overload "$mode"; done
fi
if [[ " $PARTS " == *" idle "* ]]; then
  for server in $IDLE_SERVERS; do run_idle "$server"; done
fi
emit_table
