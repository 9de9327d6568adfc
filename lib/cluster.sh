# shellcheck shell=bash
# A three-node RabbitMQ cluster on this machine, from Debian's packages, for the gateway and the
# ingest pipeline on quorum queues. Source lib/services.sh, then this file, then call cluster_up,
# cluster_down or cluster_status. No systemd: each node is its own `rabbitmq-server -detached`,
# run as the rabbitmq user with its own name, ports, data directory and an Erlang cookie of the
# cluster's own (so the CLI here can never reach the single broker of lib/services.sh).
#   node keel-cluster-N@localhost (N = 1..3): AMQP 127.0.0.1:568N, Erlang distribution 2568N
#   data, logs and pid files under $KEEL_CLUSTER_DIR/nodeN (default /var/lib/keel-rabbitmq-cluster)
#   clients: amqp://guest:guest@127.0.0.1:5681 with the address list 127.0.0.1:5681,127.0.0.1:5682,127.0.0.1:5683
# cluster_node_start N starts one node again (after a test killed it); it rejoins the cluster.

KEEL_CLUSTER_DIR=${KEEL_CLUSTER_DIR:-/var/lib/keel-rabbitmq-cluster}
KEEL_CLUSTER_NODES=(1 2 3)
KEEL_CLUSTER_RMQ=/usr/lib/rabbitmq/bin

cluster_node_name() { echo "keel-cluster-$1@localhost"; }
cluster_node_port() { echo $((5680 + $1)); }
cluster_node_dir() { echo "$KEEL_CLUSTER_DIR/node$1"; }

# Runs a RabbitMQ script as the rabbitmq user, with the cluster's cookie (HOME) and node N's settings.
cluster_as_node() {
  local n=$1 dir
  shift
  dir=$(cluster_node_dir "$n")
  services_as_root runuser -u rabbitmq -- env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME="$KEEL_CLUSTER_DIR" LANG=C.UTF-8 \
    RABBITMQ_NODENAME="$(cluster_node_name "$n")" \
    RABBITMQ_NODE_IP_ADDRESS=127.0.0.1 RABBITMQ_NODE_PORT="$(cluster_node_port "$n")" \
    RABBITMQ_DIST_PORT=$((25680 + n)) \
    RABBITMQ_MNESIA_BASE="$dir" RABBITMQ_MNESIA_DIR="$dir/mnesia" RABBITMQ_LOG_BASE="$dir/log" \
    RABBITMQ_PID_FILE="$dir/pid" RABBITMQ_CONFIG_FILE="$KEEL_CLUSTER_DIR/rabbitmq.conf" \
    RABBITMQ_ADVANCED_CONFIG_FILE="$KEEL_CLUSTER_DIR/advanced.config" \
    RABBITMQ_CONF_ENV_FILE="$KEEL_CLUSTER_DIR/rabbitmq-env.conf" \
    RABBITMQ_ENABLED_PLUGINS_FILE="$KEEL_CLUSTER_DIR/enabled_plugins" RABBITMQ_PLUGINS_EXPAND_DIR="$dir/plugins" \
    RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS="-kernel inet_dist_use_interface {127,0,0,1}" \
    "$@"
}

cluster_ctl() {
  local n=$1
  shift
  cluster_as_node "$n" "$KEEL_CLUSTER_RMQ/rabbitmqctl" -q -n "$(cluster_node_name "$n")" "$@"
}

# The node's beam process, from the pid file it writes, when that process is alive and is that node.
cluster_node_pid() {
  local pid
  pid=$(cat "$(cluster_node_dir "$1")/pid" 2>/dev/null) || return 1
  [[ $pid =~ ^[0-9]+$ ]] && services_as_root cat "/proc/$pid/environ" 2>/dev/null | tr '\0' '\n' \
    | grep -qx "RABBITMQ_NODENAME=$(cluster_node_name "$1")" && echo "$pid"
}

cluster_node_running() { cluster_node_pid "$1" >/dev/null && cluster_ctl "$1" status >/dev/null 2>&1; }

# The directories, the cookie and the (empty) configuration the nodes share; idempotent.
cluster_prepare() {
  local n
  services_as_root mkdir -p "$KEEL_CLUSTER_DIR"
  for n in "${KEEL_CLUSTER_NODES[@]}"; do services_as_root mkdir -p "$(cluster_node_dir "$n")/log"; done
  if ! services_as_root test -s "$KEEL_CLUSTER_DIR/.erlang.cookie"; then
    # shellcheck disable=SC2016
    services_as_root sh -c 'umask 077; head -c 30 /dev/urandom | od -An -tx1 | tr -d " \n" > "$1/.erlang.cookie"' sh "$KEEL_CLUSTER_DIR"
  fi
  echo '[].' | services_as_root tee "$KEEL_CLUSTER_DIR/enabled_plugins" >/dev/null
  echo '[].' | services_as_root tee "$KEEL_CLUSTER_DIR/advanced.config" >/dev/null
  services_as_root touch "$KEEL_CLUSTER_DIR/rabbitmq.conf" "$KEEL_CLUSTER_DIR/rabbitmq-env.conf"
  services_as_root chown -R rabbitmq:rabbitmq "$KEEL_CLUSTER_DIR"
  services_as_root chmod 400 "$KEEL_CLUSTER_DIR/.erlang.cookie"
}

# Starts node N (when its beam is not running) and waits until it has booted.
cluster_node_start() {
  local n=$1 deadline=$((SECONDS + 120))
  if ! cluster_node_pid "$n" >/dev/null; then
    services_log "starting $(cluster_node_name "$n") on port $(cluster_node_port "$n")"
    cluster_as_node "$n" "$KEEL_CLUSTER_RMQ/rabbitmq-server" -detached \
      >"$(cluster_node_dir "$n")/log/startup.log" 2>&1
  fi
  # await_startup fails at once until the node has registered with epmd: retry until it waits.
  until cluster_ctl "$n" await_startup --timeout 60 >/dev/null 2>&1; do
    ((SECONDS < deadline)) || { services_log "$(cluster_node_name "$n") did not start within 120 s (see $(cluster_node_dir "$n")/log)"; return 1; }
    sleep 1
  done
}

# The cluster's running nodes as the first node that answers sees them, one name a line.
cluster_running_nodes() {
  local n
  for n in "${KEEL_CLUSTER_NODES[@]}"; do
    cluster_node_pid "$n" >/dev/null || continue
    cluster_ctl "$n" eval 'lists:foreach(fun(N) -> io:format("~s~n", [N]) end, rabbit_nodes:all_running()), ok.' 2>/dev/null \
      | grep '@' | sort && return
  done
}

# Joins node N to node 1's cluster unless it is a member already.
cluster_join() {
  local n=$1 first
  first=$(cluster_node_name 1)
  if cluster_ctl "$n" eval 'rabbit_nodes:all().' 2>/dev/null | grep -q "'$first'"; then return 0; fi
  services_log "joining $(cluster_node_name "$n") to $first"
  local log
  log="$(cluster_node_dir "$n")/log/join.log"
  # The CLI prints the node's boot warnings; keep them for a failure only.
  { cluster_ctl "$n" stop_app && cluster_ctl "$n" reset && cluster_ctl "$n" join_cluster "$first" \
      && cluster_ctl "$n" start_app; } >"$log" 2>&1 || { cat "$log" >&2; return 1; }
}

cluster_up() {
  command -v rabbitmqctl >/dev/null 2>&1 || services_install
  local n pids=() rc=0
  if (($(cluster_running_nodes | wc -l) == ${#KEEL_CLUSTER_NODES[@]})); then
    services_log "rabbitmq cluster already running"
    cluster_status
    return
  fi
  cluster_prepare
  # Started together: a node that was not the last to stop waits for the others before it boots.
  for n in "${KEEL_CLUSTER_NODES[@]}"; do cluster_node_start "$n" & pids+=($!); done
  for pid in "${pids[@]}"; do wait "$pid" || rc=1; done
  ((rc == 0)) || return 1
  for n in "${KEEL_CLUSTER_NODES[@]:1}"; do cluster_join "$n"; done
  cluster_status
}

cluster_down() {
  local n pid
  for n in "${KEEL_CLUSTER_NODES[@]}"; do
    pid=$(cluster_node_pid "$n") || continue
    services_log "stopping $(cluster_node_name "$n")"
    # stop waits for the node's beam process to exit.
    cluster_ctl "$n" stop "$(cluster_node_dir "$n")/pid" >/dev/null 2>&1 || services_as_root kill "$pid"
  done
  cluster_status || true
}

cluster_status() {
  local n rc=0 running
  running=$(cluster_running_nodes)
  for n in "${KEEL_CLUSTER_NODES[@]}"; do
    if grep -qx "$(cluster_node_name "$n")" <<<"$running"; then
      echo "rabbitmq $(cluster_node_name "$n"): up   (amqp://127.0.0.1:$(cluster_node_port "$n"), pid $(cluster_node_pid "$n"))"
    elif cluster_node_running "$n"; then
      echo "rabbitmq $(cluster_node_name "$n"): up, not in the cluster"; rc=1
    else
      echo "rabbitmq $(cluster_node_name "$n"): down"; rc=1
    fi
  done
  return "$rc"
}
