#!/usr/bin/env bash
# The README's first command, contrib/demo.sh, on a lab of its own (without its build step:
# this build's plugins and command): it ends well, places its six jobs, and the tasks of its
# nccl-2x8 job, the one meant to show the NCCL settings, see their node's compute HCA in
# NCCL_IB_HCA as a site's tasks would (issue 28), with the lab's default fabric; its four
# 1-GPU jobs pack onto one node (issue 31).
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

need_fabricfit
need_tool ss "package iproute2; contrib/setup-slurm.sh installs it"
lab_prepare ff-test-demo 33
_labs+=("$lab")   # the demo leaves its lab up: the exit handler takes it down
opts=(--ctld-port "$port" --slurmd-port $((port + 1)))
[ -z "${FABRICFIT_PLUGIN_DIR:-}" ] || opts+=(--plugin-dir "$FABRICFIT_PLUGIN_DIR")
[ -z "${FABRICFIT_SPANK_SO:-}" ] || opts+=(--spank-plugin "$FABRICFIT_SPANK_SO")
[ -z "${FABRICFIT_SLURM_VERSION:-}" ] || opts+=(--slurm "$FABRICFIT_SLURM_VERSION")

FABRICFIT_DEMO_BUILD=no FABRICFIT_BIN=$FABRICFIT FABRICFIT_LAB_DIR=$lab \
  timeout 300 "$TOP_SRCDIR/contrib/demo.sh" "${opts[@]}" > "$TEST_TMPDIR/demo.out" 2>&1
rc=$?
if [ "$rc" -eq 0 ]; then ok "contrib/demo.sh ends well"; else fail "contrib/demo.sh ends well (exit $rc)" "$(tail -20 "$TEST_TMPDIR/demo.out")"; fi
placed=$(awk '/^JOB /{ on = 1; next } on && NF == 0 { exit } on && $3 != "" { n++ } END { print n + 0 }' "$TEST_TMPDIR/demo.out")
check "its table shows the six jobs with the pattern fabricfit placed each with ($placed)" test "$placed" = 6
# Issue 31: with the lab's DefMemPerGPU a 1-GPU job takes its GPU's share of a node's memory,
# so four of them share one node (without it, each took a whole node's memory: four nodes).
packed=$(sed -n 's/^four 1-GPU jobs on \([0-9]*\) node(s).*/\1/p' "$TEST_TMPDIR/demo.out")
check "its four 1-GPU jobs share one node (${packed:-no count})" test "${packed:-}" = 1
pack_rows=$(grep -cE '^pack-1gpu-[1-4] +[0-9]+ +gpu[0-9]+ +fabricfit +[-+][0-9]' "$TEST_TMPDIR/demo.out")
check "each with its node and fabricfit's unusable-GPU cost ($pack_rows of 4 rows)" test "$pack_rows" = 4
tasks=$(sed -n '/(nccl-2x8) saw:/,/^$/p' "$TEST_TMPDIR/demo.out" | grep -E '^  gpu[0-9]+: ')
n=$(grep -c . <<< "$tasks")
check "both tasks of nccl-2x8 printed their variables ($n lines)" test "$n" = 2
check "each saw NCCL_IB_HCA with its node's compute HCA (=mlx5_0:1), as on a real site" \
  bash -c '[ "$(grep -c " NCCL_IB_HCA==mlx5_0:1\( \|$\)" <<< "$1")" = 2 ]' _ "$tasks"
check "and its leaf groups and pattern (FABRICFIT_LEAF_GROUPS, FABRICFIT_PATTERN=ring)" \
  bash -c '[ "$(grep " FABRICFIT_LEAF_GROUPS=ib-leaf-" <<< "$1" | grep -c " FABRICFIT_PATTERN=ring")" = 2 ]' _ "$tasks"
[ "$_tap_failed" -eq 0 ] || diag "demo output:" "$(sed -n '/(nccl-2x8) saw:/,/^$/p' "$TEST_TMPDIR/demo.out")"
lab_down "$lab" > /dev/null 2>&1
done_testing
