#!/usr/bin/env bash
# bench/jmh.sh: a fan-out batch's time does not depend on the core count.
#
# What it shows
#   keel-bench's RefineBatchBenchmark refines one batch of 25 orders x (primary
#   + secondary) = 50 calls through Keel's HTTP client, at most 10 at once,
#   against the embedded mock upstream answering after 200 ms: 5 rounds of
#   200 ms, so ~1000 ms per batch. The calls wait on timers and sockets, not on
#   cores, so the time should stay ~1000 ms whether the JVM sees 2 processors
#   or 10. The script runs the JMH jar once per PROCESSORS value, each time
#   with -jvmArgsAppend -XX:ActiveProcessorCount=N (the forked JVM sizes its
#   event loops, GC and pools from N; the machine's real cores stay the same),
#   and prints the runs side by side.
#     java -jar keel-bench/target/benchmarks.jar RefineBatchBenchmark
#       -f FORKS -wi WARMUP_ITERATIONS -i ITERATIONS -w ITERATION_TIME
#       -r ITERATION_TIME -jvmArgsAppend -XX:ActiveProcessorCount=N
#   Styles: "async" chains the calls on the client's event loops (no thread
#   per call); "blocking" runs each call on a virtual thread with send().
#
# How to read the table
#   ms/op        JMH's mean time of one batch (Mode.AverageTime), and its
#                99.9% confidence half-width ("±", JMH's "Error")
#   vs 1000 ms   mean / (5 rounds x 200 ms); ~1.00x means the batch costs
#                only its waiting time (a few ms of request handling on top)
#   A batch that had a failed call stops the benchmark instead of counting.
#   The machine is small and shared: compare the columns of one run.
#
# Usage
#   bench/jmh.sh                              # 2 and 10 processors, ~3 min
#   PROCESSORS="1 2 4 10" ITERATIONS=3 bench/jmh.sh
#
# Environment (defaults in brackets)
#   PROCESSORS [2 10]        values of -XX:ActiveProcessorCount, one run each
#   STYLES [async blocking]  values of the benchmark's style parameter
#   FORKS [1], WARMUP_ITERATIONS [2], ITERATIONS [5], ITERATION_TIME [5]
#                            JMH -f, -wi, -i and -w/-r (seconds)
#
# Builds keel-bench/target/benchmarks.jar first when it is missing or older
# than a source or pom. Output: the table on stdout, progress on stderr; table
# and JMH's raw output (text and JSON) per run under
# bench/results/jmh-<timestamp>/ (gitignored).

set -euo pipefail

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$BENCH_DIR/.." && pwd)

PROCESSORS=${PROCESSORS:-2 10} STYLES=${STYLES:-async blocking}
FORKS=${FORKS:-1} WARMUP_ITERATIONS=${WARMUP_ITERATIONS:-2} ITERATIONS=${ITERATIONS:-5}
ITERATION_TIME=${ITERATION_TIME:-5}
EXPECTED_MS=1000  # 50 calls / 10 at once x 200 ms, as RefineBatchBenchmark sets them

# shellcheck source-path=SCRIPTDIR source=lib/bench.sh
source "$BENCH_DIR/lib/bench.sh"
require_integers FORKS WARMUP_ITERATIONS ITERATIONS ITERATION_TIME
((FORKS > 0 && ITERATIONS > 0 && ITERATION_TIME > 0)) || die "FORKS, ITERATIONS and ITERATION_TIME must be > 0"
[[ -n ${PROCESSORS// } ]] || die "PROCESSORS is empty"
for n in $PROCESSORS; do [[ $n =~ ^[1-9][0-9]*$ ]] || die "PROCESSORS: '$n' is not a positive integer"; done
[[ -n ${STYLES// } ]] || die "STYLES is empty"
for s in $STYLES; do [[ $s == async || $s == blocking ]] || die "unknown style '$s' (known: async blocking)"; done
command -v awk >/dev/null 2>&1 || die "'awk' not found in PATH"

use_java_25

JAR="$ROOT/keel-bench/target/benchmarks.jar"

# ------------------------------------------------------------- state/trap ---

JMH_PID=""
on_exit() {
  local rc=$?
  if [[ -n $JMH_PID ]]; then terminate_pid "$JMH_PID"; wait "$JMH_PID" 2>/dev/null || true; fi
  exit "$rc"
}
trap on_exit EXIT

# ------------------------------------------------------------------ build ---

needs_build() {
  [[ ! -f $JAR ]] && return 0
  [[ -n $(find "$ROOT/pom.xml" "$ROOT"/keel-*/pom.xml "$ROOT"/keel-*/src/main -newer "$JAR" -print -quit 2>/dev/null) ]]
}
if needs_build; then
  log "building keel-bench/target/benchmarks.jar"
  (cd "$ROOT" && MAVEN_OPTS="${MAVEN_OPTS:-} --sun-misc-unsafe-memory-access=allow" \
    mvn -q -B -DskipTests package -pl keel-bench -am) >&2 || die "the build failed"
fi

# -------------------------------------------------------------------- run ---

# JMH's result lines ("RefineBatchBenchmark.refineBatch  async  avgt  5  1003.1 ± 2.3  ms/op")
# -> "style mean error" per line.
parse_jmh() {
  awk '$1 ~ /RefineBatchBenchmark\.refineBatch$/ && $3 == "avgt" && $6 == "±" { print $2, $5, $7 }'
}

make_out_dir
log "JDK: $JAVA_HOME; results: $OUT"
read -ra STYLE_ARRAY <<<"$STYLES"
STYLE_LIST=$(IFS=,; echo "${STYLE_ARRAY[*]}")

for n in $PROCESSORS; do
  log "ActiveProcessorCount=$n: styles $STYLE_LIST, -f $FORKS -wi $WARMUP_ITERATIONS -i $ITERATIONS x ${ITERATION_TIME}s"
  "$JAVA_HOME/bin/java" -jar "$JAR" RefineBatchBenchmark -p "style=$STYLE_LIST" \
    -f "$FORKS" -wi "$WARMUP_ITERATIONS" -i "$ITERATIONS" -w "${ITERATION_TIME}s" -r "${ITERATION_TIME}s" \
    -jvmArgsAppend "-XX:ActiveProcessorCount=$n" -rf json -rff "$OUT/cpus-$n.json" \
    >"$OUT/cpus-$n.txt" 2>&1 </dev/null &
  JMH_PID=$!
  rc=0
  wait "$JMH_PID" || rc=$?
  JMH_PID=""
  ((rc == 0)) || { tail -n 30 "$OUT/cpus-$n.txt" >&2; die "JMH failed with ActiveProcessorCount=$n (output: $OUT/cpus-$n.txt)"; }
  parse_jmh <"$OUT/cpus-$n.txt" | while read -r style mean err; do printf '%s\t%s\t%s\t%s\n' "$n" "$style" "$mean" "$err"; done >>"$OUT/rows.tsv"
  grep -q . "$OUT/rows.tsv" || die "no result line in $OUT/cpus-$n.txt"
  log "ActiveProcessorCount=$n: $(awk -v n="$n" '$1 == n { printf "%s %s ± %s ms  ", $2, $3, $4 }' "$OUT/rows.tsv")"
done

{
  echo "## Refine batch: 50 calls, 10 at once, 200 ms upstream ($(date -u +%Y-%m-%dT%H:%M:%SZ))"
  echo
  echo "JMH RefineBatchBenchmark, Mode.AverageTime, -f $FORKS -wi $WARMUP_ITERATIONS -i $ITERATIONS," \
    "${ITERATION_TIME}s iterations; -XX:ActiveProcessorCount per column on a $(getconf _NPROCESSORS_ONLN)-core machine;" \
    "$("$JAVA_HOME/bin/java" -version 2>&1 | head -n 1);" \
    "$(git_desc)"
  echo
  awk -F '\t' -v procs="$PROCESSORS" -v styles="$STYLES" -v expected="$EXPECTED_MS" '
    { cell[$2, $1] = sprintf("%.1f ± %.1f (%.2fx)", $3, $4, $3 / expected) }
    END {
      np = split(procs, p, " "); ns = split(styles, s, " ")
      head = "| style |"; rule = "|---|"
      for (i = 1; i <= np; i++) { head = head " " p[i] " processors: ms/op (vs " expected " ms) |"; rule = rule "---:|" }
      print head; print rule
      for (j = 1; j <= ns; j++) {
        line = "| " s[j] " |"
        for (i = 1; i <= np; i++) line = line " " ((s[j], p[i]) in cell ? cell[s[j], p[i]] : "n/a") " |"
        print line
      }
    }' "$OUT/rows.tsv"
} >"$OUT/table.md"
cat "$OUT/table.md"
log "wrote $OUT/table.md"
