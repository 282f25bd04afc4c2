#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# HealthDrain (issue 29 item 4; docs/admin-guide.md, "Fabric health in placement"): after a
# sweep, `fabricfit health --sweep` drains in the lab's real slurmctld each node whose HCA
# link flaps, never more than HealthDrainMax at once, never a node with a Reason of its own,
# and resumes only what it drained once the link no longer flaps. Faults are injected through
# the lab's ibsim console (LinkDownedCounter on a host's HCA port), the sweep reads them
# through umad2sim. 8 nodes in 2 leaf groups (gpu001-004, gpu005-008).
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/integration/lib.sh
. "$here/lib.sh"

need_lab_sweep

lab_prepare ff-test-drain 8
lab_start --nodes 8 --leaves 2
net=$lab/fabric.net
conf=$lab/fabricfit.conf
# A flap stays "flapping" for 30 s (HealthFlapWindow: the sweeps below take a few seconds
# each) and one clear sweep after it ends it.
printf '%s\nHealthMaxAge=3600\nHealthFlapWindow=30\nHealthLeaveSweeps=1\n' "$(cat "$conf")" > "$conf.new"
mv "$conf.new" "$conf"

# sweep [ENV...]: one sweep as the site's timer runs it (--quiet, and $extra); its stderr in
# $out, its exit status in $rc.
extra=()
sweeps=0
sweep() {
  sweeps=$((sweeps + 1))
  out=$simdir/sweep$sweeps.err
  lab_sim env "$@" "$FABRICFIT" health --sweep --quiet --conf "$conf" --snapshot "$lab/fabric.snapshot" \
    "${extra[@]}" 2> "$out"
  rc=$?
}

check "the lab's ibsim console is there" test -p "$lab/ibsim/console"
# The subnet manager gives the ports their LIDs and routes, as on a real fabric.
lab_sim_attach
sweep
check "a baseline sweep (every link healthy) exits 0" test "$rc" = 0
scontrol update NodeName=gpu006 State=DRAIN Reason="admin: cable check"
for h in gpu002 gpu006 gpu007; do
  lab_sim_cmd "PerformanceSet \"$(lab_guid "$h")\"[1] PortCounters.LinkDownedCounter=2"
done

# --- off by default.
sweep
t_flap=$SECONDS  # the flaps are dated by this sweep
check "HealthDrain unset: the sweep sees 3 flapping hosts" \
  bash -c "'$FABRICFIT' health --conf '$conf' --snapshot '$lab/fabric.snapshot' | grep -c '^  gpu00[267]  flapping' | grep -qx 3"
check "... and drains nothing (drained: $(drained_nodes))" test "$(drained_nodes)" = gpu006

# --- on, at most one node.
printf 'HealthDrain=yes\nHealthDrainMax=1\n' >> "$conf"
extra=(--no-drain)
sweep
check "HealthDrain=yes with --no-drain: nothing drained (drained: $(drained_nodes))" \
  bash -c "[ '$(drained_nodes)' = gpu006 ] && ! grep -q '^fabricfit: ' '$out'"
extra=()
sweep
check "HealthDrain=yes: the sweep exits 0 ($rc)" test "$rc" = 0
check "it drained gpu002 and says why" grep -q '^fabricfit: drained gpu002: fabricfit: HCA link flapping (LinkDownedCounter ' "$out"
check "Slurm has gpu002 drained with fabricfit's Reason ($(node_reason gpu002))" \
  bash -c "[[ \"\$(sinfo -h -n gpu002 -o '%E')\" == 'fabricfit: HCA link flapping (LinkDownedCounter '* ]]"
check "gpu006, drained by an admin, keeps its Reason ($(node_reason gpu006))" test "$(node_reason gpu006)" = "admin: cable check"
check "... and the sweep says it left it alone" grep -q "^fabricfit: not draining gpu006: it has a Reason of its own" "$out"
check "gpu007 is not drained: HealthDrainMax=1 (drained: $(drained_nodes))" test "$(drained_nodes)" = gpu002,gpu006
check "... and the sweep says so" grep -q '^fabricfit: not draining gpu007: HealthDrainMax=1 nodes are drained by fabricfit already' "$out"
sweep
check "the next sweep drains nothing more, $((SECONDS - t_flap)) s after the flaps (drained: $(drained_nodes))" \
  bash -c "[ '$(drained_nodes)' = gpu002,gpu006 ] && ! grep -q '^fabricfit: drained' '$out'"

# --- scontrol cannot be reached: the health file is still written, the sweep fails.
health=$lab/fabric.health
before=$(stat -c %Y.%s "$health")
sleep 1
sweep SCONTROL=false
check "with scontrol failing the sweep exits 1 ($rc)" test "$rc" = 1
check "... naming why" grep -q "^fabricfit: HealthDrain: cannot read Slurm's nodes, none drained or resumed" "$out"
check "... after writing the health file" test "$(stat -c %Y.%s "$health")" != "$before"

# --- the flaps age out of the window: fabricfit resumes what it drained, and only that.
left=$((t_flap + 32 - SECONDS))
[ "$left" -gt 0 ] && sleep "$left"
sweep
check "after the window: the sweep exits 0 ($rc)" test "$rc" = 0
check "it resumed gpu002" grep -q '^fabricfit: resumed gpu002: its HCA link no longer flaps' "$out"
check "Slurm has only the admin's drain left (drained: $(drained_nodes))" test "$(drained_nodes)" = gpu006
check "gpu006 still has the admin's Reason" test "$(node_reason gpu006)" = "admin: cable check"
check "gpu002 is no longer drained ($(scontrol show node gpu002 | grep -o 'State=[^ ]*'))" \
  bash -c "! scontrol show node gpu002 | grep -q 'State=[^ ]*DRAIN'"
j=$(sbatch --parsable -w gpu002 -o /dev/null --wrap true)
check "and runs a job again ($(wait_job "$j" 60))" test "$(job_state "$j")" = COMPLETED
check "slurmctld is still running" bash -c "scontrol ping | grep -q 'is UP'"
done_testing
