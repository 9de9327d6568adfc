#!/usr/bin/env bash
# bench/cluster.sh: Keel instances behind HAProxy (lib/balancer.sh, as `bin/keel cluster up` starts
# them) on the three-node RabbitMQ cluster (lib/cluster.sh, a quorum queue), each with the ingest
# pipeline consuming the gateway's queue into PostgreSQL; the gateway route under load through the
# balancer, and faults mid-run; or, with MODE=soak, a long run.
#
# What it shows
#   faults (MODE=faults, the default): INSTANCES instances (bin/keel serve, the gateway in async
#   mode, one event loop each, ingest pipelined) behind HAProxy; wrk POSTs /gateway/publish through
#   HAProxy (wrk -t1 -cCONNECTIONS, closed loop), each request with an id of its own (Message-Id),
#   and writes down the ids answered 202. For each fault in FAULTS: load for BEFORE seconds, the
#   fault, AFTER more seconds, then the queue drains into PostgreSQL and every confirmed id is looked
#   up there.
#     node-kill: the broker node that leads the queue gets SIGKILL; NODE_DOWN s later it is started
#       again, and the fault lasts until it is back in the cluster. Goal: every 202 stored, once;
#       503 and 504 allowed while the cluster fails over (a 504'd message may or may not be queued).
#     rolling-restart: every instance in turn gets SIGTERM (its /keel/health turns 503, HAProxy marks
#       it down within its health grace, its requests in flight finish, its ingest stops) and a new
#       one starts on the same port, warm before HAProxy marks it up. Goal: not one request fails
#       (no 5xx, no socket error, no timeout), every 202 stored once.
#   soak (MODE=soak): the same cluster; wrk sends a steady SOAK_RATE req/s (each connection waits
#   between requests) for SOAK_MINUTES, one wrk run a minute. Goal: p99 under 100 ms and no answer
#   over 2 s in any minute.
#
#   The instances run on CPU SERVER_CPU; HAProxy and wrk on CPU CLIENT_CPU; the broker nodes and
#   PostgreSQL unpinned. A 2-core machine gives each instance a share of one CPU: the figures are
#   the cluster's behaviour, not Keel's throughput (bench/gateway.sh measures that).
#
# How to read the tables
#   faults: 202/s before, during and after the fault (per-second averages); 5xx (503/504) and socket
#   errors (connect, read, write, timeouts) over the whole run; seconds to recover: from the end of
#   the fault to the first second at 90 % of the 202/s before (0: it never fell below); failed
#   during: answers other than 202 during the fault plus every socket error of the run (must be 0
#   for rolling-restart); 202s: ids answered 202; missing: of those, not in device_events once the
#   queue is empty (must be 0); redelivered: deliveries the ingest got flagged as redelivered;
#   duplicates: of those, events the ingest skipped because their row was stored already; rows
#   twice: rows of the run beyond one per id (0 by construction: event_id is the primary key, so
#   the duplicates column is where a second copy shows).
#   soak: per minute, requests, non-202 answers, socket errors, p50/p99/max ms and how many took
#   over 2 s, and the queue's depth at the minute's end.
#
# Usage
#   bin/keel services up && bin/keel services cluster up   # PostgreSQL, and the broker cluster
#   bench/cluster.sh                                        # both faults, 3 instances, ~5 min
#   FAULTS=node-kill BEFORE=10 AFTER=10 bench/cluster.sh    # one fault, a quick pass
#   MODE=soak SOAK_MINUTES=15 bench/cluster.sh
#
# Environment (defaults in brackets)
#   MODE [faults] (faults | soak), INSTANCES [3], CONNECTIONS [32], WARMUP [5], BEFORE [15], AFTER [20]
#   FAULTS [node-kill rolling-restart]   in this order; NODE_DOWN [5] s between the kill and the restart
#   DRAIN_TIMEOUT [120] s for the queue to empty after a fault
#   SOAK_MINUTES [15], SOAK_RATE [400] req/s, SOAK_CONNECTIONS [8]
#   BROKER [cluster] (cluster: amqp://guest:guest@127.0.0.1:5681 with the addresses 127.0.0.1:5681-5683,
#     a quorum queue; single: the broker of bin/keel services up, 127.0.0.1:5672, a classic queue, no node-kill)
#   EXTRA_SERVE_ARGS []   more bin/keel serve flags for every instance (e.g. "--health-grace 0s")
#   QUEUE [keel.bench.cluster], PORT [28280] (HAProxy; instances on PORT+1.., statistics on PORT+99;
#     below the ephemeral ports, which a busy machine's outgoing connections may hold)
#   SERVER_CPU [0], CLIENT_CPU [1], READY_TIMEOUT [120] seconds an instance may take to be marked up
#
# Needs PostgreSQL (bin/keel services up) and the broker cluster (bin/keel services cluster up),
# HAProxy and wrk (installed from Debian's packages when missing), psql. A node it killed is started
# again on any exit. Output: the table on stdout, progress on stderr; table, wrk output, the ids
# answered 202, HAProxy's configuration and the instances' logs under bench/results/cluster-<timestamp>/.

set -euo pipefail

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$BENCH_DIR/.." && pwd)

MODE=${MODE:-faults} INSTANCES=${INSTANCES:-3} CONNECTIONS=${CONNECTIONS:-32}
WARMUP=${WARMUP:-5} BEFORE=${BEFORE:-15} AFTER=${AFTER:-20} FAULTS=${FAULTS:-node-kill rolling-restart}
NODE_DOWN=${NODE_DOWN:-5} DRAIN_TIMEOUT=${DRAIN_TIMEOUT:-120}
SOAK_MINUTES=${SOAK_MINUTES:-15} SOAK_RATE=${SOAK_RATE:-400} SOAK_CONNECTIONS=${SOAK_CONNECTIONS:-8}
BROKER=${BROKER:-cluster}
QUEUE=${QUEUE:-keel.bench.cluster} PORT=${PORT:-28280} READY_TIMEOUT=${READY_TIMEOUT:-120}
SERVER_CPU=${SERVER_CPU:-0} CLIENT_CPU=${CLIENT_CPU:-1} KEEL_BIN=${KEEL_BIN:-$ROOT/bin/keel}

# shellcheck source-path=SCRIPTDIR source=lib/bench.sh
source "$BENCH_DIR/lib/bench.sh"
require_integers INSTANCES CONNECTIONS WARMUP BEFORE AFTER NODE_DOWN DRAIN_TIMEOUT SOAK_MINUTES SOAK_RATE SOAK_CONNECTIONS \
  PORT SERVER_CPU CLIENT_CPU READY_TIMEOUT
[[ $MODE == faults || $MODE == soak ]] || die "MODE must be faults or soak, got '$MODE'"
[[ $BROKER == cluster || $BROKER == single ]] || die "BROKER must be cluster or single, got '$BROKER'"
((INSTANCES >= 2)) || die "INSTANCES must be at least 2: a rolling restart needs another instance to serve"
install_wrk_if_missing
require_tools "wrk: apt-get install -y wrk; rabbitmqctl, psql: bin/keel services up" wrk taskset curl awk rabbitmqctl psql
require_cpus
use_java_25

# shellcheck disable=SC2034 # lib/balancer.sh reads it
root=$ROOT
# shellcheck source=lib/balancer.sh
source "$ROOT/lib/balancer.sh"
# shellcheck source=lib/services.sh
source "$ROOT/lib/services.sh"
# shellcheck source=lib/cluster.sh
source "$ROOT/lib/cluster.sh"
balancer_install_haproxy || die "could not install haproxy"

export PGPASSWORD=$KEEL_DB_PASSWORD
sql() { psql -h 127.0.0.1 -U "$KEEL_DB_USER" -d "$KEEL_DB_NAME" -qtAX -v ON_ERROR_STOP=1 "$@"; }
sql -c "SELECT 1" >/dev/null 2>&1 || die "PostgreSQL is not running: start it with 'bin/keel services up'"

# ---------------------------------------------------------------- the broker ---

KILLED_NODE=""  # the cluster node the node-kill fault has down, until it is back

if [[ $BROKER == cluster ]]; then
  cluster_status >/dev/null 2>&1 || die "the RabbitMQ cluster is not up: start it with 'bin/keel services cluster up'"
  BROKER_ARGS="--amqp-uri amqp://guest:guest@127.0.0.1:$(cluster_node_port 1) --amqp-addresses"
  BROKER_ARGS+=" $(for n in "${KEEL_CLUSTER_NODES[@]}"; do printf '127.0.0.1:%s,' "$(cluster_node_port "$n")"; done | sed 's/,$//')"
else
  require_broker
  BROKER_ARGS="--amqp-uri amqp://guest:guest@127.0.0.1:5672"
fi

# rabbitmqctl "$@": on the cluster, asked of the first node that runs (never the one killed).
broker_ctl() {
  [[ $BROKER == cluster ]] || { rabbitmqctl -q "$@"; return; }
  local n
  for n in "${KEEL_CLUSTER_NODES[@]}"; do
    if [[ $n == "$KILLED_NODE" ]] || ! cluster_node_pid "$n" >/dev/null; then continue; fi
    cluster_ctl "$n" "$@"
    return
  done
  return 1
}

queue_depth() { broker_ctl list_queues name messages | awk -v q="$QUEUE" '$1 == q { print $2; found = 1 } END { if (!found) print 0 }'; }

# The cluster node (1..3) that leads the queue now.
queue_leader() {
  broker_ctl list_queues name leader | awk -v q="$QUEUE" '$1 == q && $2 ~ /^keel-cluster-[0-9]+@/ {
    sub(/^keel-cluster-/, "", $2); sub(/@.*/, "", $2); print $2 }'
}

# Starts the killed node again and waits until it is back in the cluster; nothing when none is down.
restore_node() {
  [[ -n $KILLED_NODE ]] || return 0
  local n=$KILLED_NODE deadline=$((SECONDS + 180))
  log "starting keel-cluster-$n again"
  cluster_node_start "$n" 2>>"$OUT/cluster.log" || return 1
  until (($(cluster_running_nodes | wc -l) == ${#KEEL_CLUSTER_NODES[@]})); do
    ((SECONDS < deadline)) || { log "keel-cluster-$n has not rejoined within 180 s"; return 1; }
    sleep 1
  done
  KILLED_NODE=""
}

# ------------------------------------------------------------- accounting ---

# "stored duplicates redelivered" of every ingest pipeline the run started: the running instances'
# counts (their /keel/health) and the stopped ones' (their ingest_stopped log lines).
ingest_totals() {
  local i
  {
    for ((i = 1; i <= INSTANCES; i++)); do curl -s --max-time 5 "http://127.0.0.1:$((PORT + i))/keel/health" || true; echo; done
    cat "$KEEL_BALANCER_DIR"/keel*.log 2>/dev/null | grep 'event=ingest_stopped' || true
  } | grep -oE '(stored|duplicates|redelivered)"?[=:][0-9]+' | tr -d '"' \
    | awk -F'[=:]' '{ n[$1] += $2 } END { printf "%d %d %d\n", n["stored"], n["duplicates"], n["redelivered"] }'
}

# Waits until the queue is empty: every message stored and acked (at most DRAIN_TIMEOUT s).
await_drained() {
  local deadline=$((SECONDS + DRAIN_TIMEOUT)) depth
  while depth=$(queue_depth) && ((depth > 0)); do
    ((SECONDS < deadline)) || { log "the queue still holds $depth messages after ${DRAIN_TIMEOUT} s"; return 1; }
    sleep 1
  done
}

# The ids answered 202 (files $1.<thread>) against device_events ->
# "confirmed missing rows rows_twice": 202s, those not stored, the run's rows with id prefix $2,
# and the rows beyond one per id.
confirmed_check() { # ids_file_prefix id_prefix
  cat "$1".* >"$1"
  sql <<SQL | tr '|' ' '
CREATE TEMP TABLE confirmed (id text);
\\copy confirmed FROM '$1'
SELECT (SELECT count(*) FROM confirmed),
       (SELECT count(*) FROM confirmed c WHERE NOT EXISTS (SELECT 1 FROM device_events e WHERE e.event_id = c.id)),
       count(*), count(*) - count(DISTINCT event_id)
  FROM device_events WHERE event_id LIKE '$2%';
SQL
}

# ------------------------------------------------------------------ the run ---

SERVE_ARGS="--loops 1 --gateway-mode async --gateway-routing-key $QUEUE $BROKER_ARGS"
SERVE_ARGS+=" --ingest true --ingest-mode pipelined --ingest-queue $QUEUE ${EXTRA_SERVE_ARGS:-}"

make_out_dir
export KEEL_BALANCER_DIR="$OUT/cluster" KEEL_BALANCER_PORT=$PORT KEEL_BALANCER_FIRST_PORT=$((PORT + 1))
export KEEL_BALANCER_STATS_PORT=$((PORT + 99)) KEEL_BALANCER_CPUS=$SERVER_CPU KEEL_BALANCER_HAPROXY_CPUS=$CLIENT_CPU
export KEEL_BALANCER_TIMEOUT=$READY_TIMEOUT
URL="http://127.0.0.1:$PORT/gateway/publish"
RUN_ID="bc$(date +%Y%m%d%H%M%S)"  # the prefix of this run's event ids (and rows)
BALANCER_STARTED=false
FAULT_WRK_JOB=""  # the background wrk of a fault row while it runs
FAULT_STARTED=""  # when a fault function's fault began, if not at once (epoch seconds)

# SIGINT to the wrk a background job runs (wrk then prints its summary, the script's done() included).
interrupt_wrk() { # job_pid
  local pid
  for pid in $(cat /proc/"$1"/task/*/children 2>/dev/null || true); do kill -INT "$pid" 2>/dev/null || true; done
}

on_exit() {
  local rc=$?
  stop_clients
  if [[ -n $FAULT_WRK_JOB ]]; then interrupt_wrk "$FAULT_WRK_JOB"; wait "$FAULT_WRK_JOB" 2>/dev/null || true; fi
  restore_node || log "keel-cluster-$KILLED_NODE is still down: bin/keel services cluster up starts it"
  if [[ $BALANCER_STARTED == true ]]; then balancer_down 2>>"$OUT/cluster.log" || true; fi
  broker_ctl purge_queue "$QUEUE" >/dev/null 2>&1 || true
  sql -c "DELETE FROM device_events WHERE event_id LIKE '$RUN_ID-%'" >/dev/null 2>&1 || true
  exit "$rc"
}
trap on_exit EXIT

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
status_count() { awk -v s="$2" '/^STATUS / && ($2 == s || (s == "5xx" && $2 >= 500)) { n += $3 } END { print n + 0 }' "$1"; }

# One fault row: wrk for BEFORE s, the fault ($2, a function), AFTER s once it is over, the drain,
# then the confirmed ids against the table and the ingest's counts over the fault.
fault_row() { # name function
  local name=$1 run=$2 out="$OUT/$1.wrk.txt" ids="$OUT/$1.ids" prefix="$RUN_ID-$1" from to wrk_job totals_before
  log "$name: load for ${BEFORE}s, then the fault, then ${AFTER}s"
  totals_before=$(ingest_totals)
  # wrk's length is fixed up front: long enough for the fault, cut short once AFTER is over.
  IDS_FILE=$ids ID_PREFIX=$prefix gateway_wrk "$out" "$CONNECTIONS" $((BEFORE + AFTER + NODE_DOWN + 180 + INSTANCES * READY_TIMEOUT)) &
  wrk_job=$!
  FAULT_WRK_JOB=$wrk_job
  sleep "$BEFORE"
  from=$(date +%s) FAULT_STARTED=""
  local completed=true
  "$run" || { completed=false; log "$name: the fault did not complete (see $OUT/cluster.log)"; }
  to=$(date +%s) from=${FAULT_STARTED:-$from}
  sleep "$AFTER"
  interrupt_wrk "$wrk_job"
  wait "$wrk_job" || true
  FAULT_WRK_JOB=
  log "$name: waiting for the queue to drain"
  await_drained || true
  local before during after failed recover confirmed missing rows twice stored duplicates redelivered s0 d0 r0
  read -r before during after failed recover < <(parse_fault "$out" "$from" "$to")
  read -r confirmed missing rows twice < <(confirmed_check "$ids" "$prefix")
  read -r s0 d0 r0 <<<"$totals_before"
  read -r stored duplicates redelivered < <(ingest_totals)
  stored=$((stored - s0)) duplicates=$((duplicates - d0)) redelivered=$((redelivered - r0))
  local errors timeouts socket fivexx verdict=ok
  errors=$(gateway_field "$out" socket_errors) timeouts=$(gateway_field "$out" timeouts)
  socket=$((${errors:-0} + ${timeouts:-0})) failed=$((failed + socket))
  fivexx="$(status_count "$out" 5xx) ($(status_count "$out" 503)/$(status_count "$out" 504))"
  if [[ ! $missing =~ ^[0-9]+$ ]]; then
    log "$name: the database check failed"; confirmed='?' missing='?' twice='?' verdict=FAILED
  elif ((missing > 0 || twice > 0)) || [[ $name == rolling-restart && $failed != 0 ]]; then
    verdict=FAILED
  fi
  [[ $completed == true ]] || verdict="FAILED (the fault did not complete)"
  printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$name" "$((to - from))" "$before" \
    "$during" "$after" "$fivexx" "$socket" "$recover" "$failed" "$confirmed" "$missing" "$redelivered" "$duplicates" "$twice" \
    "$verdict" >>"$OUT/faults.md"
  log "$name: 202/s $before before, $during during (${from}..${to}), $after after; failed $failed; recovered in $recover s;" \
    "$confirmed confirmed, $missing missing, $rows rows of the fault's ids; ingest stored $stored rows, redelivered $redelivered, skipped $duplicates duplicates"
}

# The node that leads the queue: SIGKILL, NODE_DOWN s down, started again; over once it has rejoined.
fault_node_kill() {
  [[ $BROKER == cluster ]] || { log "node-kill needs BROKER=cluster"; return 1; }
  local leader pid
  leader=$(queue_leader)
  [[ -n $leader ]] || { log "no leader found for $QUEUE"; return 1; }
  pid=$(cluster_node_pid "$leader") || { log "keel-cluster-$leader has no beam process"; return 1; }
  log "node-kill: SIGKILL to keel-cluster-$leader (beam PID $pid), the leader of $QUEUE"
  KILLED_NODE=$leader FAULT_STARTED=$(date +%s) # the lookup above takes seconds on a busy machine
  services_as_root kill -KILL "$pid"
  while kill -0 "$pid" 2>/dev/null; do sleep 0.1; done
  sleep "$NODE_DOWN"
  restore_node || return 1
  log "node-kill: keel-cluster-$leader is back in the cluster; $QUEUE is led by keel-cluster-$(queue_leader)"
}

fault_rolling_restart() { balancer_restart 2>>"$OUT/cluster.log"; }

LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
log "results: $OUT; machine load average $LOAD_BEFORE"
for fault in $FAULTS; do [[ $fault == node-kill || $fault == rolling-restart ]] || die "unknown fault '$fault' (node-kill, rolling-restart)"; done
prepare_keel
BALANCER_STARTED=true
# shellcheck disable=SC2086 # the serve flags are words
balancer_up --instances "$INSTANCES" -- $SERVE_ARGS >"$OUT/cluster-up.txt" 2>>"$OUT/cluster.log" \
  || { tail -n 20 "$OUT/cluster.log" >&2; die "the cluster did not come up"; }
cp "$KEEL_BALANCER_DIR/haproxy.cfg" "$OUT/haproxy.cfg"
if ((WARMUP > 0)); then gateway_wrk "$OUT/warmup.txt" "$CONNECTIONS" "$WARMUP" || log "warm-up wrk failed"; fi

HEAD="$INSTANCES instances (bin/keel serve --loops 1 --gateway-mode async --ingest true --ingest-mode pipelined${EXTRA_SERVE_ARGS:+ $EXTRA_SERVE_ARGS},"
HEAD+=" on CPU $SERVER_CPU) behind HAProxy $(haproxy -v | awk 'NR == 1 { print $3 }') (CPU $CLIENT_CPU), on"
HEAD+=" $([[ $BROKER == cluster ]] && echo "the three-node RabbitMQ cluster (quorum queue $QUEUE)" || echo "one broker (classic queue $QUEUE)")"
if [[ $MODE == faults ]]; then
  : >"$OUT/faults.md"
  for fault in $FAULTS; do
    case $fault in
      node-kill) fault_row node-kill fault_node_kill ;;
      rolling-restart) fault_row rolling-restart fault_rolling_restart ;;
    esac
  done
  {
    echo "## Keel behind HAProxy on a broker cluster: faults under load ($(date -u +%Y-%m-%dT%H:%M:%SZ))"
    echo
    echo "$HEAD; wrk -t1 -c$CONNECTIONS POST /gateway/publish through HAProxy (CPU $CLIENT_CPU), ${BEFORE}s before the fault and ${AFTER}s after it;" \
      "node down ${NODE_DOWN}s before its restart; load average before/after: $LOAD_BEFORE / $(cut -d' ' -f1-3 /proc/loadavg); $(git_desc)"
    echo
    echo "| fault | fault s | 202/s before | 202/s during | 202/s after | 5xx (503/504) | socket errors | s to recover | failed during | 202s | missing | redelivered | duplicates | rows twice | |"
    echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"
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
    echo "$HEAD; wrk -t1 -c$SOAK_CONNECTIONS, ${delay} ms between requests" \
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
