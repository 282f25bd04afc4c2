#!/usr/bin/env bash
# Node lists fabricfit writes are the ones Slurm writes: for many name shapes (no digits,
# zero padding, mixed widths, several prefixes, dashes and dots, thousands of hosts),
# fabricfit-hostlist (the compress_hostlist of every topology.conf, `show` and log line)
# prints exactly what `scontrol show hostlistsorted` prints for the same names.
# Needs Slurm's scontrol (no controller: hostlist encoding runs offline): SCONTROL, else
# /opt/fabricfit/slurm/<version>/bin/scontrol, else scontrol on PATH.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

build=${FABRICFIT_BUILD_DIR:-$TOP_SRCDIR/build}
TOOL=${FABRICFIT_HOSTLIST_BIN:-$build/fabricfit-hostlist}
SCONTROL=${SCONTROL:-}
if [ -z "$SCONTROL" ]; then
  for s in /opt/fabricfit/slurm/*/bin/scontrol "$(command -v scontrol 2>/dev/null)"; do
    [ -x "$s" ] && SCONTROL=$s && break
  done
fi
need_tool "$TOOL" "the build's fabricfit-hostlist: build first"
need_tool "${SCONTROL:-scontrol}" "Slurm's scontrol: contrib/setup-slurm.sh builds Slurm, or set SCONTROL"
make_tmpdir ff-hostlist
work=$TEST_TMPDIR
# scontrol reads slurm.conf for the cluster's dimensions; a minimal one keeps it offline.
printf 'ClusterName=hostlist\nSlurmctldHost=localhost\n' > "$work/slurm.conf"
export SLURM_CONF=$work/slurm.conf

seq_names() {  # PREFIX FORMAT FIRST LAST [STEP]
  local p=$1 f=$2 i
  for ((i = $3; i <= $4; i += ${5:-1})); do printf "%s$f\n" "$p" "$i"; done
}

# name | shell code printing the host names, one per line
cases=(
  "no digits|printf '%s\n' login mgmt storage-a ufm localhost"
  "node1-24 unpadded|seq_names node %d 1 24"
  "zero padding with holes|seq_names gpu %03d 1 32; seq_names gpu %03d 40 64 3"
  "padding overflow|seq_names gpu %03d 990 999; seq_names gpu %d 1000 1010"
  "padded and wider unpadded|seq_names n %02d 1 9; seq_names n %d 10 20"
  "several prefixes|seq_names a %d 1 5; seq_names b %02d 1 10; seq_names c %d 7 7; echo login"
  "natural order of prefixes|for r in 1 2 10 11; do seq_names rack\$r-node %d 1 3; done"
  "dashes and dots|seq_names a08-p1-dgx-04-c %02d 1 12; seq_names host- %d.ib.example 1 3; seq_names dc1.rack2.n %d 5 9"
  "digits only|seq_names '' %d 1 5; seq_names '' %d 9 12"
  "one host|echo gpu007"
  "several widths one prefix|seq_names x %d 1 3; seq_names x %03d 5 7; seq_names x %05d 100 102"
  "zero|seq_names n %d 0 3; seq_names m %02d 0 2; printf '%s\n' z0 z00 z000 z1"
  "mixed padding one prefix|printf '%s\n' n1 n2 n01 n05 n10 n100 gpu1 gpu01 gpu001 x9 x10 x010 x011"
  "numbers inside prefixes|printf '%s\n' r1n1 r1n2 r01n1 r2n1 r10n1 node-1a node-2a a a1 a01 b"
  "thousands unpadded|seq_names node %d 1 5000"
  "thousands padded with gaps|seq_names gpu %04d 1 4096 1 | awk 'NR % 7 != 3'"
  "thousands, several prefixes|for p in dgx-a dgx-b dgx-c dgx-d; do seq_names \$p %04d 1 1024 | awk 'NR % 13 != 0'; done"
)

for entry in "${cases[@]}"; do
  name=${entry%%|*}
  code=${entry#*|}
  file=$work/names
  eval "$code" | shuf --random-source=<(yes) > "$file"
  n=$(wc -l < "$file")
  slurm=$("$SCONTROL" show hostlistsorted "$file" 2>&1)
  ours=$("$TOOL" < "$file" 2>&1)
  if [ "$slurm" = "$ours" ]; then
    ok "$name ($n names): ${ours:0:80}"
  else
    fail "$name ($n names): fabricfit differs from scontrol" "scontrol:  ${slurm:0:300}" "fabricfit: ${ours:0:300}"
  fi
  # And back: Slurm expands fabricfit's list to the same names.
  back=$("$SCONTROL" show hostnames "$ours" 2>&1 | sort)
  if [ "$back" = "$(sort "$file")" ]; then ok "$name: scontrol expands fabricfit's list to the same names"
  else fail "$name: scontrol expands fabricfit's list to other names" "$(diff <(echo "$back") <(sort "$file") | head -5)"
  fi
done

done_testing
