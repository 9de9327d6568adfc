#!/usr/bin/env bash
# bench/access-log-soak.sh: the access log to a file under a minute of pipelined load, slice by slice,
# with the file's pages dropped from the page cache once written (the default) and kept there.
#
# What it shows
#   bench/throughput.sh prices the access log in runs of seconds, too short for the kernel to start
#   writing the file back (it waits 30 s, or for 10 % of memory to be dirty). Here each mode runs
#   WARMUP and then DURATION seconds of `wrk -t1 -c64 -s bench/wrk/pipeline.lua /benchmark/hello -- 16` in slices
#   of SLICE seconds, one fresh server per mode (event loop, one loop, access log to a file in the
#   results folder, deleted after), and prints per slice: req/s, server CPU µs a request, the lines
#   the server dropped (its queue was full: the writer waited for the file system), and the
#   machine's Dirty and Writeback memory (/proc/meminfo). Server on CPU SERVER_CPU, wrk on CLIENT_CPU.
#     drop-behind  the default: every 4 MiB written is handed to the disk and the steps behind it
#                  leave the page cache (log.access-file-drop-behind: true)
#     cached       --access-log-file-drop-behind false: the kernel writes the pages back when it
#                  decides to, and they stay cached
#
# Usage
#   bench/access-log-soak.sh
#   MODES=cached DURATION=120 QUEUE=8192 bench/access-log-soak.sh
# Environment: MODES (default "drop-behind cached"), DURATION (60), WARMUP (10 s of the same load
#   first, not counted, for the JIT), SLICE (5), QUEUE (the
#   server's --access-log-queue; default: Keel's), PORT (18090), SERVER_CPU (0), CLIENT_CPU (1),
#   KEEL_BIN (bin/keel), READY_TIMEOUT (120).
# Writes bench/results/access-log-soak-<time>/table.md.
set -euo pipefail

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$BENCH_DIR/.." && pwd)
MODES=${MODES:-drop-behind cached}
DURATION=${DURATION:-60}
WARMUP=${WARMUP:-10}
SLICE=${SLICE:-5}
QUEUE=${QUEUE:-}
PORT=${PORT:-18090}
SERVER_CPU=${SERVER_CPU:-0}
CLIENT_CPU=${CLIENT_CPU:-1}
KEEL_BIN=${KEEL_BIN:-$ROOT/bin/keel}
READY_TIMEOUT=${READY_TIMEOUT:-120}
# shellcheck disable=SC2034 # read by bench.sh's start_server
LOOPS=1
BASE="http://127.0.0.1:$PORT"

# shellcheck source-path=SCRIPTDIR source=lib/bench.sh
source "$BENCH_DIR/lib/bench.sh"

require_integers DURATION WARMUP SLICE PORT SERVER_CPU CLIENT_CPU READY_TIMEOUT
[[ -z $QUEUE ]] || require_integers QUEUE
((SLICE > 0 && DURATION >= SLICE)) || die "SLICE must be > 0 and at most DURATION"
require_tools wrk curl taskset awk
prepare_keel
make_out_dir
ROWS="$OUT/rows.tsv"
: >"$ROWS"
trap 'exit_trap $?' EXIT

# shellcheck disable=SC2120 # $1, a note, only from exit_trap
emit_table() {
  {
    echo "## Access log soak ($(date -u +%Y-%m-%dT%H:%M:%SZ))"
    echo
    echo "wrk -t1 -c64 pipelined 16 on /benchmark/hello, ${DURATION}s in ${SLICE}s slices; server on CPU $SERVER_CPU," \
      "wrk on CPU $CLIENT_CPU; access log queue ${QUEUE:-default}; $(git_desc)${1:+; $1}"
    echo
    echo "| mode | s | req/s | cpu µs/req | lines dropped | Dirty MiB | Writeback MiB |"
    echo "|---|---:|---:|---:|---:|---:|---:|"
    awk -F '\t' '{ printf "| %s | %s | %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5, $6, $7 }' "$ROWS"
    echo
    echo "| mode | mean req/s | mean cpu µs/req | lines dropped |"
    echo "|---|---:|---:|---:|"
    awk -F '\t' '{ n[$1]++; r[$1] += $3; c[$1] += $4; d[$1] += $5; if (!($1 in seen)) { seen[$1]; order[++k] = $1 } }
      END { for (i = 1; i <= k; i++) { m = order[i]; printf "| %s | %.0f | %.2f | %d |\n", m, r[m] / n[m], c[m] / n[m], d[m] } }' "$ROWS"
  } | tee "$OUT/table.md"
  TABLE_DONE=true # read by exit_trap
}

# The server's count of dropped lines, from its metrics.
dropped() {
  curl -sf --max-time 5 "$BASE/metrics" | awk '/^keel_http_server_access_log_dropped_total/ { printf "%d", $2 }'
}

meminfo_mib() { awk -v key="$1:" '$1 == key { printf "%d", $2 / 1024 }' /proc/meminfo; }

for mode in $MODES; do
  case $mode in
    drop-behind) flags=(--access-log-file-drop-behind true) ;;
    cached) flags=(--access-log-file-drop-behind false) ;;
    *) die "unknown mode '$mode' (drop-behind, cached)" ;;
  esac
  [[ -z $QUEUE ]] || flags+=(--access-log-queue "$QUEUE")
  file="$OUT/$mode.access.log"
  start_server "$OUT/$mode.server.log" --transport nio --execution event-loop --metrics true \
    --access-log true --access-log-file "$file" "${flags[@]}"
  locate_jvm || die "no JVM found for the server"
  log "$mode: warm-up ${WARMUP}s, then ${DURATION}s in ${SLICE}s slices"
  run_wrk "$OUT/$mode.wrk.txt" -t1 -c64 -d"${WARMUP}s" -s "$BENCH_DIR/wrk/pipeline.lua" "$BASE/benchmark/hello" -- 16 \
    || die "wrk failed: $(tail -n 3 "$OUT/$mode.wrk.txt")"
  before_dropped=$(dropped)
  for ((slice = 1; slice * SLICE <= DURATION; slice++)); do
    read -r u0 s0 < <(cpu_ticks)
    run_wrk "$OUT/$mode.wrk.txt" -t1 -c64 -d"${SLICE}s" -s "$BENCH_DIR/wrk/pipeline.lua" "$BASE/benchmark/hello" -- 16 \
      || die "wrk failed: $(tail -n 3 "$OUT/$mode.wrk.txt")"
    read -r u1 s1 < <(cpu_ticks)
    read -r requests req_s _ <<<"$(parse_wrk <"$OUT/$mode.wrk.txt")"
    now_dropped=$(dropped)
    cpu_us=$(awk -v t=$((u1 + s1 - u0 - s0)) -v hz="$(getconf CLK_TCK)" -v n="$requests" 'BEGIN { printf "%.2f", (n > 0 ? t * 1e6 / hz / n : 0) }')
    printf '%s\t%d\t%.0f\t%s\t%d\t%d\t%d\n' "$mode" $((slice * SLICE)) "$req_s" "$cpu_us" \
      $((now_dropped - before_dropped)) "$(meminfo_mib Dirty)" "$(meminfo_mib Writeback)" | tee -a "$ROWS" >&2
    before_dropped=$now_dropped
  done
  stop_server
  rm -f "$file"
done

emit_table
log "wrote $OUT/table.md"
