# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Shared helpers for the integration tests that run a lab cluster (contrib/lab.sh). Source it:
#   . "$(dirname "$0")/lib.sh"
# It gives TAP output (ok / fail / check / diag / done_testing), a bounded wait_for, Slurm job
# helpers, and lab_up/lab_down with an EXIT trap that always takes down every lab the test
# brought up, so a failing or interrupted test leaves no daemons behind.
#
# Environment: FABRICFIT_LAB_SH (lab script, default contrib/lab.sh of this tree),
# FABRICFIT_PLUGIN_DIR (plugins found there before Slurm's own: lab.sh --plugin-dir),
# FABRICFIT_KEEP_LAB=1 keeps the lab directories (logs) even when the test passes.

TEST_LIB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP_SRCDIR=$(cd "$TEST_LIB_DIR/../.." && pwd)
LAB_SH=${FABRICFIT_LAB_SH:-$TOP_SRCDIR/contrib/lab.sh}

# ---------------------------------------------------------------------------------------------
# TAP
# ---------------------------------------------------------------------------------------------
_tap_n=0
_tap_failed=0

# ok DESC: a passing assertion.
ok() { _tap_n=$((_tap_n + 1)); echo "ok $_tap_n - $*"; }

# fail DESC [DETAIL...]: a failing assertion; details go out as TAP comments. The first
# failure after a lab's slurmctld died reports why, there (CI shows only part of the output).
fail() {
  _tap_n=$((_tap_n + 1)); _tap_failed=$((_tap_failed + 1))
  echo "not ok $_tap_n - $1"
  shift
  local line d
  for line in "$@"; do diag "$line"; done
  for d in "${_labs[@]}"; do
    [ -r "$d/run/slurmctld.pid" ] || continue
    pid_running "$(head -n 1 "$d/run/slurmctld.pid")" && continue
    ctld_report "$d" "slurmctld of $d is not running"
  done
  return 0
}
_ctld_reported=()

# ctld_report DIR [WHY]: once per lab, WHY, the end of the lab's controller log, what it wrote
# to stderr (a crash, an assertion) and, when it left a core, the backtrace of every thread.
ctld_report() {
  local d=$1 core
  [[ " ${_ctld_reported[*]} " == *" $d "* ]] && return 0
  _ctld_reported+=("$d")
  [ -z "${2:-}" ] || diag "$2"
  if [ -r "$d/log/slurmctld.log" ]; then
    diag "the last lines of $d/log/slurmctld.log:"
    tail -n 25 "$d/log/slurmctld.log" | sed 's/^/#   /'
  fi
  [ -s "$d/log/slurmctld.stderr" ] && { diag "$d/log/slurmctld.stderr:"; tail -n 10 "$d/log/slurmctld.stderr" | sed 's/^/#   /'; }
  for core in "$d"/ctld/core*; do
    if [ ! -f "$core" ] || ! command -v gdb > /dev/null; then continue; fi
    # The thread that died first, then the others (without arguments, for a short report).
    diag "backtrace of $core:"
    gdb -batch -nx -ex 'set print frame-arguments none' -ex 'bt 20' -ex 'thread apply all bt 8' \
      "$(_ctld_binary "$core")" "$core" 2>/dev/null |
      grep -E '^(Thread|#|Program terminated)' | grep -vE '(futex|pthread_cond_|start_thread|clone3)' |
      head -n 100 | sed 's/^/#   /'
  done
  return 0
}

# _ctld_binary CORE: the program that left CORE (file(1) reads its execfn).
_ctld_binary() {
  file -b "$1" 2>/dev/null | sed -n "s/.*execfn: '\([^']*\)'.*/\1/p"
}

# diag TEXT: a TAP comment (each line prefixed with "# ").
diag() { printf '%s\n' "$@" | sed 's/^/# /'; }

# check DESC CMD...: ok if CMD succeeds, else fail showing the command and its output
# (which is kept out of the TAP stream).
check() {
  local desc=$1 out; shift
  if out=$("$@" 2>&1); then ok "$desc"; else fail "$desc" "command failed: $*" "$out"; fi
}

# skip_all REASON: the whole test does not apply here (TAP "1..0 # SKIP"). Not for a tool
# the test needs: see need_tool.
skip_all() { echo "1..0 # SKIP $*"; _tap_done=1; exit 0; }

# need_tool COMMAND WHENCE: the test needs COMMAND (a name on PATH, or a path). Without it
# the test fails, loudly, and ends, saying where it comes from (WHENCE: a package that
# contrib/setup-slurm.sh installs, or the build). A skip would report "0 passed, 0 failed"
# and hide a machine that was not set up (issue 28: without ss the loopback test skipped
# every check in CI).
need_tool() {
  if [[ $1 == */* ]]; then [ -x "$1" ] && return 0; else command -v "$1" > /dev/null && return 0; fi
  fail "needs ${1:-a command}, which is missing: $2"
  done_testing
}

# done_testing: print the plan; exit non-zero if anything failed (or nothing was tested).
done_testing() {
  echo "1..$_tap_n"
  _tap_done=1
  if [ "$_tap_failed" -gt 0 ]; then diag "$_tap_failed of $_tap_n assertions failed"; exit 1; fi
  [ "$_tap_n" -gt 0 ] || exit 1
  exit 0
}

# ---------------------------------------------------------------------------------------------
# Waiting
# ---------------------------------------------------------------------------------------------

# wait_for SECS CMD...: run CMD every 0.2 s until it succeeds; return 1 after SECS seconds.
wait_for() {
  local secs=$1; shift
  local deadline=$(( $(date +%s%N) / 1000000 + secs * 1000 ))
  until "$@"; do
    [ $(( $(date +%s%N) / 1000000 )) -lt "$deadline" ] || return 1
    sleep 0.2
  done
}

# ---------------------------------------------------------------------------------------------
# Labs
# ---------------------------------------------------------------------------------------------
_labs=()        # lab directories brought up by this test (taken down by the EXIT trap)
_tmpdirs=()     # directories to remove at exit when the test passed

# pick_ports COUNT: print a base port B such that B (slurmctld) and B+1..B+COUNT (slurmds)
# are not listening now, so a test lab does not collide with a developer's lab on the
# default ports or with another test running at the same time.
pick_ports() {
  local count=$1 base busy
  busy=$(ss -Hltn 2>/dev/null | awk '{ n = split($4, a, ":"); print a[n] }' | sort -un)
  for base in $(seq 20000 1000 40000) $(( 41000 + RANDOM % 20000 )); do
    if ! awk -v lo="$base" -v hi=$(( base + count )) '$1 >= lo && $1 <= hi { found = 1 } END { exit !found }' <<<"$busy"; then
      echo "$base"; return 0
    fi
  done
  return 1
}

# make_tmpdir PREFIX: create a fresh directory under /tmp and set TEST_TMPDIR to it. It is
# removed at exit if the test passed. (Not for use in $(...): the cleanup list would be lost.)
make_tmpdir() {
  TEST_TMPDIR=$(mktemp -d "/tmp/$1.XXXXXX") || return 1
  chmod 0755 "$TEST_TMPDIR"   # munged wants every directory above its socket searchable by all
  _tmpdirs+=("$TEST_TMPDIR")
}

# cli_test_start PREFIX: for a test of the command alone (no lab): sets ff to the build's
# fabricfit (FABRICFIT_BIN, which `make check` sets, or build/fabricfit) and d to a fresh
# directory (make_tmpdir PREFIX); the test fails and ends without the command or jq.
cli_test_start() {
  # shellcheck disable=SC2034 # ff and d are the test's
  ff=${FABRICFIT_BIN:-$TOP_SRCDIR/build/fabricfit}
  [ -x "$ff" ] || need_tool "$ff" "the build's command: build it or set FABRICFIT_BIN"
  need_tool jq "package jq; contrib/setup-slurm.sh installs it"
  make_tmpdir "$1" || { fail "mktemp"; done_testing; }
  # shellcheck disable=SC2034
  d=$TEST_TMPDIR
}

# lab_up DIR LAB-UP-OPTIONS...: bring a lab up in DIR and point this shell's Slurm clients
# (SLURM_CONF, PATH) at it. lab.sh's output goes to DIR.up.log (printed on failure).
lab_up() {
  local dir=$1; shift
  # pick_ports would find every port free without ss: a clash with another lab, not a failure.
  need_tool ss "package iproute2 (pick_ports reads the listening ports with it); contrib/setup-slurm.sh installs it"
  _labs+=("$dir")
  # FABRICFIT_PLUGIN_DIR: a build's plugins, tried without installing them.
  if [ -n "${FABRICFIT_PLUGIN_DIR:-}" ]; then set -- --plugin-dir "$FABRICFIT_PLUGIN_DIR" "$@"; fi
  if "$LAB_SH" up --dir "$dir" "$@" > "$dir.up.log" 2>&1; then
    eval "$("$LAB_SH" env --dir "$dir")"
    return 0
  fi
  diag "lab.sh up --dir $dir $* failed:"
  sed 's/^/#   /' "$dir.up.log"
  return 1
}

# The preamble most lab tests share, in two steps so that a test can write files for the
# lab (extra slurm.conf lines) in between:
# lab_prepare NAME PORTS: a temporary directory (TEST_TMPDIR), `lab` in it, and `port`, the
# first of PORTS + 1 free TCP ports (slurmctld's, then one per slurmd).
lab_prepare() {
  make_tmpdir "$1" || { fail "mktemp"; done_testing; }
  lab=$TEST_TMPDIR/lab
  port=$(pick_ports "$2") || { fail "no free TCP port range for the lab"; done_testing; }
}
# lab_start LAB-UP-OPTIONS...: the lab up in $lab on those ports, `ctld_log` its controller's
# log; a lab that does not come up fails the test and ends it.
lab_start() {
  if ! lab_up "$lab" "$@" --ctld-port "$port" --slurmd-port $((port + 1)); then
    fail "lab up"
    done_testing
  fi
  ctld_log=$lab/log/slurmctld.log
}

# spank_so: the SPANK plugin a lab test loads: FABRICFIT_SPANK_SO, else the one installed in
# Slurm's plugin directory of the lab's release (FABRICFIT_SLURM_VERSION, else
# FABRICFIT_SLURM_ENV or /opt/fabricfit/slurm/current.env).
spank_so() {
  if [ -n "${FABRICFIT_SPANK_SO:-}" ]; then
    echo "$FABRICFIT_SPANK_SO"
  elif [ -n "${FABRICFIT_SLURM_VERSION:-}" ]; then
    # The lab runs that release (lab.sh --slurm): its plugin directory, not the default's.
    echo "${FABRICFIT_SLURM_PREFIX:-/opt/fabricfit/slurm}/$FABRICFIT_SLURM_VERSION/lib/slurm/fabricfit.so"
  else
    (
      # shellcheck disable=SC1090
      . "${FABRICFIT_SLURM_ENV:-/opt/fabricfit/slurm/current.env}" 2> /dev/null || true
      echo "${SLURM_PREFIX:-/nonexistent}/lib/slurm/fabricfit.so"
    )
  fi
}

lab_down() {
  local dir=$1
  "$LAB_SH" down --dir "$dir"
}

# lab_recorded_pids DIR: every PID the lab in DIR recorded (lab.sh's run/started list) and
# what the daemons' pid files say now. Capture this before `down` (which clears the list).
lab_recorded_pids() {
  local dir=$1 f
  {
    [ -r "$dir/run/started" ] && awk '{ print $2 }' "$dir/run/started"
    for f in "$dir"/run/spawn/*.pid "$dir"/run/*.pid "$dir"/munge/munged.pid; do
      [ -r "$f" ] && head -n 1 "$f"
    done
  } 2>/dev/null | grep -E '^[0-9]+$' | sort -un
}

# pid_running PID[:START]: alive and not a zombie (reaping of orphans can lag behind their
# exit). With :START (lab_recorded_procs), only the same process: its start time (field 22
# of /proc/PID/stat) must match, as another process may have been given the PID since.
pid_running() {
  local pid=${1%%:*} fields state
  [ -r "/proc/$pid/stat" ] || return 1
  fields=$(sed 's/^.*) //' "/proc/$pid/stat" 2>/dev/null) || return 1
  state=${fields:0:1}
  [ -n "$state" ] && [ "$state" != Z ] && [ "$state" != X ] || return 1
  [ "$pid" = "$1" ] || [ "$(awk '{ print $20 }' <<<"$fields")" = "${1#*:}" ]
}

# lab_recorded_procs DIR: the processes of lab_recorded_pids alive now, as PID:START, for
# pid_running after `down`.
lab_recorded_procs() {
  local p start
  for p in $(lab_recorded_pids "$1"); do
    start=$(sed 's/^.*) //' "/proc/$p/stat" 2>/dev/null | awk '{ print $20 }') || continue
    [ -n "$start" ] && echo "$p:$start"
  done
}

# procs_alive PID:START...: those still alive, each with its command name (for a message).
procs_alive() {
  local p
  for p in "$@"; do
    pid_running "$p" && printf '%s(%s) ' "${p%%:*}" "$(cat "/proc/${p%%:*}/comm" 2>/dev/null)"
  done
  return 0
}

# Always take down every lab this test brought up, even when it fails or is interrupted.
_lib_on_exit() {
  local rc=$? d
  sim_stop
  for d in "${_labs[@]}"; do
    "$LAB_SH" down --dir "$d" > "$d.down.log" 2>&1 || { diag "lab.sh down --dir $d failed:"; sed 's/^/#   /' "$d.down.log"; }
  done
  if [ -z "${_tap_done:-}" ]; then
    # The script died before done_testing: make that a visible failure.
    echo "not ok $((_tap_n + 1)) - test script ended early (exit status $rc)"
    echo "1..$((_tap_n + 1))"
    [ "$rc" -ne 0 ] || rc=1
  fi
  if [ "$rc" -ne 0 ]; then
    # CI keeps only this output: the end of each lab's controller log, and whatever the
    # controller wrote to stderr (a crash, an assertion).
    for d in "${_labs[@]}"; do
      ctld_report "$d"
    done
  fi
  if [ "$rc" -eq 0 ] && [ "${FABRICFIT_KEEP_LAB:-0}" != 1 ]; then
    for d in "${_tmpdirs[@]}"; do rm -rf "$d"; done
  elif [ ${#_tmpdirs[@]} -gt 0 ]; then
    diag "lab directories (logs) kept: ${_tmpdirs[*]}"
  fi
  exit "$rc"
}
trap _lib_on_exit EXIT
trap 'exit 130' INT TERM

# ---------------------------------------------------------------------------------------------
# Slurm jobs (against the lab whose env lab_up loaded)
# ---------------------------------------------------------------------------------------------

# The Slurm release of the lab's commands, e.g. 25.11.7.
slurm_release() { scontrol --version | awk '{ print $2 }'; }

# job_field JOBID FIELD: one field of `scontrol show job -o` (empty if the job is unknown).
job_field() {
  scontrol show job -o "$1" 2>/dev/null | tr ' ' '\n' | awk -F= -v f="$2" '$1 == f { sub(/^[^=]*=/, ""); print; exit }'
}

# lab_guid NAME: the ibsim name (H-... or S-...) of a host's HCA or a switch in the lab's
# fabric.net (the net ibsim runs), for commands on its console.
lab_guid() {
  sed -n "s/^\(Ca\|Switch\)[[:space:]]*[0-9]*[[:space:]]*\"\([HS]-[0-9a-f]*\)\".*# \"$1[ \"].*/\2/p" "$lab/fabric.net" | head -1
}

# lab_sim_cmd CMD: one command on the lab's ibsim console, done when its prompt is back.
lab_sim_cmd() {
  local before
  before=$(grep -o 'sim>' "$lab/log/ibsim.log" | wc -l)
  printf '%s\n' "$1" > "$lab/ibsim/console"
  wait_for 10 bash -c "[ \$(grep -o 'sim>' '$lab/log/ibsim.log' | wc -l) -gt $before ]"
}

# job_running JOBID: it is RUNNING. job_nodes JOBID: its nodes, "a,b,...".
job_running() { [ "$(job_state "$1")" = RUNNING ]; }
job_nodes() { scontrol show hostnames "$(job_field "$1" NodeList)" | paste -sd, -; }
# job_leaf_groups JOBID PER_LEAF: how many leaf groups its nodes lie in, the lab's groups
# holding PER_LEAF consecutive nodes each (gpu001 on the first).
job_leaf_groups() {
  scontrol show hostnames "$(job_field "$1" NodeList)" |
    awk -v per="$2" '{ print int((substr($1, 4) - 1) / per) }' | sort -u | wc -l
}
# job_epoch JOBID FIELD: a time of the job (StartTime, SubmitTime) in seconds since the
# epoch. job_reason JOBID: why it pends, as squeue shows it.
job_epoch() { date -d "$(job_field "$1" "$2")" +%s; }
job_reason() { squeue -h -j "$1" -o %R; }
# lab_fill NODE...: a long job on each holding all its GPUs (-w: Slurm's selection places
# it), running; lab_fill_all_but NODE...: the same on every node but these. GPUS_PER_NODE
# (8) GPUs each.
lab_fill() {
  local n j
  for n in "$@"; do
    j=$(sbatch --parsable -o /dev/null -t 30 -w "$n" --gpus-per-node="${GPUS_PER_NODE:-8}" --wrap 'sleep 600')
    wait_for 20 job_running "$j" || { fail "filler on $n did not start"; return 1; }
  done
}
lab_fill_all_but() {
  local n keep=" $* " rest=()
  for n in $(scontrol show hostnames "$(sinfo -h -o %N)"); do
    [[ $keep == *" $n "* ]] || rest+=("$n")
  done
  lab_fill "${rest[@]}"
}
# placed_with JOB TEXT: fabricfit's last decision line for JOB (eval_nodes, with a
# placement=) matches TEXT (a basic regular expression, as grep reads it).
placed_with() { grep "fabricfit: eval_nodes JobId=$1 " "$ctld_log" | grep "placement=" | tail -1 | grep -q -- "$2"; }
# node_reason NODE: its Reason as sinfo shows it. drained_nodes: the drained nodes, "a,b".
node_reason() { sinfo -h -n "$1" -o '%E'; }
drained_nodes() { sinfo -h -N -t drain -o '%N' | sort -u | paste -sd, -; }
# lab_clear_jobs N: cancels this user's jobs and waits until the queue is empty and all N
# nodes are idle.
lab_clear_jobs() {
  scancel -u "$(id -un)" 2> /dev/null
  wait_for 30 bash -c '[ -z "$(squeue -h)" ] && [ "$(sinfo -h -t idle -o %D)" = "$1" ]' _ "$1"
}

# job_state JOBID: JobState from scontrol; if the controller has already purged the job,
# fall back to squeue's view (which then says nothing: "UNKNOWN").
job_state() {
  local s
  s=$(job_field "$1" JobState)
  if [ -z "$s" ]; then
    s=$(squeue -h -j "$1" -o %T 2>/dev/null | head -n 1)
  fi
  echo "${s:-UNKNOWN}"
}

_job_done() {
  case $(job_state "$1") in
    PENDING|CONFIGURING|RUNNING|COMPLETING|SUSPENDED|REQUEUED|RESIZING|SIGNALING|STAGE_OUT) return 1 ;;
    *) return 0 ;;
  esac
}

# wait_job JOBID SECS: wait (bounded) until the job reaches a final state; print that state.
# Returns 1 on timeout (and prints the state it is stuck in).
# Under topology/fabricfit, also until the controller has logged the job's decision: its
# placement-record thread writes that line shortly after the allocation, which a short job
# can outrun.
wait_job() {
  local id=$1 secs=$2 log=${FABRICFIT_LAB_DIR:-/nonexistent}/log/slurmctld.log
  if wait_for "$secs" _job_done "$id"; then
    if grep -q "topology/fabricfit loaded" "$log" 2>/dev/null; then
      wait_for 5 grep -qE "fabricfit: eval_nodes JobId=${id}[ _+]" "$log" || true
    fi
    job_state "$id"; return 0
  fi
  job_state "$id"; return 1
}

# log_count_reaches FILE REGEX N SECS: wait (bounded) until FILE has at least N lines matching
# REGEX (grep basic syntax); print the count. A controller's decision lines come from its
# placement-record thread, a little after the jobs they describe may have ended.
log_count_reaches() {
  local file=$1 re=$2 want=$3 secs=$4
  wait_for "$secs" bash -c '[ "$(grep -c -- "$2" "$1")" -ge "$3" ]' _ "$file" "$re" "$want" || true
  grep -c -- "$re" "$file"
}

# ---------------------------------------------------------------------------------------------
# Other processes (ibsim run directly by a test)
# ---------------------------------------------------------------------------------------------

# stop_pid PID: TERM, then KILL after 10 s; only ever a PID this test started.
stop_pid() {
  local pid=$1
  pid_running "$pid" || { wait "$pid" 2>/dev/null; return 0; }
  kill -TERM "$pid" 2>/dev/null
  wait_for 10 bash -c "! [ -d /proc/$pid ] || grep -q '^State:.*Z' /proc/$pid/status" || kill -KILL "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null || true
}

# umad2sim_lib: path of libumad2sim.so (LD_PRELOAD it to talk to ibsim).
umad2sim_lib() {
  dpkg -L libumad2sim0 2>/dev/null | grep '/libumad2sim.so$' | head -n1
}

# need_fabricfit: sets FABRICFIT to the command a test runs (FABRICFIT_BIN, else the one on
# PATH, which run-tests.sh installs); fails the test without one.
need_fabricfit() {
  FABRICFIT=${FABRICFIT_BIN:-$(command -v fabricfit)}
  need_tool "${FABRICFIT:-fabricfit}" "the build's command: install it or set FABRICFIT_BIN"
}

# need_lab_sweep: for a test that sweeps the lab's fabric as a site's health timer does
# (`fabricfit health --sweep` through umad2sim): sets FABRICFIT (the build's command;
# FABRICFIT_BIN overrides) and UMAD2SIM. Fails for a missing tool; skips the whole test
# without libumad2sim.
need_lab_sweep() {
  FABRICFIT=${FABRICFIT_BIN:-$TOP_SRCDIR/build/fabricfit}
  [ -x "$FABRICFIT" ] || FABRICFIT=$(command -v fabricfit) || need_tool fabricfit "the build's command: set FABRICFIT_BIN"
  need_tool opensm "package opensm (contrib/setup-slurm.sh)"
  UMAD2SIM=$(umad2sim_lib)
  [ -n "$UMAD2SIM" ] || skip_all "needs libumad2sim.so: package libumad2sim0 (contrib/setup-slurm.sh)"
}

# lab_sim CMD...: CMD attached to the lab's ibsim as gpu001's HCA (through umad2sim), run in
# $simdir. lab_sim_attach (after lab_start) sets attach and simdir and has opensm program
# the routes once, as a real fabric's subnet manager has.
lab_sim() {
  (cd "$simdir" && SIM_HOST=$attach OSM_TMP_DIR=$simdir OSM_CACHE_DIR=$simdir LD_PRELOAD=$UMAD2SIM timeout 120 "$@")
}
lab_sim_attach() {
  attach=$(lab_guid gpu001)
  simdir=$TEST_TMPDIR/sim
  mkdir -p "$simdir"
  lab_sim opensm --once -f "$simdir/osm.log" -s 0 > "$simdir/osm.out" 2>&1 ||
    fail "opensm could not program the routes" "$(tail -3 "$simdir/osm.out")"
}

# ---------------------------------------------------------------------------------------------
# ibsim run directly by a test: one at a time, started and stopped by PID, with a socket
# name of its own; the exit handler stops it.
# ---------------------------------------------------------------------------------------------
sim_pid="" sim_dir="" sim_sock=""

# sim_start DIR NETFILE: ibsim in DIR (NETFILE relative to it), its console a FIFO held
# open read-write (at EOF on a closed console ibsim spins).
sim_start() {
  sim_dir=$1
  sim_sock="ff-test-$$-$(basename "$1")"
  rm -f "$sim_dir/console" && mkfifo "$sim_dir/console"
  (cd "$sim_dir" && IBSIM_SOCKNAME=$sim_sock exec ibsim -s "$2" 0<>console > ibsim.log 2>&1) &
  sim_pid=$!
  wait_for 20 sim_ready
}
sim_ready() { grep -q 'sim>' "$sim_dir/ibsim.log" 2> /dev/null; }
sim_stop() { if [ -n "$sim_pid" ]; then stop_pid "$sim_pid"; fi; sim_pid=""; }
_sim_prompts() { grep -o 'sim>' "$sim_dir/ibsim.log" 2> /dev/null | wc -l; }
# sim_cmd COMMAND: one console command (Unlink, Link, Error, ...); returns once ibsim
# prompts again.
sim_cmd() {
  local before
  before=$(_sim_prompts)
  printf '%s\n' "$1" > "$sim_dir/console"
  wait_for 10 bash -c "[ \$(grep -o 'sim>' '$sim_dir/ibsim.log' | wc -l) -gt $before ]"
}

# The generated fabrics the ibsim tests run (name|generate options): two tiers, three tiers
# with pods and cores, two rails.
sim_shapes=(
  "two-tier|--leaves 4 --hosts-per-leaf 8 --spines 2"
  "three-tier|--pods 2 --leaves 2 --hosts-per-leaf 4 --spines 2 --cores 2"
  "two-rail|--leaves 2 --hosts-per-leaf 4 --spines 2 --rails 2"
)

# sim_prepare TMPNAME: what the tests that run ibsim themselves start from: `build` (the
# tree's build directory: FABRICFIT_BUILD_DIR, default ./build), UMAD2SIM, and `work`, a
# temporary directory.
# shellcheck disable=SC2034 # the test that sources this reads them
sim_prepare() {
  build=${FABRICFIT_BUILD_DIR:-$TOP_SRCDIR/build}
  UMAD2SIM=$(umad2sim_lib)
  make_tmpdir "$1"
  work=$TEST_TMPDIR
}

# sim_generate NAME DIR FABRICFIT GENERATE-OPTIONS...: DIR/fabric.net as `fabricfit generate`
# writes it; a failure is reported for NAME and returns 1 (the caller goes on to the next).
sim_generate() {
  local name=$1 dir=$2 ff=$3
  shift 3
  mkdir -p "$dir"
  "$ff" generate "$@" -o "$dir/fabric.net" 2> "$dir/gen.err" && return 0
  fail "$name: generate failed" "$(cat "$dir/gen.err")"
  return 1
}

# sim_load NAME DIR: ibsim started on DIR/fabric.net; a net it does not load is reported for
# NAME with the end of ibsim's log, and returns 1.
sim_load() {
  sim_start "$2" fabric.net && return 0
  fail "$1: ibsim did not load the net" "$(tail -3 "$2/ibsim.log")"
  sim_stop
  return 1
}
