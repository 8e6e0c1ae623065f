#!/usr/bin/env bash
# Throwaway MariaDB and PostgreSQL servers for groundcheck's storage tests.
#
#   scripts/test-databases.sh start [ENGINE...]  install what is missing, start the servers
#                                                (mariadb, postgres; default both), print `export` lines
#   scripts/test-databases.sh stop [ENGINE...]   stop the servers this script started (graceful, bounded)
#   scripts/test-databases.sh running [ENGINE...] name the engines whose server this script
#                                                started and that still run, one a line
#   scripts/test-databases.sh reset              stop them, then delete the state directory
#   scripts/test-databases.sh owns URL...        exit 0 only if every URL names a running server that
#                                                this script started (else say why, exit 1)
#
# Usage: eval "$(scripts/test-databases.sh start)"
# Only the export lines go to stdout; all progress goes to stderr.
# Servers listen on 127.0.0.1 only: MariaDB on 33306, PostgreSQL on 55432 (or the ports in
# GROUNDCHECK_MYSQL_PORT and GROUNDCHECK_POSTGRES_PORT, for a second pair beside the first).
#
# Every server this script launches is marked: $STATE/<engine>/started-by-script holds its
# pid and port. `stop` and `reset` only ever stop a marked server whose pid is still that
# server's; a server the script did not start (a developer's own, or one whose mark is gone)
# is left running, and `reset` then refuses to delete its data.
set -euo pipefail

# The state directory: in memory (/dev/shm) when that is a tmpfs with room to spare, else /tmp.
# The storage tests make and drop a database each; on a disk file system the servers spend
# much of their CPU creating and unlinking the files of each (a PostgreSQL database is some 300
# files), on tmpfs little. The data is throwaway either way.
default_state() {
  local free_kib
  if [[ -w /dev/shm && "$(stat -f -c %T /dev/shm 2>/dev/null)" == tmpfs ]]; then
    free_kib="$(df -Pk /dev/shm 2>/dev/null | awk 'NR == 2 { print $4 }')"
    if [[ ${free_kib:-0} -ge $((2 * 1024 * 1024)) ]]; then
      echo /dev/shm/groundcheck-test-db
      return
    fi
  fi
  echo /tmp/groundcheck-test-db
}
STATE="${GROUNDCHECK_DB_STATE:-$(default_state)}"
DB=groundcheck_test
RW_USER=groundcheck RW_PW=groundcheck-test-pw
RO_USER=groundcheck_ro RO_PW=groundcheck-ro-pw
MY_PORT="${GROUNDCHECK_MYSQL_PORT:-33306}" PG_PORT="${GROUNDCHECK_POSTGRES_PORT:-55432}"
WAIT_SECS=60

MY_DIR="$STATE/mariadb" MY_SOCK="$STATE/mariadb/run/mariadbd.sock" MY_PID="$STATE/mariadb/mariadbd.pid"
PG_DIR="$STATE/postgres" PG_DATA="$STATE/postgres/data" PG_SOCKDIR="$STATE/postgres/run"
ME="$(id -un)"

log() { echo "test-databases: $*" >&2; }
die() { log "ERROR: $*"; exit 1; }

# Highest Debian PostgreSQL (/usr/lib/postgresql/N/bin), else whatever initdb is on PATH.
pg_bin() {
  local d
  d="$(printf '%s\n' /usr/lib/postgresql/*/bin | sort -V | tail -n1)" # literal glob if none
  if [[ -x "$d/initdb" ]]; then echo "$d"
  elif command -v initdb >/dev/null; then dirname "$(readlink -f "$(command -v initdb)")"
  else return 1; fi
}
mariadbd_bin() { command -v mariadbd || { [[ -x /usr/sbin/mariadbd ]] && echo /usr/sbin/mariadbd; }; }

# Is PID a live (non-zombie) process named NAME? Guards against stale pid files whose
# pid now belongs to something else (e.g. after the machine killed our servers).
alive() {
  local st
  [[ -n "$1" && -r "/proc/$1/stat" ]] && read -r st <"/proc/$1/stat" 2>/dev/null && [[ $st == "$1 ($2) "[^Z]* ]]
}

# postgres refuses to run as root: as root, run its tools as the `postgres` OS user.
pg_as() { if [[ $EUID -eq 0 ]]; then runuser -u postgres -- "$@"; else "$@"; fi; }

# ------------------------------------------------------------------ marks
# mark ENGINE PID PORT: this script launched that server. marked ENGINE [PID]: the mark names
# a live server of that engine (with that PID, when given). mark_port ENGINE: the mark's port.
mark_file() { echo "$STATE/$1/started-by-script"; }
mark() { echo "pid=$2 port=$3" >"$(mark_file "$1")"; }
mark_field() { local f; f="$(mark_file "$1")"; [[ -r $f ]] && sed -n "s/.*$2=\([0-9]*\).*/\1/p" "$f"; }
mark_port() { mark_field "$1" port; }
unmark() { rm -f "$(mark_file "$1")"; }
marked() {
  local pid name; pid="$(mark_field "$1" pid)" || return 1
  if [[ $1 == mariadb ]]; then name=mariadbd; else name=postgres; fi
  alive "$pid" "$name" && [[ -z "${2:-}" || "$2" == "$pid" ]]
}

install_missing() {
  local pkgs=()
  { mariadbd_bin && command -v mariadb mariadb-admin mariadb-install-db; } >/dev/null || pkgs+=(mariadb-server)
  pg_bin >/dev/null || pkgs+=(postgresql)
  ((${#pkgs[@]})) || return 0
  log "installing ${pkgs[*]} (apt)"
  local sudo=(); [[ $EUID -eq 0 ]] || sudo=(sudo)
  # The packages' own services (ports 3306/5432) are not used: with no init system,
  # or with a policy-rc.d that says no (as on this image), apt starts none of them.
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive \
    apt-get install -y -q --no-install-recommends "${pkgs[@]}" >&2
}

# ---------------------------------------------------------------- MariaDB
my_running() { [[ -f "$MY_PID" ]] && alive "$(cat "$MY_PID")" mariadbd; }
my_admin_sql() { mariadb --no-defaults --socket="$MY_SOCK" -u "$ME" "$@"; } # unix_socket auth

start_mariadb() {
  local mariadbd user_opt=() bgpid=""
  mariadbd="$(mariadbd_bin)"
  # As root, mariadbd needs --user; prefer the unprivileged `mysql` account.
  if [[ $EUID -eq 0 ]]; then
    if id mysql >/dev/null 2>&1; then user_opt=(--user=mysql); else user_opt=(--user=root); fi
  fi
  if my_running; then
    log "MariaDB already running (pid $(cat "$MY_PID"))"
  else
    mkdir -p "$MY_DIR/run"
    if [[ $EUID -eq 0 ]]; then chown -R "${user_opt[0]#--user=}:" "$MY_DIR"; fi
    if [[ ! -d "$MY_DIR/data/mysql" ]]; then
      log "initialising MariaDB data directory $MY_DIR/data"
      # Admin account = the invoking OS user over the socket (unix_socket auth):
      # no password-less account reachable over TCP.
      mariadb-install-db --no-defaults --datadir="$MY_DIR/data" "${user_opt[@]}" \
        --auth-root-authentication-method=socket --auth-root-socket-user="$ME" \
        --skip-test-db >"$MY_DIR/install-db.log" 2>&1 \
        || { tail -n 30 "$MY_DIR/install-db.log" >&2; die "mariadb-install-db failed"; }
    fi
    rm -f "$MY_PID"
    log "starting MariaDB on 127.0.0.1:$MY_PORT"
    # --no-defaults: ignore /etc/mysql/*.cnf. Output goes to the log so that
    # `$(... start)` does not wait on the daemon's stdout.
    setsid "$mariadbd" --no-defaults "${user_opt[@]}" --datadir="$MY_DIR/data" \
      --socket="$MY_SOCK" --port="$MY_PORT" --bind-address=127.0.0.1 --skip-name-resolve \
      --pid-file="$MY_PID" --log-error="$MY_DIR/mariadbd.log" \
      --innodb-flush-log-at-trx-commit=2 \
      </dev/null >>"$MY_DIR/mariadbd.log" 2>&1 &
    bgpid=$!
  fi
  local ready=no deadline=$((SECONDS + WAIT_SECS))
  while ((SECONDS < deadline)); do
    if my_admin_sql -e 'SELECT 1' >/dev/null 2>&1; then ready=yes; break; fi
    if [[ -n "$bgpid" ]] && ! kill -0 "$bgpid" 2>/dev/null; then break; fi # it died
    sleep 0.2
  done
  [[ $ready == yes ]] || { tail -n 30 "$MY_DIR/mariadbd.log" >&2; die "MariaDB not ready (see $MY_DIR/mariadbd.log)"; }
  if [[ -n "$bgpid" ]]; then mark mariadb "$(cat "$MY_PID")" "$MY_PORT"
  elif ! marked mariadb "$(cat "$MY_PID")"; then
    log "MariaDB (pid $(cat "$MY_PID")) was not started by this script: using it, but stop and reset leave it running"
  elif [[ "$(mark_port mariadb)" != "$MY_PORT" ]]; then
    die "the MariaDB of $MY_DIR listens on port $(mark_port mariadb), not $MY_PORT"
  fi
  # Idempotent: CREATE OR REPLACE USER resets password and grants every time.
  my_admin_sql <<SQL
CREATE DATABASE IF NOT EXISTS \`$DB\`;
CREATE OR REPLACE USER '$RW_USER'@'127.0.0.1' IDENTIFIED BY '$RW_PW';
CREATE OR REPLACE USER '$RW_USER'@'localhost' IDENTIFIED BY '$RW_PW';
CREATE OR REPLACE USER '$RO_USER'@'127.0.0.1' IDENTIFIED BY '$RO_PW';
CREATE OR REPLACE USER '$RO_USER'@'localhost' IDENTIFIED BY '$RO_PW';
GRANT ALL PRIVILEGES ON \`$DB\`.* TO '$RW_USER'@'127.0.0.1', '$RW_USER'@'localhost';
GRANT SELECT ON \`$DB\`.* TO '$RO_USER'@'127.0.0.1', '$RO_USER'@'localhost';
-- A database of its own for each storage test (tests/engines.rs): $DB followed by _ and more.
GRANT ALL PRIVILEGES ON \`${DB//_/\\_}\\_%\`.* TO '$RW_USER'@'127.0.0.1', '$RW_USER'@'localhost';
GRANT SELECT ON \`${DB//_/\\_}\\_%\`.* TO '$RO_USER'@'127.0.0.1', '$RO_USER'@'localhost';
SQL
  # Check the exported URL really works over TCP with a password.
  mariadb --no-defaults -h 127.0.0.1 -P "$MY_PORT" -u "$RW_USER" -p"$RW_PW" "$DB" -N \
    -e 'SELECT CONCAT("MariaDB ready: ", VERSION())' >&2
}

stop_mariadb() {
  my_running || { rm -f "$MY_PID"; unmark mariadb; return 0; }
  local pid deadline=$((SECONDS + WAIT_SECS)); pid="$(cat "$MY_PID")"
  if ! marked mariadb "$pid"; then
    log "MariaDB (pid $pid) was not started by this script: left running"; return 0
  fi
  log "stopping MariaDB (pid $pid)"
  kill -TERM "$pid" 2>/dev/null || true # SIGTERM = clean shutdown
  while ((SECONDS < deadline)) && alive "$pid" mariadbd; do sleep 0.2; done
  if alive "$pid" mariadbd; then log "MariaDB still up after ${WAIT_SECS}s: SIGKILL"; kill -KILL "$pid"; fi
  rm -f "$MY_PID"; unmark mariadb
}

# ------------------------------------------------------------- PostgreSQL
# pg_ctl trusts any live pid in postmaster.pid: drop the file if that pid is not a postgres.
pg_clear_stale() {
  local f="$PG_DATA/postmaster.pid"
  if [[ -f "$f" ]] && ! alive "$(head -n1 "$f")" postgres; then rm -f "$f"; fi
}
pg_pid() { head -n1 "$PG_DATA/postmaster.pid" 2>/dev/null; }
pg_psql() { pg_as "$PGBIN/psql" -X -q -v ON_ERROR_STOP=1 -h "$PG_SOCKDIR" -p "$PG_PORT" -U postgres "$@"; }

start_postgres() {
  if [[ $EUID -eq 0 ]] && ! id postgres >/dev/null 2>&1; then
    useradd --system --no-create-home --home-dir /var/lib/postgresql --shell /usr/sbin/nologin postgres
  fi
  mkdir -p "$PG_DIR/run"
  if [[ $EUID -eq 0 ]]; then chown -R postgres: "$PG_DIR"; fi
  chmod 700 "$PG_DIR" "$PG_DIR/run" # socket dir: local connections are `trust`
  pg_as test -w "$PG_DIR" || die "postgres cannot write $PG_DIR (is a parent directory closed?)"
  if [[ ! -f "$PG_DATA/PG_VERSION" ]]; then
    log "initialising PostgreSQL data directory $PG_DATA"
    pg_as "$PGBIN/initdb" -D "$PG_DATA" -U postgres -E UTF8 --no-locale \
      --auth-local=trust --auth-host=scram-sha-256 >"$PG_DIR/initdb.log" 2>&1 \
      || { tail -n 30 "$PG_DIR/initdb.log" >&2; die "initdb failed"; }
    # Throwaway data: durability off for speed.
    cat >>"$PG_DATA/postgresql.conf" <<CONF
# --- groundcheck test server (scripts/test-databases.sh)
listen_addresses = '127.0.0.1'
port = $PG_PORT
unix_socket_directories = '$PG_SOCKDIR'
fsync = off
synchronous_commit = off
full_page_writes = off
CONF
  fi
  pg_clear_stale
  if pg_as "$PGBIN/pg_ctl" -D "$PG_DATA" status >/dev/null 2>&1; then
    log "PostgreSQL already running"
    if ! marked postgres "$(pg_pid)"; then
      log "PostgreSQL (pid $(pg_pid)) was not started by this script: using it, but stop and reset leave it running"
    elif [[ "$(mark_port postgres)" != "$PG_PORT" ]]; then
      die "the PostgreSQL of $PG_DATA listens on port $(mark_port postgres), not $PG_PORT"
    fi
  else
    log "starting PostgreSQL on 127.0.0.1:$PG_PORT"
    pg_as "$PGBIN/pg_ctl" -D "$PG_DATA" -l "$PG_DIR/postgres.log" -w -t "$WAIT_SECS" start >/dev/null \
      || { tail -n 30 "$PG_DIR/postgres.log" >&2; die "PostgreSQL did not start within ${WAIT_SECS}s"; }
    mark postgres "$(pg_pid)" "$PG_PORT"
  fi
  # Idempotent role/database setup. The database owner also owns schema public (PG 15+).
  pg_psql -d postgres <<SQL
SELECT format('CREATE ROLE %I LOGIN', r) FROM unnest(ARRAY['$RW_USER', '$RO_USER']) r
  WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = r) \gexec
ALTER ROLE $RW_USER LOGIN CREATEDB PASSWORD '$RW_PW';
ALTER ROLE $RO_USER LOGIN PASSWORD '$RO_PW';
SELECT 'CREATE DATABASE $DB OWNER $RW_USER'
  WHERE NOT EXISTS (SELECT FROM pg_database WHERE datname = '$DB') \gexec
GRANT CONNECT ON DATABASE $DB TO $RO_USER;
SQL
  pg_psql -d "$DB" <<SQL
GRANT USAGE ON SCHEMA public TO $RO_USER;
GRANT SELECT ON ALL TABLES IN SCHEMA public TO $RO_USER;
ALTER DEFAULT PRIVILEGES FOR ROLE $RW_USER IN SCHEMA public GRANT SELECT ON TABLES TO $RO_USER;
SQL
  # The databases the storage tests make for themselves (tests/engines.rs: the test user may
  # create databases) are copies of template1: the same read-only grants in each.
  pg_psql -d template1 <<SQL
GRANT USAGE ON SCHEMA public TO $RO_USER;
ALTER DEFAULT PRIVILEGES FOR ROLE $RW_USER IN SCHEMA public GRANT SELECT ON TABLES TO $RO_USER;
SQL
  PGPASSWORD="$RW_PW" "$PGBIN/psql" -X -At -h 127.0.0.1 -p "$PG_PORT" -U "$RW_USER" -d "$DB" \
    -c "SELECT 'PostgreSQL ready: ' || version()" >&2
}

stop_postgres() {
  [[ -f "$PG_DATA/PG_VERSION" ]] || { unmark postgres; return 0; }
  pg_clear_stale
  pg_as "$PGBIN/pg_ctl" -D "$PG_DATA" status >/dev/null 2>&1 || { unmark postgres; return 0; }
  if ! marked postgres "$(pg_pid)"; then
    log "PostgreSQL (pid $(pg_pid)) was not started by this script: left running"; return 0
  fi
  log "stopping PostgreSQL"
  pg_as "$PGBIN/pg_ctl" -D "$PG_DATA" -m fast -w -t "$WAIT_SECS" stop >&2 \
    || pg_as "$PGBIN/pg_ctl" -D "$PG_DATA" -m immediate -w -t "$WAIT_SECS" stop >&2
  unmark postgres
}

# ------------------------------------------------------------------ owns
# owns URL: the URL reaches a live server this script started (loopback, the marked port).
owns() {
  local url="$1" engine port host
  [[ $url =~ ^([a-z]+)://([^@/]*@)?([^:/?]+)(:([0-9]+))?([/?].*)?$ ]] \
    || { log "a URL that is not a database URL: not started by this script"; return 1; }
  host="${BASH_REMATCH[3]}"
  case "${BASH_REMATCH[1]}" in
    mysql | mariadb) engine=mariadb port="${BASH_REMATCH[5]:-3306}" ;;
    postgres | postgresql) engine=postgres port="${BASH_REMATCH[5]:-5432}" ;;
    *) log "${BASH_REMATCH[1]}: not a server this script starts"; return 1 ;;
  esac
  [[ $host == 127.0.0.1 || $host == localhost ]] \
    || { log "$engine at $host:$port: not on this machine's loopback, so not started by this script"; return 1; }
  marked "$engine" \
    || { log "$engine at $host:$port: no live mark in $STATE/$engine, so not started by this script"; return 1; }
  [[ "$(mark_port "$engine")" == "$port" ]] \
    || { log "$engine at $host:$port: the $engine this script started in $STATE listens on $(mark_port "$engine")"; return 1; }
}

# ------------------------------------------------------------------- main
# ENGINES: the engines named after the command (default both).
engines() {
  local e; ENGINES=()
  for e in "$@"; do
    case "$e" in mariadb | postgres) ENGINES+=("$e") ;; *) die "unknown engine '$e' (mariadb, postgres)" ;; esac
  done
  ((${#ENGINES[@]})) || ENGINES=(mariadb postgres)
}
wants() { [[ " ${ENGINES[*]} " == *" $1 "* ]]; }

command="${1:-}"; shift || true
case "$command" in
  start)
    engines "$@"
    install_missing
    PGBIN="$(pg_bin)" || die "no PostgreSQL initdb found after install"
    [[ -d "$STATE" ]] || { mkdir -p "$STATE"; chmod 755 "$STATE"; } # postgres user must traverse it
    if wants mariadb; then start_mariadb; fi
    if wants postgres; then start_postgres; fi
    echo "export GROUNDCHECK_DB_STATE=$STATE"
    if wants mariadb; then
      echo "export GROUNDCHECK_MYSQL_PORT=$MY_PORT"
      echo "export GROUNDCHECK_TEST_MYSQL_URL=mysql://$RW_USER:$RW_PW@127.0.0.1:$MY_PORT/$DB"
      echo "export GROUNDCHECK_TEST_MYSQL_RO_URL=mysql://$RO_USER:$RO_PW@127.0.0.1:$MY_PORT/$DB"
    fi
    if wants postgres; then
      echo "export GROUNDCHECK_POSTGRES_PORT=$PG_PORT"
      echo "export GROUNDCHECK_TEST_POSTGRES_URL=postgres://$RW_USER:$RW_PW@127.0.0.1:$PG_PORT/$DB"
      echo "export GROUNDCHECK_TEST_POSTGRES_RO_URL=postgres://$RO_USER:$RO_PW@127.0.0.1:$PG_PORT/$DB"
    fi
    ;;
  stop | reset)
    if [[ $command == reset ]]; then engines; else engines "$@"; fi
    if wants mariadb; then stop_mariadb; fi
    if wants postgres && PGBIN="$(pg_bin)"; then stop_postgres; fi
    if [[ $command == reset ]]; then
      [[ -n "$STATE" && "$STATE" != / ]] || die "refusing to delete state dir '$STATE'"
      # Whatever still runs here was not started by this script: its data stays.
      if my_running || { [[ -f "$PG_DATA/postmaster.pid" ]] && alive "$(pg_pid)" postgres; }; then
        die "a server this script did not start runs on $STATE: not deleting it (stop it first)"
      fi
      log "deleting $STATE"
      rm -rf -- "$STATE"
    fi
    ;;
  running)
    # The engines whose server this script started and that still run, one a line.
    engines "$@"
    for e in "${ENGINES[@]}"; do if marked "$e"; then echo "$e"; fi; done
    ;;
  owns)
    (($#)) || die "usage: $0 owns URL..."
    for url in "$@"; do owns "$url" || exit 1; done
    ;;
  *) echo "usage: $0 start|stop|running [mariadb|postgres]... | reset | owns URL..." >&2; exit 2 ;;
esac
