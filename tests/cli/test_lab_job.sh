#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The lab's job emulator through faults (bench/lab_job.sh; issue 29 item 7): a link drop
# fails a multi-host job whose traffic crosses it (an uplink of a group it is split over, or
# its own host's link) and leaves its last checkpoint and a request to requeue it; its next
# run resumes there; a job the drop does not cross, and a one-host job, run on; a job on a
# sub-healthy host runs its collectives at the link's kept share. Run outside Slurm with the
# variables Slurm gives a batch job (plain host lists, so no scontrol is needed). A fabric
# of 2 leaf groups x 2 hosts (gpu001-002, gpu003-004). Part of `make check`: needs only the
# fabricfit CLI (FABRICFIT_BIN, set by `make check`, or build/fabricfit).
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/integration/lib.sh
. "$here/../integration/lib.sh"

ff=${FABRICFIT_BIN:-$TOP_SRCDIR/build/fabricfit}
[ -x "$ff" ] || need_tool "$ff" "the build's command: build it or set FABRICFIT_BIN"
job_sh=$TOP_SRCDIR/bench/lab_job.sh
make_tmpdir ff-lab-job || { fail "mktemp"; done_testing; }
d=$TEST_TMPDIR
"$ff" generate --leaves 2 --hosts-per-leaf 2 --spines 2 -o "$d/f.net" > /dev/null &&
  "$ff" discover --from "$d/f.net" -o "$d/f.snap" -q || { fail "generate/discover"; done_testing; }
mkdir -p "$d/faults"
: > "$d/faults/drops"
: > "$d/faults/slow"
ckpt=0.5

# emulate ID NODES BASE F [RESTARTS]: lab_job.sh as Slurm runs it; its line in $d/ID.out,
# its exit status in $d/ID.rc.
emulate() {
  local n
  n=$(tr ',' '\n' <<< "$2" | wc -l)
  SLURM_JOB_ID=$1 SLURM_JOB_NODELIST=$2 SLURM_JOB_NUM_NODES=$n SLURM_RESTART_COUNT=${5:-0} \
    LAB_FAULTS=$d/faults LAB_CKPT_S=$ckpt \
    "$job_sh" "$3" "$4" ring 8 "$d/f.snap" "$d/reg" "$ff" 0.25 > "$d/$1.out" 2> "$d/$1.err"
  echo $? > "$d/$1.rc"
}
# field ID KEY: KEY=VALUE of the job's last line.
field() { tail -1 "$d/$1.out" | tr ' ' '\n' | sed -n "s/^$2=//p"; }
# drop_after SECS KIND TARGET: a drop event SECS from now.
drop_after() { (sleep "$1" && echo "$(date +%s.%N) $2 $3" >> "$d/faults/drops") & }
le() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a <= b + 1e-6) }'; }

# (a) a job split over both groups; an uplink of group 1 drops during its run.
drop_after 1.2 uplink gpu001,gpu002
emulate 101 gpu002,gpu003 3 0.5
wait
check "(a) the split job fails at the uplink's drop (exit $(cat "$d/101.rc"))" test "$(cat "$d/101.rc")" = 1
check "(a) its line says so: $(cat "$d/101.out")" grep -q ' failed=1 drop=uplink ' "$d/101.out"
work=$(field 101 work) kept=$(field 101 kept)
check "(a) it kept its last checkpoint ($kept of $work s of work, every $ckpt s)" \
  bash -c 'is_multiple() { awk -v x="$1" -v c="$2" "BEGIN { q = x / c; exit !(q == int(q)) }"; }
    is_multiple "$1" "$2" && awk -v k="$1" -v w="$3" -v c="$2" "BEGIN { exit !(k <= w && w - k < c) }"' _ "$kept" "$ckpt" "$work"
check "(a) it did some work before the drop and not all of it ($work of 3)" awk -v w="$work" 'BEGIN { exit !(w > 0 && w < 3) }'
check "(a) the checkpoint is left for its next run" test "$(cat "$d/reg/ckpt/101" 2> /dev/null)" = "$kept"
check "(a) and the request to requeue it" test -f "$d/reg/failed/101"
check "(a) it is no longer among the running jobs" test ! -e "$d/reg/101.json"

# (b) its next run (Slurm's requeue) resumes from the checkpoint; the old drop is not its.
rm -f "$d/reg/failed/101"
emulate 101 gpu002,gpu003 3 0.5 1
check "(b) the requeued run ends well (exit $(cat "$d/101.rc"))" test "$(cat "$d/101.rc")" = 0
check "(b) ... from the checkpoint: $(cat "$d/101.out")" test "$(field 101 resumed_at)" = "$kept"
check "(b) ... as run 1" test "$(field 101 run)" = 1

# (c) a job inside group 2 does not cross group 1's uplinks: it runs on.
drop_after 0.5 uplink gpu001,gpu002
emulate 102 gpu003,gpu004 1.5 0.5
wait
check "(c) a job inside the other group is not failed by the drop (exit $(cat "$d/102.rc"))" test "$(cat "$d/102.rc")" = 0

# (d) a host's own link drops: the multi-host job on it fails; a one-host job there does not.
drop_after 0.5 host gpu003
emulate 103 gpu003,gpu004 3 0.5 &
emulate 104 gpu003 1.5 0.5
wait
check "(d) the multi-host job on the host fails (exit $(cat "$d/103.rc")): $(cat "$d/103.out")" \
  bash -c '[ "$(cat "$1/103.rc")" = 1 ] && grep -q " failed=1 drop=host " "$1/103.out"' _ "$d"
check "(d) the one-host job there runs on (exit $(cat "$d/104.rc"))" test "$(cat "$d/104.rc")" = 0

# (e) gpu004's link keeps half its rate: a job on it (f = 0.5) runs its ticks at 1.5x or
# more. Judged by the first tick's slowdown, not the wall time: the wall time also holds the
# emulator's own start-up, which a loaded machine or a sanitizer build stretches.
echo "$(date +%s.%N) host gpu004 0.5" > "$d/faults/slow"
emulate 105 gpu003,gpu004 2 0.5 &
emulate 106 gpu001,gpu002 2 0.5
wait
s5=$(field 105 slowdown_first) s6=$(field 106 slowdown_first)
check "(e) the job on the sub-healthy host runs at (1 - f) + f / 0.5 = 1.5 or slower (first tick $s5)" \
  bash -c 'awk -v s="$1" "BEGIN { exit !(s >= 1.5 - 1e-6) }" && [ "$2" = 1 ]' _ "$s5" "$(field 105 sub_healthy)"
check "(e) a job off it does not (first tick $s6)" \
  bash -c 'awk -v s="$1" "BEGIN { exit !(s < 1.5 - 1e-6) }" && [ "$2" = 0 ]' _ "$s6" "$(field 106 sub_healthy)"
le "$s6" "$s5" || fail "(e) the slowed job is the faster one"
done_testing
