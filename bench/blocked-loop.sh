#!/usr/bin/env bash
# bench/blocked-loop.sh: what one blocking handler does to Keel's event loops,
# and how each execution mode (and the watchdog's offload) copes with it.
#
# What it shows
#   /benchmark/latency?ms=BLOCK_MS sleeps BLOCK_MS on the thread that runs it.
#   On an event loop that sleep stalls every connection of the loop, so the
#   server manages at most loops x 1000 / BLOCK_MS req/s (2 x 20 = 40 by
#   default) and loop lag grows to seconds. Off the loop (worker pool, virtual
#   threads) or written as an async wait, Little's law bounds it instead:
#   CONNECTIONS / BLOCK_MS (200 / 50 ms = 4000 req/s; the worker pool is also
#   capped by its 200 threads). With --on-blocked offload the watchdog catches
#   the route in a loop turn longer than its 100 ms threshold and moves it to
#   virtual threads, so that row should end close to the others.
#
#   Every row gets a fresh JVM on CPU 0 with 2 event loops, wrk on CPU 1:
#   a WARMUP run that is not counted, then
#     wrk -t2 -cCONNECTIONS -dDURATION --latency --timeout 10s URL
#   The event-loop and offload rows warm up on /benchmark/health only, so the
#   blocking route sees its first request in the measured run (a warm-up on it
#   would already offload it). /metrics is read just before and right after the
#   measured run; lag and watchdog figures are what grew in between.
#
# How to read the table
#   req/s, p50/p99/max   from wrk (ms)
#   errors        wrk's non-2xx responses and socket errors ("timeout" = waited
#                 over 10 s); "0" when clean
#   lag p99/max   ms, how late a loop ran a timer that was due, largest over the
#                 loops, from the growth of keel_event_loop_lag_seconds buckets:
#                 p99 interpolated inside its bucket, max = the upper edge of the
#                 highest bucket reached (so "10.0" means 7.5-10 ms)
#   watchdog      growth of keel_event_loop_blocked_total (loop turns caught stuck);
#                 "(route n)" counts those on other routes, e.g. a cold JVM's
#                 first requests ("none": no route was running)
#   bound req/s   the expected ceiling above; compare req/s with it
#   Below the table: the route's state in /keel/routes for the offload row, and
#   the event-loop row's first watchdog warning with the frames around
#   Thread.sleep, showing that the stack points at the blocking handler.
#
# Usage
#   bench/blocked-loop.sh                      # all rows, ~2-3 min
#   MODES="event-loop offload" DURATION=10 bench/blocked-loop.sh
#
# Environment (defaults in brackets)
#   DURATION [20], WARMUP [3]   seconds of the measured and warm-up runs
#   CONNECTIONS [200]  wrk connections      BLOCK_MS [50]  wait per request
#   MODES   subset of: event-loop worker-pool virtual-thread async offload
#   PORT [18090], SERVER_CPU [0], CLIENT_CPU [1], READY_TIMEOUT [60], KEEL_BIN [bin/keel]
#
# Output: the table on stdout, progress on stderr; table, raw wrk outputs,
# /metrics and /keel/routes scrapes and server logs under
# bench/results/blocked-loop-<timestamp>/ (gitignored).

set -euo pipefail

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$BENCH_DIR/.." && pwd)

ALL_MODES="event-loop worker-pool virtual-thread async offload"
DURATION=${DURATION:-20} WARMUP=${WARMUP:-3} CONNECTIONS=${CONNECTIONS:-200} BLOCK_MS=${BLOCK_MS:-50}
MODES=${MODES:-$ALL_MODES} PORT=${PORT:-18090} READY_TIMEOUT=${READY_TIMEOUT:-60}
SERVER_CPU=${SERVER_CPU:-0} CLIENT_CPU=${CLIENT_CPU:-1} KEEL_BIN=${KEEL_BIN:-$ROOT/bin/keel}
LOOPS=2             # the server's default, passed explicitly
WORKER_THREADS=200  # likewise, for the worker-pool row's bound

# shellcheck source-path=SCRIPTDIR source=lib/bench.sh
source "$BENCH_DIR/lib/bench.sh"
require_integers DURATION WARMUP CONNECTIONS BLOCK_MS PORT SERVER_CPU CLIENT_CPU READY_TIMEOUT
((DURATION > 0 && CONNECTIONS > 0 && BLOCK_MS > 0)) || die "DURATION, CONNECTIONS and BLOCK_MS must be > 0"
[[ -n ${MODES// } ]] || die "MODES is empty"
for m in $MODES; do [[ " $ALL_MODES " == *" $m "* ]] || die "unknown mode '$m' (known: $ALL_MODES)"; done
require_tools "wrk: apt-get install -y wrk; taskset: util-linux" wrk taskset curl awk
require_cpus
use_java_25

BASE="http://127.0.0.1:$PORT"

# ------------------------------------------------------------- state/trap ---

ROWS=""  # results so far, once the run has started
trap 'exit_trap $? "$ROWS"' EXIT

# ------------------------------------------------------------------ rows ---

row_setup() { # mode -> LABEL, TARGET, WARM_PATH, BOUND, KEEL_ARGS
  local latency="/benchmark/latency?ms=$BLOCK_MS" little=$((CONNECTIONS * 1000 / BLOCK_MS))
  TARGET=$latency WARM_PATH=$latency BOUND=$little
  case $1 in
    event-loop)
      LABEL="event-loop" KEEL_ARGS=(--execution event-loop)
      WARM_PATH=/benchmark/health BOUND=$((LOOPS * 1000 / BLOCK_MS)) ;;
    worker-pool)
      LABEL="worker-pool" KEEL_ARGS=(--execution worker-pool --worker-threads "$WORKER_THREADS")
      BOUND=$(( (CONNECTIONS < WORKER_THREADS ? CONNECTIONS : WORKER_THREADS) * 1000 / BLOCK_MS )) ;;
    virtual-thread)
      LABEL="virtual-thread" KEEL_ARGS=(--execution virtual-thread) ;;
    async)
      LABEL="async (event-loop)" KEEL_ARGS=(--execution event-loop)
      TARGET="/benchmark/latency-async?ms=$BLOCK_MS" WARM_PATH=$TARGET ;;
    offload)
      LABEL="event-loop + offload" KEEL_ARGS=(--execution event-loop --on-blocked offload)
      WARM_PATH=/benchmark/health ;;
  esac
}

# ------------------------------------------------------------------ table ---

emit_table() { # $1: optional remark for the heading
  TABLE_DONE=true
  {
    echo "## Keel with a blocking handler ($(date -u +%Y-%m-%dT%H:%M:%SZ))${1:+ ($1)}"
    echo
    echo "wrk ${WRK_ARGS[*]} -d${DURATION}s after ${WARMUP}s warm-up; handlers wait ${BLOCK_MS} ms;" \
      "$LOOPS event loops; server on CPU $SERVER_CPU, wrk on CPU $CLIENT_CPU;" \
      "$("$JAVA_HOME/bin/java" -version 2>&1 | head -n 1);" \
      "$(git_desc)"
    echo
    awk -F '\t' '
      function num(v, fmt) { return (v < 0 ? "n/a" : sprintf(fmt, v)) }
      BEGIN {
        print "| mode | req/s | p50 ms | p99 ms | max ms | errors | lag p99 ms | lag max ms | watchdog | bound req/s |"
        print "|---|---:|---:|---:|---:|---|---:|---:|---:|---:|"
      }
      { printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", $1, num($2, "%.0f"), num($3, "%.1f"),
          num($4, "%.1f"), num($5, "%.1f"), $6, num($7, "%.1f"), num($8, "%.1f"), $9, $10 }' "$ROWS"
    if ((${#NOTES[@]} > 0)); then echo; printf '%s\n' "${NOTES[@]}"; fi
  } >"$OUT/table.md"
  cat "$OUT/table.md"
  log "wrote $OUT/table.md"
}

# ------------------------------------------------------------------- main ---

prepare_keel
make_out_dir
ROWS="$OUT/rows.tsv" NOTES=()
: >"$ROWS"
log "JDK: $JAVA_HOME; results: $OUT"

WRK_ARGS=(-t2 "-c$CONNECTIONS" --latency --timeout 10s)
for mode in $MODES; do
  row_setup "$mode"
  start_server "$OUT/$mode.server.log" "${KEEL_ARGS[@]}"
  if ((WARMUP > 0)); then
    log "$LABEL: warm-up ${WARMUP}s on $WARM_PATH"
    run_wrk "$OUT/$mode.warmup.txt" "${WRK_ARGS[@]}" "-d${WARMUP}s" "$BASE$WARM_PATH" \
      || log "$LABEL: warm-up wrk failed (see $OUT/$mode.warmup.txt)"
  fi
  curl -sf --max-time 30 "$BASE/metrics" >"$OUT/$mode.metrics-before.txt" || die "$LABEL: could not read /metrics"
  log "$LABEL: measuring ${DURATION}s on $TARGET"
  run_wrk "$OUT/$mode.wrk.txt" "${WRK_ARGS[@]}" "-d${DURATION}s" "$BASE$TARGET" \
    || log "$LABEL: wrk failed: $(tail -n 3 "$OUT/$mode.wrk.txt" | tr '\n' ' ')"
  # The loops may still be finishing requests already read, so allow a slow answer.
  curl -sf --max-time 30 "$BASE/metrics" >"$OUT/$mode.metrics.txt" || die "$LABEL: could not read /metrics"
  curl -sf --max-time 30 "$BASE/keel/routes" >"$OUT/$mode.routes.json" || die "$LABEL: could not read /keel/routes"
  kill -0 "$SERVER_PID" 2>/dev/null || die "$LABEL: the server died (log: $OUT/$mode.server.log)"
  read -r _ rps p50 p99 max errs < <(parse_wrk <"$OUT/$mode.wrk.txt")
  [[ $errs != - ]] || errs=0
  read -r lag99 lagmax wd < <(parse_metrics "$OUT/$mode.metrics-before.txt" "$OUT/$mode.metrics.txt" "${TARGET%%\?*}")
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' \
    "$LABEL" "$rps" "$p50" "$p99" "$max" "$errs" "$lag99" "$lagmax" "$wd" "$BOUND" >>"$ROWS"
  log "$LABEL: $rps req/s (bound $BOUND), p99 $p99 ms, loop lag p99 $lag99 ms, watchdog $wd, errors $errs"

  if [[ $mode == offload ]]; then
    # The route's object in /keel/routes, one object per line; no jq needed.
    state=$(tr '{}' '\n' <"$OUT/$mode.routes.json" | grep -F '"path":"/benchmark/latency"' \
      | grep -oE '"(effective|offloaded)":("[^"]*"|[a-z]+)' | tr -d '"' | paste -sd ' ' || true)
    offl_line=$(grep -m1 'event=route_offloaded' "$OUT/$mode.server.log" || true)
    NOTES+=("- $LABEL: /keel/routes shows GET /benchmark/latency with ${state:-no entry found}")
    NOTES+=("  - server log: \`${offl_line:-no event=route_offloaded line}\`")
  fi
  if [[ $mode == event-loop ]]; then
    # The first watchdog warning, and the stack frames Thread.sleep and the one that called it.
    sample=$(awk '/event=event_loop_blocked/ && !w { w = 1; print; next }
                  w && /Thread\.sleep\(/ { sub(/^[ \t]+/, ""); print; getline; sub(/^[ \t]+/, ""); print; exit }' \
      "$OUT/$mode.server.log")
    if [[ -z $sample ]]; then
      NOTES+=("- $LABEL: no event=event_loop_blocked warning in the server log")
    else
      [[ $sample == *Thread.sleep\(* ]] || sample+=$'\n(no Thread.sleep frame in its stack)'
      NOTES+=("- $LABEL: first watchdog warning in the server log, with the frames around Thread.sleep:" \
        '```' "$sample" '```')
    fi
  fi
  stop_server
done

emit_table
