#!/usr/bin/env bash
# bench/gateway.sh: POST /gateway/publish against the real RabbitMQ broker, in each gateway mode,
# then with the broker stalled for a few seconds.
#
# What it shows
#   Each mode publishes and waits for the broker's confirm. V1 (event-loop) waits on the loop, so
#   every connection of a loop waits for each confirm in turn: throughput falls, latency and loop
#   lag grow, and the watchdog reports waitForConfirms. V2 (worker-pool), V3 (async) and V4
#   (virtual-thread) keep the loops free: 100 % success with loop lag p99 under 5 ms.
#   The fault rows (V3, V4 by default) run FAULT_DURATION seconds and, FAULT_AT seconds in, raise
#   the broker's memory alarm (rabbitmqctl set_vm_memory_high_watermark 0: the broker blocks every
#   publisher) for FAULT_FOR seconds, then restore the watermark. Expected: 5xx (503 while blocked,
#   504 for confirms that did not come in time) during the fault, 202s again after it, and every
#   202 on the queue (zero confirmed messages lost).
#
#   Every row gets a fresh JVM on CPU 0 with one event loop (one per CPU, Keel's default: two
#   loops on one CPU take turns on it, and each waits out the other's time slice); wrk and the
#   broker share CPU 1 (the broker's threads are pinned there for the run and unpinned after it, so
#   Keel's loop competes with no broker work, as with a broker on another machine). Each loop's lag
#   probe runs every LAG_PROBE (10 ms: 3000 samples in 30 s, so p99 is a percentile and not the
#   second-highest of 300 samples):
#     wrk -t2 -cCONNECTIONS -dDURATION --timeout 10s -s bench/wrk/gateway.lua URL
#   after a WARMUP run on the same route. The queue (QUEUE) is purged before each measured run
#   and its depth read after it. The virtual-thread row records JFR with jdk.VirtualThreadPinned
#   at threshold 0 and reports how many pinned events it saw.
#
# How to read the table
#   idle row       a server with no requests: the loop lag this machine imposes by itself
#   req/s          every answer per second (202 or not)
#   p95/p99 ms     wrk's latency percentiles, over all answers
#   success %      202s out of all requests, socket errors and timeouts included
#   5xx            503/502/504 answers; errors: socket errors + timeouts
#   lag p99 ms     loop lag during the run, largest over the loops (keel_event_loop_lag_seconds
#                  bucket growth, interpolated); watchdog: loop turns caught blocked (>100 ms)
#   202 / queued   confirmed answers vs messages on the queue after the run; lost = 202s missing
#                  from the queue (must be 0); queued may exceed 202 by messages answered 504
#   fault rows     202/s before, during and after the alarm, and the 5xx during it
#
# Usage
#   bench/gateway.sh                                    # 4 rows x 30 s + 2 fault rows, ~4 min
#   MODES="async virtual-thread" FAULT_MODES= DURATION=10 bench/gateway.sh
#
# Environment (defaults in brackets)
#   DURATION [30], WARMUP [3], CONNECTIONS [500], IDLE [10] (seconds of the idle baseline row; 0 skips it)
#   MODES [event-loop worker-pool async virtual-thread], FAULT_MODES [async virtual-thread]
#   FAULT_DURATION [20], FAULT_AT [5], FAULT_FOR [5]   seconds
#   GATEWAY_ARGS   more bin/keel serve flags for every row (e.g. "--gateway-publisher-threads 1")
#   KEEL_JAVA_OPTS JVM options for every server (e.g. "-Xlog:gc:file=/tmp/gc.log")
#   LOOPS [1], LAG_PROBE [10ms]
#   QUEUE [keel.bench.gateway], PORT [38090], SERVER_CPU [0], CLIENT_CPU [1], BROKER_CPU [1] ("" leaves
#   the broker unpinned), SERVER_NICE [-10 as root, else 0], READY_TIMEOUT [60]
#
# Needs the broker: bin/keel services up. Output: the table on stdout, progress on stderr; table,
# raw wrk output, metrics, JFR summary and server logs under bench/results/gateway-<timestamp>/.

set -euo pipefail

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$BENCH_DIR/.." && pwd)

ALL_MODES="event-loop worker-pool async virtual-thread"
DURATION=${DURATION:-30} WARMUP=${WARMUP:-3} CONNECTIONS=${CONNECTIONS:-500} IDLE=${IDLE:-10}
MODES=${MODES-$ALL_MODES} FAULT_MODES=${FAULT_MODES-async virtual-thread}
FAULT_DURATION=${FAULT_DURATION:-20} FAULT_AT=${FAULT_AT:-5} FAULT_FOR=${FAULT_FOR:-5}
QUEUE=${QUEUE:-keel.bench.gateway} PORT=${PORT:-38090} READY_TIMEOUT=${READY_TIMEOUT:-60}
SERVER_CPU=${SERVER_CPU:-0} CLIENT_CPU=${CLIENT_CPU:-1} BROKER_CPU=${BROKER_CPU-1} KEEL_BIN=${KEEL_BIN:-$ROOT/bin/keel}
SERVER_NICE=${SERVER_NICE:-$([[ $(id -u) == 0 ]] && echo -10 || echo 0)}
SERVER_JAVA_OPTS=${KEEL_JAVA_OPTS:-}
LOOPS=${LOOPS:-1} LAG_PROBE=${LAG_PROBE:-10ms}

# shellcheck source-path=SCRIPTDIR source=lib/bench.sh
source "$BENCH_DIR/lib/bench.sh"
require_integers DURATION WARMUP CONNECTIONS IDLE FAULT_DURATION FAULT_AT FAULT_FOR PORT SERVER_CPU CLIENT_CPU READY_TIMEOUT
((FAULT_AT + FAULT_FOR < FAULT_DURATION)) || die "FAULT_AT + FAULT_FOR must end before FAULT_DURATION"
for m in $MODES $FAULT_MODES; do [[ " $ALL_MODES " == *" $m "* ]] || die "unknown mode '$m' (known: $ALL_MODES)"; done
require_tools "wrk: apt-get install -y wrk; rabbitmqctl: bin/keel services up" wrk taskset curl awk rabbitmqctl
use_java_25
require_broker

BASE="http://127.0.0.1:$PORT"
WATERMARK=""   # the broker's memory watermark while a fault row has changed it
BROKER_PID="" BROKER_AFFINITY=""   # set while the broker is pinned to BROKER_CPU

pin_broker() {
  [[ -n $BROKER_CPU ]] || return 0
  BROKER_PID=$(rabbitmqctl -q eval 'os:getpid().' | tr -dc '0-9')
  [[ -n $BROKER_PID ]] || { log "could not find the broker's PID; leaving it unpinned"; return 0; }
  BROKER_AFFINITY=$(taskset -pc "$BROKER_PID" | awk -F': ' '{ print $2 }')
  taskset -a -pc "$BROKER_CPU" "$BROKER_PID" >/dev/null
  log "broker (PID $BROKER_PID) pinned to CPU $BROKER_CPU for the run (was $BROKER_AFFINITY)"
}

unpin_broker() {
  [[ -n $BROKER_PID && -n $BROKER_AFFINITY ]] || return 0
  taskset -a -pc "$BROKER_AFFINITY" "$BROKER_PID" >/dev/null || log "could not restore the broker's CPUs ($BROKER_AFFINITY)"
  BROKER_PID=""
}

restore_broker() {
  [[ -n $WATERMARK ]] || return 0
  rabbitmqctl -q set_vm_memory_high_watermark "$WATERMARK" >/dev/null || log "could not restore the memory watermark to $WATERMARK"
  WATERMARK=""
}

on_exit() {
  local rc=$?
  stop_clients
  restore_broker
  unpin_broker
  exit_trap "$rc"
}
trap on_exit EXIT

queue_depth() {
  rabbitmqctl -q list_queues name messages | awk -v q="$QUEUE" '$1 == q { print $2; found = 1 } END { if (!found) print 0 }'
}

# The lua summary of one wrk run -> "req_s p95 p99 success% ok 5xx errors"
parse_gateway() {
  awk -v secs="$2" '
    /^GATEWAY / { for (i = 2; i <= NF; i++) { split($i, kv, "="); g[kv[1]] = kv[2] } }
    /^STATUS / { if ($2 == 202) ok += $3; else if ($2 >= 500) five += $3; else other += $3 }
    END {
      errors = g["socket_errors"] + g["timeouts"]; all = g["requests"] + errors
      printf "%.0f %.1f %.1f %.2f %d %d %d\n", g["requests"] / secs, g["p95_ms"], g["p99_ms"],
        (all > 0 ? 100 * ok / all : 0), ok, five + other, errors
    }' "$1"
}

# Fault timeline -> "ok_per_s_before ok_per_s_during 5xx_during ok_per_s_after"
parse_timeline() { # file fault_start_epoch fault_end_epoch
  awk -v from="$2" -v to="$3" '
    /^SECOND / {
      t = $2; split($3, o, "="); split($4, f, "=")
      if (t < from) { bo += o[2]; bn++ } else if (t <= to) { dof += o[2]; d5 += f[2]; dn++ } else { ao += o[2]; an++ }
    }
    END { printf "%.0f %.0f %d %.0f\n", (bn ? bo / bn : 0), (dn ? dof / dn : 0), d5, (an ? ao / an : 0) }' "$1"
}

start_gateway() { # mode log_file
  local mode=$1 logf=$2 deadline
  # shellcheck disable=SC2086
  start_server "$logf" --gateway-mode "$mode" --gateway-routing-key "$QUEUE" --lag-probe-interval "$LAG_PROBE" ${GATEWAY_ARGS:-}
  deadline=$((SECONDS + 20))
  until [[ $(curl -s -o /dev/null -w '%{http_code}' "$BASE/keel/health") == 200 ]]; do
    ((SECONDS < deadline)) || die "$mode: /keel/health not 200 within 20 s: $(curl -s "$BASE/keel/health")"
    sleep 0.2
  done
}

warm_up() { # mode
  ((WARMUP > 0)) || return 0
  log "$1: warm-up ${WARMUP}s"
  ROUTING_KEY=$QUEUE run_wrk "$OUT/$1.warmup.txt" -t2 -c50 "-d${WARMUP}s" --timeout 10s -s "$BENCH_DIR/wrk/gateway.lua" \
    "$BASE/gateway/publish" || log "$1: warm-up wrk failed"
}

make_out_dir
ROWS="$OUT/rows.tsv" FAULTS="$OUT/faults.tsv" NOTES=()
: >"$ROWS"
: >"$FAULTS"
prepare_keel
log "JDK: $JAVA_HOME; results: $OUT"
pin_broker
LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
WRK_ARGS=(-t2 "-c$CONNECTIONS" --timeout 10s -s "$BENCH_DIR/wrk/gateway.lua")

if ((IDLE > 0)); then
  # The floor the machine itself sets: loop lag of a server that serves nothing (other tenants,
  # the hypervisor). On a shared machine this can be far above the 5 ms a loaded loop should stay under.
  start_gateway async "$OUT/idle.server.log"
  curl -sf --max-time 30 "$BASE/metrics" >"$OUT/idle.metrics-before.txt" || die "idle: could not read /metrics"
  log "idle: ${IDLE}s without requests, for the machine's own loop-lag floor"
  sleep "$IDLE"
  curl -sf --max-time 30 "$BASE/metrics" >"$OUT/idle.metrics.txt" || die "idle: could not read /metrics"
  read -r lag99 _ wd < <(parse_metrics "$OUT/idle.metrics-before.txt" "$OUT/idle.metrics.txt" /gateway/publish)
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "idle (no requests, ${IDLE}s)" - - - - - - "$lag99" "$wd" - - - >>"$ROWS"
  log "idle: loop lag p99 $lag99 ms"
  stop_server
fi

for mode in $MODES; do
  KEEL_JAVA_OPTS=$SERVER_JAVA_OPTS
  if [[ $mode == virtual-thread ]]; then
    KEEL_JAVA_OPTS+=" -XX:StartFlightRecording:filename=$OUT/$mode.jfr,dumponexit=true,jdk.VirtualThreadPinned#enabled=true,jdk.VirtualThreadPinned#threshold=0ms"
  fi
  export KEEL_JAVA_OPTS
  start_gateway "$mode" "$OUT/$mode.server.log"
  warm_up "$mode"
  rabbitmqctl -q purge_queue "$QUEUE" >/dev/null
  curl -sf --max-time 30 "$BASE/metrics" >"$OUT/$mode.metrics-before.txt" || die "$mode: could not read /metrics"
  log "$mode: measuring ${DURATION}s with $CONNECTIONS connections"
  ROUTING_KEY=$QUEUE run_wrk "$OUT/$mode.wrk.txt" "${WRK_ARGS[@]}" "-d${DURATION}s" "$BASE/gateway/publish" \
    || log "$mode: wrk failed: $(tail -n 3 "$OUT/$mode.wrk.txt" | tr '\n' ' ')"
  curl -sf --max-time 30 "$BASE/metrics" >"$OUT/$mode.metrics.txt" || die "$mode: could not read /metrics"
  sleep 1
  queued=$(queue_depth)
  read -r rps p95 p99 success ok fivexx errors < <(parse_gateway "$OUT/$mode.wrk.txt" "$DURATION")
  read -r lag99 _ wd < <(parse_metrics "$OUT/$mode.metrics-before.txt" "$OUT/$mode.metrics.txt" /gateway/publish)
  lost=$((ok > queued ? ok - queued : 0))
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$mode" "$rps" "$p95" "$p99" "$success" "$fivexx" "$errors" \
    "$lag99" "$wd" "$ok" "$queued" "$lost" >>"$ROWS"
  log "$mode: $rps req/s, success $success %, p99 $p99 ms, loop lag p99 $lag99 ms, 202 $ok, queued $queued"
  stop_server
  if [[ $mode == event-loop ]]; then
    sample=$(awk '/event=event_loop_blocked/ && !w { w = 1; sub(/ stack=.*/, ""); print; next }
                  w && /waitForConfirms\(/ { sub(/^[ \t]+/, ""); print; n = 1; next }
                  n && /keel\.amqp/ { sub(/^[ \t]+/, ""); print; exit }' "$OUT/$mode.server.log")
    NOTES+=("- event-loop: the watchdog's first warning, with the waitForConfirms frame and the gateway frame under it:" '```' "${sample:-none found}" '```')
  fi
  if [[ $mode == virtual-thread ]]; then
    pinned=$(jfr summary "$OUT/$mode.jfr" 2>/dev/null | awk '$1 == "jdk.VirtualThreadPinned" { print $2 }')
    jfr print --events jdk.VirtualThreadPinned "$OUT/$mode.jfr" >"$OUT/$mode.pinned.txt" 2>/dev/null || true
    NOTES+=("- virtual-thread: JFR jdk.VirtualThreadPinned (threshold 0 ms) events during the run: ${pinned:-n/a} ($OUT/$mode.jfr)")
  fi
done
export KEEL_JAVA_OPTS=$SERVER_JAVA_OPTS

for mode in $FAULT_MODES; do
  start_gateway "$mode" "$OUT/$mode.fault.server.log"
  warm_up "$mode"
  rabbitmqctl -q purge_queue "$QUEUE" >/dev/null
  log "$mode: fault run ${FAULT_DURATION}s, memory alarm from ${FAULT_AT}s for ${FAULT_FOR}s"
  ROUTING_KEY=$QUEUE run_wrk "$OUT/$mode.fault.wrk.txt" "${WRK_ARGS[@]}" "-d${FAULT_DURATION}s" "$BASE/gateway/publish" &
  wrk_job=$!
  sleep "$FAULT_AT"
  WATERMARK=$(rabbitmqctl -q eval 'vm_memory_monitor:get_vm_memory_high_watermark().' 2>/dev/null | tr -d '{}[:space:]' | sed 's/^relative,//')
  [[ $WATERMARK =~ ^[0-9.]+$ ]] || WATERMARK=0.4
  fault_from=$(date +%s)
  rabbitmqctl -q set_vm_memory_high_watermark 0 >/dev/null
  sleep "$FAULT_FOR"
  restore_broker
  fault_to=$(date +%s)
  wait "$wrk_job" || log "$mode: fault wrk failed"
  sleep 1
  queued=$(queue_depth)
  health=$(curl -s -o /dev/null -w '%{http_code}' "$BASE/keel/health")
  read -r rps _ _ success ok fivexx errors < <(parse_gateway "$OUT/$mode.fault.wrk.txt" "$FAULT_DURATION")
  read -r before during during5xx after < <(parse_timeline "$OUT/$mode.fault.wrk.txt" "$fault_from" "$fault_to")
  lost=$((ok > queued ? ok - queued : 0))
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$mode" "$rps" "$success" "$fivexx" "$errors" "$before" "$during" \
    "$during5xx" "$after" "$ok" "$queued" "$lost/$health" >>"$FAULTS"
  log "$mode fault: 202/s before $before, during $during, after $after; 5xx during $during5xx; 202 $ok, queued $queued"
  timeline=$(awk -v from="$fault_from" -v to="$fault_to" '/^SECOND / { split($3, o, "="); split($4, f, "=");
      printf "%s%s/%s", (n++ ? " " : ""), (($2 >= from && $2 <= to) ? "*" : "") o[2], f[2] }' "$OUT/$mode.fault.wrk.txt")
  NOTES+=("- $mode fault run, 202/5xx per second (* = alarm raised): $timeline")
  stop_server
done

{
  echo "## Gateway: POST /gateway/publish to RabbitMQ ($(date -u +%Y-%m-%dT%H:%M:%SZ))"
  echo
  echo "wrk -t2 -c$CONNECTIONS -d${DURATION}s --timeout 10s after ${WARMUP}s warm-up; $LOOPS event loop(s), lag probe every $LAG_PROBE; server on CPU $SERVER_CPU," \
    "wrk on CPU $CLIENT_CPU, broker $([[ -n $BROKER_CPU ]] && echo "on CPU $BROKER_CPU" || echo unpinned); persistent messages, publisher confirms;" \
    "machine load average before/after: $LOAD_BEFORE / $(cut -d' ' -f1-3 /proc/loadavg);" \
    "server nice $SERVER_NICE; $("$JAVA_HOME/bin/java" -version 2>&1 | head -n 1); $(git_desc)"
  echo
  if [[ -s $ROWS ]]; then
    echo "| mode | req/s | p95 ms | p99 ms | success % | 5xx | errors | loop lag p99 ms | watchdog | 202 | queued | lost |"
    echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    awk -F '\t' '{ printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12 }' "$ROWS"
  fi
  if [[ -s $FAULTS ]]; then
    echo
    echo "Fault: broker memory alarm (publishers blocked) from ${FAULT_AT}s for ${FAULT_FOR}s of a ${FAULT_DURATION}s run, $CONNECTIONS connections"
    echo
    echo "| mode | req/s | success % | 5xx | errors | 202/s before | 202/s during | 5xx during | 202/s after | 202 | queued | lost / health after |"
    echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    awk -F '\t' '{ printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12 }' "$FAULTS"
  fi
  if ((${#NOTES[@]} > 0)); then echo; printf '%s\n' "${NOTES[@]}"; fi
} >"$OUT/table.md"
cat "$OUT/table.md"
log "wrote $OUT/table.md"
