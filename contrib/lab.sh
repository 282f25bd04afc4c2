#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# contrib/lab.sh: a throw-away Slurm 24.11 cluster on this one host, on a simulated
# InfiniBand fabric (ibsim), for trying and testing fabricfit.
#
#   lab.sh up     [options]   generate a fabric, start ibsim, munged, slurmctld, N slurmds
#                             (with --accounting slurmdbd also MariaDB and slurmdbd, so sacct works)
#   lab.sh down   [--dir DIR] stop exactly the processes `up` started (no-op if not up)
#   lab.sh status [--dir DIR] per-daemon liveness and an sinfo summary; exit 1 unless all up
#   lab.sh env    [--dir DIR] print `export ...` lines for using sbatch/srun/scontrol on the lab
#   lab.sh restart-slurmctld [--dir DIR] [--signal TERM|KILL]
#                             stop slurmctld (SIGTERM, or SIGKILL as a crash) and start it again
#                             from its saved state, as a site restarts its controller
#
# Everything lives in one directory (default /var/tmp/fabricfit-lab): generated configs, the
# fabric, state, spool, logs and pid files. Processes are only ever signalled by the PIDs this
# script recorded (and checked against the expected executable first), never by name, so
# several labs (with different --dir and ports) can run side by side.
PROG=${0##*/}
set -Eeuo pipefail
# Name the command that failed when `set -e` ends the script, instead of dying silently
# (only in the main shell: failures inside $(...) surface there as the enclosing command).
trap '[ "$BASH_SUBSHELL" -ne 0 ] ||
  printf "%s: error: command failed (line %s): %s\n" "$PROG" "$LINENO" "$BASH_COMMAND" >&2' ERR

# ---------------------------------------------------------------------------------------------
# Defaults
# ---------------------------------------------------------------------------------------------
LAB_DIR=${FABRICFIT_LAB_DIR:-/var/tmp/fabricfit-lab}
NODES=32
LEAVES=4
GPUS=8
RAILS=1
SPINES=2
UPLINKS=           # default: hosts per leaf (non-blocking leaves)
DEGRADE=()         # --degrade SPEC (repeatable): generate --degrade, uplinks running below rate
TOPOLOGY=fabricfit
CTLD_PORT=16817
SLURMD_PORT=17001  # first slurmd port; node i listens on SLURMD_PORT+i-1
CPUS=32            # per node, what slurmd claims thanks to SlurmdParameters=config_overrides
MEM_MB=4000
TIMEOUT=60         # seconds to wait for each daemon / for all nodes to turn idle
FORCE=0
SIGNAL=TERM        # restart-slurmctld: how slurmctld is stopped
UMAD2SIM=no        # --umad2sim: preload umad2sim into slurmctld (the controller never discovers
                   # by design; discovery runs out of band: `fabricfit discover`)
FF_CONF_SRC=       # optional file copied to DIR/fabricfit.conf
SLURM_CONF_EXTRA=  # optional file appended to slurm.conf
SPANK_SO=          # --spank-plugin: the fabricfit.so plugstack.conf loads (default: Slurm's plugin dir)
STORAGE_HCAS=0     # --storage-hcas: 1 gives every host a storage HCA (mlx5_<rails>) on a storage leaf
COMPUTE_HCA=       # --compute-hca: the discovery's compute-HCA pattern (default: every HCA)
PLUGIN_DIR=        # optional directory searched for plugins before Slurm's own (PluginDir)
ACCOUNTING=none    # --accounting slurmdbd: job history in slurmdbd on a lab MariaDB (sacct)
MYSQL_PORT=        # DBD_PORT + 1 with --accounting slurmdbd
DBD_PORT=          # --dbd-port: slurmdbd's port (default: just above the slurmd ports);
                   # MariaDB listens on the next one
SLURM_ENV_FILE=${FABRICFIT_SLURM_ENV:-/opt/fabricfit/slurm/current.env}
SLURM_RELEASE=${FABRICFIT_SLURM_VERSION:-}  # --slurm: a release under /opt/fabricfit/slurm instead
UMAD2SIM_SO=${FABRICFIT_UMAD2SIM:-/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so}

DAEMONS_ORDER=(slurmd slurmctld slurmdbd mariadbd munged ibsim) # order in which `down` stops things

# ---------------------------------------------------------------------------------------------
# Messages
# ---------------------------------------------------------------------------------------------
log() { printf '%s: %s\n' "$PROG" "$*" >&2; }
die() { printf '%s: error: %s\n' "$PROG" "$*" >&2; exit 1; }

# Print the last lines of a log file, indented, to stderr (for failure messages).
show_tail() {
  local file=$1 n=${2:-25}
  if [ -s "$file" ]; then
    printf '%s: --- last %d lines of %s ---\n' "$PROG" "$n" "$file" >&2
    tail -n "$n" "$file" | sed 's/^/    /' >&2
  else
    printf '%s: (%s is missing or empty)\n' "$PROG" "$file" >&2
  fi
}

usage() {
  cat <<EOF
Usage: $PROG up     [--nodes N] [--leaves L] [--gpus G] [--rails R] [--spines S] [--uplinks U]
                    [--topology fabricfit|tree] [--dir DIR] [--ctld-port P] [--slurmd-port P]
                    [--cpus C] [--mem MB] [--timeout SECS] [--fabricfit-conf FILE]
                    [--slurm-conf-extra FILE] [--spank-plugin SO] [--storage-hcas N]
                    [--compute-hca REGEX] [--plugin-dir DIR] [--umad2sim|--no-umad2sim]
                    [--slurm VERSION] [--degrade SPEC]... [--accounting none|slurmdbd]
                    [--dbd-port P] [--force]
       $PROG down   [--dir DIR]
       $PROG restart-slurmctld [--dir DIR] [--signal TERM|KILL]
                                             stop slurmctld (TERM: it saves its state; KILL:
                                             a crash) and start it again on its saved state
       $PROG status [--dir DIR]
       $PROG env    [--dir DIR]

Defaults: $NODES nodes x $GPUS GPUs on $LEAVES leaves, $SPINES spines, uplinks = hosts per leaf,
$RAILS rail, topology $TOPOLOGY, dir ${LAB_DIR}, slurmctld port $CTLD_PORT, slurmd ports
$SLURMD_PORT.. (one per node), wait timeout ${TIMEOUT}s.

Environment: FABRICFIT_BIN (fabricfit CLI, default 'fabricfit' on PATH), FABRICFIT_SLURM_ENV
(default /opt/fabricfit/slurm/current.env), FABRICFIT_SLURM_VERSION (as --slurm),
FABRICFIT_SLURM_PREFIX (default /opt/fabricfit/slurm), FABRICFIT_LAB_DIR (default --dir),
FABRICFIT_UMAD2SIM (path of libumad2sim.so).

  --topology fabricfit  TopologyPlugin=topology/fabricfit (needs topology_fabricfit.so)
  --slurm VERSION       run the Slurm release contrib/setup-slurm.sh built into
                        \$FABRICFIT_SLURM_PREFIX/VERSION (26.05.3, or a series such as 26.05 for
                        its newest build) instead of the one FABRICFIT_SLURM_ENV names
  --umad2sim            run slurmctld with umad2sim preloaded and IBSIM_SOCKNAME set (off by
                        default: the controller reads snapshots, discovery runs out of band)
  --topology tree       TopologyPlugin=topology/tree with a topology.conf of the discovered fabric
  --spank-plugin SO     the fabricfit.so that plugstack.conf loads (e.g. a build tree's .libs/)
  --storage-hcas 0|1    1: every host has a storage HCA (mlx5_<rails>) on a storage leaf
                        cabled to the first spine (generate --storage-hcas)
  --compute-hca REGEX   discover with this compute-HCA pattern (e.g. 'mlx5_[01]')
  --degrade SPEC        repeatable: degraded uplinks, as fabricfit generate --degrade
                        (groups=LIST,rail=R,fraction=F,rate=RATE, e.g. groups=3,fraction=0.5,rate=4xEDR)
  --plugin-dir DIR      look for plugins (topology_fabricfit.so) in DIR before Slurm's plugin
                        directory: a build's plugin tried without installing it
  --accounting slurmdbd
                        job history as a site keeps it: a MariaDB server (data in DIR/mysql,
                        127.0.0.1 only, throw-away: no grant tables) and slurmdbd, with
                        AccountingStorageType=accounting_storage/slurmdbd, so sacct works
                        (needs Slurm built with MariaDB: contrib/setup-slurm.sh does that)
  --dbd-port P          slurmdbd's port (default: the one after the last slurmd port); MariaDB
                        listens on P+1
  --force               with up: take down a running lab in DIR first
EOF
}

# ---------------------------------------------------------------------------------------------
# Small utilities
# ---------------------------------------------------------------------------------------------
is_uint() { [[ $1 =~ ^[0-9]+$ ]]; }

# first N: the first N lines of stdin. Unlike head, reads all of it, so the writer never
# dies of SIGPIPE (which `set -o pipefail` would turn into a failure).
first() { awk -v n="$1" 'NR <= n'; }

now_ms() { date +%s%3N; }

# True if PID is a live (non-zombie) process. Orphans can linger as zombies for a while
# before they are reaped, and `kill -0` succeeds on zombies.
pid_alive() {
  local pid=$1 state
  is_uint "$pid" || return 1
  [ -r "/proc/$pid/stat" ] || return 1
  state=$(awk '{ sub(/^.*\) /, ""); print substr($0, 1, 1) }' "/proc/$pid/stat" 2>/dev/null) || return 1
  [ -n "$state" ] && [ "$state" != Z ] && [ "$state" != X ]
}

# True if PID is alive and runs the executable NAME (basename of /proc/PID/exe). Guards
# against signalling a recycled PID that now belongs to somebody else.
pid_is() {
  local pid=$1 name=$2 exe
  pid_alive "$pid" || return 1
  exe=$(readlink "/proc/$pid/exe" 2>/dev/null) || return 1
  exe=${exe% (deleted)}
  [ "${exe##*/}" = "$name" ]
}

read_pidfile() {
  local f=$1 pid
  [ -r "$f" ] || return 1
  read -r pid < "$f" || true
  is_uint "${pid:-}" || return 1
  printf '%s\n' "$pid"
}

# wait_until SECS CMD...: poll CMD every 0.1 s until it succeeds; fail after SECS.
wait_until() {
  local secs=$1; shift
  local deadline=$(( $(now_ms) + secs * 1000 ))
  until "$@"; do
    [ "$(now_ms)" -lt "$deadline" ] || return 1
    sleep 0.1
  done
}

# Ports of TCP sockets in LISTEN state between LO and HI (inclusive), from /proc/net/tcp{,6}.
listening_ports_in() {
  local lo=$1 hi=$2 hex port
  # Debian's default awk (mawk) has no strtonum: convert the hex ports in bash.
  cat /proc/net/tcp /proc/net/tcp6 2>/dev/null | awk '$4 == "0A" { sub(/.*:/, "", $2); print $2 }' |
    while read -r hex; do
      port=$(( 16#$hex ))
      if [ "$port" -ge "$lo" ] && [ "$port" -le "$hi" ]; then echo "$port"; fi
    done | sort -un
}

# True if an abstract unix socket "@NAME" exists (ibsim binds @<IBSIM_SOCKNAME>:ctl). Uses ss:
# /proc/net/unix does not show abstract names everywhere (gVisor). Without ss: false.
abstract_socket_exists() {
  command -v ss >/dev/null || return 1
  ss -xa 2>/dev/null | grep -qF " @$1"
}

# ---------------------------------------------------------------------------------------------
# Lab directory layout. Everything `up` writes is below $LAB_DIR.
# ---------------------------------------------------------------------------------------------
set_paths() {
  case $LAB_DIR in /*) ;; *) LAB_DIR=$PWD/$LAB_DIR ;; esac
  LAB_DIR=${LAB_DIR%/}
  MARKER=$LAB_DIR/.fabricfit-lab
  LAB_ENV=$LAB_DIR/lab.env          # settings of the running lab, sourced by down/status/env
  STARTED=$LAB_DIR/run/started      # "name pid" of every process up started
  RUN=$LAB_DIR/run
  LOGS=$LAB_DIR/log
  CONF=$LAB_DIR/slurm.conf
  NETFILE=$LAB_DIR/fabric.net
  SNAPSHOT=$LAB_DIR/fabric.snapshot
  MUNGE_DIR=$LAB_DIR/munge
  MUNGE_SOCK=$MUNGE_DIR/munge.socket
  IBSIM_DIR=$LAB_DIR/ibsim
  DB_DIR=$LAB_DIR/mysql
  DBD_CONF=$LAB_DIR/slurmdbd.conf
}

# Run a Slurm client command against this lab.
slurm() {
  local cmd=$1; shift
  SLURM_CONF=$CONF "$SLURM_PREFIX/bin/$cmd" "$@"
}

# spawn TAG NAME CMD...: start a long-running program in the foreground of its own session
# (so job-control signals and hang-ups aimed at the caller do not reach it), with the
# caller's redirections and without the lab lock fd. Every daemon runs in the foreground
# (-D/-F), so the PID we record is the daemon's own, known before it has done anything and
# kept across `scontrol reconfigure` (which re-execs in place in foreground mode, but forks a
# new PID in daemon mode). The PID goes to $RUN/spawn/TAG.pid and, as "NAME PID", to $STARTED
# (small O_APPEND writes: concurrent spawns do not interleave).
spawn() {
  local tag=$1 name=$2; shift 2
  # shellcheck disable=SC2016 # $$ and $@ are for the inner shell
  setsid -f sh -c 'echo $$ > "$0"; echo "$1 $$" >> "$2"; shift 2; exec "$@"' \
    "$RUN/spawn/$tag.pid" "$name" "$STARTED" "$@" 9>&-
}

# spawned_pid TAG: the PID spawn recorded for TAG (waits up to 5 s for the record).
spawned_pid() {
  wait_until 5 test -s "$RUN/spawn/$1.pid" || return 1
  read_pidfile "$RUN/spawn/$1.pid"
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

# Load the settings of the lab in $LAB_DIR (written by up). Returns 1 if there is none.
load_lab_env() {
  [ -r "$LAB_ENV" ] || return 1
  # shellcheck disable=SC1090
  . "$LAB_ENV"
}

# Take an exclusive lock on the lab directory so two lab.sh runs cannot interleave.
lock_lab() {
  exec 9> "$LAB_DIR/.lock"
  flock -w 30 9 || die "another $PROG is working on $LAB_DIR"
}

# ---------------------------------------------------------------------------------------------
# Which of our processes are alive
# ---------------------------------------------------------------------------------------------

# Print "name pid" for every process of this lab we know of: everything spawn recorded plus
# whatever the daemons' own pid files say now (should anybody restart a daemon in daemon
# mode, its PID changes on `scontrol reconfigure`). Only entries whose PID is alive and runs
# the expected executable are printed.
lab_pids() {
  {
    [ -r "$STARTED" ] && cat "$STARTED"
    local f pid
    for f in "$RUN"/spawn/*.pid; do
      [ -e "$f" ] || continue
      if pid=$(read_pidfile "$f"); then f=${f##*/}; echo "${f%%.*} $pid"; fi
    done
    if pid=$(read_pidfile "$MUNGE_DIR/munged.pid"); then echo "munged $pid"; fi
    if pid=$(read_pidfile "$RUN/slurmctld.pid"); then echo "slurmctld $pid"; fi
    if pid=$(read_pidfile "$RUN/slurmdbd.pid"); then echo "slurmdbd $pid"; fi
    for f in "$RUN"/slurmd.*.pid; do
      [ -e "$f" ] || continue
      if pid=$(read_pidfile "$f"); then echo "slurmd $pid"; fi
    done
  } 2>/dev/null | sort -u | while read -r name pid; do
    if pid_is "$pid" "$name"; then echo "$name $pid"; fi
  done
}

lab_is_up() { [ -n "$(lab_pids)" ]; }

# slurmstepd processes of this lab: slurmd's children outlive it, so find them as slurmstepd
# processes that hold one of this lab's files open (they log to the slurmd log in $LOGS).
lab_stepds() {
  local p fd
  for p in /proc/[0-9]*; do
    [ "$(cat "$p/comm" 2>/dev/null || true)" = slurmstepd ] || continue
    for fd in "$p"/fd/*; do
      case $(readlink "$fd" 2>/dev/null || true) in
        "$LAB_DIR"/*) echo "${p#/proc/}"; break ;;
      esac
    done
  done
}

# All descendants of PID, one per line (from the ppid links in ps).
descendants() {
  local root=$1
  ps -e -o pid=,ppid= 2>/dev/null | awk -v root="$root" '
    { parent[$1] = $2; pids[NR] = $1 }
    END {
      want[root] = 1; changed = 1
      while (changed) {
        changed = 0
        for (i in pids) { p = pids[i]; if (!(p in want) && (parent[p] in want)) { want[p] = 1; changed = 1 } }
      }
      for (p in want) if (p != root) print p
    }'
}

# ---------------------------------------------------------------------------------------------
# down
# ---------------------------------------------------------------------------------------------

# Send SIG to every PID in the list, then wait up to SECS for them all to be gone.
signal_and_wait() {
  local sig=$1 secs=$2; shift 2
  local pid
  for pid in "$@"; do kill "-$sig" "$pid" 2>/dev/null || true; done
  wait_until "$secs" none_alive "$@"
}

none_alive() {
  local pid
  for pid in "$@"; do pid_alive "$pid" && return 1; done
  return 0
}

# Stop NAME's processes (from lab_pids output in $1): SIGTERM, bounded wait, SIGKILL.
stop_group() {
  local name=$1 all=$2 secs=$3
  local -a pids
  mapfile -t pids < <(awk -v n="$name" '$1 == n { print $2 }' <<<"$all")
  [ ${#pids[@]} -gt 0 ] || return 0
  if ! signal_and_wait TERM "$secs" "${pids[@]}"; then
    log "$name did not exit within ${secs}s after SIGTERM; sending SIGKILL"
    signal_and_wait KILL 5 "${pids[@]}" || log "warning: some $name processes survive SIGKILL"
  fi
}

# Cancel the lab's jobs while slurmctld still answers, so that no slurmstepd or job process
# outlives the daemons (slurmstepd is not a child of slurmd: stopping slurmd leaves it be).
drain_jobs() {
  local ids
  ids=$(timeout 10 env SLURM_CONF="$CONF" "$SLURM_PREFIX/bin/squeue" -h -o %A 2>/dev/null || true)
  if [ -n "$ids" ]; then
    # shellcheck disable=SC2086 # one argument per job id
    timeout 10 env SLURM_CONF="$CONF" "$SLURM_PREFIX/bin/scancel" $ids 2>/dev/null || true
    wait_until 15 no_active_jobs || log "jobs still active after scancel; continuing"
  fi
}

no_active_jobs() {
  [ -z "$(timeout 5 env SLURM_CONF="$CONF" "$SLURM_PREFIX/bin/squeue" -h -t R,CG,CF,S -o %A 2>/dev/null)" ]
}

# Last resort for steps that survived scancel: SIGKILL this lab's slurmstepds and whatever
# runs under them.
kill_stray_stepds() {
  local -a stepds victims
  mapfile -t stepds < <(lab_stepds)
  [ ${#stepds[@]} -gt 0 ] || return 0
  local s
  victims=("${stepds[@]}")
  for s in "${stepds[@]}"; do
    mapfile -t -O "${#victims[@]}" victims < <(descendants "$s")
  done
  log "killing ${#stepds[@]} leftover slurmstepd process(es) and their children: ${victims[*]}"
  signal_and_wait KILL 5 "${victims[@]}" || true
}

cmd_down() {
  if [ ! -d "$LAB_DIR" ] || [ ! -e "$MARKER" ]; then
    log "no lab in $LAB_DIR: nothing to do"
    return 0
  fi
  lock_lab
  do_down
}

do_down() {
  local t0 all
  t0=$(now_ms)
  load_lab_env || true
  all=$(lab_pids)
  if [ -z "$all" ] && [ -z "$(lab_stepds)" ]; then
    log "lab in $LAB_DIR is not running"
    rm -f "$STARTED"
    return 0
  fi
  if [ -n "${SLURM_PREFIX:-}" ] && grep -q '^slurmctld ' <<<"$all"; then drain_jobs; fi
  # slurmds first (they would otherwise complain about the missing controller), then the
  # controller, then munge (both Slurm sides need it until the end) and the simulator.
  local name
  for name in "${DAEMONS_ORDER[@]}"; do
    [ "$name" = munged ] && kill_stray_stepds
    stop_group "$name" "$all" 20
  done
  kill_stray_stepds
  all=$(lab_pids)
  if [ -n "$all" ]; then
    log "error: still running after down: $(tr '\n' ' ' <<<"$all")"
    return 1
  fi
  rm -f "$STARTED"
  log "lab in $LAB_DIR is down ($(( $(now_ms) - t0 ))ms)"
}

# ---------------------------------------------------------------------------------------------
# restart-slurmctld: slurmctld stopped (or killed) and started again from its saved state (no -c)
# ---------------------------------------------------------------------------------------------
cmd_restart_slurmctld() {
  [ -e "$MARKER" ] && load_lab_env || die "no lab in $LAB_DIR"
  case $SIGNAL in TERM|KILL) ;; *) die "--signal must be TERM or KILL" ;; esac
  lock_lab
  local pid
  pid=$(lab_pids | awk '$1 == "slurmctld" { print $2; exit }')
  if [ -n "$pid" ]; then
    signal_and_wait "$SIGNAL" 30 "$pid" || die "slurmctld (pid $pid) did not exit after SIG$SIGNAL"
  else
    log "slurmctld was not running (crashed?): starting it"
  fi
  # Its pid file outlives a SIGKILL: a stale one must not stand for the new process.
  rm -f "$RUN/slurmctld.pid"
  uts_prefix
  start_slurmctld
}

# ---------------------------------------------------------------------------------------------
# status / env
# ---------------------------------------------------------------------------------------------
cmd_status() {
  if [ ! -e "$MARKER" ] || ! load_lab_env; then
    echo "no lab in $LAB_DIR"
    return 1
  fi
  local all ok=1 pid name
  all=$(lab_pids)
  echo "lab $LAB_DIR: $NODES nodes, topology/$TOPOLOGY, slurmctld port $CTLD_PORT, ibsim $IBSIM_SOCKNAME"
  local names=(ibsim munged slurmctld)
  if [ "${ACCOUNTING:-none}" = slurmdbd ]; then names+=(mariadbd slurmdbd); fi
  for name in "${names[@]}"; do
    pid=$(awk -v n="$name" '$1 == n { print $2; exit }' <<<"$all")
    if [ -n "$pid" ]; then
      printf '  %-10s running (pid %s)\n' "$name" "$pid"
    else
      printf '  %-10s NOT running\n' "$name"; ok=0
    fi
  done
  local n_up
  n_up=$(grep -c '^slurmd ' <<<"$all" || true)
  if [ "$n_up" -eq "$NODES" ]; then
    printf '  %-10s %d/%d running\n' slurmd "$n_up" "$NODES"
  else
    local dead
    dead=$(dead_slurmds | paste -sd, -)
    dead=$(slurm scontrol show hostlist "$dead" 2>/dev/null || echo "$dead")
    printf '  %-10s %d/%d running; not running: %s\n' slurmd "$n_up" "$NODES" "$dead"
    ok=0
  fi
  if grep -q '^slurmctld ' <<<"$all"; then
    timeout 10 env SLURM_CONF="$CONF" "$SLURM_PREFIX/bin/sinfo" -o '%10P %.5a %.6D %.8t %N' 2>&1 | sed 's/^/  /' || ok=0
  fi
  [ "$ok" = 1 ]
}

# Node names whose slurmd is not alive.
dead_slurmds() {
  local node pid
  [ -r "$LAB_DIR/nodes" ] || return 0
  while read -r node; do
    if ! pid=$(read_pidfile "$RUN/spawn/slurmd.$node.pid") || ! pid_is "$pid" slurmd; then echo "$node"; fi
  done < "$LAB_DIR/nodes"
}

# Stops slurmctld with SIGTERM (it saves jobs and nodes in StateSaveLocation) and starts
# it again without -c, so it recovers that state: what a site's controller restart does.
cmd_env() {
  if [ ! -e "$MARKER" ] || ! load_lab_env; then
    die "no lab in $LAB_DIR (run '$PROG up --dir $LAB_DIR' first)"
  fi
  printf 'export SLURM_CONF=%q\n' "$CONF"
  # shellcheck disable=SC2016 # $PATH is expanded by the shell that evals this
  printf 'export PATH=%q:%q:"$PATH"\n' "$SLURM_PREFIX/bin" "$SLURM_PREFIX/sbin"
  printf 'export FABRICFIT_LAB_DIR=%q\n' "$LAB_DIR"
  # For IB tools against the simulated fabric:  LD_PRELOAD=$FABRICFIT_UMAD2SIM ibnetdiscover
  # (run them in a writable directory: umad2sim creates ./sys-<pid>/ there).
  printf 'export IBSIM_SOCKNAME=%q\n' "$IBSIM_SOCKNAME"
  printf 'export FABRICFIT_UMAD2SIM=%q\n' "$UMAD2SIM_SO"
}

# ---------------------------------------------------------------------------------------------
# up
# ---------------------------------------------------------------------------------------------
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
  case $TOPOLOGY in fabricfit|tree) ;; *) die "--topology must be fabricfit or tree" ;; esac
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

generate_fabric() {
  local -a args=(generate --leaves "$LEAVES" --hosts-per-leaf "$HOSTS_PER_LEAF" --spines "$SPINES"
                 --uplinks "$UPLINKS" --rails "$RAILS" -o "$NETFILE" --slurm-nodes)
  [ "$STORAGE_HCAS" = 0 ] || args+=(--storage-hcas)
  local d
  for d in "${DEGRADE[@]}"; do args+=(--degrade "$d"); done
  local out
  out=$("$FF_BIN" "${args[@]}" 2> "$LOGS/generate.log") || {
    show_tail "$LOGS/generate.log"; die "'$FF_BIN ${args[*]}' failed"; }
  NODELIST=$(awk 'NF { last = $0 } END { print last }' <<<"$out")
  local re='^[][A-Za-z0-9_.,-]+$'
  [[ $NODELIST =~ $re ]] || die "fabricfit generate --slurm-nodes printed '$out', not a node list"
  [ -s "$NETFILE" ] || die "fabricfit generate did not write $NETFILE"
}

# ibsim's compiled-in limits (2,048 nodes / 256 switches / 13,312 ports) are too small for big
# fabrics; size them from the net file, with headroom for run-time Link commands.
ibsim_limit_args() {
  awk '
    /^(Switch|Ca|Hca)[ \t]/ { nodes++; ports += $2 + 1; if ($1 == "Switch") sw++ }
    END {
      n = 2 * nodes; s = 2 * sw; p = 2 * ports
      if (n < 2048) n = 2048; if (s < 256) s = 256; if (p < 13312) p = 13312
      print "-N", n, "-S", s, "-P", p
    }' "$NETFILE"
}

start_ibsim() {
  local fifo=$IBSIM_DIR/console limits pid
  mkfifo "$fifo"
  limits=$(ibsim_limit_args)
  abstract_socket_exists "$IBSIM_SOCKNAME:ctl" &&
    die "an ibsim with IBSIM_SOCKNAME=$IBSIM_SOCKNAME is already running (not ours)"
  # The console is stdin: a FIFO opened read-write never reaches EOF (at EOF ibsim spins).
  # Its working directory must be writable.
  # shellcheck disable=SC2086 # $limits is "-N n -S s -P p"
  (cd "$IBSIM_DIR" && IBSIM_SOCKNAME=$IBSIM_SOCKNAME spawn ibsim ibsim ibsim $limits -s "$NETFILE" \
     0<> "$fifo" > "$LOGS/ibsim.log" 2>&1)
  pid=$(spawned_pid ibsim) || die "ibsim did not start"
  if ! wait_until "$TIMEOUT" ibsim_ready "$pid"; then
    show_tail "$LOGS/ibsim.log"; die "ibsim did not get ready"
  fi
  log "ibsim up (pid $pid, IBSIM_SOCKNAME=$IBSIM_SOCKNAME, $limits)"
}

ibsim_ready() {
  pid_alive "$1" || { show_tail "$LOGS/ibsim.log"; die "ibsim exited"; }
  grep -q 'Network simulator ready' "$LOGS/ibsim.log"
}

# Optional smoke test: discover the simulated fabric once and count the HCAs.
# Discovers the simulated fabric live, the way an admin would on a real subnet
# (`fabricfit discover` through libibnetdisc, here via libumad2sim), writing the snapshot
# topology/fabricfit reads, and checks it found every host the net file declares.
discover_fabric() {
  local want got
  [ -r "$UMAD2SIM_SO" ] || die "$UMAD2SIM_SO not found (package libumad2sim0)"
  want=$NODES
  (cd "$IBSIM_DIR" &&
   IBSIM_SOCKNAME=$IBSIM_SOCKNAME LD_PRELOAD=$UMAD2SIM_SO timeout 120 "$FF_BIN" discover \
     ${COMPUTE_HCA:+--compute-hca "$COMPUTE_HCA"} -o "$SNAPSHOT" > "$LOGS/discover.log" 2>&1) ||
    { show_tail "$LOGS/discover.log"; die "fabricfit discover failed on the simulated fabric"; }
  rm -rf "$IBSIM_DIR"/sys-* 2>/dev/null || true
  # awk reads to the end (no exit): fabricfit must not die of SIGPIPE (pipefail) on a big fabric.
  got=$("$FF_BIN" show --json "$SNAPSHOT" | awk -F'[:,]' '/^  "hosts": / && !n++ { gsub(/ /, "", $2); print $2 }')
  [ "$got" = "$want" ] || die "fabricfit discover found ${got:-no} hosts, the fabric has $want"
  log "fabric discovered live through ibsim: $got hosts, snapshot $SNAPSHOT"
  # topology/tree gets the same fabric, as an admin would write it from the snapshot.
  if [ "$TOPOLOGY" = tree ]; then
    "$FF_BIN" show --slurm-topology-conf "$SNAPSHOT" > "$LAB_DIR/topology.conf" ||
      die "fabricfit show --slurm-topology-conf failed on $SNAPSHOT"
  fi
}

start_munge() {
  local pid
  mungekey -c -k "$MUNGE_DIR/munge.key" > "$LOGS/mungekey.log" 2>&1 ||
    { show_tail "$LOGS/mungekey.log"; die "mungekey failed"; }
  (cd "$MUNGE_DIR" && spawn munged munged munged -F -S "$MUNGE_SOCK" --key-file="$MUNGE_DIR/munge.key" \
     --pid-file="$MUNGE_DIR/munged.pid" --log-file="$LOGS/munged.log" \
     --seed-file="$MUNGE_DIR/munged.seed" < /dev/null > "$LOGS/munged.stderr" 2>&1)
  if ! pid=$(spawned_pid munged) || ! wait_until "$TIMEOUT" munged_ready "$pid"; then
    show_tail "$LOGS/munged.stderr"; show_tail "$LOGS/munged.log"; die "munged did not start"
  fi
  log "munged up (pid $pid, socket $MUNGE_SOCK)"
}

munged_ready() {
  pid_alive "$1" || return 2
  [ -S "$MUNGE_SOCK" ]
}

make_gpu_devices() {
  local i last=$(( GPUS - 1 ))
  for i in $(seq 0 "$last"); do
    # A real character device is closest to the truth; in containers mknod may be denied.
    mknod -m 666 "$LAB_DIR/dev/nvidia$i" c 195 "$i" 2>/dev/null ||
      ln -s /dev/null "$LAB_DIR/dev/nvidia$i"
  done
  if [ "$GPUS" -eq 1 ]; then GPU_FILES=$LAB_DIR/dev/nvidia0; else GPU_FILES="$LAB_DIR/dev/nvidia[0-$last]"; fi
}

# With NoInAddrAny/NoCtldInAddrAny every daemon binds to the address its host name resolves
# to (and to INADDR_ANY without them), while every client and daemon reaches slurmctld at
# 127.0.0.1 (SlurmctldHost=localhost(127.0.0.1)). So unless this host's name resolves to
# 127.0.0.1 itself, the daemons run in a UTS namespace of their own whose host name is
# "localhost", and bind to 127.0.0.1 only: a name on another address (a real interface), on
# 127.0.1.1 (what the Debian and Ubuntu installers write in /etc/hosts: slurmctld would
# listen where no client looks) or on none at all (FABRICFIT_LAB_UTS=1 forces it).
comm_params() {
  echo "CommunicationParameters=NoInAddrAny,NoCtldInAddrAny"
}

choose_uts() {
  local addr name
  name=$(hostname)
  # A name that does not resolve makes getent exit 2: under errexit and pipefail that must
  # lead to the namespace, not end the script.
  addr=$(getent ahostsv4 "$name" 2>/dev/null | awk 'NR == 1 { print $1 }') || addr=
  LAB_UTS=no
  [ "$addr" = 127.0.0.1 ] || LAB_UTS=yes
  [ "${FABRICFIT_LAB_UTS:-0}" = 1 ] && LAB_UTS=yes
  if [ "$LAB_UTS" = yes ]; then
    command -v unshare >/dev/null || die "$name resolves to '${addr:-nothing}', not 127.0.0.1, and unshare (util-linux) is missing"
    local lo
    lo=$(getent ahostsv4 localhost 2>/dev/null | awk 'NR == 1 { print $1 }') || lo=
    [ "$lo" = 127.0.0.1 ] || die "localhost resolves to '${lo:-nothing}', not 127.0.0.1 (see /etc/hosts)"
    log "$name resolves to ${addr:-nothing}: daemons run with host name 'localhost' in a UTS namespace, bound to 127.0.0.1 only"
  fi
}

# The command prefix that puts a daemon in that namespace (empty: none). Same PID (exec).
uts_prefix() {
  UTS_PREFIX=()
  # shellcheck disable=SC2016 # for the inner shell
  if [ "${LAB_UTS:-no}" = yes ]; then UTS_PREFIX=(unshare --uts -- sh -c 'hostname localhost && exec "$@"' sh); fi
}

write_configs() {
  local topo_plugin=topology/$TOPOLOGY
  cat > "$CONF" <<EOF
# Written by contrib/lab.sh up: a local lab cluster ($NODES nodes x $GPUS GPUs, $LEAVES leaves).
# Regenerated on every 'up'; edit lab.sh (or use --slurm-conf-extra) instead.
ClusterName=fabricfit
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$CTLD_PORT
$(comm_params)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$MUNGE_SOCK
StateSaveLocation=$LAB_DIR/state
SlurmdSpoolDir=$LAB_DIR/spool/slurmd.%n
SlurmctldPidFile=$RUN/slurmctld.pid
SlurmdPidFile=$RUN/slurmd.%n.pid
SlurmctldLogFile=$LOGS/slurmctld.log
SlurmdLogFile=$LOGS/slurmd.%n.log
SlurmctldDebug=info
SlurmdDebug=info
PlugStackConfig=$LAB_DIR/plugstack.conf
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
$(accounting_params)
JobCompType=jobcomp/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
# else slurmd reports the host's real CPUs and memory, and the node is INVAL
SlurmdParameters=config_overrides
GresTypes=gpu
MailProg=/bin/true
SchedulerParameters=batch_sched_delay=0
ReturnToService=2
TopologyPlugin=$topo_plugin
PluginDir=${PLUGIN_DIR:+$PLUGIN_DIR:}$SLURM_PREFIX/lib/slurm
NodeName=$NODELIST NodeHostname=localhost NodeAddr=127.0.0.1 Port=$SLURMD_PORT-$(( SLURMD_PORT + NODES - 1 )) CPUs=$CPUS Boards=1 SocketsPerBoard=2 CoresPerSocket=$(( CPUS / 2 )) ThreadsPerCore=1 RealMemory=$MEM_MB Gres=gpu:$GPUS State=UNKNOWN
PartitionName=gpu Nodes=ALL Default=YES MaxTime=UNLIMITED State=UP
EOF
  if [ $(( CPUS % 2 )) -ne 0 ]; then
    sed -i "s/Boards=1 SocketsPerBoard=2 CoresPerSocket=[0-9]*/Boards=1 SocketsPerBoard=1 CoresPerSocket=$CPUS/" "$CONF"
  fi
  if [ -n "$SLURM_CONF_EXTRA" ]; then
    { echo "# --- from $SLURM_CONF_EXTRA ---"; cat "$SLURM_CONF_EXTRA"; } >> "$CONF"
  fi

  echo "CgroupPlugin=disabled" > "$LAB_DIR/cgroup.conf"

  # A GPU given only as Count= is dropped and the node goes INVAL: point File= at devices.
  cat > "$LAB_DIR/gres.conf" <<EOF
AutoDetect=off
NodeName=$NODELIST Name=gpu File=$GPU_FILES
EOF

  local spank=${SPANK_SO:-$SLURM_PREFIX/lib/slurm/fabricfit.so}
  if [ -e "$spank" ]; then
    # slurmstepd keeps its own last good copy (a compute node's, not the controller's).
    echo "optional $spank conf=$LAB_DIR/fabricfit.conf last_good=$LAB_DIR/spool/fabricfit.conf.last-good" \
      > "$LAB_DIR/plugstack.conf"
  else
    echo "# $spank is not installed: no SPANK plugins" > "$LAB_DIR/plugstack.conf"
  fi

  if [ -n "$FF_CONF_SRC" ]; then
    cp "$FF_CONF_SRC" "$LAB_DIR/fabricfit.conf"
  else
    cat > "$LAB_DIR/fabricfit.conf" <<EOF
# fabricfit.conf for the lab in $LAB_DIR (written by contrib/lab.sh up).
# Simulated fabric: $NETFILE, served by ibsim as IBSIM_SOCKNAME=$IBSIM_SOCKNAME;
# discovered live into the snapshot below by \`fabricfit discover\`.
SnapshotFile=$SNAPSHOT
EOF
  fi
}

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

# Expand the node list into $LAB_DIR/nodes, one name per line (same order as the ports).
expand_nodes() {
  slurm scontrol show hostnames "$NODELIST" > "$LAB_DIR/nodes" 2> "$LOGS/hostnames.log" ||
    { show_tail "$LOGS/hostnames.log"; die "scontrol cannot expand node list '$NODELIST'"; }
  local n
  n=$(wc -l < "$LAB_DIR/nodes")
  [ "$n" -eq "$NODES" ] || die "fabricfit generate listed $n nodes ($NODELIST), expected $NODES"
}

start_slurmctld() {
  local -a envs=(SLURM_CONF="$CONF")
  local sim_note=
  if [ "$UMAD2SIM" = yes ]; then
    [ -r "$UMAD2SIM_SO" ] || die "$UMAD2SIM_SO not found (package libumad2sim0), or use --no-umad2sim"
    # Lets the topology plugin discover the simulated fabric with libibnetdisc in slurmctld.
    envs+=(LD_PRELOAD="$UMAD2SIM_SO" IBSIM_SOCKNAME="$IBSIM_SOCKNAME")
    sim_note=", umad2sim preloaded"
  fi
  # -D: foreground (see spawn); it logs to SlurmctldLogFile and, duplicated, to stderr.
  # The working directory must be writable for umad2sim (./sys-<pid>/).
  # A crash leaves a core there too (core_pattern permitting): the tests print its backtrace.
  (cd "$LAB_DIR/ctld" && { ulimit -c unlimited 2>/dev/null || true; } && spawn slurmctld slurmctld "${UTS_PREFIX[@]}" env "${envs[@]}" \
     "$SLURM_PREFIX/sbin/slurmctld" -D -f "$CONF" < /dev/null > "$LOGS/slurmctld.stderr" 2>&1)
  local pid
  if ! pid=$(spawned_pid slurmctld) || ! wait_until "$TIMEOUT" slurmctld_ready "$pid"; then
    show_tail "$LOGS/slurmctld.log"
    die "slurmctld did not come up"
  fi
  log "slurmctld up (pid $pid, port $CTLD_PORT, Slurm ${SLURM_VERSION:-$SLURM_PREFIX}, TopologyPlugin=topology/$TOPOLOGY$sim_note)"
}

slurmctld_ready() {
  # Fail at once, not at the timeout, when it has died (a fatal configuration error, say).
  if ! pid_alive "$1"; then
    show_tail "$LOGS/slurmctld.log"; die "slurmctld exited"
  fi
  slurm scontrol ping 2>/dev/null | grep -q 'is UP'
}

start_slurmds() {
  local node
  # -D: foreground (see spawn). They log to their SlurmdLogFile and, all duplicated into
  # one file, to stderr (which also catches errors from before the log file is open).
  while read -r node; do
    mkdir -p "$LAB_DIR/spool/slurmd.$node"   # else slurmd logs an error before creating it
    (cd "$LAB_DIR/spool" && spawn "slurmd.$node" slurmd "${UTS_PREFIX[@]}" "$SLURM_PREFIX/sbin/slurmd" -D -f "$CONF" -N "$node" \
       < /dev/null >> "$LOGS/slurmd.stderr" 2>&1)
  done < "$LAB_DIR/nodes"
  wait_until 10 all_slurmds_spawned || die "could not start all slurmds"
  log "$NODES slurmds started (ports $SLURMD_PORT-$(( SLURMD_PORT + NODES - 1 )))"
}

all_slurmds_spawned() {
  [ "$(find "$RUN/spawn" -name 'slurmd.*.pid' -size +0 | wc -l)" -eq "$NODES" ]
}

# Die at once (with the log) if a slurmd has died or says it cannot start.
check_slurmds() {
  local f dead
  f=$(grep -lE 'fatal:|Waiting for gres.conf file' "$LOGS"/slurmd.*.log 2>/dev/null | first 1 || true)
  dead=$(dead_slurmds | first 5)
  if [ -n "$f" ] || [ -n "$dead" ]; then
    [ -n "$f" ] || f=$LOGS/slurmd.$(head -n 1 <<<"$dead").log
    show_tail "$f" 10
    [ -n "$dead" ] && log "slurmd not running for: $(tr '\n' ' ' <<<"$dead")"
    die "a slurmd failed to start (see $f)"
  fi
}

# Wait until every node is idle. Nodes that turn INVAL/DRAIN/DOWN will not recover by
# themselves: report them (with the reason) at once.
wait_nodes_idle() {
  local t0 deadline states idle bad
  t0=$(now_ms); deadline=$(( t0 + TIMEOUT * 1000 ))
  while :; do
    check_slurmds
    states=$(slurm sinfo -h -N -o '%N %t' 2>/dev/null || true)
    idle=$(awk '$2 == "idle" { n++ } END { print n + 0 }' <<<"$states")
    [ "$idle" -eq "$NODES" ] && return 0
    bad=$(awk '$2 ~ /^(inval|drain|drng|down|fail)/ { print $1 " " $2 }' <<<"$states" | first 5)
    if [ -n "$bad" ] || [ "$(now_ms)" -ge "$deadline" ]; then
      log "nodes not idle ($idle of $NODES idle after $(( ($(now_ms) - t0) / 1000 ))s):"
      slurm sinfo -R 2>&1 | first 10 | sed 's/^/    /' >&2 || true
      awk '$2 != "idle"' <<<"$states" | first 10 | sed 's/^/    /' >&2
      local first; first=$(awk '$2 != "idle" { print $1; exit }' <<<"$states")
      show_tail "$LOGS/slurmctld.log" 15
      [ -n "$first" ] && show_tail "$LOGS/slurmd.$first.log" 15
      die "not all nodes came up idle"
    fi
    sleep 0.2
  done
}

write_lab_env() {
  {
    printf '# Settings of the lab in this directory (written by lab.sh up)\n'
    local v
    for v in SLURM_PREFIX NODES LEAVES GPUS RAILS SPINES UPLINKS TOPOLOGY CTLD_PORT SLURMD_PORT \
             NODELIST IBSIM_SOCKNAME UMAD2SIM_SO PLUGIN_DIR LAB_UTS ACCOUNTING DBD_PORT MYSQL_PORT; do
      printf '%s=%q\n' "$v" "${!v}"
    done
  } > "$LAB_ENV"
}

UP_DONE=0
on_up_exit() {
  local rc=$?
  if [ "$UP_DONE" = 0 ] && [ -s "$STARTED" ]; then
    log "up failed: stopping what it started (logs stay in $LOGS)"
    sleep 0.3   # let a spawn that was under way record its PID
    do_down >/dev/null 2>&1 || log "warning: down after the failed up did not finish cleanly"
  fi
  exit "$rc"
}

cmd_up() {
  local t0; t0=$(now_ms)
  validate_up_args
  load_slurm_env
  find_fabricfit
  if [ "$TOPOLOGY" = fabricfit ] && [ ! -e "${PLUGIN_DIR:-$SLURM_PREFIX/lib/slurm}/topology_fabricfit.so" ]; then
    die "${PLUGIN_DIR:-$SLURM_PREFIX/lib/slurm}/topology_fabricfit.so is not installed (make install, or --plugin-dir), or use --topology tree"
  fi
  # Each lab gets its own simulator socket name, derived from its directory.
  IBSIM_SOCKNAME=fabricfit-lab-$(printf '%s' "$LAB_DIR" | cksum | cut -d' ' -f1)
  prepare_dir
  trap on_up_exit EXIT
  trap 'exit 130' INT TERM HUP   # so that on_up_exit cleans up after an interrupted up
  check_ports
  choose_uts
  uts_prefix
  generate_fabric
  write_lab_env
  start_ibsim
  discover_fabric
  start_munge
  make_gpu_devices
  write_configs
  expand_nodes
  if [ "$ACCOUNTING" = slurmdbd ]; then
    start_mariadb
    start_slurmdbd
  fi
  start_slurmctld
  start_slurmds
  wait_nodes_idle
  UP_DONE=1
  local secs=$(( $(now_ms) - t0 ))
  cat <<EOF
lab up in $(( secs / 1000 )).$(printf '%03d' $(( secs % 1000 )))s: $NODES nodes ($NODELIST) x $GPUS GPUs, $LEAVES leaves x $HOSTS_PER_LEAF hosts, $SPINES spines, $RAILS rail(s)
  dir       $LAB_DIR   (slurm.conf, fabric.net, log/, run/)
  topology  topology/$TOPOLOGY
  slurmctld 127.0.0.1:$CTLD_PORT, slurmd ports $SLURMD_PORT-$(( SLURMD_PORT + NODES - 1 ))
  ibsim     IBSIM_SOCKNAME=$IBSIM_SOCKNAME$(if [ "$ACCOUNTING" = slurmdbd ]; then printf '\n  slurmdbd  127.0.0.1:%s, MariaDB 127.0.0.1:%s (sacct works)' "$DBD_PORT" "$MYSQL_PORT"; fi)
  use it:   eval "\$($0 env --dir $LAB_DIR)"; sbatch -N 2 --gpus-per-node=8 --wrap 'srun hostname'
  stop it:  $0 down --dir $LAB_DIR
EOF
}

# ---------------------------------------------------------------------------------------------
# Command line
# ---------------------------------------------------------------------------------------------
main() {
  [ $# -gt 0 ] || { usage >&2; exit 2; }
  local cmd=$1; shift
  case $cmd in
    up|down|status|env|restart-slurmctld) ;;
    -h|--help|help) usage; exit 0 ;;
    *) usage >&2; die "unknown command '$cmd'" ;;
  esac
  while [ $# -gt 0 ]; do
    local opt=$1
    case $opt in
      --force) FORCE=1; shift; continue ;;
      --no-umad2sim) UMAD2SIM=no; shift; continue ;;
      --umad2sim) UMAD2SIM=yes; shift; continue ;;
      -h|--help) usage; exit 0 ;;
      --*=*) set -- "${opt%%=*}" "${opt#*=}" "${@:2}"; continue ;;
      --*) [ $# -ge 2 ] || die "$opt needs a value" ;;
      *) die "unexpected argument '$opt'" ;;
    esac
    local val=$2; shift 2
    if [ "$cmd" != up ] && [ "$opt" != --dir ] && [ "$opt" != --signal ]; then die "$cmd takes only --dir (got $opt)"; fi
    case $opt in
      --dir) LAB_DIR=$val ;;
      --nodes) NODES=$val ;;
      --leaves) LEAVES=$val ;;
      --gpus) GPUS=$val ;;
      --rails) RAILS=$val ;;
      --spines) SPINES=$val ;;
      --uplinks) UPLINKS=$val ;;
      --topology) TOPOLOGY=$val ;;
      --ctld-port) CTLD_PORT=$val ;;
      --slurmd-port) SLURMD_PORT=$val ;;
      --cpus) CPUS=$val ;;
      --mem) MEM_MB=$val ;;
      --timeout) TIMEOUT=$val ;;
      --fabricfit-conf) FF_CONF_SRC=$(realpath -m "$val") ;;
      --slurm-conf-extra) SLURM_CONF_EXTRA=$(realpath -m "$val") ;;
      --plugin-dir) PLUGIN_DIR=$(realpath -m "$val") ;;
      --signal) SIGNAL=$val ;;
      --slurm) SLURM_RELEASE=$val ;;
      --spank-plugin) SPANK_SO=$(realpath -m "$val") ;;
      --storage-hcas) STORAGE_HCAS=$val ;;
      --compute-hca) COMPUTE_HCA=$val ;;
      --degrade) DEGRADE+=("$val") ;;
      --accounting) ACCOUNTING=$val ;;
      --dbd-port) DBD_PORT=$val ;;
      *) die "unknown option '$opt' (see $PROG --help)" ;;
    esac
  done
  set_paths
  case $cmd in
    up) cmd_up ;;
    down) cmd_down ;;
    status) if cmd_status; then exit 0; else exit 1; fi ;;
    env) cmd_env ;;
    restart-slurmctld) cmd_restart_slurmctld ;;
  esac
}

main "$@"
