#!/usr/bin/env bash
# bench/tls.sh: HTTPS throughput, TLS handshake rate and the server CPU they cost, Keel side by
# side with a Netty 4.2 server (bench/netty-hello with --tls-cert/--tls-key, SslProvider.JDK).
#
# What it measures
#   The script makes a throwaway EC P-256 certificate and key (PEM, PKCS#8) for localhost and
#   127.0.0.1 in the results directory and gives the same files to both servers:
#     keel   bin/keel serve --port PORT --transport nio --execution event-loop --loops 1
#              --tls-cert cert.pem --tls-key key.pem
#     netty  java -jar bench/netty-hello/target/netty-hello.jar --port PORT --threads 1
#              --tls-cert cert.pem --tls-key key.pem   (NIO, one event loop, TLSv1.3 + TLSv1.2)
#   Each round starts every server in SERVERS in a fresh JVM, alone, pinned to CPU SERVER_CPU
#   (taskset); all load runs on CPU CLIENT_CPU. Per server and round:
#   1. keep-alive: a warm-up run that is thrown away, then a measured run of DURATION seconds:
#        wrk -t1 -c64 -d10s --latency https://127.0.0.1:PORT/benchmark/hello
#   2. handshakes: HANDSHAKE_CLIENTS (8) processes of
#        openssl s_time -connect 127.0.0.1:PORT -new -time 10 -www /benchmark/hello
#      at once (a warm-up pass, then the measured one). Each connects, does a full handshake,
#      sends "GET /benchmark/hello HTTP/1.0", reads the answer to the server's close, and starts
#      over; -new offers no session, so no handshake is resumed (s_time marks a resumed one with
#      an "r" in its output: the script counts them and notes any). Why not wrk with
#      "Connection: close": wrk keeps the TLS session across its reconnects (SSL_shutdown +
#      SSL_clear) and offers it again; against "openssl s_server -www" 3210 of 3211 of its
#      handshakes were session cache hits, s_time's 0 of 2374. One s_time is sequential, so
#      several run at once to keep the server busy (see srv cpu%).
#   Around each measured run it reads the server JVM's utime+stime from /proc/PID/stat (JIT, GC
#   and every other JVM thread included). Before them, one HTTP/1.0 GET through
#   "openssl s_client" (the request s_time sends) is checked for a 200 (noted if not), and one
#   handshake records the protocol, cipher suite and key exchange group the server picks.
#
# How to read the table
#   One row per server with the median over its rounds, then keel/netty: the ratio of those
#   medians (needs both servers in the run); the per-round figures follow.
#   req/s              wrk's Requests/sec over keep-alive TLS connections
#   p50, p99           wrk's latency percentiles in ms
#   cpu µs/req         server CPU time / requests; lower is better
#   handshakes/s       s_time connections (each one full handshake and one request) / wall time
#   cpu µs/handshake   server CPU time / those connections: the handshake, the request, accept
#                      and close
#   srv cpu% (req, hs) server CPU time / wall time of the run; ~100% means the server core was
#                      saturated, well below means the client (or the machine) limited it
#   tls                protocol, cipher suite and key exchange group the server picked
#   notes              wrk's socket errors and non-2xx, s_time failures, resumed handshakes, a
#                      server that failed to start or died
#   The machine is small and shared: compare the rows and ratios of one run, not absolute
#   numbers across runs.
#
# Usage
#   bench/tls.sh                             # keel and netty, 3 rounds, ~7 min
#   SERVERS=netty DURATION=5 ROUNDS=1 bench/tls.sh
#
# Environment (defaults in brackets)
#   SERVERS [keel netty]  which servers, in the order each round runs them
#   ROUNDS [3]            rounds; every server runs once per round, in a fresh JVM
#   DURATION [10]         seconds of each measured run (keep-alive, then handshakes)
#   WARMUP [20]           seconds of the warm-up run before each measured run (0 = none). In a
#                         fresh JVM on one CPU the JDK's handshake code took about 20 s of
#                         handshakes before its cost per handshake stopped falling, keep-alive
#                         about 10 s; shorter warm-ups measure the JIT as much as the server
#   CONNECTIONS [64]      wrk connections in the keep-alive runs
#   HANDSHAKE_CLIENTS [8] s_time processes at once in the handshake runs
#   PORT [18443]          port the server under test listens on (must be free)
#   SERVER_CPU [0], CLIENT_CPU [1]   CPUs for taskset
#   READY_TIMEOUT [60]    seconds to wait for a server to answer over HTTPS; a server that
#                         exits or does not answer is noted in its row and skipped in the
#                         rounds that follow
#   KEEL_BIN [bin/keel]   launcher for keel
#   NETTY_JAVA_OPTS       JVM options for netty (default --sun-misc-unsafe-memory-access=allow,
#                         as in bench/throughput.sh)
#
# Output: the Markdown table on stdout (progress goes to stderr); the table, a TSV of the
# numbers, the certificate and key, raw wrk and s_time outputs and server logs under
# bench/results/tls-<timestamp>/ (bench/results/ is gitignored).

set -euo pipefail

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$BENCH_DIR/.." && pwd)

ALL_SERVERS="keel netty"
SERVERS=${SERVERS:-$ALL_SERVERS}
ROUNDS=${ROUNDS:-3}
DURATION=${DURATION:-10}
WARMUP=${WARMUP:-20}
CONNECTIONS=${CONNECTIONS:-64}
HANDSHAKE_CLIENTS=${HANDSHAKE_CLIENTS:-8}
PORT=${PORT:-18443}
SERVER_CPU=${SERVER_CPU:-0}
CLIENT_CPU=${CLIENT_CPU:-1}
READY_TIMEOUT=${READY_TIMEOUT:-60}
KEEL_BIN=${KEEL_BIN:-$ROOT/bin/keel}
NETTY_JAVA_OPTS=${NETTY_JAVA_OPTS---sun-misc-unsafe-memory-access=allow}
HELLO_PATH=/benchmark/hello

# shellcheck source-path=SCRIPTDIR source=lib/bench.sh
source "$BENCH_DIR/lib/bench.sh"

# ---------------------------------------------------------------- checks ---

require_integers ROUNDS DURATION WARMUP CONNECTIONS HANDSHAKE_CLIENTS PORT SERVER_CPU CLIENT_CPU READY_TIMEOUT
((ROUNDS > 0)) || die "ROUNDS must be > 0"
((DURATION > 0)) || die "DURATION must be > 0"
((CONNECTIONS > 0)) || die "CONNECTIONS must be > 0"
((HANDSHAKE_CLIENTS > 0)) || die "HANDSHAKE_CLIENTS must be > 0"
[[ -n ${SERVERS// } ]] || die "SERVERS is empty"
for s in $SERVERS; do
  [[ " $ALL_SERVERS " == *" $s "* ]] || die "unknown server '$s' (known: $ALL_SERVERS)"
done

install_wrk_if_missing
require_tools "wrk: apt-get install -y wrk; openssl: apt-get install -y openssl; taskset: util-linux" \
  wrk openssl taskset curl awk getconf timeout
require_cpus
((SERVER_CPU != CLIENT_CPU)) || log "warning: server and client share CPU $SERVER_CPU; numbers will mix"
use_java_25

# ------------------------------------------------------------- state/trap ---

STIME_PIDS=()   # s_time processes of the handshake run under way
TSV=""          # results so far, once the run has started
on_exit() {
  local rc=$? pid
  for pid in "${STIME_PIDS[@]}"; do kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done
  exit_trap "$rc" "$TSV" 1
}
trap on_exit EXIT

port_in_use && die "port $PORT is already in use; stop whatever listens there or pick another with PORT=..."

# ----------------------------------------------------------------- builds ---

if [[ " $SERVERS " == *" keel "* ]]; then prepare_keel "set SERVERS=netty to skip keel"; fi
if [[ " $SERVERS " == *" netty "* ]]; then build_hello_jar netty-hello; fi

make_out_dir
CERT="$OUT/cert.pem"
KEY="$OUT/key.pem"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout "$KEY" -out "$CERT" \
  -days 2 -subj /CN=localhost -addext "subjectAltName=DNS:localhost,IP:127.0.0.1" >"$OUT/openssl-req.log" 2>&1 \
  || { cat "$OUT/openssl-req.log" >&2; die "could not make the certificate"; }
TSV="$OUT/results.tsv"
printf 'round\tserver\tstatus\treq_s\tp50_ms\tp99_ms\tcpu_us_req\tka_cpu_pct\thandshakes_s\tcpu_us_handshake\ths_cpu_pct\ttls\tnotes\n' >"$TSV"

n_servers=$(wc -w <<<"$SERVERS")
log "JDK: $JAVA_HOME"
log "results: $OUT"
log "$ROUNDS round(s) x $n_servers server(s), each 2 x (${WARMUP}s warm-up + ${DURATION}s measured): roughly" \
  "$(((ROUNDS * n_servers * (2 * (WARMUP + DURATION) + 8)) / 60 + 1)) min"

# ---------------------------------------------------------------- servers ---

server_cmd() { # server -> command line (array SERVER_CMD)
  case $1 in
    keel)
      SERVER_CMD=("$KEEL_BIN" serve --port "$PORT" --transport nio --execution event-loop --loops 1 --access-log false
        --tls-cert "$CERT" --tls-key "$KEY") ;;
    netty)
      # shellcheck disable=SC2206 # NETTY_JAVA_OPTS is a list of words on purpose
      SERVER_CMD=("$JAVA_HOME/bin/java" $NETTY_JAVA_OPTS -jar "$NETTY_JAR" --port "$PORT" --threads 1
        --tls-cert "$CERT" --tls-key "$KEY") ;;
    *) die "unknown server $1" ;;
  esac
}

ready_path() { if [[ $1 == netty ]]; then echo "$HELLO_PATH"; else echo /benchmark/health; fi; }

# Starts the server and waits until it answers over HTTPS with the script's certificate. Returns 1,
# with the reason logged and the server stopped, when it exits or does not answer in time.
start_server() { # server log_file (in place of the lib's, which starts Keel only)
  local server=$1 logf=$2
  server_cmd "$server"
  launch_server "$server" "$logf" "${SERVER_CMD[@]}"
  if ! wait_ready --cacert "$CERT" "https://127.0.0.1:$PORT$(ready_path "$server")"; then
    tail -n 15 "$logf" >&2 || true
    log "$server $READY_ERROR (log: $logf)"
    stop_server
    return 1
  fi
  if [[ $server == keel ]] && grep -q 'building' "$logf"; then
    log "warning: bin/keel rebuilt Keel when it started (sources changed during the benchmark);" \
      "its rounds may measure different code"
  fi
  if ! locate_jvm; then
    log "$server: no java process under PID $SERVER_PID"
    stop_server
    return 1
  fi
}

# ----------------------------------------------------------------- probes ---

# One HTTP/1.0 GET over TLS, the request s_time sends, and one handshake's parameters. Sets
# PROBE_TLS ("TLSv1.3/TLS_AES_128_GCM_SHA256/X25519") and PROBE_BYTES (the answer's length); returns
# 1 with PROBE_ERROR when the answer is not a 200.
probe() { # tag
  local tag=$1 status
  PROBE_TLS="?" PROBE_BYTES=0 PROBE_ERROR=""
  printf 'GET %s HTTP/1.0\r\n\r\n' "$HELLO_PATH" \
    | timeout 10 taskset -c "$CLIENT_CPU" openssl s_client -quiet -connect "127.0.0.1:$PORT" >"$OUT/$tag.http10.txt" 2>/dev/null \
    || true
  status=$(head -n 1 "$OUT/$tag.http10.txt" | tr -d '\r')
  PROBE_BYTES=$(wc -c <"$OUT/$tag.http10.txt")
  timeout 10 taskset -c "$CLIENT_CPU" openssl s_client -connect "127.0.0.1:$PORT" -CAfile "$CERT" -verify_ip 127.0.0.1 \
    </dev/null >"$OUT/$tag.s_client.txt" 2>&1 || true
  PROBE_TLS=$(awk '
    /^New, / { proto = $2; sub(/,$/, "", proto); cipher = $NF }
    /^Server Temp Key:/ { group = $4; sub(/,$/, "", group) }
    END { printf "%s/%s/%s\n", (proto == "" ? "?" : proto), (cipher == "" ? "?" : cipher), (group == "" ? "?" : group) }' \
    "$OUT/$tag.s_client.txt")
  if [[ ! $status =~ ^HTTP/1\.[01]\ 200 ]]; then
    PROBE_ERROR="HTTP/1.0 GET $HELLO_PATH answered '${status:-nothing}'"
    return 1
  fi
}

# ------------------------------------------------------------------- runs ---

# HANDSHAKE_CLIENTS s_time processes on the client CPU for $2 seconds; outputs $1.<i>.txt.
run_stime() { # out_prefix seconds
  local prefix=$1 secs=$2 i rc=0
  STIME_PIDS=()
  for ((i = 1; i <= HANDSHAKE_CLIENTS; i++)); do
    timeout -k 5 $((secs + 30)) taskset -c "$CLIENT_CPU" \
      openssl s_time -connect "127.0.0.1:$PORT" -new -time "$secs" -www "$HELLO_PATH" \
      >"$prefix.$i.txt" 2>&1 </dev/null &
    STIME_PIDS+=($!)
  done
  for i in "${STIME_PIDS[@]}"; do wait "$i" || rc=1; done
  STIME_PIDS=()
  return "$rc"
}

# s_time outputs -> "connections resumed bytes_per_connection failed_processes"
parse_stime() { # out_prefix
  local i f
  for ((i = 1; i <= HANDSHAKE_CLIENTS; i++)); do
    f="$1.$i.txt"
    [[ -f $f ]] || { echo "0 0 0 1"; continue; }
    awk '
      /connections in .* real seconds/ { conns = $1; bytes = $(NF - 4); ok = 1 }
      /^[*rt3]+$/ { resumed += gsub(/r/, "") }
      END { printf "%d %d %d %d\n", conns, resumed, bytes, !ok }' "$f"
  done | awk '{ c += $1; r += $2; if ($1 > 0) { b += $3 * $1 }; f += $4 }
    END { printf "%d %d %d %d\n", c, r, (c > 0 ? int(b / c + 0.5) : 0), f }'
}

record() { # round server status req_s p50 p99 cpu_us_req ka_pct hs_s cpu_us_hs hs_pct tls notes
  local IFS=$'\t'
  printf '%s\n' "$*" >>"$TSV"
}

SKIP=" "   # servers that failed to start: not started again in later rounds

run_server() { # server round
  local server=$1 round=$2 tag="$1.r$2" logf before after t0 t1 parsed
  local reqs rps p50 p99 ka_notes cpu_req ka_pct conns resumed bytes failed hs_s cpu_hs hs_pct notes=""
  logf="$OUT/$tag.server.log"
  if [[ $SKIP == *" $server "* ]]; then
    log "$tag: skipped (failed to start in an earlier round)"
    record "$round" "$server" skipped -1 -1 -1 -1 -1 -1 -1 -1 - "$server: not started again (failed to start before)"
    return 0
  fi
  if ! start_server "$server" "$logf"; then
    SKIP+="$server "
    record "$round" "$server" failed -1 -1 -1 -1 -1 -1 -1 -1 - "$server: failed to start (see ${logf#"$ROOT"/})"
    return 0
  fi
  if ! probe "$tag"; then
    log "$tag: $PROBE_ERROR (see $OUT/$tag.http10.txt)"
    notes+="probe: $PROBE_ERROR; "
  fi
  log "$tag: $PROBE_TLS, HTTP/1.0 answer $PROBE_BYTES bytes"

  # Keep-alive requests.
  local url="https://127.0.0.1:$PORT$HELLO_PATH"
  if ((WARMUP > 0)); then
    log "$tag: keep-alive warm-up ${WARMUP}s"
    run_wrk "$OUT/$tag.keep-alive.warmup.txt" -t1 "-c$CONNECTIONS" "-d${WARMUP}s" "$url" \
      || log "$tag: warm-up wrk failed (see $OUT/$tag.keep-alive.warmup.txt)"
  fi
  log "$tag: keep-alive measuring ${DURATION}s"
  if ! before=$(cpu_ticks); then
    record "$round" "$server" died -1 -1 -1 -1 -1 -1 -1 -1 "$PROBE_TLS" "${notes}$server: died (see ${logf#"$ROOT"/})"
    stop_server
    return 0
  fi
  t0=$(date +%s%N)
  run_wrk "$OUT/$tag.keep-alive.wrk.txt" -t1 "-c$CONNECTIONS" "-d${DURATION}s" --latency "$url" \
    || log "$tag: wrk failed: $(tail -n 3 "$OUT/$tag.keep-alive.wrk.txt" | tr '\n' ' ')"
  t1=$(date +%s%N)
  if ! after=$(cpu_ticks); then
    record "$round" "$server" died -1 -1 -1 -1 -1 -1 -1 -1 "$PROBE_TLS" "${notes}$server: died during keep-alive (see ${logf#"$ROOT"/})"
    stop_server
    return 0
  fi
  parsed=$(parse_wrk <"$OUT/$tag.keep-alive.wrk.txt")
  read -r reqs rps p50 p99 _ ka_notes <<<"$parsed"
  read -r cpu_req _ ka_pct < <(cpu_cost "$before" "$after" "$((t1 - t0))" "$reqs" 1)
  [[ $ka_notes == - ]] || notes+="wrk: $ka_notes; "
  log "$tag: $rps req/s, p50 $p50 ms, p99 $p99 ms, $cpu_req cpu µs/req, server cpu $ka_pct%"

  # New connections, one full handshake and one request each.
  if ((WARMUP > 0)); then
    log "$tag: handshake warm-up ${WARMUP}s ($HANDSHAKE_CLIENTS x s_time -new)"
    run_stime "$OUT/$tag.handshakes.warmup" "$WARMUP" || log "$tag: an s_time of the warm-up failed (see $OUT/$tag.handshakes.warmup.*.txt)"
  fi
  log "$tag: handshakes measuring ${DURATION}s"
  if ! before=$(cpu_ticks); then
    record "$round" "$server" died "$rps" "$p50" "$p99" "$cpu_req" "$ka_pct" -1 -1 -1 "$PROBE_TLS" "${notes}$server: died (see ${logf#"$ROOT"/})"
    stop_server
    return 0
  fi
  t0=$(date +%s%N)
  run_stime "$OUT/$tag.handshakes" "$DURATION" || true
  t1=$(date +%s%N)
  if ! after=$(cpu_ticks); then
    record "$round" "$server" died "$rps" "$p50" "$p99" "$cpu_req" "$ka_pct" -1 -1 -1 "$PROBE_TLS" "${notes}$server: died during handshakes (see ${logf#"$ROOT"/})"
    stop_server
    return 0
  fi
  read -r conns resumed bytes failed < <(parse_stime "$OUT/$tag.handshakes")
  hs_s=$(awk -v c="$conns" -v ns="$((t1 - t0))" 'BEGIN { printf "%.1f", c * 1e9 / ns }')
  read -r cpu_hs _ hs_pct < <(cpu_cost "$before" "$after" "$((t1 - t0))" "$conns" 1)
  ((conns > 0)) || hs_s=-1
  ((failed == 0)) || notes+="s_time: $failed of $HANDSHAKE_CLIENTS failed; "
  ((resumed == 0)) || notes+="resumed handshakes: $resumed; "
  if ((conns > 0 && (bytes < PROBE_BYTES - 2 || bytes > PROBE_BYTES + 2))); then
    notes+="s_time read $bytes bytes per connection, the probe's answer has $PROBE_BYTES; "
  fi
  log "$tag: $conns connections in $(((t1 - t0) / 1000000)) ms: $hs_s handshakes/s, $cpu_hs cpu µs/handshake," \
    "server cpu $hs_pct%, $resumed resumed"
  stop_server
  notes=${notes%; }
  record "$round" "$server" ok "$rps" "$p50" "$p99" "$cpu_req" "$ka_pct" "$hs_s" "$cpu_hs" "$hs_pct" "$PROBE_TLS" "${notes:--}"
}

# ------------------------------------------------------------------ table ---

render_table() {
  awk -F '\t' -v servers="$SERVERS" '
    function sorted(list, a,   n, i, j, v) {
      n = split(list, a, " ")
      for (i = 2; i <= n; i++) { v = a[i] + 0; for (j = i - 1; j >= 1 && a[j] + 0 > v; j--) a[j + 1] = a[j]; a[j + 1] = v }
      return n
    }
    function med(list,   a, n) {
      n = sorted(list, a); if (n == 0) return -1
      return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
    }
    function num(v, fmt) { return (v == "" || v < 0) ? "n/a" : sprintf(fmt, v) }
    function ratio(a, b) { return (a > 0 && b > 0) ? sprintf("%.2fx", a / b) : "n/a" }
    function add(col, s, v) { if (v >= 0) vals[col, s] = vals[col, s] " " v }
    function row(s, tag, rounds) {
      printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", s, rounds,
        num(m["rps", s], "%.0f"), num(m["p50", s], "%.2f"), num(m["p99", s], "%.2f"), num(m["cpureq", s], "%.1f"),
        num(m["kapct", s], "%.0f"), num(m["hs", s], "%.0f"), num(m["cpuhs", s], "%.0f"), num(m["hspct", s], "%.0f"),
        tag, note[s]
    }
    NR == 1 { next }
    {
      n++; line[n] = $0; s = $2; tried[s]++
      if ($3 == "ok") ok[s]++
      add("rps", s, $4); add("p50", s, $5); add("p99", s, $6); add("cpureq", s, $7); add("kapct", s, $8)
      add("hs", s, $9); add("cpuhs", s, $10); add("hspct", s, $11)
      if ($12 != "-" && !index(" " tlsset[s] " ", " " $12 " ")) tlsset[s] = tlsset[s] (tlsset[s] == "" ? "" : " ") $12
      if ($13 != "-" && !index(note[s], $13)) note[s] = note[s] (note[s] == "" ? "" : "; ") $13
    }
    END {
      split("rps p50 p99 cpureq kapct hs cpuhs hspct", cols, " ")
      ns = split(servers, sv, " ")
      for (i = 1; i <= ns; i++) for (c in cols) m[cols[c], sv[i]] = med(vals[cols[c], sv[i]])
      print "| server | rounds | req/s | p50 ms | p99 ms | cpu µs/req | srv cpu% (req) | handshakes/s | cpu µs/handshake | srv cpu% (hs) | tls | notes |"
      print "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|"
      for (i = 1; i <= ns; i++) row(sv[i], tlsset[sv[i]], (ok[sv[i]] + 0) "/" (tried[sv[i]] + 0))
      if (index(" " servers " ", " keel ") && index(" " servers " ", " netty ")) {
        printf "| keel/netty | | %s | | | %s | | %s | %s | | | |\n",
          ratio(m["rps", "keel"], m["rps", "netty"]), ratio(m["cpureq", "keel"], m["cpureq", "netty"]),
          ratio(m["hs", "keel"], m["hs", "netty"]), ratio(m["cpuhs", "keel"], m["cpuhs", "netty"])
      }
      print ""
      print "Per round:"
      print ""
      print "| round | server | req/s | p50 ms | p99 ms | cpu µs/req | srv cpu% (req) | handshakes/s | cpu µs/handshake | srv cpu% (hs) |"
      print "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|"
      for (i = 1; i <= n; i++) {
        split(line[i], f, "\t")
        printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", f[1], f[2], num(f[4], "%.0f"), num(f[5], "%.2f"),
          num(f[6], "%.2f"), num(f[7], "%.1f"), num(f[8], "%.0f"), num(f[9], "%.0f"), num(f[10], "%.0f"), num(f[11], "%.0f")
      }
    }' "$TSV"
}

# Writes $OUT/table.md and prints it; $1 is an optional remark for the heading.
emit_table() {
  TABLE_DONE=true
  {
    echo "## Keel vs Netty over TLS ($(date -u +%Y-%m-%dT%H:%M:%SZ))${1:+ ($1)}"
    echo
    echo "Medians of $ROUNDS round(s), a fresh JVM per server and round, EC P-256 certificate;" \
      "keep-alive: wrk -t1 -c$CONNECTIONS ${DURATION}s after ${WARMUP}s warm-up; handshakes:" \
      "$HANDSHAKE_CLIENTS x openssl s_time -new ${DURATION}s after ${WARMUP}s warm-up, one full handshake and one" \
      "HTTP/1.0 GET per connection; server on CPU $SERVER_CPU, clients on CPU $CLIENT_CPU;" \
      "$("$JAVA_HOME/bin/java" -version 2>&1 | head -n 1); $(openssl version | awk '{ print $1, $2 }');" \
      "$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null || true);" \
      "$(git_desc)"
    echo
    render_table
  } >"$OUT/table.md"
  cat "$OUT/table.md"
  log "wrote $OUT/table.md"
}

# ------------------------------------------------------------------- main ---

for ((round = 1; round <= ROUNDS; round++)); do
  for server in $SERVERS; do
    run_server "$server" "$round"
  done
done
emit_table
