# shellcheck shell=bash
# RabbitMQ and PostgreSQL from Debian's packages, for the gateway and the ingest pipeline. Source
# this file, then call services_up, services_down or services_status. No systemd needed: each
# service is started by its own command. What the tests and `bin/keel serve` expect:
#   RabbitMQ   amqp://guest:guest@127.0.0.1:5672
#   PostgreSQL jdbc:postgresql://127.0.0.1:5432/keel, user keel, password keel

KEEL_DB_NAME=${KEEL_DB_NAME:-keel}
KEEL_DB_USER=${KEEL_DB_USER:-keel}
KEEL_DB_PASSWORD=${KEEL_DB_PASSWORD:-keel}

services_log() { echo "keel services: $*" >&2; }

services_as_root() {
  if [[ $(id -u) == 0 ]]; then "$@"; else sudo "$@"; fi
}

services_install() {
  local missing=()
  command -v rabbitmqctl >/dev/null 2>&1 || missing+=(rabbitmq-server)
  command -v pg_ctlcluster >/dev/null 2>&1 && [[ -n $(pg_lsclusters -h 2>/dev/null) ]] || missing+=(postgresql)
  ((${#missing[@]} == 0)) && return 0
  services_log "installing ${missing[*]} from Debian's packages"
  services_as_root apt-get update -qq
  services_as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
}

rabbitmq_running() { services_as_root rabbitmqctl -q status >/dev/null 2>&1; }

postgres_cluster() { pg_lsclusters -h 2>/dev/null | awk 'NR == 1 { print $1 " " $2 }'; }

postgres_running() { [[ $(pg_lsclusters -h 2>/dev/null | awk 'NR == 1 { print $4 }') == online ]]; }

services_up() {
  services_install
  if rabbitmq_running; then
    services_log "rabbitmq already running"
  else
    services_log "starting rabbitmq"
    services_as_root rabbitmq-server -detached
    # await_startup fails at once until the node has registered with epmd: retry until it waits.
    local deadline=$((SECONDS + 120))
    until services_as_root rabbitmqctl -q await_startup --timeout 60 >/dev/null 2>&1; do
      ((SECONDS < deadline)) || { services_log "rabbitmq did not start within 120 s (see /var/log/rabbitmq)"; return 1; }
      sleep 1
    done
  fi
  # shellcheck disable=SC2046
  if postgres_running; then
    services_log "postgresql already running"
  else
    services_log "starting postgresql"
    services_as_root pg_ctlcluster $(postgres_cluster) start
  fi
  postgres_setup
  services_status
}

# The role and database the tests and the ingest pipeline use (idempotent).
postgres_setup() {
  local psql=(services_as_root su postgres -s /bin/sh -c)
  "${psql[@]}" "psql -qtAc \"SELECT 1 FROM pg_roles WHERE rolname = '$KEEL_DB_USER'\"" | grep -q 1 \
    || "${psql[@]}" "psql -qc \"CREATE ROLE $KEEL_DB_USER LOGIN PASSWORD '$KEEL_DB_PASSWORD'\""
  "${psql[@]}" "psql -qtAc \"SELECT 1 FROM pg_database WHERE datname = '$KEEL_DB_NAME'\"" | grep -q 1 \
    || "${psql[@]}" "createdb -O $KEEL_DB_USER $KEEL_DB_NAME"
}

services_down() {
  # shellcheck disable=SC2046
  if postgres_running; then services_log "stopping postgresql"; services_as_root pg_ctlcluster $(postgres_cluster) stop; fi
  if rabbitmq_running; then services_log "stopping rabbitmq"; services_as_root rabbitmqctl -q shutdown; fi
  services_status || true
}

services_status() {
  local rc=0
  if rabbitmq_running; then echo "rabbitmq:   up   (amqp://127.0.0.1:5672)"; else echo "rabbitmq:   down"; rc=1; fi
  if postgres_running; then echo "postgresql: up   (127.0.0.1:5432, database $KEEL_DB_NAME, user $KEEL_DB_USER)"; else echo "postgresql: down"; rc=1; fi
  return "$rc"
}
