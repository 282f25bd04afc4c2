#!/usr/bin/env bash
# Slurm 26.05+ asks the topology plugin for node ranks (topology_p_get_rank) right after
# the evaluation that allocates a job (cons_tres, unless SelectTypeParameters has
# CR_NO_DIST_TOPO_BLOCK); it numbers the job's tasks in that order under the block
# distribution (srun's default with more tasks than nodes, e.g. one task per GPU; with one
# task per node srun picks cyclic, which keeps node order) and picks the nodes of smaller
# steps in it. fabricfit ranks by its own decision: for a
# tp/pp/dp job split over leaf groups, the groups holding whole pipeline stages come
# first, which is not Slurm's node order. The lab runs FABRICFIT_SLURM_VERSION (26.05.3
# in contrib/run-tests.sh); on older releases there is no get_rank and the test skips.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

release=${FABRICFIT_SLURM_VERSION:-$(. "${FABRICFIT_SLURM_ENV:-/opt/fabricfit/slurm/current.env}" 2>/dev/null && echo "${SLURM_VERSION:-}")}
case "$release" in
  2[6-9].*|[3-9][0-9].*) ;;
  *) skip_all "Slurm ${release:-?} has no topology_p_get_rank (26.05+): run with FABRICFIT_SLURM_VERSION=26.05.3" ;;
esac
export FABRICFIT_SLURM_VERSION=$release

lab_prepare ff-test-get-rank 32
if ! lab_up "$lab" --nodes 32 --leaves 4 --ctld-port "$port" --slurmd-port $((port + 1)); then
  fail "lab up (Slurm $release)"
  done_testing
fi
ctld_log=$lab/log/slurmctld.log
check "the lab runs Slurm $release" bash -c "sinfo -V | grep -qx 'slurm $release'"

# 8 hosts per leaf group: gpu001-008 in group 1, gpu009-016 in 2, gpu017-024 in 3, gpu025-032 in 4.
leaf_of() { echo $(( (10#${1#gpu} - 1) / 8 + 1 )); }

# Leave 3 nodes free in group 1, 2 in group 2, 3 in group 3 and none in group 4: an
# 8-node job must take all eight, over three groups.
blockers=()
for nodes in 'gpu[001-005]' 'gpu[009-014]' 'gpu[017-021]' 'gpu[025-032]'; do
  n=$(scontrol show hostnames "$nodes" | wc -l)
  blockers+=("$(sbatch --parsable -w "$nodes" -N "$n" --gpus-per-node=8 -o /dev/null --wrap 'sleep 600')")
done
all_running() {
  local j
  for j in "${blockers[@]}"; do [ "$(squeue -h -j "$j" -o %T)" = RUNNING ] || return 1; done
}
if ! wait_for 60 all_running; then
  fail "the jobs that fill the other nodes run" "$(squeue)"
  done_testing
fi
free_nodes="gpu006 gpu007 gpu008 gpu015 gpu016 gpu022 gpu023 gpu024"

# task_nodes FILE: the job's nodes in the order of their first task (srun -l prints
# "TASK: value"); task_runs FILE: how many runs of consecutive tasks share a node.
task_nodes() { sed -n 's/^ *\([0-9]*\): *\(gpu[0-9]*\)$/\1 \2/p' "$1" | sort -n | awk '!seen[$2]++ { print $2 }' | tr '\n' ' ' | sed 's/ $//'; }
task_runs() { sed -n 's/^ *\([0-9]*\): *\(gpu[0-9]*\)$/\1 \2/p' "$1" | sort -n | awk '$2 != last { n++; last = $2 } END { print n + 0 }'; }
task_leaves() { local n; for n in $1; do leaf_of "$n"; done | tr '\n' ' ' | sed 's/ $//'; }
# Slurm's node order (the node table is in fabricfit's host order since
# generate_node_ranking: here the names' order), which tasks follow without ranks.
index_order=$(echo $free_nodes)
tasks_script() {
  echo "srun -l printenv SLURMD_NODENAME > $1.block; srun -l -n 8 --ntasks-per-node=1 printenv SLURMD_NODENAME > $1.cyclic"
}

# tp=8,pp=4,dp=2 on 8 nodes of 8 GPUs, a task per GPU: a pipeline stage is tp x dp = 16
# ranks = 2 hosts. Group 2 holds one whole stage (2 nodes), groups 1 and 3 hold 3 each:
# fabricfit puts group 2 first so that only one stage straddles groups (in node order,
# two would).
tp=$(sbatch --parsable -N 8 --ntasks-per-node=8 --gpus-per-node=8 --comm-pattern=tp=8,pp=4,dp=2 \
       -o "$lab/tp.out" --wrap "$(tasks_script "$lab/tp")")
state=$(wait_job "$tp" 60)
check "the tp=8,pp=4,dp=2 job completed ($state)" test "$state" = COMPLETED
line=$(grep "fabricfit: eval_nodes JobId=$tp " "$ctld_log" | tail -1)
check "fabricfit placed it over the three groups with free nodes: ${line#*] }" \
  bash -c '[[ "$1" == *"placement=fabricfit leaf_groups=3 "* ]]' _ "$line"
tp_nodes=$(task_nodes "$lab/tp.block")
check "its 64 tasks ran 8 to a node on the 8 free nodes, one block each ($(task_runs "$lab/tp.block") runs)" \
  bash -c '[ "$(grep -c ": gpu" "$1")" = 64 ] && [ "$2" = 8 ] && [ "$(echo $3 | tr " " "\n" | sort | tr "\n" " ")" = "$4 " ]' \
  _ "$lab/tp.block" "$(task_runs "$lab/tp.block")" "$tp_nodes" "$index_order"
check "its tasks follow fabricfit's leaf-group order: group 2 (a whole stage) first, then 1, then 3 (groups by node: $(task_leaves "$tp_nodes"))" \
  test "$(task_leaves "$tp_nodes")" = "2 2 1 1 1 3 3 3"
check "which is not Slurm's node order ($index_order)" test "$tp_nodes" != "$index_order"
check "tasks 0-15 on gpu015 and gpu016 (the stage in group 2), hosts ascending inside each group" \
  test "$tp_nodes" = "gpu015 gpu016 gpu006 gpu007 gpu008 gpu022 gpu023 gpu024"
check "with one task per node (srun's cyclic distribution) tasks keep Slurm's node order" \
  test "$(task_nodes "$lab/tp.cyclic")" = "$index_order"

# A ring job on the same nodes: fabricfit's order is then the groups' own order, so the
# task order above came from the decision, not from a fixed ranking.
ring=$(sbatch --parsable -N 8 --ntasks-per-node=8 --gpus-per-node=8 --comm-pattern=ring \
         -o "$lab/ring.out" --wrap "$(tasks_script "$lab/ring")")
state=$(wait_job "$ring" 60)
check "the ring job on the same 8 nodes completed ($state)" test "$state" = COMPLETED
ring_nodes=$(task_nodes "$lab/ring.block")
check "its tasks fill group 1, then 2, then 3 (groups by node: $(task_leaves "$ring_nodes"))" \
  test "$ring_nodes" = "$index_order"

# A step on part of the allocation takes the first nodes in rank order (in node order
# it would be gpu006 and gpu007).
tp2=$(sbatch --parsable -N 8 --gpus-per-node=8 --comm-pattern=tp=8,pp=4,dp=2 -o "$lab/tp2.out" \
        --wrap 'srun -l -N 2 -n 2 printenv SLURMD_NODENAME')
state=$(wait_job "$tp2" 60)
step_nodes=$(task_nodes "$lab/tp2.out")
check "a 2-node step of a tp/pp/dp job runs on the whole stage in group 2 ($step_nodes, $state)" \
  bash -c '[ "$1" = COMPLETED ] && [ "$2" = "gpu015 gpu016" ]' _ "$state" "$step_nodes"

for j in "${blockers[@]}"; do scancel "$j"; done
check "slurmctld is still running" pid_running "$(cat "$lab/run/slurmctld.pid")"
done_testing
