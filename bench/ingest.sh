#!/usr/bin/env bash
# bench/ingest.sh: the ingest pipeline (RabbitMQ -> PostgreSQL) in each mode, then a consumer
# killed with SIGKILL mid-run.
#
# What it shows
#   Throughput: EVENTS confirmed device events wait on the queue; a fresh consumer
#   (bin/keel serve --ingest true) stores them, and events/s is EVENTS over the span between the
#   first and the last row's commit time (stored_at), so JVM start-up is left out. sequential
#   commits once per event (insert, commit, ack, next); pipelined inserts batches on several
#   connections, so it must reach at least 1.5x sequential.
#   Crash: EVENTS more events, a consumer killed with kill -9 once a third of them are stored,
#   then a new consumer. Deliveries the dead one had not acked come back; those it had already
#   committed are skipped by their event id. The table must end with exactly EVENTS distinct rows
#   (none lost, none twice) and the queue empty.
#
#   The consumer runs on CPU 0, alone; publishing, the broker and PostgreSQL are unpinned.
#
# Usage
#   bench/ingest.sh                                   # ~2-4 min
#   EVENTS=5000 MODES=pipelined bench/ingest.sh
#
# Environment (defaults in brackets)
#   EVENTS [20000], MODES [sequential pipelined], KILL_MODES [sequential pipelined],
#   QUEUE [keel.bench.ingest], PORT [38095], SERVER_CPU [0], READY_TIMEOUT [60], DRAIN_TIMEOUT [300]
#   KEEL_DATABASE_URL-style settings come from bin/keel services: database keel, user keel on 127.0.0.1.
#
# Needs the broker and database: bin/keel services up. Output: the tables on stdout, progress on
# stderr; tables and server logs under bench/results/ingest-<timestamp>/.

set -euo pipefail

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$BENCH_DIR/.." && pwd)

EVENTS=${EVENTS:-20000} MODES=${MODES-sequential pipelined} KILL_MODES=${KILL_MODES-sequential pipelined}
QUEUE=${QUEUE:-keel.bench.ingest} PORT=${PORT:-38095} SERVER_CPU=${SERVER_CPU:-0} CLIENT_CPU=${CLIENT_CPU:-1}
READY_TIMEOUT=${READY_TIMEOUT:-60} DRAIN_TIMEOUT=${DRAIN_TIMEOUT:-300} KEEL_BIN=${KEEL_BIN:-$ROOT/bin/keel}
LOOPS=2

# shellcheck source-path=SCRIPTDIR source=lib/bench.sh
source "$BENCH_DIR/lib/bench.sh"
require_integers EVENTS PORT SERVER_CPU READY_TIMEOUT DRAIN_TIMEOUT
for m in $MODES $KILL_MODES; do [[ $m == sequential || $m == pipelined ]] || die "unknown mode '$m' (sequential, pipelined)"; done
require_tools "bin/keel services up installs RabbitMQ and PostgreSQL" taskset curl awk psql rabbitmqctl
use_java_25
require_broker

BASE="http://127.0.0.1:$PORT"
export PGPASSWORD=${KEEL_DB_PASSWORD:-keel}
sql() { psql -h 127.0.0.1 -U "${KEEL_DB_USER:-keel}" -d "${KEEL_DB_NAME:-keel}" -qtAX -c "$1"; }
sql "SELECT 1" >/dev/null || die "PostgreSQL is not reachable as keel@127.0.0.1/keel: run 'bin/keel services up'"

trap 'stop_server' EXIT

rows() { sql "SELECT count(*) FROM device_events WHERE event_id LIKE '$1-%'" 2>/dev/null || echo 0; }
distinct_rows() { sql "SELECT count(DISTINCT event_id) FROM device_events WHERE event_id LIKE '$1-%'"; }
queue_left() { # ready + unacked
  rabbitmqctl -q list_queues name messages | awk -v q="$QUEUE" '$1 == q { print $2; found = 1 } END { if (!found) print 0 }'
}

publish() { # prefix
  log "publishing $EVENTS events $1-0..$1-$((EVENTS - 1)) to $QUEUE"
  "$KEEL_BIN" publish-events --count "$EVENTS" --prefix "$1" --ingest-queue "$QUEUE" >>"$OUT/publish.log" 2>&1 \
    || die "publish-events failed (see $OUT/publish.log)"
}

start_consumer() { # mode log
  start_server "$2" --ingest true --ingest-mode "$1" --ingest-queue "$QUEUE" --gateway-mode async
}

wait_for_rows() { # prefix count
  local deadline=$((SECONDS + DRAIN_TIMEOUT))
  until (($(rows "$1") >= $2)); do
    ((SECONDS < deadline)) || die "only $(rows "$1") of $2 rows after ${DRAIN_TIMEOUT}s"
    kill -0 "$SERVER_PID" 2>/dev/null || die "the consumer died"
    sleep 0.2
  done
}

make_out_dir
prepare_keel
log "JDK: $JAVA_HOME; results: $OUT"
RUN=$(date +%s)
# The table exists once a consumer has started; create it now so the first count works.
sql "CREATE TABLE IF NOT EXISTS device_events (event_id text PRIMARY KEY, body bytea NOT NULL,
     stored_at timestamptz NOT NULL DEFAULT clock_timestamp())" >/dev/null
rabbitmqctl -q purge_queue "$QUEUE" >/dev/null 2>&1 || true

THROUGHPUT=() SEQUENTIAL_RATE=""
for mode in $MODES; do
  prefix="bench-$RUN-$mode"
  publish "$prefix"
  start_consumer "$mode" "$OUT/$mode.server.log"
  wait_for_rows "$prefix" "$EVENTS"
  read -r seconds rate < <(sql "SELECT round(extract(epoch FROM max(stored_at) - min(stored_at))::numeric, 2),
      round($EVENTS / greatest(extract(epoch FROM max(stored_at) - min(stored_at)), 0.001))
      FROM device_events WHERE event_id LIKE '$prefix-%'" | tr '|' ' ')
  stop_server
  [[ $mode == sequential ]] && SEQUENTIAL_RATE=$rate
  ratio=$([[ -n $SEQUENTIAL_RATE ]] && awk -v r="$rate" -v s="$SEQUENTIAL_RATE" 'BEGIN { printf "%.1fx", r / s }' || echo "-")
  THROUGHPUT+=("| $mode | $EVENTS | $seconds | $rate | $ratio | $(distinct_rows "$prefix") |")
  log "$mode: $EVENTS events in $seconds s = $rate events/s ($ratio)"
done

CRASH=()
for mode in $KILL_MODES; do
  prefix="bench-$RUN-kill-$mode"
  publish "$prefix"
  start_consumer "$mode" "$OUT/$mode.kill.server.log"
  wait_for_rows "$prefix" $((EVENTS / 3))
  kill -9 "$SERVER_PID"
  wait "$SERVER_PID" 2>/dev/null || true
  SERVER_PID=""
  at_kill=$(rows "$prefix")
  log "$mode: killed the consumer (kill -9) with $at_kill of $EVENTS rows stored; restarting it"
  start_consumer "$mode" "$OUT/$mode.restart.server.log"
  wait_for_rows "$prefix" "$EVENTS"
  deadline=$((SECONDS + 30))
  until [[ $(queue_left) == 0 ]]; do ((SECONDS < deadline)) || break; sleep 0.2; done
  sleep 1 # let acks of the last batch settle before reading what the new consumer skipped
  skipped=$(curl -s "$BASE/keel/health" | grep -o '"duplicates":[0-9]*' | head -n 1 | cut -d: -f2)
  stop_server
  total=$(rows "$prefix")
  distinct=$(distinct_rows "$prefix")
  left=$(queue_left)
  lost=$((EVENTS - distinct)) twice=$((total - distinct))
  verdict=$([[ $lost == 0 && $twice == 0 && $left == 0 ]] && echo ok || echo FAILED)
  CRASH+=("| $mode | $EVENTS | $at_kill | $total | $distinct | $lost | $twice | ${skipped:-n/a} | $left | $verdict |")
  log "$mode crash: $total rows, $distinct distinct, lost $lost, twice $twice, redeliveries skipped ${skipped:-n/a}, queue $left"
done

{
  echo "## Ingest: RabbitMQ -> PostgreSQL ($(date -u +%Y-%m-%dT%H:%M:%SZ))"
  echo
  echo "$EVENTS persistent events per run, waiting on the queue before the consumer starts; consumer on CPU $SERVER_CPU;" \
    "pipelined defaults (prefetch 500, 4 writers, batches of up to 100); PostgreSQL $(sql 'SHOW server_version' | cut -d' ' -f1)" \
    "with synchronous_commit=$(sql 'SHOW synchronous_commit'); $(git_desc)"
  if ((${#THROUGHPUT[@]} > 0)); then
    echo
    echo "| mode | events | seconds | events/s | vs sequential | distinct rows |"
    echo "|---|---:|---:|---:|---:|---:|"
    printf '%s\n' "${THROUGHPUT[@]}"
  fi
  if ((${#CRASH[@]} > 0)); then
    echo
    echo "Consumer killed with SIGKILL once a third of the events were stored, then restarted:"
    echo
    echo "| mode | events | rows at kill | rows after | distinct | lost | stored twice | redeliveries skipped | left on queue | |"
    echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|"
    printf '%s\n' "${CRASH[@]}"
  fi
} >"$OUT/table.md"
cat "$OUT/table.md"
log "wrote $OUT/table.md"
