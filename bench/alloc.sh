#!/usr/bin/env bash
# bench/alloc.sh: the bytes one request allocates on the server's heap, for Keel's nio executions,
# beside Netty 4.2 epoll and, with BASE_BIN, another build of Keel.
#
# What it measures
#   Each server runs alone, pinned to CPU SERVER_CPU, with its young generation fixed at YOUNG (so a
#   young collection comes every few thousand requests), and wrk on CLIENT_CPU drives /benchmark/hello
#   (Netty: /hello's peer) keep-alive and pipelined 16 deep, 64 connections: a warm-up of WARMUP
#   seconds, then ROUNDS runs of DURATION seconds. Around each run `jstat -gc` reads the young
#   collections and the eden in use; the bytes allocated are collections x eden size + the eden's
#   growth, exact to within the waste of one eden's last allocations, whatever the machine is doing.
#   Every thread counts (JIT, timers, the lab's own), over the requests wrk made.
#
# How to read it
#   B/req   heap bytes allocated per request, the median of the rounds (their range after it); lower is
#           better, and unlike CPU time it does not move with the machine's load.
#
# Usage
#   bench/alloc.sh
#   BASE_BIN=/tmp/keel-base/bin/keel EXECUTIONS=event-loop bench/alloc.sh
#   ACCESS_LOG=true EXECUTIONS=event-loop PEERS= bench/alloc.sh   # with the access log on, to a file
#
# Environment (defaults in brackets)
#   EXECUTIONS [event-loop worker-pool virtual-thread]   Keel's executions to measure
#   STYLES [keep-alive pipelined]
#   PEERS [netty-epoll]   netty-epoll, or nothing
#   KEEL_BIN [bin/keel], BASE_BIN []   the build to measure, and one to measure beside it
#   ACCESS_LOG [false]   true: Keel writes its access log to a file in the results directory (removed
#                        after each server: a pipelined run writes gigabytes)
#   ROUNDS [3], DURATION [5], WARMUP [8], YOUNG [16m]
#   PORT [18095], SERVER_CPU [0], CLIENT_CPU [1], READY_TIMEOUT [60]
set -euo pipefail

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$BENCH_DIR/.." && pwd)
EXECUTIONS=${EXECUTIONS:-event-loop worker-pool virtual-thread}
STYLES=${STYLES:-keep-alive pipelined}
PEERS=${PEERS-netty-epoll}
KEEL_BIN=${KEEL_BIN:-$ROOT/bin/keel} BASE_BIN=${BASE_BIN:-}
ROUNDS=${ROUNDS:-3} DURATION=${DURATION:-5} WARMUP=${WARMUP:-8} YOUNG=${YOUNG:-16m}
ACCESS_LOG=${ACCESS_LOG:-false}
PORT=${PORT:-18095} SERVER_CPU=${SERVER_CPU:-0} CLIENT_CPU=${CLIENT_CPU:-1} READY_TIMEOUT=${READY_TIMEOUT:-60}

# shellcheck source-path=SCRIPTDIR source=lib/bench.sh
source "$BENCH_DIR/lib/bench.sh"
require_integers ROUNDS DURATION WARMUP PORT SERVER_CPU CLIENT_CPU READY_TIMEOUT
install_wrk_if_missing
require_tools "wrk: apt-get install -y wrk; taskset: util-linux" wrk taskset curl awk
use_java_25
trap 'stop_clients; stop_server' EXIT
port_in_use && die "port $PORT is already in use; pick another with PORT=..."
prepare_keel
if [[ -n $BASE_BIN ]]; then KEEL_BIN=$BASE_BIN prepare_keel; fi
if [[ " $PEERS " == *" netty-epoll "* ]]; then build_hello_jar netty-hello; fi
make_out_dir

# "young_collections eden_capacity_kib eden_used_kib" of JVM_PID.
young() {
  "$JAVA_HOME/bin/jstat" -gc "$JVM_PID" | awk 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
    { printf "%d %s %s\n", $col["YGC"], $col["EC"], $col["EU"] }'
}

# One server ($1: its name in the table; the rest: its command), every style, ROUNDS runs each.
measure() { # name command...
  local name=$1 style url args before after requests values
  shift
  launch_server "$name" "$OUT/$name.server.log" "$@"
  wait_ready "http://127.0.0.1:$PORT/benchmark/hello" || die "$name $READY_ERROR (log: $OUT/$name.server.log)"
  locate_jvm || die "$name: no JVM under PID $SERVER_PID"
  for style in $STYLES; do
    url="http://127.0.0.1:$PORT/benchmark/hello" args=(-t1 -c64)
    if [[ $style == pipelined ]]; then args+=(-s "$BENCH_DIR/wrk/pipeline.lua" "$url" -- 16); else args+=("$url"); fi
    run_wrk "$OUT/$name.$style.warmup.txt" "${args[@]:0:2}" "-d${WARMUP}s" "${args[@]:2}"
    values=""
    for ((round = 1; round <= ROUNDS; round++)); do
      before=$(young)
      run_wrk "$OUT/$name.$style.$round.txt" "${args[@]:0:2}" "-d${DURATION}s" "${args[@]:2}"
      after=$(young)
      requests=$(parse_wrk <"$OUT/$name.$style.$round.txt" | cut -d' ' -f1)
      values+=" $(awk -v a="$before" -v b="$after" -v n="$requests" 'BEGIN { split(a, x, " "); split(b, y, " ")
        printf "%.0f", ((y[1] - x[1]) * x[2] + y[3] - x[3]) * 1024 / n }')"
    done
    log "$name $style: B/req$values"
    printf '%s\t%s\t%s\n' "$name" "$style" "${values# }" >>"$OUT/results.tsv"
  done
  stop_server
}

for execution in $EXECUTIONS; do
  for bin in "$KEEL_BIN" ${BASE_BIN:+"$BASE_BIN"}; do
    name=keel-$execution
    [[ $bin == "$KEEL_BIN" ]] || name=base-$name
    access=(--access-log false)
    if [[ $ACCESS_LOG == true ]]; then access=(--access-log true --access-log-file "$OUT/$name.access.log"); fi
    # Virtual threads on Keel's carriers, as throughput.sh's keel-nio-virtual-thread runs them (opt-in).
    carriers=()
    if [[ $execution == virtual-thread ]]; then carriers=(--virtual-thread-scheduler keel); fi
    KEEL_JAVA_OPTS="${KEEL_JAVA_OPTS:-} -Xmn$YOUNG" measure "$name" \
      "$bin" serve --port "$PORT" "${access[@]}" --health-grace 0s --transport nio --execution "$execution" --loops 1 "${carriers[@]}"
    rm -f "$OUT/$name.access.log"
  done
done
if [[ " $PEERS " == *" netty-epoll "* ]]; then
  measure netty-epoll "$JAVA_HOME/bin/java" --sun-misc-unsafe-memory-access=allow "-Xmn$YOUNG" -jar "$NETTY_JAR" \
    --port "$PORT" --threads 1 --epoll
fi

echo "## Heap bytes allocated per request ($(date -u +%Y-%m-%dT%H:%M:%SZ))"
echo
echo "wrk -t1 -c64 on /benchmark/hello, ${DURATION}s runs after ${WARMUP}s of warm-up, young generation $YOUNG; medians of $ROUNDS runs (range); Keel: $(git_desc)${BASE_BIN:+, base: $BASE_BIN ($(git_desc "$(dirname "$(dirname "$BASE_BIN")")"))}"
echo
echo "| server | style | B/req |"
echo "|---|---|---:|"
awk -F'\t' '{ n = split($3, v, " "); for (i = 2; i <= n; i++) { t = v[i]; for (j = i - 1; j >= 1 && v[j] + 0 > t + 0; j--) v[j + 1] = v[j]; v[j + 1] = t }
  printf "| %s | %s | %s (%s-%s) |\n", $1, $2, (n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2), v[1], v[n] }' "$OUT/results.tsv"
