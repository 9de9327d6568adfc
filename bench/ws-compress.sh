#!/usr/bin/env bash
# bench/ws-compress.sh: what permessage-deflate (RFC 7692) saves on the wire and costs the server.
#
# What it shows
#   For each JSON document size in SIZES, the driver (keel.lab.WsCompressBench, Keel's
#   WebSocketClient, one event loop) echoes MESSAGES documents through ws://127.0.0.1:PORT/ws/echo,
#   4 sessions with 8 messages each in flight, once without compression (off), then with
#   permessage-deflate negotiated (context takeover, the default) at each deflate level in LEVELS:
#   a server started with --ws-compression-level L, a client compressing at L too. The documents
#   are 256 different ones of the same shape (a device and its readings, random values), sent in
#   turn.
#   The driver connects through a relay of its own that counts the bytes each way, and reads the
#   server's CPU time from /proc/PID/stat around the measured messages (after a warm-up of up to
#   5000 messages that is not counted).
#
#   A server (bin/keel serve --loops 1 --execution event-loop: the echo runs on the loop, so the
#   figures are codec and I/O) per level on CPU SERVER_CPU, the driver on CPU CLIENT_CPU.
#
# How to read the table
#   wire B/msg       bytes on the wire per message, client→server / server→client, frame headers
#                    and masks included (TCP payload, as the relay counts it)
#   saved            1 - deflate / off, both ways together
#   server CPU µs/msg off / deflate (Δ)
#                    user + system CPU time of the server JVM per echoed message (one message in,
#                    one out), 10 ms ticks: run enough MESSAGES for a few seconds of CPU
#   msg/s            echoes per second, as this driver and its relay (on one CPU) get them
#
# Usage
#   bench/ws-compress.sh                       # 1, 4 and 10 KiB documents, levels 6 and 1, 20000 messages each, ~2 min
#   SIZES=4096 LEVELS=6 MESSAGES=5000 bench/ws-compress.sh
#
# Environment (defaults in brackets)
#   SIZES [1024 4096 10240]  LEVELS [6 1]  MESSAGES [20000]
#   PORT [28091], SERVER_CPU [0], CLIENT_CPU [1], READY_TIMEOUT [60], KEEL_BIN [bin/keel]
#
# Output: the table on stdout, progress on stderr; table, driver output and server log under
# bench/results/ws-compress-<timestamp>/ (gitignored).

set -euo pipefail

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$BENCH_DIR/.." && pwd)

SIZES=${SIZES:-1024 4096 10240} LEVELS=${LEVELS:-6 1} MESSAGES=${MESSAGES:-20000}
PORT=${PORT:-28091} READY_TIMEOUT=${READY_TIMEOUT:-60}
SERVER_CPU=${SERVER_CPU:-0} CLIENT_CPU=${CLIENT_CPU:-1} KEEL_BIN=${KEEL_BIN:-$ROOT/bin/keel}
LOOPS=1

# shellcheck source-path=SCRIPTDIR source=lib/bench.sh
source "$BENCH_DIR/lib/bench.sh"

require_integers MESSAGES PORT SERVER_CPU CLIENT_CPU READY_TIMEOUT
((MESSAGES > 0)) || die "MESSAGES must be > 0"
for s in $SIZES; do
  if ! [[ $s =~ ^[0-9]+$ ]] || ((s < 256)); then die "SIZES holds sizes in bytes, each >= 256: got '$s'"; fi
done
for l in $LEVELS; do [[ $l =~ ^[1-9]$ ]] || die "LEVELS holds deflate levels 1..9: got '$l'"; done
require_tools "taskset: util-linux" taskset curl awk getconf
require_cpus
use_java_25
BASE="http://127.0.0.1:$PORT"

trap 'exit_trap $?' EXIT

prepare_keel
JAR=$(find "$ROOT/keel-lab/target" -maxdepth 1 -name "keel-lab-*.jar" -print -quit)
[[ -n $JAR ]] || die "no keel-lab jar after the build"
make_out_dir
log "JDK: $JAVA_HOME; results: $OUT"

TICKS=$(getconf CLK_TCK)

# Runs the driver for size $1, mode $2 and level $3; sets RESULT to its result line. (Not called
# in a $(...) subshell: the exit trap must see the driver's PID.)
RESULT=""
drive() {
  local out="$OUT/$1-$2-$3.driver.txt" line
  log "$1 bytes, $2, level $3: $MESSAGES messages"
  run_client "$out" "$JAVA_HOME/bin/java" -cp "$JAR:$ROOT/keel-lab/target/lib/*" keel.lab.WsCompressBench \
    "ws://127.0.0.1:$PORT/ws/echo" "$1" "$MESSAGES" "$2" "$3" "$JVM_PID" "$TICKS" || die "$1 bytes, $2: the driver failed: $(tail -n 5 "$out")"
  line=$(grep '^mode=' "$out" | tail -n 1)
  [[ -n $line ]] || die "$1 bytes, $2: no result line in $out"
  [[ $(field "$line" errors) == 0 ]] || die "$1 bytes, $2: wrong or missing echoes: $line"
  log "$line"
  RESULT=$line
}

# One server per level: the level is the server's setting. "off" runs on the first.
declare -A OFF
ROWS=()
for level in $LEVELS; do
  start_server "$OUT/server-level-$level.log" --execution event-loop --ws-compression-level "$level"
  locate_jvm || die "no JVM found under PID $SERVER_PID"
  for size in $SIZES; do
    if [[ -z ${OFF[$size]:-} ]]; then drive "$size" off "$level"; OFF[$size]=$RESULT; fi
  done
  for size in $SIZES; do
    off=${OFF[$size]}
    drive "$size" deflate "$level"
    deflate=$RESULT
    [[ $(field "$deflate" extensions) == permessage-deflate ]] || die "deflate was not agreed: $deflate"
    row=$(awk -v doc="$(field "$off" doc_bytes)" -v level="$level" \
      -v ou="$(field "$off" up_bytes_per_msg)" -v od="$(field "$off" down_bytes_per_msg)" \
      -v du="$(field "$deflate" up_bytes_per_msg)" -v dd="$(field "$deflate" down_bytes_per_msg)" \
      -v oc="$(field "$off" server_cpu_us_per_msg)" -v dc="$(field "$deflate" server_cpu_us_per_msg)" \
      -v orate="$(field "$off" msgs_per_s)" -v drate="$(field "$deflate" msgs_per_s)" 'BEGIN {
        printf "| %d | %d | %.0f / %.0f | %.0f / %.0f | %.0f %% | %.1f / %.1f (%+.1f) | %.0f / %.0f |", doc, level, ou, od, du, dd,
          100 * (1 - (du + dd) / (ou + od)), oc, dc, dc - oc, orate, drate }')
    ROWS+=("$row")
  done
  kill -0 "$SERVER_PID" 2>/dev/null || die "the server died (log: $OUT/server-level-$level.log)"
  stop_server
done

{
  echo "## Keel WebSocket permessage-deflate ($(date -u +%Y-%m-%dT%H:%M:%SZ))"
  echo
  echo "$MESSAGES JSON documents per row and mode echoed through /ws/echo, 4 sessions × 8 in flight, context takeover;" \
    "server: $LOOPS loop, event-loop execution, on CPU $SERVER_CPU; driver on CPU $CLIENT_CPU;" \
    "$("$JAVA_HOME/bin/java" -version 2>&1 | head -n 1); $(git_desc)"
  echo
  echo "| JSON bytes | level | wire B/msg off (c→s / s→c) | wire B/msg deflate (c→s / s→c) | saved | server CPU µs/msg off / deflate (Δ) | msg/s off / deflate |"
  echo "|---:|---:|---:|---:|---:|---:|---:|"
  printf '%s\n' "${ROWS[@]}" | sort -t'|' -k2,2n -k3,3nr # by document size, then level
} >"$OUT/table.md"
cat "$OUT/table.md"
log "wrote $OUT/table.md"
