#!/usr/bin/env bash
# bench/parser.sh: the request parser alone, in ns per request, and beside another build's.
#
# What it measures
#   keel-bench's ParserBenchmark parses a batch of 16 pipelined requests from one buffer, one after
#   the other as a connection's loop does: head=wrk is what bench/throughput.sh sends (a request
#   line and Host), head=browser a GET with the dozen fields a browser sends. JMH, pinned to CPU
#   SERVER_CPU:
#     java -jar keel-bench/target/benchmarks.jar ParserBenchmark -wi 3 -i 5 -w 1 -r 1
#   With BASE_JAR (a benchmarks.jar built from another commit), the two jars run in turn, ROUNDS
#   times each, so that the machine's drift falls on both alike.
#
# How to read it
#   ns/op   JMH's mean time of one request (Mode.AverageTime) and its 99.9% half-width ("±");
#           lower is better. Compare rows of one run: the machine is small and shared.
#
# Usage
#   bench/parser.sh
#   BASE_JAR=/tmp/benchmarks-base.jar ROUNDS=2 bench/parser.sh
#
# Environment (defaults in brackets)
#   BASE_JAR []       a second benchmarks.jar to run beside this build's
#   ROUNDS [1]        turns of each jar
#   SERVER_CPU [0]    the CPU JMH runs on
set -euo pipefail

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$BENCH_DIR/.." && pwd)
# shellcheck source-path=SCRIPTDIR source=lib/bench.sh
source "$BENCH_DIR/lib/bench.sh"
BASE_JAR=${BASE_JAR:-} ROUNDS=${ROUNDS:-1} SERVER_CPU=${SERVER_CPU:-0}
require_integers ROUNDS SERVER_CPU
[[ -z $BASE_JAR || -f $BASE_JAR ]] || die "BASE_JAR: no file '$BASE_JAR'"
use_java_25

JAR="$ROOT/keel-bench/target/benchmarks.jar"
if [[ ! -f $JAR || -n $(find "$ROOT/pom.xml" "$ROOT"/keel-*/pom.xml "$ROOT"/keel-*/src/main -newer "$JAR" -print -quit 2>/dev/null) ]]; then
  log "building keel-bench/target/benchmarks.jar"
  (cd "$ROOT" && MAVEN_OPTS="${MAVEN_OPTS:-} --sun-misc-unsafe-memory-access=allow" \
    mvn -q -B -DskipTests package -pl keel-bench -am) >&2 || die "the build failed"
fi

run() { # label jar
  taskset -c "$SERVER_CPU" "$JAVA_HOME/bin/java" -jar "$2" ParserBenchmark -wi 3 -i 5 -w 1 -r 1 2>/dev/null |
    awk -v label="$1" '$1 ~ /ParserBenchmark\.parseBatch$/ && $3 == "avgt" { printf "| %s | %s | %s | %s |\n", label, $2, $5, $7 }'
}

echo "| build | head | ns/request | ± |"
echo "|---|---|---:|---:|"
for ((round = 1; round <= ROUNDS; round++)); do
  [[ -n $BASE_JAR ]] && run base "$BASE_JAR"
  run "$(git_desc)" "$JAR"
done
