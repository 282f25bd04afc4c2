# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# contrib/lab/up_checks.sh: what `up` makes sure of before it starts anything: sane
# arguments, a finished Slurm install (--slurm), the fabricfit CLI, a lab directory it may
# wipe (taking down a running lab with --force), and free ports. Failing here leaves nothing
# running, and the errors name the cause rather than a daemon's log.

validate_up_args() {
  local v
  for v in NODES LEAVES GPUS RAILS SPINES CTLD_PORT SLURMD_PORT CPUS MEM_MB TIMEOUT; do
    if ! is_uint "${!v}" || [ "${!v}" -eq 0 ]; then die "$v must be a positive integer (got '${!v}')"; fi
  done
  case $STORAGE_HCAS in 0|1) ;; *) die "--storage-hcas must be 0 or 1 (got '$STORAGE_HCAS')" ;; esac
  [ $(( NODES % LEAVES )) -eq 0 ] || die "--nodes ($NODES) must be a multiple of --leaves ($LEAVES)"
  HOSTS_PER_LEAF=$(( NODES / LEAVES ))
  UPLINKS=${UPLINKS:-$HOSTS_PER_LEAF}
  if ! is_uint "$UPLINKS" || [ "$UPLINKS" -eq 0 ]; then die "--uplinks must be a positive integer"; fi
  [ "$GPUS" -le 64 ] || die "--gpus must be at most 64"
  case $TOPOLOGY in fabricfit|tree|block) ;; *) die "--topology must be fabricfit, tree or block" ;; esac
  [[ $NVL_DOMAIN_SIZE =~ ^[0-9]+$ ]] || die "--nvl-domain-size must be a number of hosts"
  [ "$TOPOLOGY" != block ] || [ "$NVL_DOMAIN_SIZE" -gt 0 ] || die "--topology block needs --nvl-domain-size"
  [ $(( SLURMD_PORT + NODES - 1 )) -le 65535 ] || die "slurmd ports $SLURMD_PORT.. run past 65535"
  if [ "$CTLD_PORT" -ge "$SLURMD_PORT" ] && [ "$CTLD_PORT" -lt $(( SLURMD_PORT + NODES )) ]; then
    die "--ctld-port $CTLD_PORT lies inside the slurmd port range $SLURMD_PORT-$(( SLURMD_PORT + NODES - 1 ))"
  fi
  [ "$(id -u)" -eq 0 ] || die "up must run as root (slurmd runs jobs as their users; SlurmUser=root)"
  local t
  for t in setsid flock mkfifo awk; do command -v "$t" >/dev/null || die "'$t' is required"; done
  command -v ibsim >/dev/null || die "ibsim not found (Debian package ibsim-utils)"
  for t in munged mungekey; do command -v "$t" >/dev/null || die "$t not found (package munge)"; done
  if [ -n "$FF_CONF_SRC" ]; then [ -r "$FF_CONF_SRC" ] || die "--fabricfit-conf $FF_CONF_SRC is not readable"; fi
  if [ -n "$SLURM_CONF_EXTRA" ]; then [ -r "$SLURM_CONF_EXTRA" ] || die "--slurm-conf-extra $SLURM_CONF_EXTRA is not readable"; fi
  if [ -n "$PLUGIN_DIR" ]; then [ -d "$PLUGIN_DIR" ] || die "--plugin-dir $PLUGIN_DIR is not a directory"; fi
  case $ACCOUNTING in
    none) ;;
    slurmdbd)
      DBD_PORT=${DBD_PORT:-$(( SLURMD_PORT + NODES ))}
      if ! is_uint "$DBD_PORT" || [ "$DBD_PORT" -eq 0 ] || [ "$DBD_PORT" -ge 65535 ]; then
        die "--dbd-port must be a port below 65535 (got '$DBD_PORT')"
      fi
      MYSQL_PORT=$(( DBD_PORT + 1 ))
      if [ "$DBD_PORT" -le $(( SLURMD_PORT + NODES - 1 )) ] && [ "$MYSQL_PORT" -ge "$SLURMD_PORT" ]; then
        die "--dbd-port $DBD_PORT (and MariaDB on $MYSQL_PORT) overlap the slurmd ports $SLURMD_PORT-$(( SLURMD_PORT + NODES - 1 ))"
      fi
      if [ "$CTLD_PORT" -eq "$DBD_PORT" ] || [ "$CTLD_PORT" -eq "$MYSQL_PORT" ]; then
        die "--dbd-port $DBD_PORT (and MariaDB on $MYSQL_PORT) collide with --ctld-port $CTLD_PORT"
      fi
      [ -x "$(mariadb_bin mariadbd)" ] && [ -x "$(mariadb_bin mariadb-install-db)" ] ||
        die "mariadbd or mariadb-install-db not found (Debian packages mariadb-server-core, mariadb-client-core; contrib/setup-slurm.sh installs it)"
      ;;
    *) die "--accounting must be none or slurmdbd (got '$ACCOUNTING')" ;;
  esac
}

find_fabricfit() {
  FF_BIN=${FABRICFIT_BIN:-fabricfit}
  if [[ $FF_BIN != */* ]]; then
    FF_BIN=$(command -v "$FF_BIN") ||
      die "fabricfit CLI not found on PATH: build it and set FABRICFIT_BIN=/path/to/fabricfit"
  fi
  [ -x "$FF_BIN" ] || die "FABRICFIT_BIN=$FF_BIN is not executable"
}

# --slurm VERSION: the release's env file from contrib/setup-slurm.sh, or else its finished
# build (stamp .fabricfit-built) in the same layout. A series (26.05) means its newest build.
select_slurm_release() {
  local base=${FABRICFIT_SLURM_PREFIX:-/opt/fabricfit/slurm} v=$SLURM_RELEASE
  [[ $v =~ ^[0-9]+\.[0-9]+(\.[0-9]+)?$ ]] || die "--slurm wants a release such as 26.05.3 or 26.05, not '$v'"
  if [ ! -f "$base/$v/.fabricfit-built" ] && [ ! -r "$base/$v.env" ]; then
    v=$(find "$base" -maxdepth 2 -path "$base/$v.*/.fabricfit-built" 2>/dev/null |
          sed 's|/\.fabricfit-built$||; s|.*/||' | sort -V | tail -n 1)
    [ -n "$v" ] || die "no Slurm $SLURM_RELEASE under $base: run contrib/setup-slurm.sh --release VERSION (or --tarball FILE) first"
  fi
  if [ -r "$base/$v.env" ]; then
    SLURM_ENV_FILE=$base/$v.env
  else
    [ -f "$base/$v/.fabricfit-built" ] || die "Slurm $v in $base/$v is not finished (no .fabricfit-built)"
    SLURM_ENV_FILE=
    SLURM_VERSION=$v SLURM_PREFIX=$base/$v SLURM_SRC=$base/build/slurm-$v
  fi
}

load_slurm_env() {
  if [ -n "$SLURM_RELEASE" ]; then
    select_slurm_release
  fi
  if [ -n "$SLURM_ENV_FILE" ]; then
    [ -r "$SLURM_ENV_FILE" ] ||
      die "$SLURM_ENV_FILE not found: run contrib/setup-slurm.sh first (or set FABRICFIT_SLURM_ENV or --slurm)"
    # shellcheck disable=SC1090
    . "$SLURM_ENV_FILE"
  fi
  [ -n "${SLURM_PREFIX:-}" ] || die "$SLURM_ENV_FILE does not set SLURM_PREFIX"
  local b
  for b in sbin/slurmctld sbin/slurmd bin/scontrol bin/sinfo bin/squeue bin/scancel; do
    [ -x "$SLURM_PREFIX/$b" ] || die "$SLURM_PREFIX/$b is missing: is the Slurm install finished?"
  done
}

# Refuse to scribble over a directory that isn't a lab, and wipe the previous run's
# generated files (keep nothing but the directory itself).
prepare_dir() {
  if [ -d "$LAB_DIR" ] && [ ! -e "$MARKER" ] && [ -n "$(ls -A "$LAB_DIR")" ]; then
    die "$LAB_DIR exists, is not empty and is not a lab directory: refusing to use it"
  fi
  mkdir -p "$LAB_DIR"
  touch "$MARKER"
  lock_lab
  if lab_is_up; then
    if [ "$FORCE" = 1 ]; then
      log "a lab is already running in $LAB_DIR: taking it down first (--force)"
      # In a subshell: do_down loads the old lab's settings, which must not replace ours.
      ( do_down ) || die "could not take down the running lab in $LAB_DIR"
    else
      die "a lab is already running in $LAB_DIR (use '$PROG down --dir $LAB_DIR', or up --force)"
    fi
  fi
  rm -rf "${LAB_DIR:?}"/{run,log,state,spool,munge,ibsim,dev,ctld,mysql} "$LAB_ENV" "$LAB_DIR/nodes" \
    "$LAB_DIR"/{slurm.conf,slurmdbd.conf,gres.conf,cgroup.conf,plugstack.conf,topology.conf,fabricfit.conf,fabric.net}
  mkdir -p "$RUN/spawn" "$LOGS" "$LAB_DIR/state" "$LAB_DIR/spool" "$LAB_DIR/dev" "$IBSIM_DIR" "$LAB_DIR/ctld"
  # munged insists that every directory above its socket is searchable by everybody.
  chmod 0755 "$LAB_DIR"
  local d=$LAB_DIR
  while d=$(dirname "$d") && [ "$d" != / ]; do
    [ "$(( 8#$(stat -c %a "$d") & 1 ))" -eq 1 ] ||
      die "$d is not searchable by others (mode $(stat -c %a "$d")): munged refuses a socket below it; chmod o+x it or use another --dir"
  done
  mkdir -m 0755 "$MUNGE_DIR"
  : > "$STARTED"
}

# Port collisions show up as obscure bind errors in the daemons' logs; catch them early.
check_ports() {
  local busy
  busy=$(listening_ports_in "$CTLD_PORT" "$CTLD_PORT"; listening_ports_in "$SLURMD_PORT" $(( SLURMD_PORT + NODES - 1 ))
         if [ "$ACCOUNTING" = slurmdbd ]; then listening_ports_in "$DBD_PORT" "$MYSQL_PORT"; fi)
  [ -z "$busy" ] || die "TCP port(s) already in use: $(tr '\n' ' ' <<<"$busy")(another lab? use --ctld-port/--slurmd-port)"
}
