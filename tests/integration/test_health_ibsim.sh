#!/usr/bin/env bash
# `fabricfit health` against ibsim (issue 29 items 1, 2): the sweep reads every port's
# Performance Management counters through umad2sim, as perfquery does, and the values it
# keeps are perfquery's on the same ports. Faults are injected through ibsim's console
# (PerformanceSet for error, link-down and wait counters; Unlink for a cable down; Error
# for a switch whose MADs fail) and must show as sub-healthy, flapping, congested and down
# links with their evidence; a reset between sweeps (perfquery -R) raises no alarm; a
# partial sweep lists the ports it missed and keeps their state; --clear clears; a garbled
# health file is refused naming the file.
# Needs: ibsim-utils, libumad2sim0, opensm (programs the switches' routes, which the LID-
# addressed PMA queries need), infiniband-diags (perfquery), jq, and a built tree
# (FABRICFIT_BUILD_DIR, default ./build; or FABRICFIT_BIN).
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
sim_prepare ff-health-ibsim
FABRICFIT=${FABRICFIT_BIN:-$build/fabricfit}
need_tool "$FABRICFIT" "the build (FABRICFIT_BIN or FABRICFIT_BUILD_DIR)"
need_tool ibsim "package ibsim-utils (contrib/setup-slurm.sh)"
need_tool opensm "package opensm (contrib/setup-slurm.sh)"
need_tool perfquery "package infiniband-diags (contrib/setup-slurm.sh)"
need_tool jq "package jq (contrib/setup-slurm.sh)"
[ -n "$UMAD2SIM" ] || { fail "needs libumad2sim.so: package libumad2sim0 (contrib/setup-slurm.sh)"; done_testing; }

dir=$work/fabric
attach=H-0002c90310000000 # gpu001's HCA: where the queries go out of
# sim ARGS...: a client of the simulator (fabricfit, perfquery, opensm).
sim() { (cd "$dir" && IBSIM_SOCKNAME=$sim_sock SIM_HOST=$attach OSM_TMP_DIR=$dir OSM_CACHE_DIR=$dir LD_PRELOAD=$UMAD2SIM timeout 120 "$@"); }
ff() { sim "$FABRICFIT" "$@"; }
# pq LID PORT COUNTER: the counter's value as perfquery reads it.
pq() { sim perfquery "$1" "$2" 2> /dev/null | sed -n "s/^$3:\.*//p"; }
# Two leaves of 4 hosts, 2 spines, 2 cables from each leaf to each spine: 16 cables.
sim_generate health "$dir" "$FABRICFIT" --leaves 2 --hosts-per-leaf 4 --spines 2 || done_testing
sim_load health "$dir" || done_testing
# LIDs from the generated file: ib-leaf-001 1, ib-leaf-002 2, spines 3 and 4, gpu00N 4+N.
leaf1=S-0002c90301000000 leaf2=S-0002c90301000001 spine2=S-0002c90302000001 gpu3=H-0002c90310000020
sim opensm --once -f "$dir/osm.log" -s 0 > "$dir/osm.out" 2>&1 || fail "opensm could not program the routes" "$(tail -3 "$dir/osm.out")"
ff discover -o "$dir/fabric.snapshot" > /dev/null 2> "$dir/discover.err" || { fail "discover" "$(cat "$dir/discover.err")"; done_testing; }
cat > "$dir/fabricfit.conf" << 'CONF'
HealthEnterSweeps=2
HealthLeaveSweeps=2
HealthQueryTimeout=200
CONF
health=$dir/fabric.health
n=0
# sweep [ARGS...]: one sweep; its JSON (with every port) in $dir/sweepN.json, N counting up.
sweep() {
  n=$((n + 1))
  ff health --sweep --conf "$dir/fabricfit.conf" --snapshot "$dir/fabric.snapshot" --json --ports "$@" \
    > "$dir/sweep$n.json" 2> "$dir/sweep$n.err"
}
J() { jq -r "$1" "$dir/sweep$n.json"; }
# port GUID PORT FIELD: a field of a port in the last sweep.
port() { J ".ports[] | select(.guid == \"$(printf '%#018x' "$1")\" and .port == $2) | $3"; }
link() { J ".links[] | select(.a == \"$1\" and .a_port == $2) | $3"; }

# -- sweep 1: the baseline; a counter already high is no alarm --
sim_cmd "PerformanceSet \"$leaf2\"[5] PortCounters.PortRcvErrors=40000"
sweep || fail "sweep 1" "$(cat "$dir/sweep$n.err")"
check "sweep 1 read all 32 ports of the 16 cables, none missed (stderr: $(cat "$dir/sweep$n.err"))" \
  [ "$(J '"\(.port_count) \(.missed | length) \(.links | length)"')" = "32 0 0" ]
check "the health file is beside the snapshot" [ -s "$health" ]
check "ib-leaf-002[5] PortRcvErrors = perfquery's (40000)" \
  [ "$(port 0x2c90301000001 5 .counters.PortRcvErrors)" = "$(pq 2 5 PortRcvErrors)" ]
check "and that absolute count is no alarm" [ "$(port 0x2c90301000001 5 .pending)" = healthy ]

# -- faults: errors on an uplink, a flapping host HCA, a congested uplink; a reset --
sim_cmd "PerformanceSet \"$leaf1\"[5] PortCounters.PortRcvErrors=500"
sim_cmd "PerformanceSet \"$gpu3\"[1] PortCounters.LinkDownedCounter=2"
sim_cmd "PerformanceSet \"$leaf2\"[7] PortCounters.PortXmitWait=1000000"
sim perfquery -R 2 5 > /dev/null 2>&1
check "perfquery -R reset ib-leaf-002[5]" [ "$(pq 2 5 PortRcvErrors)" = 0 ]
sweep || fail "sweep 2" "$(cat "$dir/sweep$n.err")"
check "gpu003's HCA link is flapping at once (2 link-downs in the window)" \
  [ "$(J '.hosts[] | select(.host == "gpu003") | "\(.state) \(.evidence.LinkDownedCounter.rate)"')" = "flapping 2" ]
check "gpu003 LinkDownedCounter = perfquery's (2)" [ "$(port 0x2c90310000020 1 .counters.LinkDownedCounter)" = "$(pq 7 1 LinkDownedCounter)" ]
check "ib-leaf-001[5] PortRcvErrors = perfquery's (500)" [ "$(port 0x2c90301000000 5 .counters.PortRcvErrors)" = "$(pq 1 5 PortRcvErrors)" ]
check "one sweep over: ib-leaf-001[5] pending sub-healthy, still healthy" \
  [ "$(port 0x2c90301000000 5 '"\(.state) \(.pending) \(.pending_sweeps)"')" = "healthy sub-healthy 1" ]
check "the reset between sweeps raised no alarm on ib-leaf-002[5]" \
  [ "$(port 0x2c90301000001 5 '"\(.state) \(.pending) \(.counters.PortRcvErrors)"')" = "healthy healthy 0" ]

sim_cmd "PerformanceSet \"$leaf1\"[5] PortCounters.PortRcvErrors=1000"
sim_cmd "PerformanceSet \"$leaf2\"[7] PortCounters.PortXmitWait=2000000"
sweep || fail "sweep 3" "$(cat "$dir/sweep$n.err")"
check "two sweeps over: ib-leaf-001[5] -- ib-spine-01[1] is sub-healthy, evidence PortRcvErrors at ib-leaf-001[5]" \
  [ "$(link ib-leaf-001 5 '"\(.b)[\(.b_port)] \(.state) \(.evidence.PortRcvErrors.at) \(.evidence.PortRcvErrors.unit)"')" = "ib-spine-01[1] sub-healthy ib-leaf-001[5] per_hour" ]
check "ib-leaf-002[7] is congested (PortXmitWait share over 0.1)" \
  [ "$(link ib-leaf-002 7 '"\(.state) \(.evidence.PortXmitWait.unit)"')" = "congested share" ]
check "ib-leaf-002[7] PortXmitWait = perfquery's" [ "$(port 0x2c90301000001 7 .counters.PortXmitWait)" = "$(pq 2 7 PortXmitWait)" ]
check "the rate is the counted errors over the sweep interval (500 errors, > 10/h)" \
  [ "$(link ib-leaf-001 5 '.evidence.PortRcvErrors.rate > 10')" = true ]
ff health --conf "$dir/fabricfit.conf" --snapshot "$dir/fabric.snapshot" > "$dir/text.out" 2>&1
check "text: the sub-healthy uplink and the flapping host" \
  bash -c "grep -q 'ib-leaf-001\[5\] -- ib-spine-01\[1\]  sub-healthy' '$dir/text.out' && grep -q '^  gpu003  flapping' '$dir/text.out'"
ff health --conf "$dir/fabricfit.conf" --snapshot "$dir/fabric.snapshot" --prom > "$dir/prom.out" 2>&1
check "prom: one flapping, one sub-healthy, one congested link" \
  bash -c "grep -q '^fabricfit_health_links{state=\"flapping\"} 1$' '$dir/prom.out' && grep -q '^fabricfit_health_links{state=\"sub-healthy\"} 1$' '$dir/prom.out' && grep -q '^fabricfit_health_links{state=\"congested\"} 1$' '$dir/prom.out'"

# -- a cable down; the sub-healthy uplink, now clear, stays so for HealthLeaveSweeps --
sim_cmd "Unlink \"$leaf2\"[8]"
sweep || fail "sweep 4" "$(cat "$dir/sweep$n.err")"
check "the unlinked ib-leaf-002[8] -- ib-spine-02[4] is down" [ "$(link ib-leaf-002 8 '"\(.b) \(.state)"')" = "ib-spine-02 down" ]
check "ib-leaf-001[5] clear once: still sub-healthy (hysteresis)" \
  [ "$(port 0x2c90301000000 5 '"\(.state) \(.clear_sweeps)"')" = "sub-healthy 1" ]

# -- a partial sweep: every MAD to ib-spine-02 fails --
sim_cmd "Error \"$spine2\" 100"
sweep --timeout 100 || fail "sweep 5 (partial)" "$(cat "$dir/sweep$n.err")"
check "the partial sweep lists ib-spine-02's ports as missed ($(J '.missed | length'))" \
  [ "$(J "[.missed[] | select(.guid == \"$(printf '%#018x' 0x2c90302000001)\")] | length")" -ge 3 ]
check "a missed port keeps its state: ib-leaf-002[8] -- ib-spine-02[4] still down" \
  [ "$(link ib-leaf-002 8 .state)" = down ]
check "ib-leaf-001[5] clear twice: healthy again" [ "$(port 0x2c90301000000 5 .state)" = healthy ]
sim_cmd "Error \"$spine2\" 0"

# -- --clear clears the counters it read; the next sweep takes 0 as its baseline --
sweep --clear || fail "sweep 6 (--clear)" "$(cat "$dir/sweep$n.err")"
check "--clear: perfquery reads 0 on ib-leaf-001[5] and gpu003" \
  [ "$(pq 1 5 PortRcvErrors) $(pq 7 1 LinkDownedCounter)" = "0 0" ]
sweep || fail "sweep 7" "$(cat "$dir/sweep$n.err")"
check "after --clear, no reset seen: ib-leaf-001[5] healthy, nothing pending" \
  [ "$(port 0x2c90301000000 5 '"\(.state) \(.pending) \(.counters.PortRcvErrors)"')" = "healthy healthy 0" ]
check "gpu003 still flapping: its two link-downs are within the window" [ "$(J '.hosts[] | select(.host == "gpu003") | .state')" = flapping ]

# -- a garbled health file is refused, naming it; a sweep does not overwrite it --
cp "$health" "$dir/good.health"
printf 'XX' | dd of="$health" bs=1 seek=40 conv=notrunc 2> /dev/null
ff health --conf "$dir/fabricfit.conf" --snapshot "$dir/fabric.snapshot" > /dev/null 2> "$dir/bad.err"
rc=$?
check "a garbled health file: exit $rc, error names it and why" \
  bash -c "[ $rc -ne 0 ] && grep -q '$health: corrupt body (CRC-32C mismatch)' '$dir/bad.err'"
ff health --sweep --conf "$dir/fabricfit.conf" --snapshot "$dir/fabric.snapshot" > /dev/null 2> "$dir/bad2.err"
check "a sweep refuses it and leaves it as it is" bash -c "! cmp -s '$health' '$dir/good.health' && grep -q 'corrupt body' '$dir/bad2.err'"
sim_stop
done_testing
