#!/usr/bin/env bash
# bench/cluster.sh: Keel instances behind HAProxy (lib/balancer.sh, as `bin/keel cluster up` starts
# them), the gateway route under load through the balancer, and a rolling restart of every
# instance mid-run; or, with MODE=soak, a long run with the ingest pipeline consuming.
#
# What it shows
#   restart (MODE=restart, the default): INSTANCES instances (bin/keel serve, the gateway in async
#   mode, one event loop each) behind HAProxy; wrk POSTs /gateway/publish through HAProxy
#   (wrk -t1 -cCONNECTIONS, closed loop) for BEFORE seconds, then every instance in turn gets
#   SIGTERM (its /keel/health turns 503, HAProxy marks it down within its health grace, its requests
#   in flight finish, it exits) and a new one starts on the same port, warm before HAProxy marks it
#   up; then AFTER more seconds. Goal: not one request fails during the restart (no 5xx, no socket
#   error, no timeout) and 202/s comes back to what it was.
#   soak (MODE=soak): the same cluster with the ingest pipeline on in each instance, consuming the
#   gateway's queue into PostgreSQL so that it stays short; wrk sends a steady SOAK_RATE req/s
#   (each connection waits between requests) for SOAK_MINUTES, one wrk run a minute. Goal: p99 under
#   100 ms and no answer over 2 s in any minute.
#
#   The instances run on CPU SERVER_CPU; HAProxy and wrk on CPU CLIENT_CPU; the broker and
#   PostgreSQL unpinned. A 2-core machine gives each instance a share of one CPU: the figures are
#   the balancer's behaviour, not Keel's throughput (bench/gateway.sh measures that).
#
# How to read the tables
#   restart: 202/s before, during and after the rolling restart (per-second averages); 5xx and
#   socket errors (connect, read, write, timeouts) over the whole run; seconds to recover: from the
#   end of the restart to the first second at 90 % of the 202/s before (0: it never fell below);
#   failed during: answers other than 202 during the restart plus every socket error of the run
#   (wrk counts those for the run only), which must be 0.
#   soak: per minute, requests, non-202 answers, socket errors, p50/p99/max ms and how many took
#   over 2 s, and the queue's depth at the minute's end.
#
# Usage
#   bench/cluster.sh                                  # 3 instances, ~2-3 min
#   INSTANCES=2 BEFORE=10 AFTER=10 bench/cluster.sh   # a quick pass
#   MODE=soak SOAK_MINUTES=3 bench/cluster.sh
#
# Environment (defaults in brackets)
#   MODE [restart] (restart | soak), INSTANCES [3], CONNECTIONS [32], WARMUP [5], BEFORE [15], AFTER [20]
#   FAULTS [rolling-restart]   the restart mode's faults, in turn (broker-node: see the marked place below)
#   SOAK_MINUTES [15], SOAK_RATE [400] req/s, SOAK_CONNECTIONS [8]
#   AMQP_URIS [amqp://guest:guest@127.0.0.1:5672]   the broker(s) the instances publish to
#   EXTRA_SERVE_ARGS []   more bin/keel serve flags for every instance (e.g. "--health-grace 0s")
#   QUEUE [keel.bench.cluster], PORT [38280] (HAProxy; instances on PORT+1.., statistics on PORT+99)
#   SERVER_CPU [0], CLIENT_CPU [1], READY_TIMEOUT [120] seconds an instance may take to be marked up
#
# Needs the broker (and PostgreSQL for the soak): bin/keel services up; HAProxy and wrk (installed
# from Debian's packages when missing). Output: the table on stdout, progress on stderr; table, wrk
# output, HAProxy's configuration and the instances' logs under bench/results/cluster-<timestamp>/.

set -euo pipefail

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$BENCH_DIR/.." && pwd)

MODE=${MODE:-restart} INSTANCES=${INSTANCES:-3} CONNECTIONS=${CONNECTIONS:-32}
WARMUP=${WARMUP:-5} BEFORE=${BEFORE:-15} AFTER=${AFTER:-20} FAULTS=${FAULTS:-rolling-restart}
SOAK_MINUTES=${SOAK_MINUTES:-15} SOAK_RATE=${SOAK_RATE:-400} SOAK_CONNECTIONS=${SOAK_CONNECTIONS:-8}
AMQP_URIS=${AMQP_URIS:-amqp://guest:guest@127.0.0.1:5672}
QUEUE=${QUEUE:-keel.bench.cluster} PORT=${PORT:-38280} READY_TIMEOUT=${READY_TIMEOUT:-120}
SERVER_CPU=${SERVER_CPU:-0} CLIENT_CPU=${CLIENT_CPU:-1} KEEL_BIN=${KEEL_BIN:-$ROOT/bin/keel}

# shellcheck source-path=SCRIPTDIR source=lib/bench.sh
source "$BENCH_DIR/lib/bench.sh"
require_integers INSTANCES CONNECTIONS WARMUP BEFORE AFTER SOAK_MINUTES SOAK_RATE SOAK_CONNECTIONS PORT SERVER_CPU CLIENT_CPU READY_TIMEOUT
[[ $MODE == restart || $MODE == soak ]] || die "MODE must be restart or soak, got '$MODE'"
((INSTANCES >= 2)) || die "INSTANCES must be at least 2: a rolling restart needs another instance to serve"
install_wrk_if_missing
require_tools "wrk: apt-get install -y wrk; rabbitmqctl: bin/keel services up" wrk taskset curl awk rabbitmqctl
require_cpus
use_java_25
require_broker

# shellcheck disable=SC2034 # lib/balancer.sh reads it
root=$ROOT
# shellcheck source=lib/balancer.sh
source "$ROOT/lib/balancer.sh"
balancer_install_haproxy || die "could not install haproxy"

# The instances' broker flags. One URI today; the three-node broker cluster's address list plugs in
# here (AMQP_URIS holding several, and the gateway's flag for a list).
broker_args() {
  [[ $AMQP_URIS != *,* ]] || die "AMQP_URIS holds a list ($AMQP_URIS): this Keel takes one broker URI"
  echo "--amqp-uri $AMQP_URIS"
}

SERVE_ARGS="--loops 1 --gateway-mode async --gateway-routing-key $QUEUE $(broker_args) ${EXTRA_SERVE_ARGS:-}"
if [[ $MODE == soak ]]; then
  SERVE_ARGS+=" --ingest true --ingest-mode pipelined --ingest-queue $QUEUE"
fi

make_out_dir
export KEEL_BALANCER_DIR="$OUT/cluster" KEEL_BALANCER_PORT=$PORT KEEL_BALANCER_FIRST_PORT=$((PORT + 1))
export KEEL_BALANCER_STATS_PORT=$((PORT + 99)) KEEL_BALANCER_CPUS=$SERVER_CPU KEEL_BALANCER_HAPROXY_CPUS=$CLIENT_CPU
export KEEL_BALANCER_TIMEOUT=$READY_TIMEOUT
URL="http://127.0.0.1:$PORT/gateway/publish"
BALANCER_STARTED=false
FAULT_WRK_JOB=""  # the background wrk of a fault row while it runs

on_exit() {
  local rc=$?
  stop_wrk
  if [[ -n $FAULT_WRK_JOB ]]; then
    for pid in $(cat /proc/"$FAULT_WRK_JOB"/task/*/children 2>/dev/null || true); do kill "$pid" 2>/dev/null || true; done
  fi
  if [[ $BALANCER_STARTED == true ]]; then balancer_down 2>>"$OUT/cluster.log" || true; fi
  rabbitmqctl -q purge_queue "$QUEUE" >/dev/null 2>&1 || true
  exit "$rc"
}
trap on_exit EXIT

queue_depth() {
  rabbitmqctl -q list_queues name messages | awk -v q="$QUEUE" '$1 == q { print $2; found = 1 } END { if (!found) print 0 }'
}

gateway_wrk() { # output connections seconds
  ROUTING_KEY=$QUEUE run_wrk "$1" -t1 "-c$2" "-d$3s" --timeout 10s -s "$BENCH_DIR/wrk/gateway.lua" "$URL"
}

# A wrk timeline -> "ok_s_before ok_s_during ok_s_after failed_during seconds_to_recover": full
# seconds only (the first and last of the run are partial), the fault from $2 to $3 (epoch seconds).
parse_fault() { # wrk_output fault_from fault_to
  awk -v from="$2" -v to="$3" '
    /^SECOND / { n++; t[n] = $2; split($3, o, "="); split($4, f, "="); split($5, x, "="); ok[n] = o[2]; bad[n] = f[2] + x[2] }
    END {
      for (i = 2; i < n; i++) {
        if (t[i] < from) { bo += ok[i]; bn++ } else if (t[i] <= to) { dof += ok[i]; dn++ } else { ao += ok[i]; an++ }
      }
      for (i = 1; i <= n; i++) if (t[i] >= from && t[i] <= to) failed += bad[i]
      before = bn ? bo / bn : 0; recover = -1
      for (i = 1; i < n; i++) if (t[i] > to && ok[i] >= 0.9 * before) { recover = t[i] - to - 1; break }
      if (recover < 0 && an == 0) recover = "n/a"
      printf "%.0f %.0f %.0f %d %s\n", before, (dn ? dof / dn : 0), (an ? ao / an : 0), failed, (recover == -1 ? "never" : recover)
    }' "$1"
}

gateway_field() { awk -v k="$2" '/^GATEWAY / { for (i = 2; i <= NF; i++) { split($i, kv, "="); if (kv[1] == k) print kv[2] } }' "$1"; }
status_count() { awk '/^STATUS / && $2 >= 500 { n += $3 } END { print n + 0 }' "$1"; }

# One fault row: wrk for BEFORE s, the fault ($2, a function), then AFTER s once it is over.
fault_row() { # name function
  local name=$1 run=$2 out="$OUT/$1.wrk.txt" from to wrk_job
  rabbitmqctl -q purge_queue "$QUEUE" >/dev/null
  log "$name: load for ${BEFORE}s, then the fault, then ${AFTER}s"
  # wrk's length is fixed up front: long enough for the fault, cut short by stop_wrk once AFTER is over.
  gateway_wrk "$out" "$CONNECTIONS" $((BEFORE + AFTER + INSTANCES * READY_TIMEOUT)) &
  wrk_job=$!
  FAULT_WRK_JOB=$wrk_job
  sleep "$BEFORE"
  from=$(date +%s)
  "$run" || log "$name: the fault did not complete (see $OUT/cluster.log)"
  to=$(date +%s)
  sleep "$AFTER"
  # SIGINT makes wrk stop and print its summary (the script's done() included).
  local wrk_pid
  for wrk_pid in $(cat /proc/"$wrk_job"/task/*/children 2>/dev/null || true); do kill -INT "$wrk_pid" 2>/dev/null || true; done
  wait "$wrk_job" || true
  FAULT_WRK_JOB=
  read -r before during after failed recover < <(parse_fault "$out" "$from" "$to")
  local errors timeouts fivexx
  errors=$(gateway_field "$out" socket_errors) timeouts=$(gateway_field "$out" timeouts) fivexx=$(status_count "$out")
  failed=$((failed + ${errors:-0} + ${timeouts:-0}))
  printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$name" "$((to - from))" "$before" "$during" "$after" "$fivexx" \
    "$((${errors:-0} + ${timeouts:-0}))" "$recover" "$failed" "$([[ $failed == 0 ]] && echo ok || echo FAILED)" >>"$OUT/faults.md"
  log "$name: 202/s $before before, $during during (${from}..${to}), $after after; failed $failed; recovered in $recover s"
}

fault_rolling_restart() { balancer_restart 2>>"$OUT/cluster.log"; }

# ---- second fault: a broker node killed mid-run --------------------------------------------------
# With the three-node broker cluster (AMQP_URIS listing its nodes), FAULTS="rolling-restart
# broker-node" adds a row of the same shape: kill one node (not the single broker of
# `bin/keel services up`, which must keep running) at BEFORE s, start it again, and count what
# failed while it was away. Not run yet: this Keel publishes to one broker.
fault_broker_node() {
  die "the broker-node fault needs the three-node broker cluster and the gateway's address list"
}
# --------------------------------------------------------------------------------------------------

LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
log "results: $OUT; machine load average $LOAD_BEFORE"
prepare_keel
BALANCER_STARTED=true
# shellcheck disable=SC2086 # the serve flags are words
balancer_up --instances "$INSTANCES" -- $SERVE_ARGS >"$OUT/cluster-up.txt" 2>>"$OUT/cluster.log" \
  || { tail -n 20 "$OUT/cluster.log" >&2; die "the cluster did not come up"; }
cp "$KEEL_BALANCER_DIR/haproxy.cfg" "$OUT/haproxy.cfg"
if ((WARMUP > 0)); then gateway_wrk "$OUT/warmup.txt" "$CONNECTIONS" "$WARMUP" || log "warm-up wrk failed"; fi

HEAD="$INSTANCES instances (bin/keel serve --loops 1 --gateway-mode async${EXTRA_SERVE_ARGS:+ $EXTRA_SERVE_ARGS}, on CPU $SERVER_CPU) behind HAProxy $(haproxy -v | awk 'NR == 1 { print $3 }') (CPU $CLIENT_CPU)"
if [[ $MODE == restart ]]; then
  : >"$OUT/faults.md"
  for fault in $FAULTS; do
    case $fault in
      rolling-restart) fault_row rolling-restart fault_rolling_restart ;;
      broker-node) fault_row broker-node fault_broker_node ;;
      *) die "unknown fault '$fault' (rolling-restart, broker-node)" ;;
    esac
  done
  {
    echo "## Keel behind HAProxy: a rolling restart under load ($(date -u +%Y-%m-%dT%H:%M:%SZ))"
    echo
    echo "$HEAD; wrk -t1 -c$CONNECTIONS POST /gateway/publish through HAProxy (CPU $CLIENT_CPU), ${BEFORE}s before the fault and ${AFTER}s after it;" \
      "load average before/after: $LOAD_BEFORE / $(cut -d' ' -f1-3 /proc/loadavg); $(git_desc)"
    echo
    echo "| fault | fault s | 202/s before | 202/s during | 202/s after | 5xx | socket errors | s to recover | failed during | |"
    echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|"
    cat "$OUT/faults.md"
  } >"$OUT/table.md"
else
  delay=$((SOAK_CONNECTIONS * 1000 / SOAK_RATE))
  log "soak: ${SOAK_MINUTES} min at ~$SOAK_RATE req/s ($SOAK_CONNECTIONS connections, ${delay} ms between requests on each)"
  : >"$OUT/minutes.md"
  worst_p99=0 over=0
  for ((m = 1; m <= SOAK_MINUTES; m++)); do
    DELAY_MS=$delay gateway_wrk "$OUT/soak-$m.txt" "$SOAK_CONNECTIONS" 60 || log "minute $m: wrk failed"
    read -r p50_ms p99_ms max_ms over_2s < <(awk '/^LATENCY / { for (i = 2; i <= 5; i++) { split($i, kv, "="); printf "%s ", kv[2] } }
      END { print "" }' "$OUT/soak-$m.txt")
    over_2s=${over_2s:-0}
    requests=$(gateway_field "$OUT/soak-$m.txt" requests)
    errors=$(($(gateway_field "$OUT/soak-$m.txt" socket_errors) + $(gateway_field "$OUT/soak-$m.txt" timeouts)))
    non202=$(awk '/^STATUS / && $2 != 202 { n += $3 } END { print n + 0 }' "$OUT/soak-$m.txt")
    printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$m" "$requests" "$non202" "$errors" "$p50_ms" "$p99_ms" "$max_ms" \
      "$over_2s" "$(queue_depth)" "$(cut -d' ' -f1 /proc/loadavg)" >>"$OUT/minutes.md"
    log "minute $m: $requests requests, p50 $p50_ms ms, p99 $p99_ms ms, max $max_ms ms, over 2 s $over_2s, queue $(queue_depth)"
    worst_p99=$(awk -v a="$worst_p99" -v b="$p99_ms" 'BEGIN { print (b > a ? b : a) }')
    over=$((over + over_2s))
  done
  {
    echo "## Keel behind HAProxy: a ${SOAK_MINUTES}-minute soak ($(date -u +%Y-%m-%dT%H:%M:%SZ))"
    echo
    echo "$HEAD, each consuming the queue into PostgreSQL (ingest pipelined); wrk -t1 -c$SOAK_CONNECTIONS, ${delay} ms between requests" \
      "on each connection (~$SOAK_RATE req/s), one 60 s run a minute; load average before/after: $LOAD_BEFORE / $(cut -d' ' -f1-3 /proc/loadavg); $(git_desc)"
    echo
    echo "| minute | requests | non-202 | socket errors | p50 ms | p99 ms | max ms | over 2 s | queue | load avg |"
    echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    cat "$OUT/minutes.md"
    echo
    echo "Worst minute's p99: $worst_p99 ms (goal < 100 ms); answers over 2 s: $over (goal 0)."
  } >"$OUT/table.md"
fi
cat "$OUT/table.md"
log "wrote $OUT/table.md"
