#!/usr/bin/env bash
# Dynamic nodes (Slurm 24.11: slurmd -Z, scontrol delete node): a node that joins is
# placed by fabricfit, and a node that takes the table slot of a deleted one is mapped to
# its own fabric host, not the deleted node's. node_record_count does not change when
# slots are reused, so the map is checked by name.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

lab_prepare ff-test-dynamic 20
dyn_port=$((port + 18))
printf 'MaxNodeCount=24\nSlurmdPort=%s\n' "$dyn_port" > "$TEST_TMPDIR/extra.conf"
lab_start --nodes 16 --leaves 2 --slurm-conf-extra "$TEST_TMPDIR/extra.conf"
need_fabricfit
# shellcheck disable=SC1091
. "$lab/lab.env"

# The fabric grows a third leaf group, gpu017-gpu024, before Slurm has those nodes.
loads=$(grep -c 'fabricfit: snapshot .* loaded' "$ctld_log")
"$FABRICFIT" generate --leaves 3 --hosts-per-leaf 8 -o "$TEST_TMPDIR/big.net"
"$FABRICFIT" discover --from "$TEST_TMPDIR/big.net" -q -o "$lab/fabric.snapshot"
wait_for 10 bash -c "[ \$(grep -c 'fabricfit: snapshot .* loaded' '$ctld_log') -gt $loads ]"
sbatch --parsable -N 1 --gpus-per-node=1 -o /dev/null --wrap true > /dev/null # adopts it
wait_for 10 grep -q "fabricfit: 8 fabric host(s) are not Slurm nodes: gpu\[017-024\]" "$ctld_log"
check "the larger fabric is loaded; its new hosts are not Slurm nodes yet" \
  grep -q "fabricfit: 8 fabric host(s) are not Slurm nodes: gpu\[017-024\]" "$ctld_log"

gpu_files=$(awk '/Name=gpu/ { for (i = 1; i <= NF; i++) if ($i ~ /^File=/) print substr($i, 6) }' "$lab/gres.conf" | head -1)
echo "NodeName=gpu0[17-24] Name=gpu File=$gpu_files" >> "$lab/gres.conf"
# dyn_slurmd NODE: a dynamic slurmd (-Z) registering NODE with the lab's node shape.
dyn_slurmd() {
  mkdir -p "$lab/spool/slurmd.$1"
  (cd "$lab/spool" && setsid -f "$SLURM_PREFIX/sbin/slurmd" -D -Z -N "$1" -f "$lab/slurm.conf" \
     --conf "CPUs=32 Boards=1 SocketsPerBoard=2 CoresPerSocket=16 ThreadsPerCore=1 RealMemory=4000 Gres=gpu:8" \
     < /dev/null >> "$lab/log/slurmd.stderr" 2>&1)
  wait_for 30 bash -c "[ \"\$(sinfo -h -n $1 -o %t 2>/dev/null)\" = idle ]"
}
stop_dyn_slurmd() {
  local pid
  pid=$(head -n 1 "$lab/run/slurmd.$1.pid" 2> /dev/null) && stop_pid "$pid"
}
# only_on NODE: a job offered nothing but NODE; prints its id once finished.
only_on() {
  local id
  id=$(sbatch --parsable -N 1 --gpus-per-node=8 -x 'gpu[001-016]' -o /dev/null --wrap true)
  wait_job "$id" 60 > /dev/null
  echo "$id"
}
decision() { grep "fabricfit: eval_nodes JobId=$1 " "$ctld_log" | tail -1; }

check "a dynamic node gpu017 joins" dyn_slurmd gpu017
a=$(only_on gpu017)
check "a job on the new node gpu017 ran there ($(job_field "$a" NodeList))" test "$(job_field "$a" NodeList)" = gpu017
check "and was placed by fabricfit: $(decision "$a" | sed 's/.*placement=/placement=/')" \
  bash -c '[[ $1 == *"placement=fabricfit "* ]]' _ "$(decision "$a")"

stop_dyn_slurmd gpu017
check "gpu017 is deleted" scontrol delete nodename=gpu017
check "a dynamic node gpu018 joins (in the freed slot)" dyn_slurmd gpu018
b=$(only_on gpu018)
check "a job on gpu018 ran there ($(job_field "$b" NodeList))" test "$(job_field "$b" NodeList)" = gpu018
check "and was placed by fabricfit" bash -c '[[ $1 == *"placement=fabricfit "* ]]' _ "$(decision "$b")"
check "the map was made again: gpu017 is no longer a Slurm node, gpu018 is" \
  bash -c 'scontrol show topology | grep -q "^NotInFabric=(none) NotInSlurm=gpu\[017,019-024\]"'
stop_dyn_slurmd gpu018
check "slurmctld is still running" pid_running "$(cat "$lab/run/slurmctld.pid")"
done_testing
