# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Wall-time helpers shared by the shell benchmarks. Source it after setting `work` (a
# scratch directory: the last failing command's stderr goes to $work/last.err).

# seconds CMD...: wall time of one run, in seconds (fails, with the command's last stderr
# lines, if the command fails).
seconds() {
  local start end
  start=$(date +%s%N)
  "$@" > /dev/null 2> "$work/last.err" || { echo "failed: $* ($(tail -2 "$work/last.err"))" >&2; return 1; }
  end=$(date +%s%N)
  echo "scale=3; ($end - $start) / 1000000000" | bc
}

# median: the median of the numbers on stdin, one per line, to three decimals.
median() { sort -n | awk '{ v[NR] = $1 } END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.3f", m }'; }

# domain_fabric FABRICFIT OUT NAME GENERATE-ARGS...: a generated fabric with NVLink domains
# (GENERATE-ARGS include --nvl-domain-size): OUT/NAME.net, its BlockName lines
# OUT/NAME.blocks.conf, and the snapshot discovery makes of both, OUT/NAME.snap.
domain_fabric() {
  local ff=$1 out=$2 name=$3
  shift 3
  "$ff" generate "$@" --blocks-output "$out/$name.blocks.conf" -o "$out/$name.net" > /dev/null
  "$ff" discover --from "$out/$name.net" --blocks "$out/$name.blocks.conf" -o "$out/$name.snap" -q
}
