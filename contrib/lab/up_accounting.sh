# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# contrib/lab/up_accounting.sh: --accounting slurmdbd: slurm.conf's accounting lines, a
# throw-away MariaDB and slurmdbd on it, so sacct works as at a site. Nothing here runs
# without --accounting slurmdbd except accounting_params (accounting_storage/none).

# slurm.conf's accounting lines: none, or slurmdbd on this host.
accounting_params() {
  if [ "$ACCOUNTING" = slurmdbd ]; then
    # For connections to slurmdbd, Slurm takes the munge socket from AccountingStoragePass.
    printf '%s\n' "AccountingStorageType=accounting_storage/slurmdbd" \
      "AccountingStorageHost=localhost" "AccountingStoragePort=$DBD_PORT" \
      "AccountingStoragePass=$MUNGE_SOCK"
  else
    echo "AccountingStorageType=accounting_storage/none"
  fi
}

mariadb_bin() { command -v "$1" 2>/dev/null || echo "/usr/sbin/$1"; }

# A throw-away MariaDB for slurmdbd: its own data directory, 127.0.0.1 only, no grant tables
# (only this host's loopback reaches it, and its data goes with the lab).
start_mariadb() {
  local pid
  mkdir -p "$DB_DIR"
  "$(mariadb_bin mariadb-install-db)" --no-defaults --datadir="$DB_DIR/data" --user=root \
    --skip-test-db --auth-root-authentication-method=normal > "$LOGS/mariadb-install-db.log" 2>&1 ||
    { show_tail "$LOGS/mariadb-install-db.log"; die "mariadb-install-db failed"; }
  (cd "$DB_DIR" && spawn mariadbd mariadbd "$(mariadb_bin mariadbd)" --no-defaults --user=root \
     --datadir="$DB_DIR/data" --socket="$DB_DIR/mysqld.sock" --pid-file="$DB_DIR/mariadbd.pid" \
     --bind-address=127.0.0.1 --port="$MYSQL_PORT" --skip-grant-tables --skip-name-resolve \
     --innodb-buffer-pool-size=64M --innodb-lock-wait-timeout=900 --log-error="$LOGS/mariadbd.log" \
     < /dev/null > "$LOGS/mariadbd.stderr" 2>&1)
  if ! pid=$(spawned_pid mariadbd) || ! wait_until "$TIMEOUT" mariadb_ready "$pid"; then
    show_tail "$LOGS/mariadbd.log"; die "MariaDB did not come up"
  fi
  log "MariaDB up (pid $pid, 127.0.0.1:$MYSQL_PORT, data $DB_DIR/data)"
}

mariadb_ready() {
  pid_alive "$1" || { show_tail "$LOGS/mariadbd.log"; die "mariadbd exited"; }
  grep -q 'ready for connections' "$LOGS/mariadbd.log" 2>/dev/null
}

start_slurmdbd() {
  local pid
  # slurmdbd reads slurmdbd.conf next to slurm.conf, and only if no one else can read it.
  (umask 077 && cat > "$DBD_CONF" <<EOF
# Written by contrib/lab.sh up --accounting slurmdbd.
AuthType=auth/munge
AuthInfo=socket=$MUNGE_SOCK
DbdHost=localhost
DbdAddr=127.0.0.1
DbdPort=$DBD_PORT
$(comm_params | sed 's/,NoCtldInAddrAny//')
SlurmUser=root
LogFile=$LOGS/slurmdbd.log
PidFile=$RUN/slurmdbd.pid
DebugLevel=info
StorageType=accounting_storage/mysql
StorageHost=127.0.0.1
StoragePort=$MYSQL_PORT
StorageUser=root
StorageLoc=slurm_acct_db
PluginDir=$SLURM_PREFIX/lib/slurm
EOF
  )
  (cd "$LAB_DIR/ctld" && spawn slurmdbd slurmdbd "${UTS_PREFIX[@]}" env SLURM_CONF="$CONF" \
     "$SLURM_PREFIX/sbin/slurmdbd" -D < /dev/null > "$LOGS/slurmdbd.stderr" 2>&1)
  if ! pid=$(spawned_pid slurmdbd) || ! wait_until "$TIMEOUT" slurmdbd_ready "$pid"; then
    show_tail "$LOGS/slurmdbd.log"; show_tail "$LOGS/slurmdbd.stderr"; die "slurmdbd did not come up"
  fi
  # slurmdbd must know the cluster before slurmctld registers with it.
  slurm sacctmgr -i add cluster fabricfit > "$LOGS/sacctmgr.log" 2>&1 ||
    { show_tail "$LOGS/sacctmgr.log"; die "sacctmgr add cluster failed"; }
  log "slurmdbd up (pid $pid, 127.0.0.1:$DBD_PORT, storage MariaDB 127.0.0.1:$MYSQL_PORT)"
}

slurmdbd_ready() {
  pid_alive "$1" || { show_tail "$LOGS/slurmdbd.log"; die "slurmdbd exited"; }
  slurm sacctmgr -n -P show cluster format=cluster > /dev/null 2>&1
}
