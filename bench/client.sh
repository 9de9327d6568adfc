#!/usr/bin/env bash
# bench/client.sh: HTTP clients side by side against one local upstream: Keel's HttpClient, the JDK's
# java.net.http.HttpClient and Reactor Netty's HttpClient (what Spring's WebClient runs on).
#
# What it measures
#   The upstream is bin/keel serve (one event loop, pinned to CPU SERVER_CPU). Each client runs in a
#   fresh JVM (bench/client-bench, pinned to CPU CLIENT_CPU) with one I/O thread: Keel one event
#   loop, Reactor Netty one event loop, the JDK client its selector thread (and its default executor).
#   closed loop   for each CONCURRENCY, that many GET /benchmark/hello in flight over keep-alive
#                 connections, each answer sending the next; WARMUP seconds, then DURATION seconds
#                 measured: calls/s, the client process's CPU per call (all its threads, from
#                 getProcessCpuTime), latency p50/p99, failures.
#   open loop     RATE calls/s for RATE_DURATION seconds, sent in 1 ms steps whatever the answers
#                 do, to GET /benchmark/latency-async?ms=RATE_DELAY_MS (an upstream answering in
#                 50 ms), with the clients' default timeouts: calls sent, completed, failed and
#                 unanswered, latency, and for Keel the lag of its one loop (a 10 ms probe: every
#                 call arms its timers on that loop). RATE_CLIENTS picks the clients (keel).
#
# Environment (defaults in brackets)
#   CLIENTS ["keel jdk reactor"]   clients of the closed-loop rows
#   CONCURRENCY ["1 64 1000"]      calls in flight, one row per client and value
#   DURATION [10], WARMUP [5]      seconds measured and warmed up, per closed-loop row
#   RATE [5000], RATE_DURATION [30], RATE_DELAY_MS [50], RATE_CLIENTS [keel]   the open-loop rows
#                                  (RATE=0 skips them)
#   PORT [18094]                   upstream port (must be free)
#   SERVER_CPU [0], CLIENT_CPU [1] CPUs for taskset
#   KEEL_BIN [bin/keel]            launcher of the upstream
#
# Output: the Markdown table on stdout (progress on stderr); it and each row's raw result line under
# bench/results/client-<timestamp>/ (gitignored). The driver builds against the keel-http of this
# checkout: the script installs it in the local Maven repository first.

set -euo pipefail

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$BENCH_DIR/.." && pwd)

ALL_CLIENTS="keel jdk reactor"
CLIENTS=${CLIENTS:-$ALL_CLIENTS}
CONCURRENCY=${CONCURRENCY:-"1 64 1000"}
DURATION=${DURATION:-10}
WARMUP=${WARMUP:-5}
RATE=${RATE:-5000}
RATE_DURATION=${RATE_DURATION:-30}
RATE_DELAY_MS=${RATE_DELAY_MS:-50}
RATE_CLIENTS=${RATE_CLIENTS:-keel}
PORT=${PORT:-18094}
BASE="http://127.0.0.1:$PORT"
SERVER_CPU=${SERVER_CPU:-0}
CLIENT_CPU=${CLIENT_CPU:-1}
LOOPS=1
READY_TIMEOUT=${READY_TIMEOUT:-60}
KEEL_BIN=${KEEL_BIN:-$ROOT/bin/keel}
DRIVER_DIR="$ROOT/bench/client-bench"
DRIVER_JAR="$DRIVER_DIR/target/client-bench.jar"

# shellcheck source-path=SCRIPTDIR source=lib/bench.sh
source "$BENCH_DIR/lib/bench.sh"

require_integers DURATION WARMUP RATE RATE_DURATION RATE_DELAY_MS PORT SERVER_CPU CLIENT_CPU READY_TIMEOUT
for c in $CLIENTS $RATE_CLIENTS; do
  [[ " $ALL_CLIENTS " == *" $c "* ]] || die "unknown client '$c' (known: $ALL_CLIENTS)"
done
for n in $CONCURRENCY; do [[ $n =~ ^[1-9][0-9]*$ ]] || die "CONCURRENCY holds '$n', not a positive integer"; done
require_tools "taskset: util-linux; curl: apt-get install -y curl" taskset curl awk
require_cpus
use_java_25

TSV=""
trap 'exit_trap $? "$TSV"' EXIT
port_in_use && die "port $PORT is already in use; pick another with PORT=..."

prepare_keel "the upstream"
log "installing this checkout's keel-http in the local Maven repository, then building bench/client-bench..."
mvn_log=$(mktemp)
if ! { mvn -q -f "$ROOT/pom.xml" install -DskipTests -pl keel-http -am && mvn -q -f "$DRIVER_DIR/pom.xml" package; } >"$mvn_log" 2>&1; then
  grep -v -e 'sun.misc.Unsafe' -e '^WARNING: Please consider' "$mvn_log" >&2 || true
  die "building bench/client-bench failed"
fi
rm -f "$mvn_log"

emit_table() { # $1: optional remark for the heading
  TABLE_DONE=true
  {
    echo "## HTTP clients side by side ($(date -u +%Y-%m-%dT%H:%M:%SZ))${1:+ ($1)}"
    echo
    echo "Upstream bin/keel serve on CPU $SERVER_CPU (one loop), each client in a fresh JVM on CPU $CLIENT_CPU;" \
      "closed loop ${WARMUP}s warm-up + ${DURATION}s; $("$JAVA_HOME/bin/java" -version 2>&1 | head -n 1); $(git_desc)"
    echo
    echo "| client | in flight | calls/s | client cpu µs/call | p50 ms | p99 ms | failed |"
    echo "|---|---:|---:|---:|---:|---:|---:|"
    while IFS=$'\t' read -r kind line; do
      [[ $(field "$line" rate) == 0 ]] || continue
      echo "| $kind | $(field "$line" concurrency) | $(field "$line" calls_per_s) | $(field "$line" cpu_us_per_call)" \
        "| $(field "$line" p50_ms) | $(field "$line" p99_ms) | $(field "$line" failed) |"
    done <"$TSV"
    echo
    # Keel against each peer at the same concurrency: calls/s (higher is better) and CPU per call (lower).
    awk -F '\t' '
      { split($2, kv, " "); delete f; for (i in kv) { split(kv[i], p, "="); f[p[1]] = p[2] }
        if (f["rate"] != 0) next
        n = f["concurrency"]; calls[$1, n] = f["calls_per_s"]; cpu[$1, n] = f["cpu_us_per_call"]; seen[n] = 1; kinds[$1] = 1 }
      END {
        for (peer in kinds) if (peer != "keel") for (n in seen) if ((("keel", n) in calls) && ((peer, n) in calls) && calls[peer, n] > 0 && cpu[peer, n] > 0)
          printf "- keel / %s at %s in flight: calls/s %.2fx, cpu per call %.2fx\n", peer, n, calls["keel", n] / calls[peer, n], cpu["keel", n] / cpu[peer, n]
      }' "$TSV" | sort
    if grep -q 'rate=[1-9]' "$TSV"; then
      echo
      echo "Open loop: $RATE calls/s for ${RATE_DURATION}s against an upstream answering in $RATE_DELAY_MS ms, default timeouts:"
      echo
      echo "| client | sent | completed | failed | unanswered | p50 ms | p99 ms | max ms | loop lag p99 ms | loop lag max ms |"
      echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
      while IFS=$'\t' read -r kind line; do
        [[ $(field "$line" rate) != 0 ]] || continue
        echo "| $kind | $(field "$line" sent) | $(field "$line" completed) | $(field "$line" failed) | $(field "$line" unanswered)" \
          "| $(field "$line" p50_ms) | $(field "$line" p99_ms) | $(field "$line" max_ms) | $(field "$line" loop_lag_p99_ms) | $(field "$line" loop_lag_max_ms) |"
      done <"$TSV"
      grep -o 'failures={[^}]*}' "$TSV" | sed 's/^/failures: /' || true
    fi
  } | tee "$OUT/table.md"
}

make_out_dir
TSV="$OUT/results.tsv"
: >"$TSV"
start_server "$OUT/upstream.log" --warmup true

# measure_client name args... -> appends "kind<TAB>result line" to the TSV.
measure_client() {
  local kind=$1 out
  shift
  out="$OUT/$kind-$(date +%H%M%S).txt"
  log "client $kind: $*"
  run_client "$out" "$JAVA_HOME/bin/java" -jar "$DRIVER_JAR" --client "$kind" "$@" || {
    tail -n 20 "$out" >&2
    die "the $kind driver failed (output: $out)"
  }
  grep '^client=' "$out" | tail -n 1 | sed "s/^/$kind\t/" >>"$TSV"
}

for n in $CONCURRENCY; do
  for c in $CLIENTS; do
    measure_client "$c" --url "$BASE/benchmark/hello" --concurrency "$n" --warmup "$WARMUP" --duration "$DURATION"
  done
done
if ((RATE > 0)); then
  for c in $RATE_CLIENTS; do
    measure_client "$c" --url "$BASE/benchmark/latency-async?ms=$RATE_DELAY_MS" --rate "$RATE" --duration "$RATE_DURATION"
  done
fi

emit_table
