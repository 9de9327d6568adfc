#!/usr/bin/env bash
# bench/ws-close.sh: the WebSocket close path under a storm of short sessions.
#
# What it shows
#   CLIENTS sessions (CONCURRENCY at once) each open ws://127.0.0.1:PORT/ws/fib, send one
#   request ("n"), wait for the answer ("n=Fibonacci(n)", computed on a virtual thread) and
#   close at once. A server that closes TCP with unread input, or before its queued answer
#   is out, loses answers and sends RSTs; Keel answers the Close after the listener's sends,
#   then closes lingering (flush, shutdownOutput, drain, close), so both columns stay at 0.
#   Each MODE drives the same sessions with Keel's WebSocketClient:
#     sync   a virtual thread per client blocks on each step: send(..).join(), the answer,
#            close().join()
#     async  each step starts from the previous one's callback on the client's event loop
#
#   One server (bin/keel serve --loops 2) on CPU SERVER_CPU, the driver (keel.lab.WsCloseBench,
#   one client event loop) on CPU CLIENT_CPU; each mode starts with up to 300 warm-up sessions that
#   are not counted.
#
# How to read the table
#   lost             sessions whose correct answer never arrived
#   abnormal         sessions whose close handshake failed or whose server Close was not 1000
#                    (a reset shows up here: the client sees the connection end without a Close)
#   RST on data / RST on close
#                    growth of nstat's TcpExtTCPAbortOnData / TcpExtTCPAbortOnClose during the
#                    mode: resets sent because a socket was closed with unread data. The
#                    counters are machine-wide: other load on the machine counts too.
#   request→answer   ms from send() to the answer's arrival (p50 / p99 / max)
#   close→closed     ms from close() to the end of the close handshake (server's Close received)
#
# Usage
#   bench/ws-close.sh                          # both modes, 5000 sessions each, ~20 s
#   CLIENTS=500 MODES=async bench/ws-close.sh
#
# Environment (defaults in brackets)
#   CLIENTS [5000]  CONCURRENCY [100]  MODES [sync async]
#   PORT [28090], SERVER_CPU [0], CLIENT_CPU [1], READY_TIMEOUT [60], KEEL_BIN [bin/keel]
#
# Output: the table on stdout, progress on stderr; table, driver output and server log under
# bench/results/ws-close-<timestamp>/ (gitignored).

set -euo pipefail

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$BENCH_DIR/.." && pwd)

ALL_MODES="sync async"
CLIENTS=${CLIENTS:-5000} CONCURRENCY=${CONCURRENCY:-100} MODES=${MODES:-$ALL_MODES}
PORT=${PORT:-28090} READY_TIMEOUT=${READY_TIMEOUT:-60}
SERVER_CPU=${SERVER_CPU:-0} CLIENT_CPU=${CLIENT_CPU:-1} KEEL_BIN=${KEEL_BIN:-$ROOT/bin/keel}
LOOPS=2

# shellcheck source-path=SCRIPTDIR source=lib/bench.sh
source "$BENCH_DIR/lib/bench.sh"

require_integers CLIENTS CONCURRENCY PORT SERVER_CPU CLIENT_CPU READY_TIMEOUT
((CLIENTS > 0 && CONCURRENCY > 0)) || die "CLIENTS and CONCURRENCY must be > 0"
for m in $MODES; do [[ " $ALL_MODES " == *" $m "* ]] || die "unknown mode '$m' (known: $ALL_MODES)"; done
require_tools "nstat: apt-get install -y iproute2; taskset: util-linux" taskset curl awk nstat
require_cpus
use_java_25
BASE="http://127.0.0.1:$PORT"

trap 'exit_trap $?' EXIT

# Absolute value of one nstat counter, without touching nstat's history file.
counter() { nstat -asz "$1" | awk -v name="$1" '$1 == name { print $2; found = 1 } END { if (!found) print 0 }'; }

prepare_keel
JAR=$(find "$ROOT/keel-lab/target" -maxdepth 1 -name "keel-lab-*.jar" -print -quit)
[[ -n $JAR ]] || die "no keel-lab jar after the build"
make_out_dir
log "JDK: $JAVA_HOME; results: $OUT"

start_server "$OUT/server.log"

ROWS=()
for mode in $MODES; do
  data_before=$(counter TcpExtTCPAbortOnData) close_before=$(counter TcpExtTCPAbortOnClose)
  log "$mode: $CLIENTS sessions, $CONCURRENCY at once"
  run_client "$OUT/$mode.driver.txt" "$JAVA_HOME/bin/java" -cp "$JAR:$ROOT/keel-lab/target/lib/*" keel.lab.WsCloseBench \
    "ws://127.0.0.1:$PORT/ws/fib" "$CLIENTS" "$CONCURRENCY" "$mode" || die "$mode: the driver failed: $(tail -n 5 "$OUT/$mode.driver.txt")"
  data_rst=$(($(counter TcpExtTCPAbortOnData) - data_before))
  close_rst=$(($(counter TcpExtTCPAbortOnClose) - close_before))
  line=$(grep '^mode=' "$OUT/$mode.driver.txt" | tail -n 1)
  [[ -n $line ]] || die "$mode: no result line in $OUT/$mode.driver.txt"
  log "$mode: $line rst_on_data=$data_rst rst_on_close=$close_rst"
  ROWS+=("| $mode | $(field "$line" clients) | $(field "$line" lost) | $(field "$line" abnormal_closes) | $data_rst | $close_rst |\
 $(field "$line" answer_p50_ms) / $(field "$line" answer_p99_ms) / $(field "$line" answer_max_ms) |\
 $(field "$line" close_p50_ms) / $(field "$line" close_p99_ms) / $(field "$line" close_max_ms) | $(field "$line" wall_s) |")
done
kill -0 "$SERVER_PID" 2>/dev/null || die "the server died (log: $OUT/server.log)"
stop_server

{
  echo "## Keel WebSocket close storm ($(date -u +%Y-%m-%dT%H:%M:%SZ))"
  echo
  echo "$CLIENTS sessions per mode, $CONCURRENCY at once, each: connect, send n, receive n=Fibonacci(n), close;" \
    "$LOOPS server loops on CPU $SERVER_CPU, driver on CPU $CLIENT_CPU;" \
    "$("$JAVA_HOME/bin/java" -version 2>&1 | head -n 1); $(git_desc)"
  echo
  echo "| mode | sessions | lost | abnormal | RST on data | RST on close | request→answer ms p50 / p99 / max | close→closed ms p50 / p99 / max | wall s |"
  echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
  printf '%s\n' "${ROWS[@]}"
} >"$OUT/table.md"
cat "$OUT/table.md"
log "wrote $OUT/table.md"
