#!/usr/bin/env bash
# NVLink domains in a real slurmctld (docs/placement.md, "NVLink domains"): 8 nodes in 2
# leaf groups of 4, 2 GPUs each, NVLink domains of 2 consecutive hosts (nvl0 = gpu[001-002],
# nvl1 = gpu[003-004] under leaf group 1, nvl2, nvl3 under leaf group 2), read by discovery
# from the lab's BlockName lines. With one host of every domain busy:
#  (a) a 2-node job, which fits a domain, stays pending (domain=waits) although Slurm's
#      own pick (two free hosts of two domains) is there, and starts in the domain that frees;
#  (b) a 4-node job with --segment=2 waits for two whole domains and gets them;
#  (c) a 3-node job, wider than a domain, takes the fewest domains and, of those sets, the
#      one under one leaf group;
# and the placement record names the domains each job spans, scontrol show topology each
# domain's free GPUs, fabricfit explain why a job waits and what tree and block would pick;
#  (d) with Imex=yes, the tasks of a job inside one domain get NCCL_MNNVL_ENABLE=1, those of
#      a job across domains do not, and every task names its job's domains;
#  (e) --exclusive=topo: the job takes a wholly free domain (where best fit alone would
#      take a half-used one), the rest of its domain is BLOCKED to other jobs until it ends,
#      and the blockwith{NODE} node-list function names a node's whole domain;
#  (f) 25.11+: a --segment job asking --network=unique-channel-per-segment gets an IMEX
#      channel per segment from switch/nvidia_imex, from the segment list fabricfit keeps
#      with the job, which a slurmctld restart reads back with the job's saved state.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

need_fabricfit

lab_prepare ff-test-domains 8
# switch/nvidia_imex with no IMEX device on the nodes: slurmctld gives jobs channels (logged
# under DebugFlags=Switch at level verbose), slurmd and the steps skip the device set-up.
printf '%s\n' 'SchedulerParameters=batch_sched_delay=0,bf_interval=2,sched_interval=5' \
  'SwitchType=switch/nvidia_imex' 'DebugFlags=Switch' 'SlurmctldDebug=verbose' > "$TEST_TMPDIR/extra.conf"
lab_start --nodes 8 --leaves 2 --gpus 2 --nvl-domain-size 2 --slurm-conf-extra "$TEST_TMPDIR/extra.conf"

check "discovery read the 4 domains into the snapshot (fabricfit show --json)" \
  bash -c '[ "$("$1" show --json "$2" | python3 -c "import json,sys; d = json.load(sys.stdin)[\"nvlink_domains\"]; print(\" \".join(x[\"name\"] + \"=\" + \",\".join(x[\"hosts\"]) for x in d))")" = \
    "nvl0=gpu001,gpu002 nvl1=gpu003,gpu004 nvl2=gpu005,gpu006 nvl3=gpu007,gpu008" ]' _ "$FABRICFIT" "$lab/fabric.snapshot"
check "all 8 nodes idle" wait_for 30 bash -c '[ "$(sinfo -h -t idle -o %D)" = 8 ]'

admin_comment() { scontrol show job "$1" 2>/dev/null | sed -n 's/^ *AdminComment=\(.*[^ ]\) *$/\1/p'; }
has_record() { [[ "$(admin_comment "$1")" == *"fabricfit placement="* ]]; }
submit() { sbatch --parsable -o /dev/null --gpus-per-node=2 "$@"; }
running() { [ "$(job_state "$1")" = RUNNING ]; }
export -f job_state job_field
# record_is JOB NODES DOMAINS: the job got NODES and its record says it spans DOMAINS.
record_is() {
  local rec
  wait_for 10 has_record "$1"
  rec=$(admin_comment "$1")
  if [ "$(job_field "$1" NodeList)" = "$2" ] && [[ $rec == *" domains=$3 uplink_ms="* ]]; then
    ok "$4: $2, record: ${rec#*fabricfit }"
  else
    fail "$4" "expected $2 (domains $3), got $(job_field "$1" NodeList)" "record: $rec" \
      "$(grep "fabricfit: eval_nodes JobId=$1 " "$ctld_log" | tail -2)"
  fi
}
# fill HOST...: a job holding all GPUs of each HOST, running; sets fillers to their ids.
fill() {
  local h id
  fillers=()
  for h in "$@"; do
    id=$(submit -t 10 -w "$h" --wrap 'sleep 600')
    wait_for 20 running "$id" || { fail "filler $id on $h did not start"; done_testing; }
    fillers+=("$id")
  done
}
clear_jobs() {
  scancel -u root 2> /dev/null
  wait_for 30 bash -c '[ -z "$(squeue -h)" ] && [ "$(sinfo -h -t idle -o %D)" = 8 ]'
}

# A 2-node job on an empty cluster: one domain.
a=$(submit -N 2 --wrap 'sleep 1')
state=$(wait_job "$a" 60)
check "a 2-node job ran ($state)" test "$state" = COMPLETED
wait_for 10 has_record "$a"
check "it got one domain: $(job_field "$a" NodeList), $(admin_comment "$a")" \
  bash -c '[[ "$1" == *" nvlink_domains=1 domains=nvl"[0-3]" uplink_ms="* ]] &&
           [[ "$2" =~ ^gpu\[00(1-002|3-004|5-006|7-008)\]$ ]]' _ "$(admin_comment "$a")" "$(job_field "$a" NodeList)"

# --- (a) and (b): one host of every domain busy.
fill gpu001 gpu003 gpu005 gpu007
check "scontrol show topology shows every domain with one whole free host" \
  wait_for 10 bash -c '[ "$(scontrol show topology | grep -c "^NvlinkDomain=nvl[0-3] Hosts=gpu\\[[0-9-]*\\] FreeGpus=2/4 WholeFreeHosts=1 LeafGroups=")" = 4 ]'
b=$(submit -N 2 -t 5 --wrap 'sleep 300')
s=$(submit -N 4 --segment=2 -t 5 --wrap 'sleep 300')
check "(a) the 2-node job $b waits, though 4 hosts are free (one in each domain)" \
  bash -c 'sleep 6; [ "$(job_state "$1")" = PENDING ] && [ "$(sinfo -h -t idle -o %D)" = 4 ]' _ "$b"
check "(a) slurmctld logged why" \
  wait_for 10 grep -q "fabricfit: JobId=$b waits: no NVLink domain holds it now (domain=waits)" "$ctld_log"
check "(b) the --segment=2 job $s waits too" test "$(job_state "$s")" = PENDING
# Slurm resets a job it cannot start to Resources; each evaluation of the other pending job
# shows this one's reason again.
check "(a) its reason says why ($(squeue -h -j "$b" -o %R))" \
  wait_for 20 bash -c '[ "$(squeue -h -j "$1" -o %R)" = "(Waiting for an NVLink domain with room (fabricfit domain=waits))" ]' _ "$b"
"$FABRICFIT" explain "$b" --conf "$lab/fabricfit.conf" > "$TEST_TMPDIR/explain.txt" 2>&1
check "(a) fabricfit explain says why it waits, and what tree and block would do" \
  bash -c 'grep -q "^fabricfit.s choice on the GPUs free now: none: no NVLink domain (or set of them) holds it (domain=waits)" "$1" &&
           grep -A3 "^topology/tree best fit" "$1" | grep -q "NVLink       2 domain(s)" &&
           grep -q "^topology/block (26.05.s rules) on the GPUs free now: none fits" "$1"' _ "$TEST_TMPDIR/explain.txt"

scancel "${fillers[0]}"
if wait_for 30 running "$b"; then
  record_is "$b" "gpu[001-002]" "nvl0" "(a) it started when nvl0 freed, inside it"
else
  fail "(a) $b started when nvl0 freed" "state $(job_state "$b"), reason $(squeue -h -j "$b" -o %R)"
fi
sleep 4
check "(b) one whole domain is not enough for two segments: $s still waits" test "$(job_state "$s")" = PENDING
scancel "${fillers[2]}" "${fillers[3]}"
if wait_for 30 running "$s"; then
  record_is "$s" "gpu[005-008]" "nvl2,nvl3" "(b) two segments, each a whole domain"
else
  fail "(b) $s started when nvl2 and nvl3 freed" "state $(job_state "$s"), reason $(squeue -h -j "$s" -o %R)"
fi
clear_jobs

# --- (c) a 3-node job with gpu001, gpu003, gpu005 busy: free gpu002, gpu004, gpu006-008.
# Slurm's order would give gpu[002,004,006] (3 domains, 2 leaf groups); the fewest domains
# are 2 (nvl3 and one more host), and gpu[006-008] keeps them under one leaf group.
fill gpu001 gpu003 gpu005
c=$(submit -N 3 -t 5 --wrap 'sleep 1')
state=$(wait_job "$c" 60)
check "(c) the 3-node job ran ($state)" test "$state" = COMPLETED
record_is "$c" "gpu[006-008]" "nvl2,nvl3" "(c) the fewest domains, under one leaf group"
check "(c) its record says one leaf group" bash -c '[[ "$1" == *"placement=fabricfit leaf_groups=1 "* ]]' _ "$(admin_comment "$c")"
clear_jobs

# --- (d) the SPANK plugin's multi-node NVLink settings (Imex=yes: the site runs IMEX). Read
# by slurmstepd at each step, so no restart. One line per task:
# node|FABRICFIT_NVLINK_DOMAINS|NCCL_MNNVL_ENABLE|NCCL_IB_HCA
if [ -r "$(spank_so)" ]; then
  echo 'Imex=yes' >> "$lab/fabricfit.conf"
  # shellcheck disable=SC2016 # expanded by the task
  echo 'echo "$SLURMD_NODENAME|${FABRICFIT_NVLINK_DOMAINS-}|${NCCL_MNNVL_ENABLE-}|${NCCL_IB_HCA-}"' > "$TEST_TMPDIR/env.sh"
  srun -N 2 --gpus-per-node=2 -t 2 bash "$TEST_TMPDIR/env.sh" > "$TEST_TMPDIR/one.out" 2>&1
  check "(d) both tasks of a 2-node job in one domain get NCCL_MNNVL_ENABLE=1 and that domain: $(tr '\n' ' ' < "$TEST_TMPDIR/one.out")" \
    bash -c '[ "$(grep -c "^gpu00[1-8]|nvl[0-3]|1|=mlx5_0:1$" "$1")" = 2 ] && [ "$(cut -d"|" -f2 "$1" | sort -u | wc -l)" = 1 ]' _ "$TEST_TMPDIR/one.out"
  srun -N 3 --gpus-per-node=2 -t 2 bash "$TEST_TMPDIR/env.sh" > "$TEST_TMPDIR/three.out" 2>&1
  check "(d) a 3-node job across two domains keeps NCCL's default and its IB settings: $(tr '\n' ' ' < "$TEST_TMPDIR/three.out")" \
    bash -c '[ "$(grep -c "^gpu00[1-8]|nvl[0-3],nvl[0-3]||=mlx5_0:1$" "$1")" = 3 ]' _ "$TEST_TMPDIR/three.out"
else
  fail "(d) needs the SPANK plugin $(spank_so): the build's fabricfit.so, installed or named by FABRICFIT_SPANK_SO"
fi

# --- (e) --exclusive=topo: Slurm's cons_tres and node_mgr keep whole the units the topology's
# whole_topo gives, fabricfit's NVLink domains. With one host of nvl0, nvl1, nvl2 busy, best
# fit would put a 1-node job beside one of them; the exclusive one must take nvl3.
clear_jobs
fill gpu001 gpu003 gpu005
e=$(submit -N 1 --exclusive=topo -t 5 --wrap 'sleep 300')
if wait_for 30 running "$e"; then
  en=$(job_field "$e" NodeList)
  case $en in gpu007) peer=gpu008 ;; gpu008) peer=gpu007 ;; *) peer= ;; esac
  check "(e) the --exclusive=topo job $e took the wholly free domain nvl3: $en" test -n "$peer"
  check "(e) fabricfit placed it, not Slurm" \
    wait_for 10 bash -c '[[ "$(scontrol show job "$1")" == *"fabricfit placement=fabricfit "* ]]' _ "$e"
  check "(e) the other host of its domain, ${peer:-?}, is BLOCKED" \
    wait_for 10 bash -c '[ -n "$1" ] && scontrol show node "$1" | grep -q "State=[A-Z+]*BLOCKED"' _ "$peer"
  fill gpu002 gpu004 gpu006
  j=$(submit -N 1 -t 5 --wrap 'sleep 300')
  check "(e) a 1-node job $j waits although ${peer:-?} has all its GPUs free" \
    bash -c 'sleep 6; [ "$(job_state "$1")" = PENDING ] && [ "$(scontrol show node "$2" | sed -n "s/.*AllocTRES=\(.*gpu.*\)/\1/p")" = "" ]' _ "$j" "$peer"
  scancel "$e"
  if wait_for 30 running "$j"; then
    check "(e) it starts in nvl3 once $e ended: $(job_field "$j" NodeList)" \
      bash -c '[[ $1 == gpu00[78] ]]' _ "$(job_field "$j" NodeList)"
  else
    fail "(e) $j started when $e ended" "state $(job_state "$j"), reason $(squeue -h -j "$j" -o %R)"
  fi
else
  fail "(e) the --exclusive=topo job $e started" "state $(job_state "$e"), reason $(squeue -h -j "$e" -o %R)" \
    "$(grep "fabricfit: eval_nodes JobId=$e " "$ctld_log" | tail -2)"
fi
clear_jobs
scontrol create reservation ReservationName=ff_whole StartTime=now Duration=5 Users=root \
  Nodes='blockwith{gpu003}' > "$TEST_TMPDIR/res.out" 2>&1
check "(e) blockwith{gpu003} is gpu003's domain, gpu[003-004]: $(scontrol show res ff_whole 2>&1 | grep -o ' Nodes=[^ ]*')" \
  bash -c 'scontrol show res ff_whole | grep -q " Nodes=gpu\[003-004\] "'
scontrol delete ReservationName=ff_whole > /dev/null 2>&1

# --- (f) IMEX channels per segment (the segment list is 25.11's topology job info).
release=$(slurm_release)
if [[ $release != 24.11.* ]]; then
  f=$(submit -N 4 --segment=2 --network=unique-channel-per-segment -t 5 --wrap 'sleep 300')
  if wait_for 30 running "$f"; then
    segs=$(grep -o "fabricfit: JobId=$f segments=[^(]*" "$ctld_log" | tail -1)
    check "(f) fabricfit recorded the job's 2 segments, a domain each: ${segs#*segments=}" \
      bash -c '[[ $1 =~ segments=gpu\[00(1-002|3-004|5-006|7-008)\]\ gpu\[00(1-002|3-004|5-006|7-008)\]\ $ ]]' _ "$segs"
    "$FABRICFIT" explain "$f" --conf "$lab/fabricfit.conf" > "$TEST_TMPDIR/explain-f.txt" 2>&1
    pieces=${segs#*segments=}; pieces=${pieces% }
    check "(f) fabricfit explain lists the same segments: $(grep -m1 'segments' "$TEST_TMPDIR/explain-f.txt")" \
      grep -Fqx "  segments     2 of 2 node(s), one domain each (${pieces// /, })" "$TEST_TMPDIR/explain-f.txt"
    check "(f) switch/nvidia_imex gave it a channel per segment" \
      wait_for 10 bash -c '[ "$(grep -c "using channel id [0-9]* for JobId=$1\$" "$2")" = 2 ]' _ "$f" "$ctld_log"
    if "$LAB_SH" restart-slurmctld --dir "$lab" > "$TEST_TMPDIR/restart.log" 2>&1; then
      check "(f) after a slurmctld restart the job, its segment list read back, still runs" \
        wait_for 20 bash -c '[ "$(job_state "$1")" = RUNNING ]' _ "$f"
      check "(f) and no saved job record failed to read" \
        bash -c '! grep -E "segment list does not read|unpacked .* more than expected|missing .* bytes|Incomplete job" "$1"' _ "$ctld_log"
    else
      fail "(f) slurmctld restart" "$(tail -5 "$TEST_TMPDIR/restart.log")"
    fi
  else
    fail "(f) the segmented job $f started" "state $(job_state "$f"), reason $(squeue -h -j "$f" -o %R)"
  fi
else
  _tap_n=$((_tap_n + 1)); echo "ok $_tap_n # SKIP (f): Slurm $release keeps no per-job segment list (25.11+)"
fi

done_testing
