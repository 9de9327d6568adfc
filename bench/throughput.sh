#!/usr/bin/env bash
# bench/throughput.sh: HTTP throughput and server CPU cost of Keel's execution
# modes, side by side with Netty 4.2 on epoll (bench/netty-hello) and Vert.x 5
# on its native transport (bench/vertx-hello), each on one event loop like
# Keel's, and the ratios Keel aims at.
#
# What it measures
#   For every mode it starts that server alone, pinned to CPU 0 (taskset), and
#   drives it with wrk pinned to CPU 1: one JIT warm-up pass over every route
#   and style, then for every route x style a warm-up run that is thrown away
#   and a measured run of DURATION seconds:
#     wrk -t1 -c64 -d10s --latency URL    (pipelined: -s bench/wrk/pipeline.lua URL -- 16)
#   Styles: "keep-alive" (one request in flight per connection),
#   "pipelined" (16 requests per write, TechEmpower plaintext style) and
#   "fixed-rate": keep-alive requests at RATE a second, open loop, from
#   bench/overload-driver (one thread, FIXED_RATE_CONNECTIONS connections, each
#   millisecond what is due on the connection idle the longest) in place of
#   wrk, for its warm-ups too. wrk sends a request as soon as the answer
#   before it came, so with keep-alive whichever of wrk and the server is
#   slower sets the pace: a server cheaper than wrk waits for it, and each of
#   its waits costs a sleep and a wake-up, which one that wrk keeps busy never
#   pays. At a fixed rate every server gets the same requests at the same
#   times, and pays for the same waits.
#   Around the measured run it reads the server JVM's utime+stime from
#   /proc/PID/stat (JIT, GC and every other JVM thread included) and counts
#   its write system calls with perf's syscall tracepoints (perf stat -p PID).
#   Under taskset every JVM sees a single CPU, so its ergonomics pick SerialGC
#   and one-CPU sizing for everything derived from availableProcessors(); that
#   holds for all modes alike.
#
# How to read the table
#   req/s        wrk's Requests/sec (each pipelined response counts as one);
#                fixed-rate: the answers the driver got a second.
#   p50, p99     wrk's latency percentiles in ms. Pipelined runs get one sample
#                per batch of 16, so their latencies are per batch. Fixed-rate:
#                the driver's, of the 200 answers, from each request's send.
#   cpu us/req   server CPU time / requests: the cost of one request, lower is
#                better. It stays meaningful when wrk, not the server, is the
#                bottleneck (see srv cpu%), which req/s does not.
#   vs netty     cpu us/req over netty-epoll's on the same route and style
#                (1.00x = as cheap as Netty; needs netty-epoll in the same run).
#   of which JIT the part of cpu us/req spent by the JIT compilers' threads: a
#                server still compiling (a fresh JVM, here for tens of seconds
#                under load) pays it on top of its steady cost.
#   user us/req  the user-space part of cpu us/req (utime only). With keep-alive
#                most of a request's cost is the kernel's (read, write, epoll:
#                the same for every server), so this is where servers differ;
#   user vs netty  the same ratio on user time alone.
#   writes/req   the server's write system calls that carry data (write and
#                sendto of more than 8 bytes, writev, sendmsg) / requests;
#                n/a without perf (linux-perf, root). One write per pipelined
#                batch of 16 is 1/16 = 0.0625; with keep-alive one write per
#                response is 1. The access log mode counts its file's too.
#   wake-ups/req the writes of at most 8 bytes (a loop woken through its
#                eventfd or pipe, as when a response comes back from another
#                thread) / requests.
#   polls/req    the server's epoll waits / requests (the inverse of how many
#                requests a wait finds ready). Under wrk with keep-alive, a
#                server that answers sooner than wrk asks again finds fewer
#                requests ready at each wait and sleeps in more of its waits:
#                it pays more polls and sleeps a request than a server that
#                falls behind.
#   switches/req the context switches of the server's threads / requests: each
#                hand-over to a thread that has to be woken (a virtual thread's
#                carrier, a worker) and back, on the server's one CPU.
#   srv cpu%     server CPU time / wall time of the run; ~100% means the server
#                core was saturated, well below means the client limited it.
#   stolen%      the server CPU's time the hypervisor gave to another guest
#                (steal in /proc/stat) while this one wanted it: on a shared
#                virtual machine a row with much of it (noted cpu-stolen from
#                5%) ran slower, and its srv cpu% reads lower, for that reason.
#   notes        socket errors and non-2xx responses reported by wrk or the
#                driver, if any (the driver's also timeouts, and unsent= the
#                share of the requests it could not send when it reached 5 %:
#                every connection waited for an answer, the rate was not held);
#                cpu-stolen when stolen% reached 5; rounds-split=S/F when the
#                rounds' cpu µs/req fell in two groups (S costly rounds, F
#                cheap ones: the largest step between neighbours is 8 % of the
#                median or more, and half the range), so the median is one
#                group's, not a middle.
#   Below the table, the ratios of two modes of the run, per route and style,
#   each with its goal (ok / MISSED) when it has one:
#     req/s pipelined, keel-nio-event-loop / netty-epoll          goal >= 1.6x
#     cpu us/req keep-alive and fixed-rate, keel-nio-event-loop /
#       netty-epoll                                                goal <= 0.95x
#     the same two against vertx (no goal)
#     cpu us/req of keel-nio-virtual-thread, keel-nio-worker-pool and
#       keel-nio-async over keel-nio-event-loop's                  goal <= 1.3x
#     cpu us/req, metrics on / off (keel-nio-event-loop over
#       keel-nio-event-loop-nometrics)                             goal <= 1.05x
#     cpu us/req, access log on / off                            goal <= 1.1x
#     cpu us/req, guard on / off (no goal)
#     cpu us/req of keel-nio-virtual-thread-loop over keel-nio-event-loop's
#       (no goal: an opt-in scheduler)
#   and the access log lines the server dropped (its queue was full). For the
#   access log mode, progress also gives the part of cpu us/req spent by its
#   writer threads (keel-access-log: the file's writes, mostly the kernel's, and
#   keel-access-log-drop, which drops the file's pages from the page cache).
#   A row needs both of its modes in the run.
#   The machine is small and shared: expect a few % of noise between runs,
#   compare rows of one run rather than numbers across runs.
#
# Usage
#   bench/throughput.sh                      # all modes, ~25 min with the defaults
#   MODES="keel-nio-event-loop netty-epoll vertx" DURATION=5 bench/throughput.sh
#   BASE_BIN=/tmp/wt-base/bin/keel MODES="keel-nio-virtual-thread" ROUNDS=3 bench/throughput.sh
#
# Environment (defaults in brackets)
#   ROUNDS [1]         times every mode runs, in turn (mode A, B, ..., then A, B,
#                      ... again), each time in a fresh JVM: the table gives each
#                      figure's median over the rounds, cpu µs/req with its range,
#                      and each ratio is the median of the ratios of the rounds
#                      (the two modes of a round ran minutes apart at most)
#   DURATION [10]      seconds of each measured run
#   WARMUP [5]         seconds of the warm-up run before each measured run (0 = none)
#   JIT_WARMUP [WARMUP] seconds per route and style of a first pass over all of
#                      them right after each server starts (0 = none)
#   CONNECTIONS [64]   wrk connections
#   RATE [40000]       requests a second of the fixed-rate style: below what
#                      every server and the driver (one CPU) can do, so that
#                      none of them sets the pace
#   FIXED_RATE_CONNECTIONS [128]  the driver's connections: with 64 it left
#                      5-7 % of RATE unsent here (every connection waiting)
#   PIPELINE [16]      requests per batch in the pipelined style
#   MODES              subset of the modes below [all of them but netty-nio]:
#     keel-nio-event-loop            handlers on the event loop (--loops 1)
#     keel-nio-event-loop-nometrics  the same with --metrics false: the pair
#                                    prices the metrics
#     keel-nio-event-loop-noguard    the same with --guard false (no lag probe,
#                                    no blocked-loop watchdog): prices the guard
#     keel-nio-event-loop-accesslog  the same with the access log on, written to
#                                    <results>/keel-nio-event-loop-accesslog.access.log:
#                                    prices the access log (every other keel mode
#                                    runs with --access-log false)
#     keel-nio-event-loop-accesslog-cached  the same with
#                                    --access-log-file-drop-behind false (the file's
#                                    pages stay in the page cache): prices dropping them
#     keel-nio-async                 async handlers on the event loop, answered at
#                                    once: /benchmark/hello-async and json-async
#                                    (rows keep the names hello and json)
#     keel-nio-worker-pool, keel-nio-virtual-thread   the other executions (virtual threads
#                                    on Keel's carriers: --virtual-thread-scheduler keel)
#     keel-blocking-platform, keel-blocking-virtual   the blocking transport
#     netty-epoll                    bench/netty-hello --epoll, one event loop
#     vertx                          bench/vertx-hello: one event loop, one
#                                    verticle, native transport (checked in its log)
#     netty-nio                      bench/netty-hello on NIO, one event loop
#     keel-nio-event-loop-jdkio      keel-nio-event-loop with --native-io false,
#                                    whatever NATIVE_IO says: with NATIVE_IO=true
#                                    the pair prices recv/send against the JDK's
#                                    socket channel
#     keel-nio-virtual-thread-jdk    keel-nio-virtual-thread with
#                                    --virtual-thread-scheduler jdk: the pair
#                                    prices Keel's carriers against the JDK's
#                                    ForkJoinPool
#     keel-nio-virtual-thread-loop   keel-nio-virtual-thread with
#                                    --virtual-thread-scheduler loop: the
#                                    loop carries its requests' virtual threads
#   NATIVE_IO [false]  Keel's --native-io in every keel-* mode whose build knows
#                      the flag (true: channels read and write through recv and
#                      send, as netty-epoll runs Netty's native transport; false:
#                      the JDK's socket channel, Keel's default)
#   KEEP_ACCESS_LOG [0]  1 keeps the access log file (gigabytes after a
#                      pipelined run); by default only its first lines stay, in
#                      <results>/keel-nio-event-loop-accesslog.access.sample.log
#   ROUTES [hello json]          routes under /benchmark/
#   STYLES [keep-alive pipelined fixed-rate]
#   PORT [18080]       port the server under test listens on (must be free)
#   SERVER_CPU [0], CLIENT_CPU [1]   CPUs for taskset
#   READY_TIMEOUT [60] seconds to wait for a server to answer its health check
#   KEEL_BIN [bin/keel] launcher for the keel-* modes
#   BASE_BIN []        another build's launcher (a worktree of an earlier commit):
#                      each keel-* mode runs again on it right after, as
#                      base-<mode>, and the ratios add this build / base per mode.
#                      A before/after measured alternated, in one run, rather than
#                      in two runs minutes apart on a machine whose load moves
#   NETTY_JAVA_OPTS    JVM options for the netty-* and vertx servers (default
#                      --sun-misc-unsafe-memory-access=allow: Netty 4.2 leaves its
#                      Unsafe-based buffers off on Java 25 without it, and the
#                      comparison is against Netty at its best)
#
# Output: the Markdown tables on stdout (progress goes to stderr); the tables,
# a TSV of the numbers, raw wrk outputs and server logs under
# bench/results/throughput-<timestamp>/ (bench/results/ is gitignored).

set -euo pipefail

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$BENCH_DIR/.." && pwd)

DEFAULT_MODES="keel-nio-event-loop keel-nio-event-loop-nometrics keel-nio-event-loop-noguard keel-nio-event-loop-accesslog \
  keel-nio-event-loop-accesslog-cached \
  keel-nio-async keel-nio-worker-pool keel-nio-virtual-thread keel-blocking-platform keel-blocking-virtual netty-epoll vertx"
ALL_MODES="$DEFAULT_MODES netty-nio keel-nio-event-loop-jdkio keel-nio-virtual-thread-jdk keel-nio-virtual-thread-loop"
NATIVE_IO=${NATIVE_IO:-false}
DURATION=${DURATION:-10}
ROUNDS=${ROUNDS:-1}
WARMUP=${WARMUP:-5}
CONNECTIONS=${CONNECTIONS:-64}
PIPELINE=${PIPELINE:-16}
MODES=${MODES:-$DEFAULT_MODES}
ROUTES=${ROUTES:-hello json}
STYLES=${STYLES:-keep-alive pipelined fixed-rate}
RATE=${RATE:-40000}
FIXED_RATE_CONNECTIONS=${FIXED_RATE_CONNECTIONS:-128}
PORT=${PORT:-18080}
SERVER_CPU=${SERVER_CPU:-0}
CLIENT_CPU=${CLIENT_CPU:-1}
NETTY_JAVA_OPTS=${NETTY_JAVA_OPTS---sun-misc-unsafe-memory-access=allow}
KEEL_BIN=${KEEL_BIN:-$ROOT/bin/keel}
BASE_BIN=${BASE_BIN:-}
READY_TIMEOUT=${READY_TIMEOUT:-60}
JIT_WARMUP=${JIT_WARMUP:-$WARMUP}
PIPELINE_LUA="$BENCH_DIR/wrk/pipeline.lua"
DRIVER_SRC="$BENCH_DIR/overload-driver/OverloadDriver.java"
DRIVER_CLASSES="$BENCH_DIR/overload-driver/target"

# shellcheck source-path=SCRIPTDIR source=lib/bench.sh
source "$BENCH_DIR/lib/bench.sh"

# ---------------------------------------------------------------- checks ---

require_integers ROUNDS DURATION WARMUP JIT_WARMUP CONNECTIONS PIPELINE RATE FIXED_RATE_CONNECTIONS PORT SERVER_CPU CLIENT_CPU READY_TIMEOUT
(( ROUNDS > 0 )) || die "ROUNDS must be > 0"
(( DURATION > 0 )) || die "DURATION must be > 0"
(( CONNECTIONS > 0 )) || die "CONNECTIONS must be > 0"
(( PIPELINE > 0 )) || die "PIPELINE must be > 0"
(( RATE > 0 && FIXED_RATE_CONNECTIONS > 0 )) || die "RATE and FIXED_RATE_CONNECTIONS must be > 0"

for m in $MODES; do
  [[ " $ALL_MODES " == *" $m "* ]] || die "unknown mode '$m' (known: $ALL_MODES)"
done
for r in $ROUTES; do
  [[ $r =~ ^[A-Za-z0-9._-]+$ ]] || die "bad route '$r' (expected e.g. hello or json)"
done
for s in $STYLES; do
  [[ $s == keep-alive || $s == pipelined || $s == fixed-rate ]] || die "unknown style '$s' (known: keep-alive pipelined fixed-rate)"
done
[[ -n ${MODES// } ]] || die "MODES is empty"
KEEL_MODES=""
for m in $MODES; do [[ $m == keel-* ]] && KEEL_MODES+=" $m"; done
if [[ -n $BASE_BIN ]]; then
  [[ -x $BASE_BIN ]] || die "BASE_BIN $BASE_BIN not found or not executable"
  [[ -n $KEEL_MODES ]] || die "BASE_BIN needs a keel-* mode in MODES"
  with_base=""
  for m in $MODES; do with_base+=" $m"; [[ $m == keel-* ]] && with_base+=" base-$m"; done
  MODES=${with_base# }
fi
[[ -n ${ROUTES// } ]] || die "ROUTES is empty"
[[ -n ${STYLES// } ]] || die "STYLES is empty"

install_wrk_if_missing
require_tools "wrk: apt-get install -y wrk; taskset: util-linux" wrk taskset curl awk getconf
require_cpus
(( SERVER_CPU != CLIENT_CPU )) || log "warning: server and client share CPU $SERVER_CPU; numbers will mix"
use_java_25
COUNT_SYSCALLS=true
can_count_syscalls || { COUNT_SYSCALLS=false; log "warning: perf cannot count syscalls here (apt-get install linux-perf; root): writes/req and polls/req will be n/a"; }

# ------------------------------------------------------------- state/trap ---

TSV=""          # results so far, once the run has started
trap 'exit_trap $? "$TSV" 1' EXIT

port_in_use && die "port $PORT is already in use; stop whatever listens there or pick another with PORT=..."

# ----------------------------------------------------------------- builds ---

if [[ " $MODES " == *" keel-"* ]]; then prepare_keel "needed for the keel-* modes; set MODES to skip them"; fi
if [[ -n $BASE_BIN ]]; then KEEL_BIN=$BASE_BIN prepare_keel "BASE_BIN"; fi
# --native-io for a build that knows it (an earlier base build runs as it was).
native_io_flag() { # bin -> the words to add
  if "$1" serve --help 2>/dev/null | grep -q -- '--native-io'; then echo "--native-io $NATIVE_IO"; fi
}
if [[ " $MODES " == *" keel-"* ]]; then KEEL_NATIVE_IO=$(native_io_flag "$KEEL_BIN"); fi
if [[ -n $BASE_BIN ]]; then BASE_NATIVE_IO=$(native_io_flag "$BASE_BIN"); fi
if [[ " $MODES " == *" netty-"* ]]; then build_hello_jar netty-hello; fi
if [[ " $MODES " == *" vertx "* ]]; then build_hello_jar vertx-hello; fi
if [[ " $STYLES " == *" fixed-rate "* ]]; then
  mkdir -p "$DRIVER_CLASSES"
  "$JAVA_HOME/bin/javac" -d "$DRIVER_CLASSES" "$DRIVER_SRC" || die "compiling $DRIVER_SRC failed"
fi

make_out_dir
TSV="$OUT/results.tsv"
printf 'mode\troute\tstyle\treq_s\tp50_ms\tp99_ms\tcpu_us_req\tuser_us_req\tsrv_cpu_pct\twrites_req\twakeups_req\tnotes\tround\tjit_us_req\tswitches_req\tstolen_pct\tpolls_req\n' >"$TSV"

n_runs=0
for _ in $MODES; do for _ in $ROUTES; do for _ in $STYLES; do n_runs=$((n_runs + ROUNDS)); done; done; done
load_average() { cut -d' ' -f1-3 /proc/loadavg; }
LOAD_START=$(load_average)
log "JDK: $JAVA_HOME"
log "Keel's --native-io: $NATIVE_IO (builds that know it)"
log "load average: $LOAD_START"
awk '{ exit !($1 > 2.5) }' <<<"$LOAD_START" && log "warning: other work shares the CPUs (load average above 2.5): figures will be noisy"
log "results: $OUT"
log "$n_runs measured runs of ${DURATION}s (+${WARMUP}s warm-up each, +${JIT_WARMUP}s JIT warm-up): roughly $(( (n_runs * (DURATION + WARMUP + JIT_WARMUP) + 10 * ROUNDS * $(wc -w <<<"$MODES")) / 60 + 1 )) min"

# ---------------------------------------------------------------- servers ---

server_cmd() { # mode -> command line (array SERVER_CMD); base-<mode> is <mode> on BASE_BIN
  local mode=$1 bin=$KEEL_BIN native_io=${KEEL_NATIVE_IO:-}
  if [[ $mode == base-* ]]; then mode=${mode#base-} bin=$BASE_BIN native_io=${BASE_NATIVE_IO:-}; fi
  # shellcheck disable=SC2206 # native_io is empty or two words on purpose
  local keel=("$bin" serve --port "$PORT" --access-log false $native_io) loop=(--transport nio --execution event-loop --loops 1)
  # shellcheck disable=SC2206 # NETTY_JAVA_OPTS is a list of words on purpose
  local java=("$JAVA_HOME/bin/java" $NETTY_JAVA_OPTS -jar)
  case $mode in
    keel-nio-event-loop | keel-nio-async) SERVER_CMD=("${keel[@]}" "${loop[@]}") ;;
    keel-nio-event-loop-nometrics) SERVER_CMD=("${keel[@]}" "${loop[@]}" --metrics false) ;;
    keel-nio-event-loop-noguard) SERVER_CMD=("${keel[@]}" "${loop[@]}" --guard false) ;;
    keel-nio-event-loop-jdkio) SERVER_CMD=("${keel[@]}" "${loop[@]}" ${native_io:+--native-io false}) ;;
    keel-nio-event-loop-accesslog)
      SERVER_CMD=("${keel[@]}" "${loop[@]}" --access-log true --access-log-file "$OUT/$1.access.log") ;;
    keel-nio-event-loop-accesslog-cached)
      SERVER_CMD=("${keel[@]}" "${loop[@]}" --access-log true --access-log-file "$OUT/$1.access.log"
        --access-log-file-drop-behind false) ;;
    keel-nio-worker-pool)    SERVER_CMD=("${keel[@]}" --transport nio --execution worker-pool --loops 1) ;;
    keel-nio-virtual-thread) # on Keel's carriers, opt-in since the JDK's scheduler became the default
      SERVER_CMD=("${keel[@]}" --transport nio --execution virtual-thread --loops 1 --virtual-thread-scheduler keel) ;;
    keel-nio-virtual-thread-jdk)
      SERVER_CMD=("${keel[@]}" --transport nio --execution virtual-thread --loops 1 --virtual-thread-scheduler jdk) ;;
    keel-nio-virtual-thread-loop)
      SERVER_CMD=("${keel[@]}" --transport nio --execution virtual-thread --loops 1 --virtual-thread-scheduler loop) ;;
    keel-blocking-platform)  SERVER_CMD=("${keel[@]}" --transport blocking --threads platform) ;;
    keel-blocking-virtual)   SERVER_CMD=("${keel[@]}" --transport blocking --threads virtual) ;;
    netty-epoll) SERVER_CMD=("${java[@]}" "$NETTY_JAR" --port "$PORT" --threads 1 --epoll) ;;
    netty-nio)   SERVER_CMD=("${java[@]}" "$NETTY_JAR" --port "$PORT" --threads 1) ;;
    vertx)       SERVER_CMD=("${java[@]}" "$VERTX_JAR" --port "$PORT") ;;
    *) die "unknown mode $1" ;;
  esac
}

is_keel() { [[ $1 == keel-* || $1 == base-keel-* ]]; }

# The path a mode serves a route on: keel-nio-async's routes are the async handlers of the same answers.
route_path() { # mode route
  if [[ $1 == keel-nio-async || $1 == base-keel-nio-async ]]; then echo "/benchmark/$2-async"; else echo "/benchmark/$2"; fi
}

start_server() { # mode log_file (in place of the lib's, which starts Keel only)
  local mode=$1 logf=$2 ready=/benchmark/hello
  server_cmd "$mode"
  launch_server "$mode" "$logf" "${SERVER_CMD[@]}"
  if is_keel "$mode"; then ready=/benchmark/health; fi
  if ! wait_ready "http://127.0.0.1:$PORT$ready"; then
    tail -n 30 "$logf" >&2 || true
    die "$mode $READY_ERROR (log: $logf)"
  fi
  if is_keel "$mode" && grep -q 'building' "$logf"; then
    log "warning: bin/keel rebuilt Keel when $mode started (sources changed during the benchmark);" \
      "rows of different modes may measure different code"
  fi
  # Vert.x falls back to NIO when its native transport does not load: that would not be the peer meant.
  if [[ $mode == vertx ]] && ! grep -q 'native transport (epoll)' "$logf"; then
    die "vertx does not run on its native transport: $(head -n 3 "$logf" | tr '\n' ' ')"
  fi
  locate_jvm || die "$mode: no java process found under PID $SERVER_PID (does bin/keel end with exec java?)"
}

# ------------------------------------------------------------------- runs ---

# wrk on url in the given style for seconds (the driver for fixed-rate); $1 is the output file,
# options after seconds go to wrk.
drive() { # out style url seconds [wrk options...]
  local out=$1 style=$2 url=$3 seconds=$4
  if [[ $style == fixed-rate ]]; then
    run_client "$out" "$JAVA_HOME/bin/java" -cp "$DRIVER_CLASSES" OverloadDriver load --port "$PORT" \
      --path "/${url#http://*/}" --connections "$FIXED_RATE_CONNECTIONS" --rate "$RATE" --duration "$seconds" --warmup 0 \
      --timeout-ms 2000
    return
  fi
  local args=(-t1 "-c$CONNECTIONS" "-d${seconds}s" "${@:5}")
  if [[ $style == pipelined ]]; then args+=(-s "$PIPELINE_LUA" "$url" -- "$PIPELINE"); else args+=("$url"); fi
  run_wrk "$out" "${args[@]}"
}

# The utime and stime ticks of the server's threads whose name matches the glob $1, summed; nothing
# when none does: the access log's writer (keel-access-log), the JIT compilers (C1/C2 CompilerThreadN).
thread_ticks() {
  local task name stat user=0 sys=0 found=false
  for task in /proc/"$JVM_PID"/task/*; do
    name=$(cat "$task/comm" 2>/dev/null) || continue
    # shellcheck disable=SC2053 # $1 is a glob
    [[ $name == $1 ]] || continue
    stat=$(cat "$task/stat" 2>/dev/null) || continue
    read -r -a fields <<<"${stat##*) }"
    user=$((user + fields[11])) sys=$((sys + fields[12])) found=true
  done
  if $found; then echo "$user $sys"; fi
}
JIT_THREADS='C[12] CompilerThre*'

# The driver's output file and its seconds -> "answers answers/s p50_ms p99_ms notes", as parse_wrk's.
parse_driver() {
  local line
  line=$(grep '^offered=' "$1" | tail -n 1) || { echo "0 -1 -1 -1 unparsable-driver-output"; return; }
  awk -v seconds="$2" -v line="$line" 'BEGIN {
    n = split(line, kv, " "); for (i = 1; i <= n; i++) { split(kv[i], p, "="); v[p[1]] = p[2] }
    answers = v["ok"] + v["shed"] + v["other"]; notes = ""
    if (v["shed"] + v["other"] > 0) notes = notes "non-2xx=" (v["shed"] + v["other"]) " "
    if (v["errors"] + v["connect_errors"] > 0) notes = notes "errors=" (v["errors"] + v["connect_errors"]) " "
    if (v["timeouts"] > 0) notes = notes "timeouts=" v["timeouts"] " "
    if (v["offered"] > 0 && v["unsent"] / v["offered"] >= 0.05) notes = notes sprintf("unsent=%.0f%%", 100 * v["unsent"] / v["offered"])
    sub(/ +$/, "", notes); gsub(/ /, ",", notes)
    printf "%d %.0f %s %s %s\n", answers, answers / seconds, v["ok_p50"], v["ok_p99"], (notes == "" ? "-" : notes)
  }'
}

run_mode() {
  local mode=$1 route style url tag raw before after t0 t1
  local reqs rps p50 p99 notes cpu_us user_us cpu_pct writes_req wakeups_req writer_before writer_after jit_before jit_after jit_us
  local switches_before switches_after jiffies_before jiffies_after switches_req stolen_pct polls_req
  start_server "$mode" "$OUT/$mode.server.log"
  # A fresh JVM on one core needs more than one warm-up to finish JIT-compiling
  # its hot paths, which made whichever run came first look slow: give every
  # route and style one pass before the first measurement.
  if ((JIT_WARMUP > 0)); then
    for route in $ROUTES; do
      for style in $STYLES; do
        log "$mode: JIT warm-up ${JIT_WARMUP}s on $route $style"
        drive "$OUT/$mode.$route.$style.jit-warmup.txt" "$style" "http://127.0.0.1:$PORT$(route_path "$mode" "$route")" \
          "$JIT_WARMUP" || log "$mode: JIT warm-up load failed (see $OUT/$mode.$route.$style.jit-warmup.txt)"
      done
    done
  fi
  for route in $ROUTES; do
    url="http://127.0.0.1:$PORT$(route_path "$mode" "$route")"
    for style in $STYLES; do
      tag="$mode.$route.$style"
      raw="$OUT/$tag.wrk.txt"
      if ((WARMUP > 0)); then
        log "$tag: warm-up ${WARMUP}s"
        drive "$OUT/$tag.warmup.txt" "$style" "$url" "$WARMUP" || log "$tag: warm-up load failed (see $OUT/$tag.warmup.txt)"
      fi
      log "$tag: measuring ${DURATION}s"
      if $COUNT_SYSCALLS; then start_syscall_count "$OUT/$tag.syscalls.txt"; fi
      writer_before=$(thread_ticks keel-access-log)
      jit_before=$(thread_ticks "$JIT_THREADS")
      switches_before=$(context_switches)
      jiffies_before=$(cpu_jiffies "$SERVER_CPU")
      before=$(cpu_ticks) || die "$mode: server process is gone (log: $OUT/$mode.server.log)"
      t0=$(date +%s%N)
      drive "$raw" "$style" "$url" "$DURATION" --latency || log "$tag: the load failed: $(tail -n 3 "$raw" | tr '\n' ' ')"
      t1=$(date +%s%N)
      after=$(cpu_ticks) || die "$mode: server died during $tag (log: $OUT/$mode.server.log)"
      jiffies_after=$(cpu_jiffies "$SERVER_CPU")
      switches_after=$(context_switches)
      writer_after=$(thread_ticks keel-access-log)
      jit_after=$(thread_ticks "$JIT_THREADS")
      stop_syscall_count
      if [[ $style == fixed-rate ]]; then
        read -r reqs rps p50 p99 notes < <(parse_driver "$raw" "$DURATION")
      else
        read -r reqs rps p50 p99 _ notes < <(parse_wrk <"$raw")
      fi
      read -r cpu_us user_us cpu_pct < <(cpu_cost "$before" "$after" "$((t1 - t0))" "$reqs")
      jit_us=-1
      if [[ -n $jit_before && -n $jit_after ]]; then read -r jit_us _ < <(cpu_cost "$jit_before" "$jit_after" "$((t1 - t0))" "$reqs"); fi
      read -r writes_req wakeups_req polls_req < <(awk -v w="$WRITES" -v k="$WAKEUPS" -v p="$POLLS" -v n="$reqs" \
        'BEGIN { if (w == "" || n <= 0) print -1, -1, -1; else printf "%.4f %.4f %.4f\n", w / n, k / n, (p < 0 ? -1 : p / n) }')
      read -r switches_req stolen_pct < <(awk -v s="$((switches_after - switches_before))" -v n="$reqs" \
        -v b="$jiffies_before" -v a="$jiffies_after" 'BEGIN { split(b, x, " "); split(a, y, " ")
          printf "%.4f %.1f\n", (n > 0 ? s / n : -1), (y[2] > x[2] ? 100 * (y[1] - x[1]) / (y[2] - x[2]) : 0) }')
      if awk -v p="$stolen_pct" 'BEGIN { exit !(p >= 5) }'; then
        if [[ $notes == - ]]; then notes=cpu-stolen; else notes="$notes cpu-stolen"; fi
      fi
      printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$mode" "$route" "$style" "$rps" "$p50" "$p99" \
        "$cpu_us" "$user_us" "$cpu_pct" "$writes_req" "$wakeups_req" "$notes" "$ROUND" "$jit_us" "$switches_req" "$stolen_pct" \
        "$polls_req" >>"$TSV"
      log "$tag: $rps req/s, p50 ${p50} ms, p99 ${p99} ms, ${cpu_us} cpu us/req, ${writes_req} writes/req," \
        "${wakeups_req} wake-ups/req, ${polls_req} polls/req, ${switches_req} switches/req, server cpu ${cpu_pct}% (${stolen_pct}% stolen) ${notes/#-/}"
      if [[ -n $writer_before && -n $writer_after ]]; then
        read -r cpu_us user_us _ < <(cpu_cost "$writer_before" "$writer_after" "$((t1 - t0))" "$reqs" 3)
        log "$tag: of which the access log's writer thread: ${cpu_us} cpu us/req (user ${user_us})"
      fi
    done
  done
  if [[ $mode == *-accesslog* ]]; then
    local dropped
    dropped=$(curl -sf --max-time 5 "http://127.0.0.1:$PORT/metrics" \
      | awk '/^keel_http_server_access_log_dropped_total/ { printf "%d", $2 }') || dropped="n/a"
    log "$mode: access log lines dropped: ${dropped:-n/a}"
    ACCESS_DROPPED+="${ACCESS_DROPPED:+, }$mode round $ROUND: ${dropped:-n/a}"
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

# awk functions over the values of a round each, kept as a space-separated list: shared by the
# table's medians and the ratios' medians.
AWK_ROUNDS='
    # The values of list into x, ascending; their count.
    function sorted(list, x,   n, i, j, t) {
      n = split(list, x, " ")
      for (i = 2; i <= n; i++) { t = x[i]; for (j = i - 1; j >= 1 && x[j] + 0 > t + 0; j--) x[j + 1] = x[j]; x[j + 1] = t }
      return n
    }
    # The median of x[1..n], ascending.
    function middle(x, n) { return n % 2 ? x[(n + 1) / 2] : (x[n / 2] + x[n / 2 + 1]) / 2 }
    function median(list,   n, x) { n = sorted(list, x); return middle(x, n) }
'

# The rows of the run, one per mode, route and style: each figure the median of its rounds (with the
# range of cpu µs/req in the last field when there were several), notes joined.
median_rows() {
  awk -F '\t' "$AWK_ROUNDS"'
    # "rounds-split=S/F" when the rounds cost two clearly different amounts: sorted, the largest step
    # between neighbours is at least 8 % of the median and at least half the whole range; S rounds
    # above it (the costly ones), F below. The median then stands for whichever group is larger.
    function split_note(list,   n, x, i, step, at) {
      n = sorted(list, x); if (n < 4) return ""
      step = 0; for (i = 2; i <= n; i++) if (x[i] - x[i - 1] > step) { step = x[i] - x[i - 1]; at = i }
      if (step < 0.08 * middle(x, n) || step < 0.5 * (x[n] - x[1])) return ""
      return "rounds-split=" (n - at + 1) "/" (at - 1)
    }
    function range(list,   n, x) {
      n = sorted(list, x); if (n < 2) return ""
      return sprintf("%.2f-%.2f", x[1], x[n])
    }
    NR == 1 { print; next }
    { k = $1 "\t" $2 "\t" $3; if (!(k in seen)) { seen[k] = 1; keys[++nk] = k }
      for (f = 4; f <= 11; f++) vals[k, f] = vals[k, f] " " $f
      for (f = 14; f <= 17; f++) vals[k, f] = vals[k, f] " " $f
      if ($12 != "-" && index(" " notes[k] " ", " " $12 " ") == 0) notes[k] = (notes[k] == "" ? $12 : notes[k] " " $12) }
    END {
      for (i = 1; i <= nk; i++) {
        k = keys[i]; row = k
        for (f = 4; f <= 11; f++) row = row "\t" median(vals[k, f])
        split_at = split_note(vals[k, 7])
        if (split_at != "") notes[k] = (notes[k] == "" ? split_at : notes[k] " " split_at)
        print row "\t" (notes[k] == "" ? "-" : notes[k]) "\t" range(vals[k, 7]) "\t" median(vals[k, 14]) "\t" median(vals[k, 15]) "\t" median(vals[k, 16]) "\t" median(vals[k, 17])
      }
    }' "$TSV"
}

render_table() {
  median_rows | awk -F '\t' '
    function num(v, fmt) { return (v < 0 ? "n/a" : sprintf(fmt, v)) }
    function over(a, b) { return (b > 0 && a > 0) ? sprintf("%.2fx", a / b) : "n/a" }
    NR == 1 { next }
    { n++; m[n] = $1; r[n] = $2; s[n] = $3; rps[n] = $4; p50[n] = $5; p99[n] = $6; cpu[n] = $7; usr[n] = $8
      pct[n] = $9; wr[n] = $10; wk[n] = $11; note[n] = $12; spread[n] = $13; jit[n] = $14; sw[n] = $15; stolen[n] = $16; polls[n] = $17
      if ($1 == "netty-epoll") { netty[$2 "/" $3] = $7; nettyusr[$2 "/" $3] = $8 } }
    END {
      print "| mode | route | style | req/s | p50 ms | p99 ms | cpu µs/req | of which JIT | vs netty | user µs/req | user vs netty | writes/req | wake-ups/req | polls/req | switches/req | srv cpu% | stolen% | notes |"
      print "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"
      for (i = 1; i <= n; i++) {
        k = r[i] "/" s[i]; ratio = ""; uratio = ""
        if (m[i] != "netty-epoll") { ratio = (k in netty) ? over(cpu[i], netty[k]) : "n/a"; uratio = (k in nettyusr) ? over(usr[i], nettyusr[k]) : "n/a" }
        printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", m[i], r[i], s[i],
          num(rps[i], "%.0f"), num(p50[i], "%.3f"), num(p99[i], "%.3f"), num(cpu[i], "%.2f") (spread[i] == "" ? "" : " (" spread[i] ")"),
          num(jit[i], "%.3f"), ratio,
          num(usr[i], "%.2f"), uratio, num(wr[i], "%.4f"), num(wk[i], "%.4f"), num(polls[i], "%.4f"), num(sw[i], "%.4f"), pct[i], stolen[i],
          (note[i] == "-" ? "" : note[i])
      }
    }'
}

# The ratios of two modes of the run, with their goals: one row per comparison below whose modes both
# ran, one column per route and style; a style the comparison does not cover stays empty.
RATIOS='label|numerator|denominator|field|styles|goal
req/s, Keel event loop / Netty epoll|keel-nio-event-loop|netty-epoll|req_s|pipelined|>= 1.6
cpu µs/req, Keel event loop / Netty epoll|keel-nio-event-loop|netty-epoll|cpu_us_req|keep-alive fixed-rate|<= 0.95
req/s, Keel event loop / Vert.x|keel-nio-event-loop|vertx|req_s|pipelined|
cpu µs/req, Keel event loop / Vert.x|keel-nio-event-loop|vertx|cpu_us_req|keep-alive fixed-rate|
cpu µs/req, virtual-thread / event loop|keel-nio-virtual-thread|keel-nio-event-loop|cpu_us_req|keep-alive pipelined fixed-rate|<= 1.3
cpu µs/req, worker-pool / event loop|keel-nio-worker-pool|keel-nio-event-loop|cpu_us_req|keep-alive pipelined fixed-rate|<= 1.3
cpu µs/req, async handlers / event loop|keel-nio-async|keel-nio-event-loop|cpu_us_req|keep-alive pipelined fixed-rate|<= 1.3
cpu µs/req, metrics on / off|keel-nio-event-loop|keel-nio-event-loop-nometrics|cpu_us_req|keep-alive pipelined fixed-rate|<= 1.05
cpu µs/req, guard on / off|keel-nio-event-loop|keel-nio-event-loop-noguard|cpu_us_req|keep-alive pipelined fixed-rate|
cpu µs/req, NATIVE_IO / the JDK socket channel|keel-nio-event-loop|keel-nio-event-loop-jdkio|cpu_us_req|keep-alive pipelined fixed-rate|
cpu µs/req, virtual threads on Keel carriers / on the JDK scheduler|keel-nio-virtual-thread|keel-nio-virtual-thread-jdk|cpu_us_req|keep-alive pipelined fixed-rate|
cpu µs/req, virtual threads on the loop / event loop|keel-nio-virtual-thread-loop|keel-nio-event-loop|cpu_us_req|keep-alive pipelined fixed-rate|
cpu µs/req, access log on / off|keel-nio-event-loop-accesslog|keel-nio-event-loop|cpu_us_req|keep-alive pipelined fixed-rate|<= 1.1
cpu µs/req, access log with its pages kept in the page cache on / off|keel-nio-event-loop-accesslog-cached|keel-nio-event-loop|cpu_us_req|keep-alive pipelined fixed-rate|'

render_ratios() {
  local ratios=$RATIOS m
  if [[ -n $BASE_BIN ]]; then
    for m in $KEEL_MODES; do ratios+=$'\n'"cpu µs/req, $m: this build / base|$m|base-$m|cpu_us_req|keep-alive pipelined fixed-rate|"; done
  fi
  awk -F '\t' -v ratios="$ratios" -v dropped="${ACCESS_DROPPED:-}" "$AWK_ROUNDS"'
    NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
    { ran[$1] = 1; for (f in col) v[$1, $2, $3, f, $col["round"]] = $col[f]
      if (!($col["round"] in round)) { round[$col["round"]] = 1; rounds[++nround] = $col["round"] }
      k = $2 " " $3; if (!(k in seen)) { seen[k] = 1; keys[++nk] = k } }
    END {
      nr = split(ratios, line, "\n"); rows = ""
      for (i = 2; i <= nr; i++) {
        split(line[i], c, "|"); if (!(c[2] in ran) || !(c[3] in ran)) continue
        row = "| " c[1] " | " (c[6] == "" ? "" : c[6] "x")
        for (j = 1; j <= nk; j++) {
          split(keys[j], rs, " "); cell = ""
          if (index(" " c[5] " ", " " rs[2] " ")) {
            ql = ""
            for (r = 1; r <= nround; r++) {
              a = v[c[2], rs[1], rs[2], c[4], rounds[r]]; b = v[c[3], rs[1], rs[2], c[4], rounds[r]]
              if (a > 0 && b > 0) ql = ql " " sprintf("%.17g", a / b)
            }
            nq = sorted(ql, qs)
            if (nq > 0) {
              q = middle(qs, nq); cell = sprintf("%.2fx", q)
              if (nq > 1) cell = cell sprintf(" (%.2f-%.2f)", qs[1], qs[nq])
              if (c[6] != "") { split(c[6], g, " "); ok = (g[1] == ">=") ? q >= g[2] : q <= g[2]; cell = cell (ok ? " ok" : " MISSED") }
            } else cell = "n/a"
          }
          row = row " | " cell
        }
        rows = rows row " |\n"
      }
      if (rows == "") exit
      head = "| ratio | goal"; rule = "|---|---"
      for (j = 1; j <= nk; j++) { head = head " | " keys[j]; rule = rule "|---:" }
      printf "\n%s |\n%s|\n%s", head, rule, rows
      if ("keel-nio-event-loop-accesslog" in ran || "keel-nio-event-loop-accesslog-cached" in ran) printf "\nAccess log lines dropped: %s.\n", (dropped == "" ? "n/a" : dropped)
    }' "$TSV"
}

# The Keel build measured, when KEEL_BIN is another checkout's launcher than this script's.
keel_build() {
  local repo
  repo=$(cd "$(dirname "$KEEL_BIN")/.." && pwd)
  if [[ $repo != "$ROOT" && " $MODES " == *" keel-"* ]]; then echo "; Keel measured: $repo, $(git_desc "$repo")"; fi
  if [[ -n $BASE_BIN ]]; then echo "; base-keel-*: $BASE_BIN, $(git_desc "$(cd "$(dirname "$BASE_BIN")/.." && pwd)")"; fi
}

# Writes $OUT/table.md and prints it; $1 is an optional remark for the heading.
emit_table() {
  TABLE_DONE=true
  {
    echo "## Keel throughput ($(date -u +%Y-%m-%dT%H:%M:%SZ))${1:+ ($1)}"
    echo
    echo "wrk -t1 -c$CONNECTIONS, ${DURATION}s measured after ${WARMUP}s warm-up$( ((ROUNDS > 1)) && echo ", medians of $ROUNDS rounds"); pipelined = $PIPELINE per batch" \
      "(one write per batch: $(awk -v p="$PIPELINE" 'BEGIN { printf "%.4f", 1 / p }') writes/req);" \
      "$([[ " $STYLES " == *" fixed-rate "* ]] && echo "fixed-rate = $RATE req/s offered open loop on $FIXED_RATE_CONNECTIONS connections by bench/overload-driver;")" \
      "server on CPU $SERVER_CPU, wrk on CPU $CLIENT_CPU; $("$JAVA_HOME/bin/java" -version 2>&1 | head -n 1);" \
      "$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null || true);" \
      "$(git_desc)$(keel_build); load average (1, 5, 15 min) at the start: $LOAD_START, at the end: $(load_average)"
    echo
    render_table
    render_ratios
  } >"$OUT/table.md"
  ln -sfn "$(basename "$OUT")" "$ROOT/bench/results/latest"
  cat "$OUT/table.md"
  log "wrote $OUT/table.md"
}

# ------------------------------------------------------------------- main ---

for ((ROUND = 1; ROUND <= ROUNDS; ROUND++)); do
  for mode in $MODES; do
    run_mode "$mode"
  done
done
emit_table
