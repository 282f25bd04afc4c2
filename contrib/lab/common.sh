# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# contrib/lab/common.sh: what every lab command needs: messages, small utilities, the lab
# directory's layout, starting a daemon by PID (spawn), and finding and stopping the
# processes a lab recorded. It only defines functions (the settings are in options.sh), so
# contrib/lab.sh sources it first and each command file can count on it.

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

# Send SIG to every PID in the list, then wait up to SECS for them all to be gone (down,
# restart-slurmctld and the clean-up after a failed up all stop processes this way).
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

# Node names whose slurmd is not alive.
dead_slurmds() {
  local node pid
  [ -r "$LAB_DIR/nodes" ] || return 0
  while read -r node; do
    if ! pid=$(read_pidfile "$RUN/spawn/slurmd.$node.pid") || ! pid_is "$pid" slurmd; then echo "$node"; fi
  done < "$LAB_DIR/nodes"
}
