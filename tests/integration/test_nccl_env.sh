#!/usr/bin/env bash
# The SPANK plugin's NCCL settings in real job steps (sbatch, srun, salloc+srun) on a
# 2-rail lab fabric with a storage HCA per host: every task sees its own node's compute
# HCAs in rail order, never the storage HCA; a user's own NCCL_IB_HCA survives;
# --comm-pattern=none turns NCCL settings off; FABRICFIT_SCORE carries the numbers
# `fabricfit score` gives; a bad fabricfit.conf never reaches the user.
#
# FABRICFIT_SPANK_SO: the fabricfit.so to load (spank_so in lib.sh).
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

so=$(spank_so)
[ -r "$so" ] || { fail "needs the SPANK plugin $so, which is missing: the build's fabricfit.so, installed or named by FABRICFIT_SPANK_SO"; done_testing; }
need_fabricfit

make_tmpdir ff-test-nccl
tmp=$TEST_TMPDIR
lab=$tmp/lab
snap=$lab/fabric.snapshot
printf 'SnapshotFile=%s\nNcclIbSl=3\n' "$snap" > "$tmp/fabricfit.conf"
port=$(pick_ports 20)
if ! lab_up "$lab" --nodes 16 --leaves 2 --rails 2 --storage-hcas 1 --compute-hca 'mlx5_[0-1]' \
  --topology tree --spank-plugin "$so" --fabricfit-conf "$tmp/fabricfit.conf" \
  --ctld-port "$port" --slurmd-port $((port + 1)); then
  fail "lab up"
  done_testing
fi
check "the lab's fabric has storage HCAs (mlx5_2)" grep -q '"gpu003 mlx5_2"' "$lab/fabric.net"

# gpu003's rail-1 HCA is called mlx5_5 on this fabric: per-node HCA lists must differ.
sed 's/"gpu003 mlx5_1"/"gpu003 mlx5_5"/' "$lab/fabric.net" > "$tmp/renamed.net"
"$FABRICFIT" discover --from "$tmp/renamed.net" --compute-hca 'mlx5_[015]' -q -o "$snap"
want_hca() { if [ "$1" = gpu003 ]; then echo "=mlx5_0:1,mlx5_5:1"; else echo "=mlx5_0:1,mlx5_1:1"; fi; }

# One line per task:
# node|NCCL_IB_HCA|NCCL_CROSS_NIC|NCCL_IB_SL|FABRICFIT_LEAF_GROUPS|FABRICFIT_PATTERN|FABRICFIT_SCORE
# shellcheck disable=SC2016 # expanded by the task, not here
echo 'echo "$SLURMD_NODENAME|${NCCL_IB_HCA-}|${NCCL_CROSS_NIC-}|${NCCL_IB_SL-}|${FABRICFIT_LEAF_GROUPS-}|${FABRICFIT_PATTERN-}|${FABRICFIT_SCORE-}"' \
  > "$tmp/show.sh"

# check_lines FILE N LABEL: N task lines, each with its node's compute HCAs and rail
# settings, and no storage HCA anywhere.
check_lines() {
  local file=$1 want_n=$2 label=$3 n=0 bad="" node hca cross sl rest
  while IFS='|' read -r node hca cross sl rest; do
    n=$((n + 1))
    [ "$hca" = "$(want_hca "$node")" ] || bad="$bad $node:hca=$hca"
    [ "$cross" = 0 ] || bad="$bad $node:cross_nic=$cross"
    [ "$sl" = 3 ] || bad="$bad $node:sl=$sl"
  done < <(grep '^gpu' "$file")
  check "$label: $n task lines, each with its node's compute HCAs, NCCL_CROSS_NIC=0, NCCL_IB_SL=3${bad:+ (wrong:$bad)}" \
    bash -c '[ "$1" = "$2" ] && [ -z "$3" ]' _ "$n" "$want_n" "$bad"
  check "$label: no storage HCA (mlx5_2) anywhere" bash -c '! grep -q mlx5_2 "$1"' _ "$file"
}

# sbatch: the batch step runs on gpu002, then srun starts one task per node.
nodes='gpu[002-003,009-010]'
a=$(sbatch --parsable -N 4 -w "$nodes" --gpus-per-node=8 -o "$tmp/a.out" \
  --wrap "bash $tmp/show.sh; srun bash $tmp/show.sh")
state=$(wait_job "$a" 60)
check "the sbatch job completed ($state)" test "$state" = COMPLETED
check_lines "$tmp/a.out" 5 "sbatch+srun"
IFS='|' read -r _ _ _ _ groups pattern score < <(grep '^gpu003|' "$tmp/a.out" | head -1)
check "FABRICFIT_LEAF_GROUPS names the job's two leaf groups (${groups:-})" \
  bash -c '[ "$(tr , "\n" <<<"$1" | grep -c .)" = 2 ]' _ "${groups:-}"
check "FABRICFIT_PATTERN is the site default for a multi-node job (${pattern:-})" test "${pattern:-}" = ring
"$FABRICFIT" score "$snap" --nodes "$nodes" --pattern ring --gpus-per-node 8 --json > "$tmp/score.json"
want=$(python3 -c '
import json, sys
s = json.load(open(sys.argv[1]))
print("leaf_groups=%d pods=%d inter_node_bytes=%.6g spine_bytes=%.6g core_bytes=%.6g max_uplink_load_s_per_gb=%.6g" % (
    s["leaf_groups"], s["pods"], s["inter_node_bytes"], s["spine_bytes"], s["core_bytes"], s["max_uplink_load_s_per_gb"]))
' "$tmp/score.json")
check "FABRICFIT_SCORE is what fabricfit score computes for the same nodes (${score:-})" test "${score:-}" = "$want"

# A user's own NCCL_IB_HCA survives, in the batch step and in srun steps on other nodes.
b=$(NCCL_IB_HCA='=mlx5_7:1' sbatch --parsable -N 2 -w 'gpu[003,010]' --gpus-per-node=8 \
  -o "$tmp/b.out" --wrap "bash $tmp/show.sh; srun bash $tmp/show.sh")
state=$(wait_job "$b" 60)
check "the user's job completed ($state)" test "$state" = COMPLETED
check "every task kept the user's NCCL_IB_HCA" \
  bash -c '[ "$(grep -c "^gpu0[0-9][0-9]|=mlx5_7:1|0|3|" "$1")" = 3 ]' _ "$tmp/b.out"

# srun alone, and salloc + srun.
srun -N 2 -w 'gpu[003,011]' --gpus-per-node=8 bash "$tmp/show.sh" > "$tmp/c.out" 2> "$tmp/c.err"
check_lines "$tmp/c.out" 2 "srun"
salloc -N 2 -w 'gpu[004,012]' --gpus-per-node=8 srun bash "$tmp/show.sh" > "$tmp/d.out" 2> "$tmp/d.err"
check_lines "$tmp/d.out" 2 "salloc+srun"

# --comm-pattern=none: no NCCL settings, the pattern says none.
srun -N 2 -w 'gpu[003,011]' --gpus-per-node=8 --comm-pattern=none bash "$tmp/show.sh" > "$tmp/e.out" 2>&1
check "--comm-pattern=none: no NCCL variables, FABRICFIT_PATTERN=none" \
  bash -c '[ "$(grep -c "^gpu0[0-9][0-9]||||[^|]*|none|" "$1")" = 2 ]' _ "$tmp/e.out"

# A node the snapshot does not know gets no NCCL settings and one log line.
"$FABRICFIT" generate --leaves 1 --hosts-per-leaf 8 --rails 2 -o "$tmp/half.net"
"$FABRICFIT" discover --from "$tmp/half.net" -q -o "$snap"
srun -N 2 -w 'gpu[003,011]' --gpus-per-node=8 bash "$tmp/show.sh" > "$tmp/f.out" 2>&1
check "gpu011 (not in the fabric) gets no NCCL_IB_HCA, gpu003 still does" \
  bash -c 'grep -q "^gpu011|||" "$1" && grep -q "^gpu003|=mlx5_0:1,mlx5_1:1|" "$1"' _ "$tmp/f.out"
check "slurmd's log says why" \
  bash -c 'grep -q "fabricfit: node gpu011 has no compute HCA in the fabric snapshot" "$1"/log/slurmd.gpu011.log' _ "$lab"

# A bad edit of fabricfit.conf: users see nothing of it, the daemon log names it, and
# tasks keep the last good settings.
"$FABRICFIT" discover --from "$tmp/renamed.net" --compute-hca 'mlx5_[015]' -q -o "$snap"
echo "NcclIbSl=42" >> "$lab/fabricfit.conf"
srun -N 2 -w 'gpu[003,011]' --gpus-per-node=8 bash "$tmp/show.sh" > "$tmp/g.out" 2> "$tmp/g.err"
check "the user sees no config error" bash -c '! grep -qi fabricfit "$1"' _ "$tmp/g.err"
check "the tasks kept the last good settings (NCCL_IB_SL=3)" grep -q '^gpu003|=mlx5_0:1,mlx5_5:1|0|3|' "$tmp/g.out"
check "slurmd's log names file, line and reason" \
  grep -q "fabricfit: $lab/fabricfit.conf:3: NcclIbSl=42 is not a number from 0 to 15" "$lab/log/slurmd.gpu003.log"

lab_down "$lab" > /dev/null 2>&1
done_testing
