# shellcheck shell=bash
# Helpers shared by the bench scripts. Source after defining log() and die() (and setting ROOT,
# PORT, BASE, CLIENT_CPU, SERVER_CPU, KEEL_BIN, LOOPS, READY_TIMEOUT as the helpers below use them).

# True when something listens on 127.0.0.1:$PORT.
port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; }

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

# Runs wrk pinned to CPU $CLIENT_CPU, in the background so that signals act at once; $1 is the
# output file, the rest wrk's arguments. WRK_PID names it while it runs (for an exit trap).
WRK_PID=""
run_wrk() {
  local out=$1 rc=0
  shift
  taskset -c "$CLIENT_CPU" wrk "$@" >"$out" 2>&1 </dev/null &
  WRK_PID=$!
  wait "$WRK_PID" || rc=$?
  WRK_PID=""
  return "$rc"
}

# "commit abc1234" (+ " + local changes" when the tree differs from it), for result headings.
git_desc() {
  local rev
  rev=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null) || { echo "no git commit"; return 0; }
  if git -C "$ROOT" diff --quiet HEAD 2>/dev/null; then echo "commit $rev"; else echo "commit $rev + local changes"; fi
}

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

# Exports JAVA_HOME (and PATH) for a JDK >= 25, or dies.
use_java_25() {
  JAVA_HOME=$(keel_java_home) || die "a JDK >= 25 is required"
  export JAVA_HOME PATH="$JAVA_HOME/bin:$PATH"
}

# Dies unless the RabbitMQ broker answers.
require_broker() {
  rabbitmqctl -q status >/dev/null 2>&1 || die "RabbitMQ is not running: start it with 'bin/keel services up'"
}

# ------------------------------------------------- the server under test ---

SERVER_PID=""  # taskset exec's bin/keel, which exec's java: this PID is the JVM

stop_server() {
  local pid=$SERVER_PID
  SERVER_PID=""
  [[ -n $pid ]] || return 0
  terminate_pid "$pid"
  wait "$pid" 2>/dev/null || true
}

start_server() { # log_file keel_args...
  local logf=$1 deadline i
  shift
  for ((i = 0; i < 10; i++)); do port_in_use || break; sleep 0.2; done
  port_in_use && die "port $PORT is already in use; pick another with PORT=..."
  log "starting: nice -n ${SERVER_NICE:-0} taskset -c $SERVER_CPU bin/keel serve --port $PORT $*"
  # SERVER_NICE (default 0) < 0 shields the server from unrelated work on a shared machine (needs root).
  nice -n "${SERVER_NICE:-0}" taskset -c "$SERVER_CPU" "$KEEL_BIN" serve --port "$PORT" --loops "$LOOPS" "$@" >"$logf" 2>&1 </dev/null &
  SERVER_PID=$!
  deadline=$((SECONDS + READY_TIMEOUT))
  until curl -sf -o /dev/null --max-time 2 "$BASE/benchmark/health"; do
    kill -0 "$SERVER_PID" 2>/dev/null || { tail -n 30 "$logf" >&2; die "server exited before it became ready (log: $logf)"; }
    ((SECONDS < deadline)) || { tail -n 30 "$logf" >&2; die "server not ready within ${READY_TIMEOUT}s (log: $logf)"; }
    sleep 0.2
  done
  if grep -q 'building' "$logf"; then log "warning: bin/keel rebuilt Keel at this start (sources changed meanwhile)"; fi
}


# ------------------------------------------------------- loop lag ---

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

