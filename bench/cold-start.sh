#!/usr/bin/env bash
# bench/cold-start.sh: what warm-up buys a fresh JVM, for the server and for the client.
#
# What it measures
#   Each repeat starts every server row in a fresh JVM, one after the other, on CPU SERVER_CPU:
#     keel            bin/keel serve (its defaults: warm-up, access log, gateway; the AOT cache
#                     that bin/keel trains and uses)
#     keel-warmup-off the same with --warmup false
#     keel-no-aot     the same as keel with KEEL_AOT=off (no AOT cache)
#     keel-base       the same as keel, from another build's launcher (BASE_BIN): a change's before
#                     and after, side by side in one run
#     microhttp       bench/microhttp-hello (microhttp's hello world)
#     netty           bench/netty-hello (Netty 4.2 NIO hello world)
#   From the launch, the script polls a TCP connect until the port opens ("port"), then at once
#   sends GET ROUTE on a new connection (curl on CPU CLIENT_CPU, -w %{time_total}), then CALLS
#   more, one after the other, each on a new connection: "first" against their median. "first
#   200" is launch to the first request's 200 as seen by the script. Then the server's resident
#   memory (VmRSS), and the server stops. "CPU to port" is the CPU time the server's process had
#   used when its port opened (launcher, JVM and every thread: /proc/PID/stat), which the
#   machine's other load disturbs far less than the wall-clock figures.
#   With IDLE_CONNECTIONS > 0 (default 10000), one more start of keel, keel-base and netty each: that many
#   keep-alive connections, each after one request, are held open by a Python client on CPU
#   CLIENT_CPU, and the resident memory is read again: 1 s after the last connection opened
#   ("held"), and IDLE_SETTLE seconds later ("settled"), once a JIT compilation that the burst
#   of connections started has ended and its memory is given back (the JVM keeps a compiler's
#   freed memory 5 s, and bin/keel's JVMs hand freed native memory back every 5 s). The goal is
#   read on "settled": memory that idle connections hold.
#   client   a fresh JVM runs keel.lab.ColdStartProbe on CPU CLIENT_CPU: a new
#            HttpClient (RequestPathWarmup.client(client, upstream) first, its default first touch; or
#            RequestPathWarmup.client(client, 500, upstream), which waits for the JIT too: "on, JIT"; or no warm-up) calls
#              POST /upstream/refine-address   (a small address JSON)
#            on an upstream that is already running and warm (bin/keel serve
#            --upstream-delay 0ms on UPSTREAM_PORT, CPU SERVER_CPU, warmed by
#            UPSTREAM_WARM_REQUESTS requests before the first probe), once and
#            then CALLS more times; times are from send to the whole response.
#
# How to read the table
#   Each cell is the median over REPEATS fresh JVMs; "spread" is the min-max
#   of first/median over those JVMs.
#   port ms       launch to the port accepting a TCP connection
#   CPU to port   the server's CPU time (ms) when its port opened
#   first 200 ms  launch to the first request's 200
#   first ms      latency of the first request (server) or call (client)
#   median ms     median of the CALLS that follow it
#   p90 ms        their 90th percentile: how far this machine's noise alone
#                 takes one request
#   first/median  the cold-start penalty (the target for keel: <= 3x, first 200 <= 300 ms)
#   RSS MiB       resident memory after the CALLS (server rows)
#   warm-up ms    how long RequestPathWarmup.client took (client rows)
#   stolen ms     the time the hypervisor gave the server's CPU to another guest
#                 from the launch to the first 200 (steal in /proc/stat, in
#                 10 ms ticks): on a shared virtual machine, a start that waited
#                 for its CPU that long has its wall-clock figures that much later
#   A curl's time includes its own connection set-up on loopback (~0.1 ms),
#   the same for the first and the median, so ratios stay comparable.
#   The first request goes out the moment the port opens, as a load balancer's
#   would (FIRST_AFTER=ready: once a Keel server printed "serving on" instead).
#   One sample per JVM on a shared machine: read the spread, the load average
#   in the heading, and the steady median's own noise, before the ratio.
#
# Usage
#   bench/cold-start.sh                       # every server row and the client, 5 repeats, ~4 min
#   REPEATS=3 SERVERS="keel netty" IDLE_CONNECTIONS=0 bench/cold-start.sh
#   SIDES=client bench/cold-start.sh
#
# Environment (defaults in brackets)
#   REPEATS [5]     fresh JVMs per row          CALLS [100]  requests after the first
#   SIDES [server client]   which rows
#   SERVERS [keel keel-warmup-off keel-no-aot microhttp netty]   server rows
#   ROUTE [/benchmark/hello]   the route every server row calls (the reference servers serve only it)
#   IDLE_CONNECTIONS [10000]   keep-alive connections for the memory rows (0: none)
#   IDLE_SETTLE [12]    seconds from "held" to "settled" in the memory rows
#   FIRST_AFTER [port]  send the server's first request when the port opens
#                   ("port") or after the "serving on" line ("ready")
#   PORT [18110], UPSTREAM_PORT [18111], UPSTREAM_WARM_REQUESTS [300]
#   SERVER_CPU [0], CLIENT_CPU [1], READY_TIMEOUT [60], KEEL_BIN [bin/keel]
#   BASE_BIN        another build's bin/keel, for the keel-base row
#
# Output: the table on stdout, progress on stderr; table, raw timings and
# server logs under bench/results/cold-start-<timestamp>/ (gitignored).

set -euo pipefail

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$BENCH_DIR/.." && pwd)

REPEATS=${REPEATS:-5} CALLS=${CALLS:-100} SIDES=${SIDES:-server client} ROUTE=${ROUTE:-/benchmark/hello}
SERVERS=${SERVERS:-keel keel-warmup-off keel-no-aot microhttp netty} IDLE_CONNECTIONS=${IDLE_CONNECTIONS:-10000} IDLE_SETTLE=${IDLE_SETTLE:-12}
PORT=${PORT:-18110} UPSTREAM_PORT=${UPSTREAM_PORT:-18111} UPSTREAM_WARM_REQUESTS=${UPSTREAM_WARM_REQUESTS:-300}
SERVER_CPU=${SERVER_CPU:-0} CLIENT_CPU=${CLIENT_CPU:-1} READY_TIMEOUT=${READY_TIMEOUT:-60}
KEEL_BIN=${KEEL_BIN:-$ROOT/bin/keel} FIRST_AFTER=${FIRST_AFTER:-port} BASE_BIN=${BASE_BIN:-}
TARGET_RATIO=3 TARGET_FIRST_200_MS=300  # keel's first request within 3x the steady median, its first 200 within 300 ms

# shellcheck source-path=SCRIPTDIR source=lib/bench.sh
source "$BENCH_DIR/lib/bench.sh"
require_integers REPEATS CALLS IDLE_CONNECTIONS IDLE_SETTLE PORT UPSTREAM_PORT UPSTREAM_WARM_REQUESTS SERVER_CPU CLIENT_CPU READY_TIMEOUT
((REPEATS > 0 && CALLS > 0 && UPSTREAM_WARM_REQUESTS > 0)) || die "REPEATS, CALLS and UPSTREAM_WARM_REQUESTS must be > 0"
((PORT != UPSTREAM_PORT)) || die "PORT and UPSTREAM_PORT must differ"
[[ -n ${SIDES// } ]] || die "SIDES is empty"
[[ $FIRST_AFTER == port || $FIRST_AFTER == ready ]] || die "FIRST_AFTER must be port or ready, got '$FIRST_AFTER'"
for s in $SIDES; do [[ $s == server || $s == client ]] || die "unknown side '$s' (known: server client)"; done
[[ $ROUTE == /* ]] || die "ROUTE: '$ROUTE' must start with /"
for n in $SERVERS; do [[ $n =~ ^(keel|keel-warmup-off|keel-no-aot|keel-base|microhttp|netty)$ ]] || die "unknown server '$n' (known: keel keel-warmup-off keel-no-aot keel-base microhttp netty)"; done
if [[ " $SERVERS " == *" keel-base "* ]]; then [[ -x $BASE_BIN ]] || die "the keel-base row needs BASE_BIN, another build's bin/keel"; fi
require_tools "taskset: util-linux" taskset curl awk
require_cpus
((BASH_VERSINFO[0] >= 5)) || die "bash >= 5 is needed (EPOCHREALTIME)"
use_java_25

# This script, and so every curl, poll and probe it starts, runs on the client CPU; each server
# is started on the server CPU explicitly.
taskset -pc "$CLIENT_CPU" $$ >/dev/null || die "could not pin this script to CPU $CLIENT_CPU"

# ------------------------------------------------------------- state/trap ---

SERVER_PID=""    # taskset exec's bin/keel, which exec's java: these PIDs are the JVMs
UPSTREAM_PID=""
PROBE_PID=""

stop_pid_var() { # name of the variable holding the PID
  local pid=${!1}
  printf -v "$1" '%s' ""
  [[ -n $pid ]] || return 0
  terminate_pid "$pid"
  wait "$pid" 2>/dev/null || true
}

ROWS=""
on_exit() {
  local rc=$?
  stop_pid_var PROBE_PID
  stop_pid_var UPSTREAM_PID
  exit_trap "$rc" "$ROWS"
}
trap on_exit EXIT

# med("3 1 2") = 2: the median of a space-separated list; p90(list) its 90th percentile (nearest
# rank). POSIX awk: mawk has no asort.
MEDIAN_AWK='
  function sorted(list, a,   n, i, j, v) {
    n = split(list, a, " ")
    for (i = 2; i <= n; i++) { v = a[i] + 0; for (j = i - 1; j >= 1 && a[j] + 0 > v; j--) a[j + 1] = a[j]; a[j + 1] = v }
    return n
  }
  function med(list,   a, n) { n = sorted(list, a); return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
  function p90(list,   a, n, r) { n = sorted(list, a); r = int(n * 0.9); if (r < n * 0.9) r++; return a[r] }'

# Microseconds since the epoch, without a fork.
now_us() { local t=${EPOCHREALTIME/[.,]/}; echo "$t"; }

listening() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

wait_port_free() {
  local i
  for ((i = 0; i < 25; i++)); do listening "$1" || return 0; sleep 0.2; done
  die "port $1 is already in use; pick another with PORT=... or UPSTREAM_PORT=..."
}

# ------------------------------------------------------------------ server ---

# The command that starts server row $1 on PORT (run on SERVER_CPU by server_row).
server_command() {
  case $1 in
    keel) SERVER_CMD=(env KEEL_AOT=on "$KEEL_BIN" serve --port "$PORT") ;;
    keel-warmup-off) SERVER_CMD=(env KEEL_AOT=on "$KEEL_BIN" serve --port "$PORT" --warmup false) ;;
    keel-no-aot) SERVER_CMD=(env KEEL_AOT=off "$KEEL_BIN" serve --port "$PORT") ;;
    keel-base) SERVER_CMD=(env KEEL_AOT=on "$BASE_BIN" serve --port "$PORT") ;;
    microhttp) SERVER_CMD=("$JAVA_HOME/bin/java" -jar "$MICROHTTP_JAR" --port "$PORT") ;;
    netty) SERVER_CMD=("$JAVA_HOME/bin/java" -jar "$NETTY_JAR" --port "$PORT") ;;
  esac
}

# Resident memory of the server's JVM in KiB (VmRSS), -1 when unknown.
server_rss_kib() {
  local jvm
  JVM_PID=""
  find_jvm_pid "$SERVER_PID" || { echo -1; return; }
  jvm=$JVM_PID
  awk '/^VmRSS:/ { print $2; found = 1 } END { if (!found) print -1 }' "/proc/$jvm/status" 2>/dev/null || echo -1
}

# Launches server row $1 and waits for its port; sets START_US, PORT_AT_US and PORT_CPU_MS.
launch_row() { # name logf
  local deadline
  server_command "$1"
  wait_port_free "$PORT"
  START_US=$(now_us)
  taskset -c "$SERVER_CPU" "${SERVER_CMD[@]}" >"$2" 2>&1 </dev/null &
  SERVER_PID=$!
  deadline=$((SECONDS + READY_TIMEOUT))
  until listening "$PORT"; do
    kill -0 "$SERVER_PID" 2>/dev/null || { tail -n 30 "$2" >&2; die "$1 exited before its port opened (log: $2)"; }
    ((SECONDS < deadline)) || die "$1: port $PORT not open within ${READY_TIMEOUT}s (log: $2)"
    sleep 0.002
  done
  PORT_AT_US=$(now_us)
  # taskset, bin/keel and java exec one another: one process, whose counters hold the launcher's time too.
  PORT_CPU_MS=$(awk -v hz="$CLOCK_TICKS" '{ print int(($14 + $15) * 1000 / hz) }' "/proc/$SERVER_PID/stat" 2>/dev/null || echo -1)
  if [[ $FIRST_AFTER == ready && $1 == keel* ]]; then
    until grep -q 'serving on' "$2"; do
      kill -0 "$SERVER_PID" 2>/dev/null || die "$1 exited before it was ready (log: $2)"
      ((SECONDS < deadline)) || die "$1: no 'serving on' line within ${READY_TIMEOUT}s (log: $2)"
      sleep 0.002
    done
  fi
}

# One fresh server JVM: appends "server route name rep port_ms first200_ms first_ms median_ms -1 p90_ms rss_kib cpu_to_port_ms stolen_ms".
server_row() { # name repeat
  local name=$1 rep=$2 logf="$OUT/server-$1-$2" first_at first code rss i jiffies_before jiffies_after
  jiffies_before=$(cpu_jiffies "$SERVER_CPU")
  launch_row "$name" "$logf.log"
  read -r code first < <(curl -s -o /dev/null --max-time 30 -w '%{http_code} %{time_total}\n' "http://127.0.0.1:$PORT$ROUTE" || echo "000 -1")
  first_at=$(now_us)
  jiffies_after=$(cpu_jiffies "$SERVER_CPU")
  [[ $code == 200 ]] || die "$name: first request to $ROUTE answered $code (log: $logf.log)"
  for ((i = 0; i < CALLS; i++)); do
    curl -s -o /dev/null --max-time 30 -w '%{http_code} %{time_total}\n' "http://127.0.0.1:$PORT$ROUTE" || echo "000 -1"
  done >"$logf.steady.txt"
  awk '$1 != 200 { bad++ } END { exit bad > 0 }' "$logf.steady.txt" || die "$name: a request to $ROUTE did not answer 200 (see $logf.steady.txt)"
  rss=$(server_rss_kib)
  if grep -q 'building' "$logf.log"; then log "warning: bin/keel built something at this start (sources changed meanwhile?)"; fi
  stop_pid_var SERVER_PID
  awk -v route="$ROUTE" -v name="$name" -v rep="$rep" -v port=$(((PORT_AT_US - START_US) / 1000)) \
    -v f200=$(((first_at - START_US) / 1000)) -v first="$first" -v rss="$rss" -v cpu="$PORT_CPU_MS" \
    -v stolen="$((${jiffies_after%% *} - ${jiffies_before%% *}))" -v hz="$(getconf CLK_TCK)" "$MEDIAN_AWK"'
    { list = list " " $2 * 1000 }
    END {
      printf "server\t%s\t%s\t%s\t%d\t%d\t%.3f\t%.3f\t-1\t%.3f\t%d\t%d\t%d\n", route, name, rep, port, f200, first * 1000, med(list), p90(list), rss, cpu,
        stolen * 1000 / hz
    }' "$logf.steady.txt" >>"$ROWS"
  log "$name #$rep: $(tail -n 1 "$ROWS" | awk -F '\t' '{ printf "port %s ms (CPU %s ms), first 200 %s ms (%s ms stolen), first %.2f ms, median %.2f ms (%.1fx), RSS %.0f MiB", $5, $12, $6, $13, $7, $8, $7 / $8, $11 / 1024 }')"
}

# Holds $2 keep-alive connections to PORT, each after one GET ROUTE answered, until its standard input closes.
IDLE_CLIENT='
import resource, socket, sys
port, count, route = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
request = ("GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n" % route).encode()
held, answered = [], 0
for _ in range(count):
    try:
        s = socket.create_connection(("127.0.0.1", port), timeout=5)
        s.sendall(request)
        if s.recv(4096).startswith(b"HTTP/1.1 200"): answered += 1
        held.append(s)
    except OSError as e:
        print("error=%s" % e, flush=True)
        break
print("open=%d answered=%d" % (len(held), answered), flush=True)
sys.stdin.read()
'

# One more start of server row $1: RSS after start, then with IDLE_CONNECTIONS idle keep-alive
# connections open; appends "idle name rss_kib rss_idle_kib open answered".
idle_row() { # name
  local name=$1 logf="$OUT/idle-$1" rss rss_idle rss_settled line fifo client
  launch_row "$name" "$logf.log"
  curl -s -o /dev/null --max-time 30 "http://127.0.0.1:$PORT$ROUTE" || true
  sleep 1
  rss=$(server_rss_kib)
  fifo="$OUT/idle-$name.stdin"
  mkfifo "$fifo"
  python3 -c "$IDLE_CLIENT" "$PORT" "$IDLE_CONNECTIONS" "$ROUTE" <"$fifo" >"$logf.client.txt" 2>&1 &
  client=$!
  exec 8>"$fifo"  # holds the client's standard input open until we close it
  for ((i = 0; i < 600; i++)); do grep -q '^open=' "$logf.client.txt" && break; kill -0 "$client" 2>/dev/null || break; sleep 0.1; done
  line=$(grep -m1 '^open=' "$logf.client.txt" || echo "open=0 answered=0")
  sleep 1
  rss_idle=$(server_rss_kib)
  sleep "$IDLE_SETTLE"
  rss_settled=$(server_rss_kib)
  exec 8>&-
  wait "$client" 2>/dev/null || true
  rm -f "$fifo"
  stop_pid_var SERVER_PID
  printf "idle\t%s\t%s\t%s\t%s\t%s\t%s\n" "$name" "$rss" "$rss_idle" "$(field "$line" open)" "$(field "$line" answered)" "$rss_settled" >>"$IDLE_ROWS"
  log "$name idle: RSS $((rss / 1024)) MiB after start, $((rss_idle / 1024)) MiB with $line, $((rss_settled / 1024)) MiB ${IDLE_SETTLE} s later"
}

# ------------------------------------------------------------------ client ---

start_upstream() {
  local logf="$OUT/upstream.log" deadline url="http://127.0.0.1:$UPSTREAM_PORT/upstream/refine-address" args=() i
  wait_port_free "$UPSTREAM_PORT"
  log "upstream: taskset -c $SERVER_CPU bin/keel serve --port $UPSTREAM_PORT --upstream-delay 0ms"
  taskset -c "$SERVER_CPU" "$KEEL_BIN" serve --port "$UPSTREAM_PORT" --upstream-delay 0ms >"$logf" 2>&1 </dev/null &
  UPSTREAM_PID=$!
  deadline=$((SECONDS + READY_TIMEOUT))
  until curl -sf -o /dev/null --max-time 2 "http://127.0.0.1:$UPSTREAM_PORT/benchmark/health"; do
    kill -0 "$UPSTREAM_PID" 2>/dev/null || { tail -n 30 "$logf" >&2; die "upstream exited before it became ready (log: $logf)"; }
    ((SECONDS < deadline)) || die "upstream not ready within ${READY_TIMEOUT}s (log: $logf)"
    sleep 0.2
  done
  # One curl, one keep-alive connection, UPSTREAM_WARM_REQUESTS POSTs (-d applies to every URL).
  for ((i = 0; i < UPSTREAM_WARM_REQUESTS; i++)); do args+=("$url"); done
  curl -sf --max-time 60 -H 'Content-Type: application/json' -d "$ADDRESS" "${args[@]}" >/dev/null \
    || die "warming the upstream failed (log: $logf)"
  log "upstream: warmed with $UPSTREAM_WARM_REQUESTS requests"
}

# One fresh probe JVM: appends "client route warmup - - first_ms median_ms warmup_ms".
client_row() { # warmup(true|jit|false) repeat
  local warmup=$1 rep=$2 out="$OUT/client-${1}-${2}.txt" line rc=0
  "$JAVA_HOME/bin/java" -cp "$LAB_CP" keel.lab.ColdStartProbe \
    "http://127.0.0.1:$UPSTREAM_PORT/upstream/refine-address" "$warmup" "$CALLS" >"$out" 2>&1 </dev/null &
  PROBE_PID=$!
  wait "$PROBE_PID" || rc=$?
  PROBE_PID=""
  line=$(grep -m1 '^first_us=' "$out" || true)
  [[ $rc -eq 0 && -n $line ]] || { tail -n 20 "$out" >&2; die "ColdStartProbe failed (output: $out)"; }
  kill -0 "$UPSTREAM_PID" 2>/dev/null || die "the upstream died (log: $OUT/upstream.log)"
  awk -v w="$warmup" -v rep="$rep" '{
      for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
      if (v["warmup_failures"] > 0) print "warning: " v["warmup_failures"] " warm-up calls failed" > "/dev/stderr"
      printf "client\tPOST /upstream/refine-address\t%s\t%s\t-1\t-1\t%.3f\t%.3f\t%d\t%.3f\t-1\n", w, rep,
        v["first_us"] / 1000, v["median_us"] / 1000, v["warmup_ms"], v["p90_us"] / 1000
    }' <<<"$line" >>"$ROWS"
  log "client warmup=$warmup #$rep: $(tail -n 1 "$ROWS" | awk -F '\t' '{ printf "first %.2f ms, median %.2f ms (%.1fx), warm-up %s ms", $7, $8, $7 / $8, $9 }')"
}

# ------------------------------------------------------------------ table ---

emit_table() { # $1: optional remark for the heading
  TABLE_DONE=true
  {
    echo "## Cold start: first request vs the next $CALLS ($(date -u +%Y-%m-%dT%H:%M:%SZ))${1:+ ($1)}"
    echo
    echo "$REPEATS fresh JVMs per row (median, spread = min-max of first/median); the server's first request" \
      "when $([[ $FIRST_AFTER == port ]] && echo "its port opened" || echo "it printed 'serving on'"); servers on CPU $SERVER_CPU," \
      "curl and the client probe on CPU $CLIENT_CPU; $("$JAVA_HOME/bin/java" -version 2>&1 | head -n 1);" \
      "$(git_desc)$([[ $KEEL_BIN != "$ROOT/bin/keel" ]] && echo " (keel rows: $KEEL_BIN, $(git_desc "$(dirname "$KEEL_BIN")/.."))")$([[ " $SERVERS " == *" keel-base "* ]] && echo "; keel-base: $(git_desc "$(dirname "$BASE_BIN")/..")");" \
      "load average at the start ${LOAD_BEFORE:-?}, at the end $(load_average)"
    echo
    awk -F '\t' -v target="$TARGET_RATIO" -v target200="$TARGET_FIRST_200_MS" "$MEDIAN_AWK"'
      function cell(v, fmt) { return (v < 0 ? "-" : sprintf(fmt, v)) }
      BEGIN {
        print "| side | call | server / warm-up | port ms | CPU to port ms | first 200 ms | first ms | median ms | p90 ms | first/median | spread | warm-up ms | RSS MiB | stolen ms |"
        print "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|"
      }
      {
        key = $1 SUBSEP $2 SUBSEP $3
        if (!(key in seen)) { seen[key] = 1; order[++n] = key }
        ratio = $7 / $8
        port[key] = port[key] " " $5; f200[key] = f200[key] " " $6; first[key] = first[key] " " $7
        median[key] = median[key] " " $8; p90s[key] = p90s[key] " " $10; ratios[key] = ratios[key] " " ratio; wu[key] = wu[key] " " $9
        rss[key] = rss[key] " " ($11 == "" ? -1 : $11); cpu[key] = cpu[key] " " ($12 == "" ? -1 : $12)
        stolen[key] = stolen[key] " " ($13 == "" ? -1 : $13)
        if (!(key in lo) || ratio < lo[key]) lo[key] = ratio
        if (!(key in hi) || ratio > hi[key]) hi[key] = ratio
      }
      END {
        for (i = 1; i <= n; i++) {
          split(order[i], k, SUBSEP); o = order[i]; r = med(ratios[o])
          what = (k[1] == "client" ? "warm-up " (k[3] == "true" ? "on" : k[3] == "jit" ? "on, JIT" : "off") : k[3])
          m = med(rss[o])
          printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %.1fx | %.1f-%.1fx | %s | %s | %s |\n", k[1], k[2], what,
            cell(med(port[o]), "%d"), cell(med(cpu[o]), "%d"), cell(med(f200[o]), "%d"), cell(med(first[o]), "%.2f"),
            cell(med(median[o]), "%.2f"), cell(med(p90s[o]), "%.2f"), r, lo[o], hi[o], cell(med(wu[o]), "%d"), cell(m < 0 ? -1 : m / 1024, "%.0f"),
            cell(med(stolen[o]), "%d")
          if (k[1] == "server" && k[3] ~ /^keel/) verdict[++nv] = sprintf("- %s: first/median %.1fx (worst %.1fx) %s the %dx target; first 200 after %d ms %s the %d ms target", \
            k[3], r, hi[o], (r <= target ? "meets" : "misses"), target, med(f200[o]), (med(f200[o]) <= target200 ? "meets" : "misses"), target200)
        }
        if (nv) print ""
        for (i = 1; i <= nv; i++) print verdict[i]
      }' "$ROWS"
    if [[ -s ${IDLE_ROWS:-} ]]; then
      echo
      echo "Resident memory (VmRSS, MiB) of one more start each: after start, then holding keep-alive connections (each after one request):"
      echo
      echo "| server | after start | with idle connections, held | settled ($IDLE_SETTLE s later) | connections held (answered) |"
      echo "|---|---:|---:|---:|---:|"
      awk -F '\t' '{ printf "| %s | %.0f | %.0f | %.0f | %s (%s) |\n", $2, $3 / 1024, $4 / 1024, $7 / 1024, $5, $6 }' "$IDLE_ROWS"
      awk -F '\t' '$2 == "keel" { k = $7 } $2 == "netty" { n = $7 } END {
        if (k) printf "\n- keel settled with idle connections: %.0f MiB, %s the < 100 MiB target%s\n", k / 1024, (k < 100 * 1024 ? "meets" : "misses"),
          (n ? sprintf(" and %s netty'"'"'s %.0f MiB", (k <= n ? "is at or below" : "is above"), n / 1024) : "")
      }' "$IDLE_ROWS"
    fi
  } >"$OUT/table.md"
  cat "$OUT/table.md"
  log "wrote $OUT/table.md"
}

load_average() { cut -d ' ' -f 1-3 /proc/loadavg; }

# ------------------------------------------------------------------- main ---

ADDRESS='{"street":"1 Canal Street","city":"Amsterdam","country":"NL"}'
prepare_keel
# bin/keel trains its AOT cache at the first serve after a build: here, not in a measurement.
log "preparing the AOT cache (bin/keel serve --help)..."
"$KEEL_BIN" serve --help >/dev/null || die "$KEEL_BIN serve --help failed"
if [[ " $SERVERS " == *" keel-base "* ]]; then "$BASE_BIN" serve --help >/dev/null || die "$BASE_BIN serve --help failed"; fi
CLOCK_TICKS=$(getconf CLK_TCK)
MICROHTTP_DIR="$ROOT/bench/microhttp-hello"
MICROHTTP_JAR="$MICROHTTP_DIR/target/microhttp-hello.jar"
if [[ " $SERVERS " == *" microhttp "* ]]; then
  if [[ ! -f $MICROHTTP_JAR ]] || [[ -n $(find "$MICROHTTP_DIR/pom.xml" "$MICROHTTP_DIR/src" -newer "$MICROHTTP_JAR" -print -quit) ]]; then
    log "building bench/microhttp-hello..."
    mvn -q -f "$MICROHTTP_DIR/pom.xml" package >"$(mktemp)" 2>&1 || die "building bench/microhttp-hello failed"
  fi
fi
if [[ " $SERVERS " == *" netty "* ]]; then build_hello_jar netty-hello; fi
if ((IDLE_CONNECTIONS > 0)); then require_tools "python3: apt-get install python3" python3; fi
LAB_JAR=$(find "$ROOT/keel-lab/target" -maxdepth 1 -name "keel-lab-*.jar" -print -quit)
[[ -n $LAB_JAR ]] || die "no keel-lab jar after the build"
LAB_CP="$LAB_JAR:$ROOT/keel-lab/target/lib/*"
make_out_dir
ROWS="$OUT/rows.tsv"
IDLE_ROWS="$OUT/idle.tsv"
: >"$ROWS"
LOAD_BEFORE=$(load_average)
log "JDK: $JAVA_HOME; load average $LOAD_BEFORE; results: $OUT"

if [[ " $SIDES " == *" server "* ]]; then
  for ((rep = 1; rep <= REPEATS; rep++)); do
    for name in $SERVERS; do server_row "$name" "$rep"; done
  done
  if ((IDLE_CONNECTIONS > 0)); then
    for name in $SERVERS; do
      if [[ $name == keel || $name == keel-base || $name == netty ]]; then idle_row "$name"; fi
    done
  fi
fi
if [[ " $SIDES " == *" client "* ]]; then
  start_upstream
  for ((rep = 1; rep <= REPEATS; rep++)); do
    for warmup in true jit false; do client_row "$warmup" "$rep"; done
  done
  stop_pid_var UPSTREAM_PID
fi

emit_table
