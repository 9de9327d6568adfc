#!/usr/bin/env bash
# The AOT cache through bin/keel, as a user meets it: built by a training run when missing, used
# (the JVM says so with -Xlog:aot), built again when the build is newer, and a corrupt one ignored
# (the server starts without it, says so once, and the next start builds a new one). Each start
# must answer GET /benchmark/hello. Prints "N passed, N failed"; exits 1 when a check failed.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
port=${KEEL_AOT_TEST_PORT:-18190}
aot=keel-lab/target/keel.aot
log=$(mktemp /tmp/keel-aot-test.XXXXXX)
passed=0 failed=0 pid=""
trap 'if [[ -n $pid ]]; then kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; fi; rm -f "$log"' EXIT

check() { # description, then the command that must succeed
  local what=$1; shift
  if "$@"; then passed=$((passed + 1)); echo "aot-test: ok: $what"; else failed=$((failed + 1)); echo "aot-test: FAILED: $what"; sed 's/^/    /' "$log" | grep -v '^\s*\[.*\]\[info\]\[aot' | tail -n 20; fi
}

# Starts bin/keel serve with -Xlog:aot (info, on standard output), waits for a 200 from /benchmark/hello, stops it.
serve_once() {
  local i code=000
  KEEL_JAVA_OPTS="-Xlog:aot" bin/keel serve --port "$port" --warmup false --access-log false >"$log" 2>&1 </dev/null &
  pid=$!
  for ((i = 0; i < 600; i++)); do
    code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/benchmark/hello" 2>/dev/null) && [[ $code == 200 ]] && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; pid=""
  [[ $code == 200 ]] || { echo "aot-test: the server did not answer 200 (got $code)" >>"$log"; return 1; }
}
says() { grep -q -- "$1" "$log"; }
count() { grep -c -- "$1" "$log"; }

# A cache that is there (CI's first serve trained it) is not trained again; a missing one is.
check "a start builds the cache when it is missing, and the server answers" serve_once
check "  the cache file exists" test -s "$aot"
check "the next start uses the cache without training again, and the server answers" serve_once
check "  no training run" bash -c "! grep -q 'building the AOT cache' '$log'"
check "  the JVM used it" says "Using AOT-linked classes: true"

touch keel-lab/target/keel.jar
check "a cache older than the build is trained again, and the server answers" serve_once
check "  bin/keel built it" says "keel: AOT cache ready"
check "  the JVM used the new one" says "Using AOT-linked classes: true"

printf 'not an AOT cache' | dd of="$aot" bs=1 seek=0 conv=notrunc 2>/dev/null
touch "$aot"
check "a corrupt cache is ignored: the server starts without it and answers" serve_once
check "  and says so once" test "$(count 'could not be used')" -eq 1
check "  the JVM did not use it" bash -c "! grep -q 'Using AOT-linked classes: true' '$log'"
check "  the corrupt file is gone, for the next start to train anew" test ! -e "$aot"

check "after a corrupt cache, the next start builds a new one and uses it" serve_once
check "  bin/keel built it" says "keel: AOT cache ready"
check "  the JVM used it" says "Using AOT-linked classes: true"

echo "aot-test: $passed passed, $failed failed"
((failed == 0))
