# shellcheck shell=bash
# Helpers shared by the bench scripts. Source right after setting ROOT (the repository); the helpers
# below read PORT, BASE, CLIENT_CPU, SERVER_CPU, KEEL_BIN, LOOPS, READY_TIMEOUT as the scripts set them.

# The JDK lookup (keel_java_home); the second source path serves a check of this file alone.
# shellcheck source-path=SCRIPTDIR source-path=SCRIPTDIR/.. source=../lib/java.sh
source "$ROOT/lib/java.sh"

# Progress and errors on stderr, tagged with the script's name: "[tls] ...". Ctrl-C and SIGTERM end
# the script through its exit trap.
BENCH_NAME=$(basename "$0" .sh)
log() { printf '[%s] %s\n' "$BENCH_NAME" "$*" >&2; }
die() { printf '[%s] error: %s\n' "$BENCH_NAME" "$*" >&2; exit 1; }
trap 'log "interrupted"; exit 130' INT TERM

# True when something listens on 127.0.0.1:$PORT.
port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; }

# Waits up to 2 s for $PORT to be free (a server just stopped may hold it still), or dies.
await_free_port() {
  local i
  for ((i = 0; i < 10; i++)); do port_in_use || return 0; sleep 0.2; done
  die "port $PORT is already in use; pick another with PORT=..."
}

# Sends SIGTERM, then SIGKILL after 15 s, to one PID this script started.
terminate_pid() {
  local pid=$1 i
  kill -0 "$pid" 2>/dev/null || return 0
  kill "$pid" 2>/dev/null || true
  for ((i = 0; i < 150; i++)); do
    kill -0 "$pid" 2>/dev/null || return 0
    sleep 0.1
  done
  log "process $pid ignored SIGTERM for 15 s, sending SIGKILL"
  kill -9 "$pid" 2>/dev/null || true
}

# "commit abc1234" (+ " + local changes" when the tree differs from it), for result headings.
git_desc() { # [repository, default $ROOT]
  local repo=${1:-$ROOT} rev
  rev=$(git -C "$repo" rev-parse --short HEAD 2>/dev/null) || { echo "no git commit"; return 0; }
  if git -C "$repo" diff --quiet HEAD 2>/dev/null; then echo "commit $rev"; else echo "commit $rev + local changes"; fi
}

# Creates this run's folder, bench/results/<script>-<timestamp> (gitignored), and sets OUT to it.
make_out_dir() {
  OUT="$ROOT/bench/results/$BENCH_NAME-$(date +%Y%m%d-%H%M%S)"
  mkdir -p "$OUT"
}

# What every exit trap does last: stops the load clients (run_client) and the server, prints the table so far (emit_table)
# when the run failed after writing rows to file $2 (below $3 header lines, default 0) but before
# its table, and exits with status $1.
TABLE_DONE=false  # emit_table sets it
exit_trap() { # status [rows_file [header_lines]]
  stop_clients
  stop_server
  if [[ $1 -ne 0 && $TABLE_DONE == false && -f ${2:-} ]] && (($(wc -l <"$2") > ${3:-0})); then
    emit_table "PARTIAL: the run stopped early" || true
  fi
  exit "$1"
}

# ---------------------------------------------------------------- checks ---

# Dies unless each named variable holds a non-negative integer.
require_integers() {
  local v
  for v in "$@"; do [[ ${!v} =~ ^[0-9]+$ ]] || die "$v must be a non-negative integer, got '${!v}'"; done
}

# require_tools "how to get them" tool...: dies naming the first tool not in PATH.
require_tools() {
  local hint=$1 tool
  shift
  for tool in "$@"; do command -v "$tool" >/dev/null 2>&1 || die "'$tool' not found ($hint)"; done
}

# Installs wrk from Debian's packages when it is missing and this script runs as root.
install_wrk_if_missing() {
  if ! command -v wrk >/dev/null 2>&1 && [[ $(id -u) == 0 ]] && command -v apt-get >/dev/null 2>&1; then
    log "installing wrk from Debian's packages"
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk; } >&2 || die "could not install wrk"
  fi
}

# Dies unless this machine has CPUs SERVER_CPU and CLIENT_CPU.
require_cpus() {
  local ncpu
  ncpu=$(getconf _NPROCESSORS_ONLN)
  ((SERVER_CPU < ncpu && CLIENT_CPU < ncpu)) \
    || die "need CPUs $SERVER_CPU and $CLIENT_CPU for server and client, this machine has $ncpu"
}

# Exports JAVA_HOME (and PATH) for a JDK >= 25, or dies.
use_java_25() {
  JAVA_HOME=$(keel_java_home) || die "a JDK >= 25 is required"
  export JAVA_HOME PATH="$JAVA_HOME/bin:$PATH"
}

# Runs $KEEL_BIN --help, which builds Keel on first use, so that no build lands in a measurement; dies
# when it cannot. $1, optional: what to do without Keel, for the error.
# shellcheck disable=SC2120 # $1 is optional
prepare_keel() {
  [[ -x $KEEL_BIN ]] || die "$KEEL_BIN not found or not executable${1:+ ($1)}"
  log "preparing Keel ($KEEL_BIN --help; builds on first use)..."
  "$KEEL_BIN" --help >/dev/null || die "$KEEL_BIN --help failed; fix the build first"
}

# Dies unless the RabbitMQ broker answers.
require_broker() {
  rabbitmqctl -q status >/dev/null 2>&1 || die "RabbitMQ is not running: start it with 'bin/keel services up'"
}

# ------------------------------------------------------------------- wrk ---

# Runs a load client, command "$@" after its output file $1, pinned to CPU CLIENT_CPU, in the
# background so that signals act at once; returns its status. CLIENT_PID names it while it runs (for
# an exit trap), as BACKGROUND_CLIENT_PID names one a script runs beside it (overload.sh's idle driver).
CLIENT_PID="" BACKGROUND_CLIENT_PID=""
run_client() {
  local out=$1 rc=0
  shift
  taskset -c "$CLIENT_CPU" "$@" >"$out" 2>&1 </dev/null &
  CLIENT_PID=$!
  wait "$CLIENT_PID" || rc=$?
  CLIENT_PID=""
  return "$rc"
}

# run_client for wrk: $1 is the output file, the rest wrk's arguments.
run_wrk() { run_client "$1" wrk "${@:2}"; }

# Stops the clients run_client and a script have running, and a write count, if any (for an exit trap).
stop_clients() {
  local pid
  for pid in "$CLIENT_PID" "$BACKGROUND_CLIENT_PID" "${WRITE_COUNT_PID:-}"; do
    [[ -n $pid ]] || continue
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
}

# wrk output -> "requests req_s p50_ms p99_ms max_ms notes": -1 for a figure that is missing, notes
# the socket errors and non-2xx responses wrk reports ("-" when clean).
parse_wrk() {
  awk '
    function ms(v,   n, u) {
      n = v + 0; u = v; sub(/^[0-9.]+/, "", u)
      if (u == "us") return n / 1000; if (u == "ms") return n
      if (u == "s") return n * 1000; if (u == "m") return n * 60000; if (u == "h") return n * 3600000
      return -1
    }
    $2 == "requests" && $3 == "in" { reqs = $1 }
    $1 == "Latency" && NF >= 4 { max = ms($4) }
    $1 == "Requests/sec:" { rps = $2 }
    # wrk sometimes prints 0.00us for high percentiles of pipelined runs (a wrk
    # bug in its histogram); report those as unknown rather than as zero.
    $1 == "50%" { p50 = ms($2); if (p50 == 0) { p50 = -1; bad = 1 } }
    $1 == "99%" { p99 = ms($2); if (p99 == 0) { p99 = -1; bad = 1 } }
    /Socket errors:/ { sub(/^ *Socket errors: */, ""); gsub(/,/, ""); se = $0 }
    /Non-2xx or 3xx responses:/ { non2xx = $NF }
    END {
      notes = ""
      if (se != "") { split(se, a, " "); for (i = 1; i < 8; i += 2) if (a[i+1] + 0 > 0) notes = notes a[i] "=" a[i+1] " " }
      if (non2xx != "") notes = notes "non-2xx=" non2xx " "
      if (bad) notes = notes "wrk-percentile-glitch"
      sub(/ +$/, "", notes); gsub(/ /, ",", notes); if (notes == "") notes = "-"
      if (reqs == "" || rps == "") { print "0 -1 -1 -1 -1 unparsable-wrk-output"; exit }
      printf "%s %s %s %s %s %s\n", reqs, rps, (p50 == "" ? -1 : p50), (p99 == "" ? -1 : p99), (max == "" ? -1 : max), notes
    }'
}

# ------------------------------------------------------ a Java load driver ---

# A driver's "key=value ..." result line ($1) -> the value of key $2.
field() { tr ' ' '\n' <<<"$1" | awk -F= -v key="$2" '$1 == key { print $2 }'; }

# ------------------------------------------------- the server under test ---

SERVER_PID=""  # what a script started: taskset exec's bin/keel, which exec's java
JVM_PID=""     # the JVM of SERVER_PID, once find_jvm_pid has found it

# Sets JVM_PID to $1 when it is a JVM, else to a java descendant of it (in case a launcher forks
# instead of exec'ing); returns 1 when there is none.
find_jvm_pid() {
  local pid=$1 comm child
  comm=$(cat "/proc/$pid/comm" 2>/dev/null || true)
  if [[ $comm == java ]]; then JVM_PID=$pid; return 0; fi
  for child in $(cat /proc/"$pid"/task/*/children 2>/dev/null || true); do
    if find_jvm_pid "$child"; then return 0; fi
  done
  return 1
}

# find_jvm_pid for SERVER_PID, noting a JVM that is a child of it.
locate_jvm() {
  JVM_PID=""
  find_jvm_pid "$SERVER_PID" || return 1
  [[ $JVM_PID == "$SERVER_PID" ]] || log "note: JVM is PID $JVM_PID, a child of launched PID $SERVER_PID"
}

# Stops the server, its JVM first when that is a child of it, and waits for it.
stop_server() {
  local pid=$SERVER_PID jvm=$JVM_PID
  SERVER_PID="" JVM_PID=""
  [[ -n $pid ]] || return 0
  if [[ -z $jvm ]] && find_jvm_pid "$pid"; then jvm=$JVM_PID; JVM_PID=""; fi
  if [[ -n $jvm && $jvm != "$pid" ]]; then terminate_pid "$jvm"; fi
  terminate_pid "$pid"
  wait "$pid" 2>/dev/null || true
}

# Starts a server, command "$@", on CPU SERVER_CPU once PORT is free, its output to log_file.
launch_server() { # name log_file command...
  local name=$1 logf=$2
  shift 2
  await_free_port
  log "starting $name: taskset -c $SERVER_CPU $*"
  taskset -c "$SERVER_CPU" "$@" >"$logf" 2>&1 </dev/null &
  SERVER_PID=$!
}

# Polls a URL with curl (the last argument; any before it are more curl options) every 0.2 s until it
# answers. Returns 1, with the reason in READY_ERROR, when SERVER_PID exits or READY_TIMEOUT runs out.
wait_ready() {
  local url=${*: -1} deadline=$((SECONDS + READY_TIMEOUT))
  READY_ERROR=""
  until curl -sf -o /dev/null --max-time 2 "$@"; do
    kill -0 "$SERVER_PID" 2>/dev/null || { READY_ERROR="exited before it answered $url"; return 1; }
    ((SECONDS < deadline)) || { READY_ERROR="did not answer $url within ${READY_TIMEOUT}s"; return 1; }
    sleep 0.2
  done
}

start_server() { # log_file keel_args...
  local logf=$1
  shift
  await_free_port
  log "starting: nice -n ${SERVER_NICE:-0} taskset -c $SERVER_CPU bin/keel serve --port $PORT --access-log false --health-grace 0s $*"
  # SERVER_NICE (default 0) < 0 shields the server from unrelated work on a shared machine (needs root).
  # No access log: a load test would fill the server's log with a line per request (bench/throughput.sh prices it).
  # No health grace: no balancer sends it requests, so its stop need not wait for one to take it out.
  nice -n "${SERVER_NICE:-0}" taskset -c "$SERVER_CPU" "$KEEL_BIN" serve --port "$PORT" --loops "$LOOPS" --access-log false \
    --health-grace 0s "$@" >"$logf" 2>&1 </dev/null &
  SERVER_PID=$!
  wait_ready "$BASE/benchmark/health" || { tail -n 30 "$logf" >&2; die "server $READY_ERROR (log: $logf)"; }
  if grep -q 'building' "$logf"; then log "warning: bin/keel rebuilt Keel at this start (sources changed meanwhile)"; fi
}

# ------------------------------------ CPU time, write calls and the peers ---

# "utime stime" of JVM_PID in clock ticks: fields 14 and 15 of /proc/PID/stat, counted after the ")"
# that closes comm.
cpu_ticks() {
  local stat rest
  stat=$(cat "/proc/$JVM_PID/stat" 2>/dev/null) || return 1
  rest=${stat##*) }
  awk '{ print $12, $13 }' <<<"$rest"
}

# Counting system calls of JVM_PID's threads with perf's syscall tracepoints, which cost the server
# next to nothing: the writes that carry data (write and sendto of more than 8 bytes, writev, sendmsg:
# responses to sockets, lines to files); apart from them the writes of at most 8 bytes, the wake-ups
# of a loop through its eventfd or pipe; and the polls (epoll_wait, epoll_pwait, epoll_pwait2: the
# JDK's selector uses the first, Netty's epoll transport the last). /proc/PID/io's syscw tells no
# writes apart, and misses sendto, which Netty's epoll transport uses.
WRITE_EVENTS=(-e syscalls:sys_enter_write --filter 'count > 8' -e syscalls:sys_enter_writev
  -e syscalls:sys_enter_sendto --filter 'len > 8' -e syscalls:sys_enter_sendmsg
  -e syscalls:sys_enter_write --filter 'count <= 8')
SYSCALL_EVENTS=("${WRITE_EVENTS[@]}")
SYSCALL_COUNT_PID="" SYSCALL_COUNT_FILE=""

# True when perf can count syscalls here (it needs the tracepoints and the right to use them); sets
# SYSCALL_EVENTS to the writes and the polls this kernel has tracepoints for (one before 5.11 has no
# epoll_pwait2).
can_count_syscalls() {
  SYSCALL_EVENTS=("${WRITE_EVENTS[@]}")
  command -v perf >/dev/null 2>&1 && perf stat -x, "${SYSCALL_EVENTS[@]}" -- true >/dev/null 2>&1 || return 1
  local call
  for call in epoll_wait epoll_pwait epoll_pwait2; do
    if perf stat -x, -e "syscalls:sys_enter_$call" -- true >/dev/null 2>&1; then SYSCALL_EVENTS+=(-e "syscalls:sys_enter_$call"); fi
  done
}

# Starts counting into file $1, perf pinned to CPU CLIENT_CPU; stop_syscall_count ends it.
start_syscall_count() { # out_file
  SYSCALL_COUNT_FILE=$1
  taskset -c "$CLIENT_CPU" perf stat -x, -o "$1" "${SYSCALL_EVENTS[@]}" -p "$JVM_PID" >/dev/null 2>&1 </dev/null &
  SYSCALL_COUNT_PID=$!
  sleep 0.3 # perf attaches to every thread before the load starts
}

# Ends the count start_syscall_count began and sets WRITES, WAKEUPS and POLLS to the calls counted
# (all empty when perf failed; POLLS -1 when no poll could be counted). Not in a $(...) subshell:
# only this shell can wait for perf to write its file.
WRITES="" WAKEUPS="" POLLS=""
# shellcheck disable=SC2034 # WRITES, WAKEUPS and POLLS are read by the scripts
stop_syscall_count() {
  WRITES="" WAKEUPS="" POLLS=""
  [[ -n $SYSCALL_COUNT_PID ]] || return 0
  kill -INT "$SYSCALL_COUNT_PID" 2>/dev/null || true
  wait "$SYSCALL_COUNT_PID" 2>/dev/null || true
  SYSCALL_COUNT_PID=""
  local word events=0
  for word in "${SYSCALL_EVENTS[@]}"; do [[ $word != -e ]] || events=$((events + 1)); done
  read -r WRITES WAKEUPS POLLS < <(awk -F, -v events="$events" '/^[0-9]+,/ { if (++n < 5) w += $1; else if (n == 5) k = $1; else p += $1 }
    END { if (n == events) print w, k, (n > 5 ? p : -1) }' "$SYSCALL_COUNT_FILE" 2>/dev/null) || true
}

# The context switches of JVM_PID's threads so far, voluntary (a thread parks or waits in a poll)
# and not (the scheduler takes the CPU from it), summed over the threads alive now.
context_switches() {
  awk '/^(non)?voluntary_ctxt_switches/ { n += $2 } END { print n + 0 }' /proc/"$JVM_PID"/task/*/status 2>/dev/null
}

# CPU $1's jiffies from /proc/stat -> "stolen total": the time the hypervisor ran something else while
# this guest wanted the CPU (steal), and all of its time.
cpu_jiffies() { # cpu
  awk -v cpu="cpu$1" '$1 == cpu { t = 0; for (i = 2; i <= 9; i++) t += $i; print $9, t; exit }' /proc/stat
}

# Two cpu_ticks, the wall time between them and what was done in it -> "cpu_us user_us cpu_pct":
# CPU time and its user part per unit done, with $5 decimals (default 2; -1 when nothing was done),
# and CPU time over wall time in %.
cpu_cost() { # before after wall_ns count [decimals]
  awk -v b="$1" -v a="$2" -v ns="$3" -v n="$4" -v f="%.${5:-2}f" -v hz="$(getconf CLK_TCK)" 'BEGIN {
    split(b, b2, " "); split(a, a2, " ")
    user = (a2[1] - b2[1]) / hz; s = user + (a2[2] - b2[2]) / hz
    printf "%s %s %.0f\n", (n > 0 ? sprintf(f, s * 1e6 / n) : "-1"), (n > 0 ? sprintf(f, user * 1e6 / n) : "-1"),
      s * 1e9 * 100 / ns }'
}

# bench/NAME's jar: the peers' hello servers, Maven projects outside the root pom.
hello_jar() { echo "$ROOT/bench/$1/target/$1.jar"; }
# shellcheck disable=SC2034 # read by the scripts that start them
NETTY_JAR=$(hello_jar netty-hello) VERTX_JAR=$(hello_jar vertx-hello)

# Builds bench/NAME (netty-hello, vertx-hello) when its jar is missing or older than its sources; dies
# when it cannot.
build_hello_jar() { # name
  local dir="$ROOT/bench/$1" jar mvn_log
  jar=$(hello_jar "$1")
  if [[ ! -f $jar ]] || [[ -n $(find "$dir/pom.xml" "$dir/src" -newer "$jar" -print -quit) ]]; then
    log "building bench/$1..."
    mvn_log=$(mktemp)
    if ! mvn -q -f "$dir/pom.xml" package >"$mvn_log" 2>&1; then
      grep -v -e 'sun.misc.Unsafe' -e '^WARNING: Please consider' "$mvn_log" >&2 || true
      rm -f "$mvn_log"
      die "building bench/$1 failed"
    fi
    rm -f "$mvn_log"
  fi
  [[ -f $jar ]] || die "$jar missing after the build"
}

# ------------------------------------------------------------ loop lag ---

# /metrics before and after the measured run, measured path -> "lag_p99_ms lag_max_ms watchdog".
# Lag comes from the histogram buckets' growth between the two scrapes, so warm-up and start-up are
# left out: p99 is interpolated inside its bucket (as Prometheus' histogram_quantile does), max is the
# upper edge of the highest bucket that grew; both are the largest over the loops, -1 when missing.
# watchdog: detections during the run, plus "(route count)" for detections on other routes.
parse_metrics() { # before-file after-file path
  awk -v path="$3" '
    FNR == 1 { file++ }
    /^keel_event_loop_lag_seconds_bucket\{/ {
      loop = $0; sub(/^.*loop="/, "", loop); sub(/".*$/, "", loop)
      le = $0; sub(/^.*le="/, "", le); sub(/".*$/, "", le)
      key = loop SUBSEP le
      if (file == 1) { before[key] = $NF; next }
      if (!(loop in n)) { loops[++nl] = loop; n[loop] = 0 }
      les[loop, ++n[loop]] = le; grown[key] = $NF - before[key]
    }
    /^keel_event_loop_blocked_total/ {
      r = $0; sub(/^.*route="/, "", r); sub(/".*$/, "", r)
      if (file == 1) { wdbefore[r] = $NF; next }
      d = $NF - wdbefore[r]; if (d <= 0) next
      wd += d; if (r != path) other = other (other == "" ? "" : ", ") r " " sprintf("%d", d)
    }
    END {
      p99 = -1; mx = -1
      for (i = 1; i <= nl; i++) {
        loop = loops[i]; total = grown[loop, "+Inf"]; if (total <= 0) continue
        rank = 0.99 * total; lower = 0; prev = 0; found = 0
        for (j = 1; j <= n[loop]; j++) {
          le = les[loop, j]; c = grown[loop, le]
          upper = (le == "+Inf") ? lower : le * 1000
          if (!found && c >= rank) {
            q = (c > prev) ? lower + (upper - lower) * (rank - prev) / (c - prev) : upper
            if (q > p99) p99 = q; found = 1
          }
          if (c > prev && upper > mx) mx = upper
          lower = upper; prev = c
        }
      }
      printf "%.1f %.1f %d%s\n", p99, mx, wd, (other == "" ? "" : " (" other ")")
    }' "$1" "$2"
}
