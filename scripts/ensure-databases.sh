#!/usr/bin/env bash
# Run by `npm test` (pretest): the integration suites talk to a real MariaDB and PostgreSQL,
# which a fresh machine lacks. For each server that does not answer where the tests will look
# (WAYMARK_MARIADB_HOST/PORT/USER, WAYMARK_POSTGRES_HOST/PORT/USER; default 127.0.0.1:3306
# root and 127.0.0.1:5432 postgres, as test/support/databases.ts reads them):
#   - as root on the default port: installs Debian's package when missing (mariadb-server,
#     postgresql), starts the system service, lets the test user in from 127.0.0.1 without a
#     password, and creates the database `test`;
#   - otherwise (another port, or not root): starts a throwaway server on that port with its
#     data in $WAYMARK_TEST_DB_DIR (default $TMPDIR/waymark-test-databases); it keeps running
#     for the next `npm test` until `scripts/ensure-databases.sh --stop`.
# A server that answers is left alone. A server it cannot provide fails the run: no suite is
# ever skipped.
#
#   scripts/ensure-databases.sh [--dry-run] [--assume-down]   # --dry-run prints, changes nothing
#   scripts/ensure-databases.sh --stop                        # stops the throwaway servers
set -euo pipefail
cd "$(dirname "$0")/.."

DRY_RUN=0
ASSUME_DOWN=0
STOP=0
for arg in "$@"; do
  case "$arg" in
    --dry-run) DRY_RUN=1 ;;
    --assume-down) ASSUME_DOWN=1 ;; # with --dry-run: show the plan for servers that are down
    --stop) STOP=1 ;;
    *) echo "usage: $0 [--dry-run [--assume-down]] | --stop" >&2; exit 2 ;;
  esac
done
if [ "$ASSUME_DOWN" = 1 ] && [ "$DRY_RUN" = 0 ]; then
  echo "ensure-databases: --assume-down only goes with --dry-run" >&2
  exit 2
fi

MARIADB_HOST=${WAYMARK_MARIADB_HOST:-127.0.0.1}
MARIADB_PORT=${WAYMARK_MARIADB_PORT:-3306}
MARIADB_USER=${WAYMARK_MARIADB_USER:-root}
POSTGRES_HOST=${WAYMARK_POSTGRES_HOST:-127.0.0.1}
POSTGRES_PORT=${WAYMARK_POSTGRES_PORT:-5432}
POSTGRES_USER=${WAYMARK_POSTGRES_USER:-postgres}
RUN_DIR=${WAYMARK_TEST_DB_DIR:-${TMPDIR:-/tmp}/waymark-test-databases}

say() { echo "ensure-databases: $*" >&2; }
fail() {
  say "$*"
  exit 1
}
# Runs a command, or with --dry-run prints it (to stderr, which the commands' redirects spare).
act() {
  if [ "$DRY_RUN" = 1 ]; then
    echo "would run: $*" >&2
  else
    "$@"
  fi
}
is_root() { [ "$(id -u)" = 0 ]; }
is_local() { [ "$1" = 127.0.0.1 ] || [ "$1" = localhost ] || [ "$1" = ::1 ]; }

# Whether the server answers as the tests connect to it (through the project's own drivers,
# so no client program is needed). MariaDB: the database `test` is created when missing.
answers() {
  [ "$ASSUME_DOWN" = 1 ] && return 1
  local kind=$1 host=$2 port=$3 user=$4
  node -e '
    const [kind, host, port, user] = process.argv.slice(1);
    const done = (ok) => process.exit(ok ? 0 : 1);
    setTimeout(() => done(false), 5000).unref();
    if (kind === "mariadb") {
      require("mysql2/promise")
        .createConnection({ host, port: Number(port), user, connectTimeout: 3000 })
        .then((c) => c.query("CREATE DATABASE IF NOT EXISTS test").then(() => c.end()))
        .then(() => done(true), () => done(false));
    } else {
      const client = new (require("pg").Client)({
        host, port: Number(port), user, database: "postgres", connectionTimeoutMillis: 3000,
      });
      client.connect().then(() => client.query("SELECT 1")).then(() => client.end())
        .then(() => done(true), () => done(false));
    }
  ' "$kind" "$host" "$port" "$user"
}

wait_until_answers() {
  local kind=$1 host=$2 port=$3 user=$4
  [ "$DRY_RUN" = 1 ] && return 0
  for _ in $(seq 1 60); do
    if answers "$kind" "$host" "$port" "$user"; then return 0; fi
    sleep 1
  done
  fail "$kind at $host:$port did not answer within 60 s (as user $user)"
}

install_package() {
  local package=$1
  command -v apt-get >/dev/null || fail "cannot install $package: no apt-get on this machine"
  say "installing Debian's $package"
  if [ "$DRY_RUN" = 1 ]; then
    echo "would run: apt-get install -y $package" >&2
  else
    DEBIAN_FRONTEND=noninteractive apt-get install -y "$package" >/dev/null 2>&1 ||
      { apt-get update >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y "$package" >/dev/null; }
  fi
}

postgres_bin() {
  # Debian keeps initdb and pg_ctl out of PATH, under /usr/lib/postgresql/<version>/bin.
  if command -v initdb >/dev/null; then
    dirname "$(command -v initdb)"
  else
    ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1
  fi
}

# --- the system services (root, default ports) ---

system_mariadb() {
  command -v mariadbd >/dev/null || [ -x /usr/sbin/mariadbd ] || install_package mariadb-server
  say "starting the MariaDB service"
  act start-stop-daemon --start --oknodo --background --exec /usr/sbin/mariadbd
  if [ "$DRY_RUN" = 0 ]; then
    for _ in $(seq 1 60); do mariadb -uroot -e 'SELECT 1' >/dev/null 2>&1 && break; sleep 1; done
  fi
  # Debian's root logs in through the unix socket only; the tests connect over TCP.
  say "letting $MARIADB_USER in from 127.0.0.1 without a password"
  act mariadb -uroot -e "CREATE USER IF NOT EXISTS '$MARIADB_USER'@'127.0.0.1'; GRANT ALL PRIVILEGES ON *.* TO '$MARIADB_USER'@'127.0.0.1' WITH GRANT OPTION; CREATE DATABASE IF NOT EXISTS test;"
}

system_postgres() {
  [ -n "$(postgres_bin)" ] || install_package postgresql
  local version
  version=$(ls /etc/postgresql 2>/dev/null | sort -V | tail -n 1)
  [ -n "$version" ] || version=$(basename "$(dirname "$(postgres_bin)")")
  [ -n "$version" ] || version="<version>"
  local hba=/etc/postgresql/$version/main/pg_hba.conf
  if [ "$DRY_RUN" = 1 ] || ! grep -q '^host all all 127.0.0.1/32 trust' "$hba" 2>/dev/null; then
    say "letting local TCP connections in without a password ($hba)"
    act sed -i '1i host all all 127.0.0.1/32 trust' "$hba"
  fi
  say "starting the PostgreSQL $version cluster"
  act pg_ctlcluster --skip-systemctl-redirect "$version" main start || true
  act pg_ctlcluster --skip-systemctl-redirect "$version" main reload || true
  act runuser -u postgres -- psql -qc 'CREATE DATABASE test' || true
}

# --- throwaway servers (any user, any port) ---

throwaway_mariadb() {
  local dir=$RUN_DIR/mariadb-$MARIADB_PORT
  command -v mariadbd >/dev/null || [ -x /usr/sbin/mariadbd ] ||
    fail "MariaDB is not installed: sudo apt-get install -y mariadb-server (or point WAYMARK_MARIADB_HOST/PORT at a server)"
  local as=()
  is_root && as=(--user=mysql)
  say "starting a throwaway MariaDB on 127.0.0.1:$MARIADB_PORT (data in $dir)"
  make_run_dir
  act mkdir -p "$dir/data" "$dir/run" "$dir/tmp"
  is_root && act chown -R mysql:mysql "$dir"
  if [ ! -d "$dir/data/mysql" ]; then
    act mariadb-install-db --no-defaults --datadir="$dir/data" "${as[@]}" \
      --auth-root-authentication-method=normal --skip-test-db >/dev/null
  fi
  if [ "$DRY_RUN" = 1 ]; then
    echo "would run: mariadbd --no-defaults --datadir=$dir/data --tmpdir=$dir/tmp ${as[*]} --port=$MARIADB_PORT …" >&2
  else
    # A tmpdir of its own: at start-up MariaDB deletes every #sql* file in its tmpdir, and in
    # the shared /tmp those are the temporary tables of the other server's queries in flight.
    setsid /usr/sbin/mariadbd --no-defaults --datadir="$dir/data" --tmpdir="$dir/tmp" "${as[@]}" \
      --port="$MARIADB_PORT" --bind-address=127.0.0.1 --socket="$dir/run/mariadb.sock" \
      --pid-file="$dir/run/mariadb.pid" --log-error="$dir/run/mariadb.log" \
      </dev/null >/dev/null 2>&1 &
  fi
}

throwaway_postgres() {
  local dir=$RUN_DIR/postgres-$POSTGRES_PORT bin
  bin=$(postgres_bin)
  [ -n "$bin" ] ||
    fail "PostgreSQL is not installed: sudo apt-get install -y postgresql (or point WAYMARK_POSTGRES_HOST/PORT at a server)"
  local as=()
  is_root && as=(runuser -u postgres --) # PostgreSQL refuses to run as root
  say "starting a throwaway PostgreSQL on 127.0.0.1:$POSTGRES_PORT (data in $dir)"
  make_run_dir
  act mkdir -p "$dir"
  is_root && act chown postgres: "$dir"
  if [ ! -f "$dir/data/PG_VERSION" ]; then
    act "${as[@]}" "$bin/initdb" -D "$dir/data" -U "$POSTGRES_USER" --auth=trust >/dev/null
  fi
  act "${as[@]}" "$bin/pg_ctl" -D "$dir/data" -l "$dir/postgres.log" -w \
    -o "-p $POSTGRES_PORT -k $dir -c listen_addresses=127.0.0.1" start >/dev/null
}

# The servers run as mysql and postgres when we are root: they must be able to reach their folders.
make_run_dir() {
  act mkdir -p "$RUN_DIR"
  is_root && act chmod a+x "$RUN_DIR"
  return 0
}

stop_throwaway() {
  shopt -s nullglob
  for pidfile in "$RUN_DIR"/mariadb-*/run/mariadb.pid; do
    say "stopping the throwaway MariaDB $(cat "$pidfile")"
    act kill "$(cat "$pidfile")"
  done
  for data in "$RUN_DIR"/postgres-*/data; do
    [ -f "$data/postmaster.pid" ] || continue
    local as=()
    is_root && as=(runuser -u postgres --)
    say "stopping the throwaway PostgreSQL in $data"
    act "${as[@]}" "$(postgres_bin)/pg_ctl" -D "$data" -m fast -w stop >/dev/null
  done
}

ensure() {
  local kind=$1 label=$2 host=$3 port=$4 user=$5 default_port=$6
  answers "$kind" "$host" "$port" "$user" && return 0
  is_local "$host" ||
    fail "$label at $host:$port does not answer, and it is not on this machine: start it, or point WAYMARK_${kind^^}_HOST/PORT elsewhere"
  say "$label does not answer at $host:$port"
  if is_root && [ "$port" = "$default_port" ]; then
    "system_$kind"
  else
    "throwaway_$kind"
  fi
  wait_until_answers "$kind" "$host" "$port" "$user"
}

if [ "$STOP" = 1 ]; then
  stop_throwaway
  exit 0
fi
ensure mariadb MariaDB "$MARIADB_HOST" "$MARIADB_PORT" "$MARIADB_USER" 3306
ensure postgres PostgreSQL "$POSTGRES_HOST" "$POSTGRES_PORT" "$POSTGRES_USER" 5432
