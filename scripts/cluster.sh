#!/usr/bin/env bash
# Replicated databases on this one machine, for `npm run test:cluster` and `npm run bench:cluster`:
#
#   scripts/cluster.sh galera up          3-node MariaDB Galera cluster on 127.0.0.1:3311-3313
#                                         (starts the nodes that are down; bootstraps node 1 if none is up)
#   scripts/cluster.sh galera kill N      SIGKILL node N (1-3); prints the moment (epoch ms)
#   scripts/cluster.sh galera stop        stops the cluster and deletes its data
#   scripts/cluster.sh single up|stop     one MariaDB without Galera, same settings, on 127.0.0.1:3314
#   scripts/cluster.sh postgres up [sync|async|none]
#                                         a fresh primary on 127.0.0.1:5433 and a streaming standby on 5434
#                                         (sync: synchronous_standby_names names the standby, the default;
#                                         none: the primary alone, for comparison)
#   scripts/cluster.sh postgres kill-primary   SIGKILL the primary's postmaster and all its processes
#                                              at once (a crashed host); prints the moment
#   scripts/cluster.sh postgres promote        promotes the standby, prints the moment it completed,
#                                              and waits until it accepts writes
#   scripts/cluster.sh postgres stop
#   scripts/cluster.sh stop               stops everything and deletes the data
#   scripts/cluster.sh run CMD ARGS...    runs CMD, then stops everything, whatever CMD's exit
#
# Everything lives under $WAYMARK_CLUSTER_DIR (default /tmp/waymark-cluster): data folders,
# sockets, pid files and logs. The servers run as the `mysql` and `postgres` users. Missing
# Debian packages (galera-4, rsync, mariadb-server, postgresql) are installed when we are root.
set -euo pipefail
[ -n "${CLUSTER_TRACE:-}" ] && { PS4='+ ${EPOCHREALTIME} '; set -x; }

ROOT=${WAYMARK_CLUSTER_DIR:-/tmp/waymark-cluster}
GALERA_LIB=/usr/lib/galera/libgalera_smm.so
NODES=(1 2 3)
sql_port() { echo $((3310 + $1)); }
gcomm_port() { echo $((4570 + $1)); }
ist_port() { echo $((4580 + $1)); }
sst_port() { echo $((4590 + $1)); }
SINGLE_PORT=3314
PG_PRIMARY_PORT=5433
PG_STANDBY_PORT=5434
WAIT_S=${WAYMARK_CLUSTER_WAIT:-90}

log() { printf 'cluster: %s\n' "$*" >&2; }
die() {
  log "$*"
  exit 1
}

# --- packages ------------------------------------------------------------------------------

pg_bin() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1; }

ensure_packages() {
  local missing=()
  [ -f "$GALERA_LIB" ] || missing+=(galera-4)
  command -v rsync >/dev/null || missing+=(rsync)
  command -v mariadbd >/dev/null || [ -x /usr/sbin/mariadbd ] || missing+=(mariadb-server)
  [ -n "$(pg_bin)" ] || missing+=(postgresql)
  [ ${#missing[@]} -eq 0 ] && return 0
  if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
    die "missing ${missing[*]}; install them (Debian: sudo apt-get install -y ${missing[*]})"
  fi
  log "installing ${missing[*]} from Debian's packages"
  apt-get install -y "${missing[@]}" >/dev/null 2>&1 ||
    { apt-get update >/dev/null && apt-get install -y "${missing[@]}" >/dev/null; }
}

as_user() {
  local user=$1
  shift
  if [ "$(id -un)" = "$user" ]; then "$@"; else runuser -u "$user" -- "$@"; fi
}

wait_until() {
  local what=$1
  shift
  for _ in $(seq 1 $((WAIT_S * 5))); do
    if "$@" >/dev/null 2>&1; then return 0; fi
    sleep 0.2
  done
  die "$what did not happen within ${WAIT_S}s (logs in $ROOT)"
}

alive() { [ -f "$1" ] && kill -0 "$(head -1 "$1")" 2>/dev/null; }

# --- MariaDB (Galera nodes and the single server) ------------------------------------------

node_dir() { echo "$ROOT/galera/node$1"; }

mariadb_conf() { # name dir port [galera-node]
  local name=$1 dir=$2 port=$3 node=${4:-}
  cat <<EOF
[mariadbd]
datadir=$dir/data
tmpdir=$dir/tmp
socket=$dir/mysqld.sock
pid-file=$dir/mysqld.pid
log-error=$dir/error.log
port=$port
bind-address=127.0.0.1
user=mysql
skip-name-resolve
performance_schema=OFF
innodb_buffer_pool_size=32M
innodb_log_file_size=16M
innodb_flush_log_at_trx_commit=1
max_connections=300
binlog_format=ROW
default_storage_engine=InnoDB
innodb_autoinc_lock_mode=2
character-set-server=utf8mb4
collation-server=utf8mb4_general_ci
EOF
  [ -z "$node" ] && return 0
  local members="" n
  for n in "${NODES[@]}"; do members+="${members:+,}127.0.0.1:$(gcomm_port "$n")"; done
  # Short failure detection: a killed node is evicted in about 2 s instead of the 5-15 s
  # defaults meant for real networks, so the survivors resume writes quickly.
  cat <<EOF
wsrep_on=ON
wsrep_provider=$GALERA_LIB
wsrep_cluster_name=waymark_test
wsrep_cluster_address=gcomm://$members
wsrep_node_name=$name
wsrep_node_address=127.0.0.1:$(gcomm_port "$node")
wsrep_provider_options="gmcast.listen_addr=tcp://127.0.0.1:$(gcomm_port "$node");ist.recv_addr=127.0.0.1:$(ist_port "$node");gcache.size=64M;evs.keepalive_period=PT0.5S;evs.suspect_timeout=PT2S;evs.inactive_timeout=PT4S;evs.inactive_check_period=PT0.5S;evs.install_timeout=PT4S"
wsrep_sst_method=rsync
wsrep_sst_receive_address=127.0.0.1:$(sst_port "$node")
wsrep_slave_threads=2
EOF
}

mariadb_install() { # dir
  local dir=$1
  mkdir -p "$dir/data" "$dir/tmp"
  chown -R mysql:mysql "$dir"
  mariadb-install-db --defaults-file="$dir/my.cnf" --user=mysql --skip-test-db \
    --auth-root-authentication-method=socket >"$dir/install.log" 2>&1 ||
    die "mariadb-install-db failed, see $dir/install.log"
}

mariadb_start() { # dir [extra mariadbd args]
  local dir=$1
  shift
  # A tmpdir of its own: at start-up MariaDB deletes every #sql* file in its tmpdir, and in
  # the shared /tmp those are the temporary tables of other servers' queries in flight.
  mkdir -p "$dir/tmp"
  chown mysql:mysql "$dir/tmp"
  # mariadbd_safe would restart a killed node; the tests want it to stay dead.
  setsid /usr/sbin/mariadbd --defaults-file="$dir/my.cnf" "$@" </dev/null >>"$dir/stdout.log" 2>&1 &
}

mariadb_ready() { # port
  mariadb -h127.0.0.1 -P"$1" -uroot -N -e 'SELECT 1' >/dev/null 2>&1
}

galera_synced() { # port
  [ "$(mariadb -h127.0.0.1 -P"$1" -uroot -N -e "SHOW STATUS LIKE 'wsrep_local_state_comment'" 2>/dev/null | cut -f2)" = Synced ]
}

open_root_over_tcp() { # dir
  # Root over TCP without a password, as on the machine's own server: test data only.
  mariadb -S "$1/mysqld.sock" -uroot -e "
    CREATE USER IF NOT EXISTS 'root'@'127.0.0.1' IDENTIFIED BY '';
    GRANT ALL PRIVILEGES ON *.* TO 'root'@'127.0.0.1' WITH GRANT OPTION;
    CREATE DATABASE IF NOT EXISTS test;"
}

galera_up() {
  ensure_packages
  mkdir -p "$ROOT/galera"
  local any_up="" n
  for n in "${NODES[@]}"; do alive "$(node_dir "$n")/mysqld.pid" && any_up=$n; done
  for n in "${NODES[@]}"; do
    local dir
    dir=$(node_dir "$n")
    alive "$dir/mysqld.pid" && continue
    if [ -z "$any_up" ]; then
      rm -rf "$dir"
      mkdir -p "$dir"
      mariadb_conf "node$n" "$dir" "$(sql_port "$n")" "$n" >"$dir/my.cnf"
      mariadb_install "$dir"
      log "bootstrapping the Galera cluster with node $n on 127.0.0.1:$(sql_port "$n")"
      mariadb_start "$dir" --wsrep-new-cluster
      wait_until "node $n bootstrap" mariadb_ready_socket "$dir"
      open_root_over_tcp "$dir"
      any_up=$n
    else
      # A joiner starts empty and receives the whole state (SST by rsync): a node killed
      # earlier rejoins the same way, without any recovery of its own files.
      rm -rf "$dir"
      mkdir -p "$dir/data"
      mariadb_conf "node$n" "$dir" "$(sql_port "$n")" "$n" >"$dir/my.cnf"
      chown -R mysql:mysql "$dir"
      log "node $n joins on 127.0.0.1:$(sql_port "$n")"
      mariadb_start "$dir"
    fi
  done
  for n in "${NODES[@]}"; do
    wait_until "node $n synced" galera_synced "$(sql_port "$n")"
  done
  local size
  size=$(mariadb -h127.0.0.1 -P"$(sql_port 1)" -uroot -N -e "SHOW STATUS LIKE 'wsrep_cluster_size'" 2>/dev/null | cut -f2 || true)
  [ -n "$size" ] || size=$(mariadb -h127.0.0.1 -P"$(sql_port 2)" -uroot -N -e "SHOW STATUS LIKE 'wsrep_cluster_size'" | cut -f2)
  log "Galera cluster up: $size nodes, mysql://root@127.0.0.1:3311,127.0.0.1:3312,127.0.0.1:3313/test"
}

mariadb_ready_socket() { mariadb -S "$1/mysqld.sock" -uroot -N -e 'SELECT 1'; }

galera_kill() {
  local n=${1:?node number}
  local pidfile
  pidfile="$(node_dir "$n")/mysqld.pid"
  alive "$pidfile" || die "Galera node $n is not running"
  kill -KILL "$(head -1 "$pidfile")"
  date +%s%3N # the moment of the kill, for the tests' figures
  log "killed Galera node $n (SIGKILL)"
}

stop_pidfile() { # pidfile what
  local pidfile=$1 pid
  [ -f "$pidfile" ] || return 0
  pid=$(head -1 "$pidfile")
  if kill -0 "$pid" 2>/dev/null; then
    kill -KILL "$pid" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  fi
}

galera_stop() {
  local n
  for n in "${NODES[@]}"; do stop_pidfile "$(node_dir "$n")/mysqld.pid"; done
  # rsync daemons of an interrupted state transfer.
  for n in "${NODES[@]}"; do stop_pidfile "$(node_dir "$n")/data/rsync_sst.pid"; done
  rm -rf "$ROOT/galera"
}

single_up() {
  ensure_packages
  local dir=$ROOT/single
  alive "$dir/mysqld.pid" && return 0
  rm -rf "$dir"
  mkdir -p "$dir"
  mariadb_conf single "$dir" "$SINGLE_PORT" >"$dir/my.cnf"
  mariadb_install "$dir"
  mariadb_start "$dir"
  wait_until "single MariaDB start" mariadb_ready_socket "$dir"
  open_root_over_tcp "$dir"
  log "single MariaDB up: mysql://root@127.0.0.1:$SINGLE_PORT/test"
}

single_stop() {
  stop_pidfile "$ROOT/single/mysqld.pid"
  rm -rf "$ROOT/single"
}

# --- PostgreSQL ----------------------------------------------------------------------------

PG=$ROOT/postgres

pg_ctl_as() { as_user postgres "$(pg_bin)/pg_ctl" "$@"; }

pg_accepts_writes() { # port
  [ "$(psql -h127.0.0.1 -p"$1" -Upostgres -d postgres -Atc 'SHOW transaction_read_only' 2>/dev/null)" = off ]
}

postgres_up() {
  local mode=${1:-sync}
  case "$mode" in sync | async | none) ;; *) die "postgres up: expected sync, async or none, got $mode" ;; esac
  ensure_packages
  postgres_stop
  mkdir -p "$PG"
  chown postgres:postgres "$PG"
  local bin
  bin=$(pg_bin)
  as_user postgres "$bin/initdb" -N -D "$PG/primary" -U postgres --auth=trust -E UTF8 >"$PG/initdb.log" 2>&1 ||
    die "initdb failed, see $PG/initdb.log"
  echo "host replication postgres 127.0.0.1/32 trust" >>"$PG/primary/pg_hba.conf"
  local common="-c listen_addresses=127.0.0.1 -c unix_socket_directories=$PG -c shared_buffers=32MB -c max_connections=200 -c wal_level=replica -c max_wal_senders=4 -c hot_standby=on -c fsync=on -c synchronous_commit=on -c wal_keep_size=64MB"
  pg_ctl_as -D "$PG/primary" -l "$PG/primary.log" -w -t "$WAIT_S" -o "-p $PG_PRIMARY_PORT $common" start >/dev/null
  psql -h127.0.0.1 -p"$PG_PRIMARY_PORT" -Upostgres -d postgres -qc 'CREATE DATABASE test' >/dev/null
  if [ "$mode" = none ]; then
    log "PostgreSQL up (primary alone): postgres://postgres@127.0.0.1:$PG_PRIMARY_PORT/test"
    return 0
  fi
  as_user postgres "$bin/pg_basebackup" -h127.0.0.1 -p"$PG_PRIMARY_PORT" -Upostgres -D "$PG/standby" -R -X stream --checkpoint=fast \
    -d "application_name=standby1" >"$PG/basebackup.log" 2>&1 || die "pg_basebackup failed, see $PG/basebackup.log"
  pg_ctl_as -D "$PG/standby" -l "$PG/standby.log" -w -t "$WAIT_S" -o "-p $PG_STANDBY_PORT $common" start >/dev/null
  # Only now, and only on the primary (the standby's copy must not wait for a standby of its
  # own once promoted): commits wait until the standby has flushed them.
  if [ "$mode" = sync ]; then
    psql -h127.0.0.1 -p"$PG_PRIMARY_PORT" -Upostgres -d postgres -qc \
      "ALTER SYSTEM SET synchronous_standby_names = 'standby1'" -c 'SELECT pg_reload_conf()' >/dev/null
  fi
  wait_until "the standby streaming from the primary" pg_standby_streaming "$mode"
  log "PostgreSQL up ($mode replication): postgres://postgres@127.0.0.1:$PG_PRIMARY_PORT,127.0.0.1:$PG_STANDBY_PORT/test?target_session_attrs=read-write"
}

pg_standby_streaming() { # mode
  local want=async
  [ "$1" = sync ] && want=sync
  [ "$(psql -h127.0.0.1 -p"$PG_PRIMARY_PORT" -Upostgres -d postgres -Atc \
    "SELECT sync_state FROM pg_stat_replication WHERE application_name = 'standby1' AND state = 'streaming'")" = "$want" ]
}

pg_children() { # postmaster pid: its backends and auxiliary processes
  pgrep -P "$1" 2>/dev/null || true
}

postgres_kill_primary() {
  local pidfile=$PG/primary/postmaster.pid pid children
  alive "$pidfile" || die "the PostgreSQL primary is not running"
  pid=$(head -1 "$pidfile")
  # The postmaster and every process of it in one kill, as when its host dies: killed alone,
  # the postmaster's backends would go on committing (and the walsender shipping) for a few
  # milliseconds until they notice.
  children=$(pg_children "$pid")
  echo "$children" >>"$PG/orphans"
  kill -KILL "$pid" $children 2>/dev/null || true
  date +%s%3N
  log "killed the PostgreSQL primary: its postmaster and $(echo "$children" | wc -w) processes (SIGKILL)"
}

postgres_promote() {
  pg_ctl_as -D "$PG/standby" -w -t "$WAIT_S" promote >/dev/null
  date +%s%3N # the moment the promotion completed
  wait_until "the promoted standby accepting writes" pg_accepts_writes "$PG_STANDBY_PORT"
  log "promoted the standby on 127.0.0.1:$PG_STANDBY_PORT"
}

postgres_stop() {
  local node pid
  for node in primary standby; do
    [ -f "$PG/$node/postmaster.pid" ] || continue
    pid=$(head -1 "$PG/$node/postmaster.pid")
    kill -0 "$pid" 2>/dev/null || continue
    pg_children "$pid" >>"$PG/orphans"
    pg_ctl_as -D "$PG/$node" -m immediate -w -t 30 stop >/dev/null 2>&1 || kill -KILL "$pid" 2>/dev/null || true
  done
  if [ -f "$PG/orphans" ]; then
    # Only processes still owned by postgres: a pid reused since is left alone.
    for pid in $(cat "$PG/orphans"); do
      [ "$(ps -o user= -p "$pid" 2>/dev/null | tr -d ' ')" = postgres ] && kill -KILL "$pid" 2>/dev/null || true
    done
  fi
  rm -rf "$PG"
}

stop_all() {
  galera_stop
  single_stop
  postgres_stop
  rmdir "$ROOT" 2>/dev/null || true
}

# --- dispatch ------------------------------------------------------------------------------

case "${1:-}" in
galera)
  case "${2:-}" in
  up) galera_up ;;
  kill) galera_kill "${3:-}" ;;
  stop) galera_stop ;;
  *) die "usage: $0 galera up|kill N|stop" ;;
  esac
  ;;
single)
  case "${2:-}" in
  up) single_up ;;
  stop) single_stop ;;
  *) die "usage: $0 single up|stop" ;;
  esac
  ;;
postgres)
  case "${2:-}" in
  up) postgres_up "${3:-sync}" ;;
  kill-primary) postgres_kill_primary ;;
  promote) postgres_promote ;;
  stop) postgres_stop ;;
  *) die "usage: $0 postgres up [sync|async|none]|kill-primary|promote|stop" ;;
  esac
  ;;
stop) stop_all ;;
run)
  shift
  [ $# -gt 0 ] || die "usage: $0 run CMD ARGS..."
  trap stop_all EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM
  ensure_packages
  "$@"
  ;;
*) die "usage: $0 galera|single|postgres|stop|run (see the comment at the top of $0)" ;;
esac
