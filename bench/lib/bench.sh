# shellcheck shell=bash
# Helpers shared by the bench scripts. Source after defining log() and die() (and setting ROOT, PORT,
# CLIENT_CPU as the helpers below use them).

# Dies unless every variable named holds a non-negative integer.
require_integers() {
  local v
  for v in "$@"; do
    [[ ${!v} =~ ^[0-9]+$ ]] || die "$v must be a non-negative integer, got '${!v}'"
  done
}

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
