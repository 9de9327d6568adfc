#!/usr/bin/env bash
# bench/fuzz.sh: a long fuzzing run of Keel's codecs with Jazzer, one target at a time.
#
# What it does
#   For each target (a @FuzzTest class of keel-http, see TARGETS), runs it in fuzzing mode
#   (JAZZER_FUZZ=1) under nice -n 19 until it has used MINUTES of CPU time: the fuzzer is started
#   again for the time still owed while a busy machine gave it less CPU than wall time. Its seeds
#   are the seed corpus in keel-http/src/test/resources/<package>/<Target>Inputs/<method>/ and the
#   corpus earlier runs kept; what it adds is kept in CORPUS (outside src, gitignored) for the next
#   run. A crash or a broken property stops that target and leaves its input as crash-<sha1>
#   beside its corpus; the run goes on with the next target and exits 1 at the end.
#
# Usage
#   bench/fuzz.sh                                  # every target, 10 CPU-minutes each (70 minutes)
#   MINUTES=1 bench/fuzz.sh                        # a short pass
#   MINUTES=5 bench/fuzz.sh Http1ParserFuzzTest FrameDecoderFuzzTest
#   bench/fuzz.sh promote TARGET FILE...           # copy corpus entries (or a crash, once fixed)
#                                                  # into TARGET's seed corpus, named by content
#
# Environment (defaults in brackets)
#   MINUTES [10]  CPU-minutes per target
#   CORPUS [bench/results/fuzz-corpus]  where each target's corpus and crashes are kept
#
# Output: per target, on stdout: CPU seconds used, executions, corpus size before and after,
# crashes; the fuzzer's log under bench/results/fuzz-<timestamp>/.

set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=lib/bench.sh
source "$ROOT/bench/lib/bench.sh"

ALL_TARGETS=(Http1ParserFuzzTest ChunkedDecoderFuzzTest Http1ResponseParserFuzzTest GzipDecoderFuzzTest
  FrameDecoderFuzzTest Utf8ValidatorFuzzTest MessageInflaterFuzzTest)
MINUTES=${MINUTES:-10}
CORPUS=${CORPUS:-$ROOT/bench/results/fuzz-corpus}
TEST_SOURCES=$ROOT/keel-http/src/test
require_integers MINUTES

# keel.http.codec.Http1ParserFuzzTest for Http1ParserFuzzTest, from where its source is.
qualified_name() {
  local file
  file=$(find "$TEST_SOURCES/java" -name "$1.java" | head -1)
  [[ -n $file ]] || die "no test class $1 in keel-http"
  file=${file#"$TEST_SOURCES/java/"}
  file=${file%.java}
  echo "${file//\//.}"
}

# The name of the one @FuzzTest method of a target.
fuzz_method() {
  local file
  file=$(find "$TEST_SOURCES/java" -name "$1.java" | head -1)
  grep -A1 '@FuzzTest' "$file" | sed -n 's/.*void \([A-Za-z0-9_]*\)(.*/\1/p' | head -1
}

count_files() { if [[ -d $1 ]]; then find "$1" -maxdepth 1 -type f | wc -l; else echo 0; fi; }

if [[ ${1:-} == promote ]]; then
  (($# >= 3)) || die "usage: bench/fuzz.sh promote TARGET FILE..."
  target=$2
  shift 2
  class=$(qualified_name "$target")
  seeds="$TEST_SOURCES/resources/${class//.//}Inputs/$(fuzz_method "$target")"
  mkdir -p "$seeds"
  for file in "$@"; do
    name=$(sha1sum "$file" | cut -c1-16)
    cp "$file" "$seeds/$name"
    log "copied $file to ${seeds#"$ROOT/"}/$name"
  done
  exit 0
fi

targets=("$@")
((${#targets[@]})) || targets=("${ALL_TARGETS[@]}")
for target in "${targets[@]}"; do qualified_name "$target" >/dev/null; done

JAVA_HOME=$(keel_java_home) || exit 1
export JAVA_HOME
make_out_dir
log "building keel-http and its tests"
(cd "$ROOT" && mvn -q -o test-compile -pl keel-http -am) >"$OUT/build.log" 2>&1 \
  || die "build failed, see $OUT/build.log"

printf '%-28s %8s %12s %10s %10s %8s\n' target "CPU s" executions "corpus in" "corpus out" crashes
failed=0
for target in "${targets[@]}"; do
  class=$(qualified_name "$target")
  base="$CORPUS/$target"
  corpus="$base/.cifuzz-corpus/$class/$(fuzz_method "$target")"
  mkdir -p "$base"
  before=$(count_files "$corpus")
  crashes_before=$(find "$base" -maxdepth 1 -name 'crash-*' | wc -l)
  budget=$((MINUTES * 60))
  used=0
  runs=0
  slice=0
  while ((used < budget - 5)); do
    slice=$((slice + 1))
    log "$target: fuzzing for $((budget - used)) s of CPU (slice $slice)"
    slice_log="$OUT/$target-$slice.log"
    # JAZZER_FUZZ=1: fuzzing mode; the basedir puts the generated corpus and the crashes under $base.
    status=0
    (cd "$ROOT" && /usr/bin/time -f '%U %S' -o "$OUT/time" env JAZZER_FUZZ=1 nice -n 19 \
      mvn -o test -pl keel-http -am -Dtest="$target" -Dsurefire.failIfNoSpecifiedTests=false \
      -Djazzer.max_duration="$((budget - used))s" -Djazzer.instrument='keel.**' -Djazzer.internal.basedir="$base") \
      >"$slice_log" 2>&1 || status=$?
    used=$((used + $(awk 'END { printf "%d", $1 + $2 }' "$OUT/time")))
    runs=$((runs + $(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' "$slice_log" | tail -1 | grep . || echo 0)))
    if ((status != 0)); then
      log "$target: the fuzzer stopped with a finding (or an error): see $slice_log"
      failed=1
      break
    fi
  done
  after=$(count_files "$corpus")
  crashes=$(($(find "$base" -maxdepth 1 -name 'crash-*' | wc -l) - crashes_before))
  printf '%-28s %8d %12d %10d %10d %8d\n' "$target" "$used" "$runs" "$before" "$after" "$crashes"
done
log "corpus kept in ${CORPUS#"$ROOT/"}; logs in ${OUT#"$ROOT/"}"
exit "$failed"
