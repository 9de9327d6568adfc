#!/usr/bin/env bash
# bench/throughput.sh: HTTP throughput and server CPU cost of Keel's execution
# modes, side by side with a plain Netty 4.2 server (bench/netty-hello).
#
# What it measures
#   For every mode it starts that server alone, pinned to CPU 0 (taskset), and
#   drives it with wrk pinned to CPU 1: one JIT warm-up pass over every route
#   and style, then for every route x style a warm-up run that is thrown away
#   and a measured run of DURATION seconds:
#     wrk -t1 -c64 -d10s --latency URL    (pipelined: -s bench/wrk/pipeline.lua URL -- 16)
#   Styles: "keep-alive" (one request in flight per connection) and
#   "pipelined" (16 requests per write, TechEmpower plaintext style).
#   Around the measured run it reads the server JVM's utime+stime from
#   /proc/PID/stat (JIT, GC and every other JVM thread included).
#   Under taskset every JVM sees a single CPU, so its ergonomics pick SerialGC
#   and one-CPU sizing for everything derived from availableProcessors(); that
#   holds for all modes alike.
#
# How to read the table
#   req/s        wrk's Requests/sec (each pipelined response counts as one).
#   p50, p99     wrk's latency percentiles in ms. Pipelined runs get one sample
#                per batch of 16, so their latencies are per batch.
#   cpu us/req   server CPU time / requests: the cost of one request, lower is
#                better. It stays meaningful when wrk, not the server, is the
#                bottleneck (see srv cpu%), which req/s does not.
#   vs netty     keel-nio-event-loop rows (guard on and off): cpu us/req over
#                netty's on the same route and style (1.00x = as cheap as Netty;
#                needs the netty mode in the same run).
#   user us/req  the user-space part of cpu us/req (utime only). With keep-alive
#                most of a request's cost is the kernel's (read, write, epoll:
#                the same for every server), so this is where servers differ;
#   user vs netty  the same ratio on user time alone.
#   srv cpu%     server CPU time / wall time of the run; ~100% means the server
#                core was saturated, well below means the client limited it.
#   notes        socket errors and non-2xx responses reported by wrk, if any.
#   Below the table, with both keel-nio-event-loop and -accesslog in the run:
#   the access log's cost as the ratio of their cpu us/req per route and style,
#   and the access log lines the server dropped (its queue was full).
#   The machine is small and shared: expect a few % of noise between runs,
#   compare rows of one run rather than numbers across runs.
#
# Usage
#   bench/throughput.sh                      # all modes, ~11 min with the defaults
#   MODES="keel-nio-event-loop netty" DURATION=5 bench/throughput.sh
#
# Environment (defaults in brackets)
#   DURATION [10]      seconds of each measured run
#   WARMUP [5]         seconds of the warm-up run before each measured run (0 = none)
#   JIT_WARMUP [WARMUP] seconds per route and style of a first pass over all of
#                      them right after each server starts (0 = none)
#   CONNECTIONS [64]   wrk connections
#   PIPELINE [16]      requests per batch in the pipelined style
#   MODES              subset of: keel-nio-event-loop keel-nio-event-loop-noguard
#                      keel-nio-event-loop-accesslog
#                      keel-nio-worker-pool keel-nio-virtual-thread
#                      keel-blocking-platform keel-blocking-virtual netty
#                      [all of them]; keel-nio-event-loop-noguard is
#                      keel-nio-event-loop with --guard false (no lag probe,
#                      no blocked-loop watchdog): the pair prices the guard;
#                      keel-nio-event-loop-accesslog is keel-nio-event-loop
#                      with the access log on, written to
#                      <results>/keel-nio-event-loop-accesslog.access.log: the
#                      pair prices the access log (every other keel mode runs
#                      with --access-log false)
#   KEEP_ACCESS_LOG [0]  1 keeps that file (gigabytes after a
#                      pipelined run); by default only its first lines stay, in
#                      <results>/keel-nio-event-loop-accesslog.access.sample.log
#   ROUTES [hello json]          routes under /benchmark/
#   STYLES [keep-alive pipelined]
#   PORT [18080]       port the server under test listens on (must be free)
#   SERVER_CPU [0], CLIENT_CPU [1]   CPUs for taskset
#   READY_TIMEOUT [60] seconds to wait for a server to answer its health check
#   KEEL_BIN [bin/keel] launcher for the keel-* modes
#   NETTY_JAVA_OPTS    JVM options for the netty server (default
#                      --sun-misc-unsafe-memory-access=allow: Netty 4.2 leaves its
#                      Unsafe-based buffers off on Java 25 without it, and the
#                      comparison is against Netty at its best)
#
# Output: the Markdown table on stdout (progress goes to stderr); the table,
# a TSV of the numbers, raw wrk outputs and server logs under
# bench/results/throughput-<timestamp>/ (bench/results/ is gitignored).

set -euo pipefail

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$BENCH_DIR/.." && pwd)

ALL_MODES="keel-nio-event-loop keel-nio-event-loop-noguard keel-nio-event-loop-accesslog keel-nio-worker-pool keel-nio-virtual-thread keel-blocking-platform keel-blocking-virtual netty"
DURATION=${DURATION:-10}
WARMUP=${WARMUP:-5}
CONNECTIONS=${CONNECTIONS:-64}
PIPELINE=${PIPELINE:-16}
MODES=${MODES:-$ALL_MODES}
ROUTES=${ROUTES:-hello json}
STYLES=${STYLES:-keep-alive pipelined}
PORT=${PORT:-18080}
SERVER_CPU=${SERVER_CPU:-0}
CLIENT_CPU=${CLIENT_CPU:-1}
NETTY_JAVA_OPTS=${NETTY_JAVA_OPTS---sun-misc-unsafe-memory-access=allow}
KEEL_BIN=${KEEL_BIN:-$ROOT/bin/keel}
READY_TIMEOUT=${READY_TIMEOUT:-60}
JIT_WARMUP=${JIT_WARMUP:-$WARMUP}
PIPELINE_LUA="$BENCH_DIR/wrk/pipeline.lua"

# shellcheck source-path=SCRIPTDIR source=lib/bench.sh
source "$BENCH_DIR/lib/bench.sh"

# ---------------------------------------------------------------- checks ---

require_integers DURATION WARMUP JIT_WARMUP CONNECTIONS PIPELINE PORT SERVER_CPU CLIENT_CPU READY_TIMEOUT
(( DURATION > 0 )) || die "DURATION must be > 0"
(( CONNECTIONS > 0 )) || die "CONNECTIONS must be > 0"
(( PIPELINE > 0 )) || die "PIPELINE must be > 0"

for m in $MODES; do
  [[ " $ALL_MODES " == *" $m "* ]] || die "unknown mode '$m' (known: $ALL_MODES)"
done
for r in $ROUTES; do
  [[ $r =~ ^[A-Za-z0-9._-]+$ ]] || die "bad route '$r' (expected e.g. hello or json)"
done
for s in $STYLES; do
  [[ $s == keep-alive || $s == pipelined ]] || die "unknown style '$s' (known: keep-alive pipelined)"
done
[[ -n ${MODES// } ]] || die "MODES is empty"
[[ -n ${ROUTES// } ]] || die "ROUTES is empty"
[[ -n ${STYLES// } ]] || die "STYLES is empty"

install_wrk_if_missing
require_tools "wrk: apt-get install -y wrk; taskset: util-linux" wrk taskset curl awk getconf
require_cpus
(( SERVER_CPU != CLIENT_CPU )) || log "warning: server and client share CPU $SERVER_CPU; numbers will mix"
use_java_25

# ------------------------------------------------------------- state/trap ---

TSV=""          # results so far, once the run has started
trap 'exit_trap $? "$TSV" 1' EXIT

port_in_use && die "port $PORT is already in use; stop whatever listens there or pick another with PORT=..."

# ----------------------------------------------------------------- builds ---

want_keel=false
want_netty=false
for m in $MODES; do
  if [[ $m == netty ]]; then want_netty=true; else want_keel=true; fi
done

if $want_keel; then prepare_keel "needed for the keel-* modes; set MODES to skip them"; fi
if $want_netty; then build_netty_hello; fi

make_out_dir
TSV="$OUT/results.tsv"
printf 'mode\troute\tstyle\treq_s\tp50_ms\tp99_ms\tcpu_us_req\tuser_us_req\tsrv_cpu_pct\tnotes\n' >"$TSV"

n_runs=0
for _ in $MODES; do for _ in $ROUTES; do for _ in $STYLES; do n_runs=$((n_runs + 1)); done; done; done
log "JDK: $JAVA_HOME"
log "results: $OUT"
log "$n_runs measured runs of ${DURATION}s (+${WARMUP}s warm-up each, +${JIT_WARMUP}s JIT warm-up): roughly $(( (n_runs * (DURATION + WARMUP + JIT_WARMUP) + 10 * $(wc -w <<<"$MODES")) / 60 + 1 )) min"

# ---------------------------------------------------------------- servers ---

server_cmd() { # mode -> command line (array SERVER_CMD)
  local keel=("$KEEL_BIN" serve --port "$PORT" --access-log false)
  case $1 in
    keel-nio-event-loop)     SERVER_CMD=("${keel[@]}" --transport nio --execution event-loop --loops 1) ;;
    keel-nio-event-loop-noguard)
      SERVER_CMD=("${keel[@]}" --transport nio --execution event-loop --loops 1 --guard false) ;;
    keel-nio-event-loop-accesslog)
      SERVER_CMD=("${keel[@]}" --transport nio --execution event-loop --loops 1
        --access-log true --access-log-file "$OUT/$1.access.log") ;;
    keel-nio-worker-pool)    SERVER_CMD=("${keel[@]}" --transport nio --execution worker-pool --loops 1) ;;
    keel-nio-virtual-thread) SERVER_CMD=("${keel[@]}" --transport nio --execution virtual-thread --loops 1) ;;
    keel-blocking-platform)  SERVER_CMD=("${keel[@]}" --transport blocking --threads platform) ;;
    keel-blocking-virtual)   SERVER_CMD=("${keel[@]}" --transport blocking --threads virtual) ;;
    netty)
      # shellcheck disable=SC2206 # NETTY_JAVA_OPTS is a list of words on purpose
      SERVER_CMD=("$JAVA_HOME/bin/java" $NETTY_JAVA_OPTS -jar "$NETTY_JAR" --port "$PORT" --threads 1) ;;
    *) die "unknown mode $1" ;;
  esac
}

ready_path() { if [[ $1 == netty ]]; then echo /benchmark/hello; else echo /benchmark/health; fi; }

start_server() { # mode log_file (in place of the lib's, which starts Keel only)
  local mode=$1 logf=$2
  server_cmd "$mode"
  launch_server "$mode" "$logf" "${SERVER_CMD[@]}"
  if ! wait_ready "http://127.0.0.1:$PORT$(ready_path "$mode")"; then
    tail -n 30 "$logf" >&2 || true
    die "$mode $READY_ERROR (log: $logf)"
  fi
  if [[ $mode != netty ]] && grep -q 'building' "$logf"; then
    log "warning: bin/keel rebuilt Keel when $mode started (sources changed during the benchmark);" \
      "rows of different modes may measure different code"
  fi
  locate_jvm || die "$mode: no java process found under PID $SERVER_PID (does bin/keel end with exec java?)"
}

# ------------------------------------------------------------------- runs ---

wrk_args() { # style -> array WRK_ARGS (without URL and script args)
  WRK_ARGS=(-t1 "-c$CONNECTIONS")
  if [[ $1 == pipelined ]]; then WRK_ARGS+=(-s "$PIPELINE_LUA"); fi
}

run_mode() {
  local mode=$1 route style url tag raw before after t0 t1 parsed
  local reqs rps p50 p99 notes cpu_us user_us cpu_pct
  start_server "$mode" "$OUT/$mode.server.log"
  # A fresh JVM on one core needs more than one warm-up to finish JIT-compiling
  # its hot paths, which made whichever run came first look slow: give every
  # route and style one pass before the first measurement.
  if ((JIT_WARMUP > 0)); then
    for route in $ROUTES; do
      for style in $STYLES; do
        wrk_args "$style"
        local jit_args=()
        if [[ $style == pipelined ]]; then jit_args=(-- "$PIPELINE"); fi
        log "$mode: JIT warm-up ${JIT_WARMUP}s on $route $style"
        run_wrk "$OUT/$mode.$route.$style.jit-warmup.txt" "${WRK_ARGS[@]}" "-d${JIT_WARMUP}s" \
          "http://127.0.0.1:$PORT/benchmark/$route" "${jit_args[@]}" \
          || log "$mode: JIT warm-up wrk failed (see $OUT/$mode.$route.$style.jit-warmup.txt)"
      done
    done
  fi
  for route in $ROUTES; do
    url="http://127.0.0.1:$PORT/benchmark/$route"
    for style in $STYLES; do
      tag="$mode.$route.$style"
      raw="$OUT/$tag.wrk.txt"
      wrk_args "$style"
      local script_args=()
      if [[ $style == pipelined ]]; then script_args=(-- "$PIPELINE"); fi
      if ((WARMUP > 0)); then
        log "$tag: warm-up ${WARMUP}s"
        run_wrk "$OUT/$tag.warmup.txt" "${WRK_ARGS[@]}" "-d${WARMUP}s" "$url" "${script_args[@]}" \
          || log "$tag: warm-up wrk failed (see $OUT/$tag.warmup.txt)"
      fi
      log "$tag: measuring ${DURATION}s"
      before=$(cpu_ticks) || die "$mode: server process is gone (log: $OUT/$mode.server.log)"
      t0=$(date +%s%N)
      if ! run_wrk "$raw" "${WRK_ARGS[@]}" "-d${DURATION}s" --latency "$url" "${script_args[@]}"; then
        log "$tag: wrk failed: $(tail -n 3 "$raw" | tr '\n' ' ')"
      fi
      t1=$(date +%s%N)
      after=$(cpu_ticks) || die "$mode: server died during $tag (log: $OUT/$mode.server.log)"
      parsed=$(parse_wrk <"$raw")
      read -r reqs rps p50 p99 _ notes <<<"$parsed"
      read -r cpu_us user_us cpu_pct < <(cpu_cost "$before" "$after" "$((t1 - t0))" "$reqs")
      printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' \
        "$mode" "$route" "$style" "$rps" "$p50" "$p99" "$cpu_us" "$user_us" "$cpu_pct" "$notes" >>"$TSV"
      log "$tag: $rps req/s, p50 ${p50} ms, p99 ${p99} ms, ${cpu_us} cpu us/req, server cpu ${cpu_pct}% ${notes/#-/}"
    done
  done
  if [[ $mode == *-accesslog ]]; then
    ACCESS_DROPPED=$(curl -sf --max-time 5 "http://127.0.0.1:$PORT/metrics" \
      | awk '/^keel_http_server_access_log_dropped_total/ { printf "%d", $2 }') || ACCESS_DROPPED="n/a"
    log "$mode: access log lines dropped: ${ACCESS_DROPPED:-n/a}"
  fi
  stop_server
  local access_log="$OUT/$mode.access.log"
  if [[ -f $access_log ]]; then
    # A pipelined run writes gigabytes of lines: keep their count and a sample, not the file.
    head -n 5 "$access_log" >"$OUT/$mode.access.sample.log"
    log "$mode: access log: $(wc -l <"$access_log") lines, $(du -h "$access_log" | cut -f1)"
    if [[ ${KEEP_ACCESS_LOG:-0} != 1 ]]; then rm -f "$access_log"; fi
  fi
}

# ------------------------------------------------------------------ table ---

render_table() {
  awk -F '\t' '
    function num(v, fmt) { return (v < 0 ? "n/a" : sprintf(fmt, v)) }
    NR == 1 { next }
    { n++; m[n] = $1; r[n] = $2; s[n] = $3; rps[n] = $4; p50[n] = $5; p99[n] = $6; cpu[n] = $7; usr[n] = $8
      pct[n] = $9; note[n] = $10
      if ($1 == "netty") { netty[$2 "/" $3] = $7; nettyusr[$2 "/" $3] = $8 } }
    END {
      print "| mode | route | style | req/s | p50 ms | p99 ms | cpu µs/req | vs netty | user µs/req | user vs netty | srv cpu% | notes |"
      print "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|"
      for (i = 1; i <= n; i++) {
        ratio = ""; uratio = ""
        if (m[i] ~ /^keel-nio-event-loop/) {
          k = r[i] "/" s[i]
          ratio = ((k in netty) && netty[k] > 0 && cpu[i] > 0) ? sprintf("%.2fx", cpu[i] / netty[k]) : "n/a"
          uratio = ((k in nettyusr) && nettyusr[k] > 0 && usr[i] > 0) ? sprintf("%.2fx", usr[i] / nettyusr[k]) : "n/a"
        }
        printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", m[i], r[i], s[i],
          num(rps[i], "%.0f"), num(p50[i], "%.3f"), num(p99[i], "%.3f"), num(cpu[i], "%.2f"), ratio,
          num(usr[i], "%.2f"), uratio, pct[i], (note[i] == "-" ? "" : note[i])
      }
    }' "$TSV"
}

# The access log's cost: cpu us/req of keel-nio-event-loop-accesslog over keel-nio-event-loop, per
# route and style, when the run has both.
render_access_log_cost() {
  awk -F '\t' -v dropped="${ACCESS_DROPPED:-n/a}" '
    NR == 1 { next }
    $1 == "keel-nio-event-loop" { off[$2 " " $3] = $7 }
    $1 == "keel-nio-event-loop-accesslog" { on[$2 " " $3] = $7; order[++n] = $2 " " $3 }
    END {
      for (i = 1; i <= n; i++) {
        k = order[i]
        if (!(k in off) || off[k] <= 0 || on[k] <= 0) continue
        text = text sprintf("%s%s %.2fx (%.2f / %.2f)", (text == "" ? "" : ", "), k, on[k] / off[k], on[k], off[k])
      }
      if (text != "") printf "\nAccess log on / off, cpu µs/req: %s; lines dropped: %s.\n", text, dropped
    }' "$TSV"
}

# Writes $OUT/table.md and prints it; $1 is an optional remark for the heading.
emit_table() {
  TABLE_DONE=true
  {
    echo "## Keel throughput ($(date -u +%Y-%m-%dT%H:%M:%SZ))${1:+ ($1)}"
    echo
    echo "wrk -t1 -c$CONNECTIONS, ${DURATION}s measured after ${WARMUP}s warm-up; pipelined = $PIPELINE per batch;" \
      "server on CPU $SERVER_CPU, wrk on CPU $CLIENT_CPU; $("$JAVA_HOME/bin/java" -version 2>&1 | head -n 1);" \
      "$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null || true);" \
      "$(git_desc)"
    echo
    render_table
    render_access_log_cost
  } >"$OUT/table.md"
  ln -sfn "$(basename "$OUT")" "$ROOT/bench/results/latest"
  cat "$OUT/table.md"
  log "wrote $OUT/table.md"
}

# ------------------------------------------------------------------- main ---

for mode in $MODES; do
  run_mode "$mode"
done
emit_table
