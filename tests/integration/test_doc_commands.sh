#!/usr/bin/env bash
# The guide's commands run (issue 31): every command of every command block in README.md and
# docs/admin-guide.md (doc_blocks.py says which blocks those are), run in a lab with
# accounting, as written but for the substitutions listed below (the site's paths, job ids and
# discovery host become the lab's). Each must exit 0 and write nothing to stderr nor an
# "error:" line. A block that cannot run in a lab (it builds, installs, runs the test suite)
# says why in the document, <!-- doc-test: skip: REASON --> just above it; the test prints
# each one as a skip. A command block with neither commands nor a reason fails, so a block
# added later either runs or says why not.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

need_fabricfit
need_tool python3 "package python3; contrib/setup-slurm.sh installs it"
need_tool "$(command -v mariadbd || echo /usr/sbin/mariadbd)" "package mariadb-server-core; contrib/setup-slurm.sh installs it"
docs=(README.md docs/admin-guide.md)

records=$(cd "$TOP_SRCDIR" && python3 "$here/doc_blocks.py" "${docs[@]}") ||
  { fail "doc_blocks.py reads ${docs[*]}"; done_testing; }

# 16 nodes: the README's largest example asks for -N 16.
lab_prepare ff-test-doc-commands 24
lab_start --nodes 16 --leaves 2 --accounting slurmdbd --dbd-port $((port + 20))
export LAB=$lab WORK=$TEST_TMPDIR/work JOBID=
mkdir -p "$WORK/bin"
# `fabricfit` in the commands is the build's.
ln -s "$(readlink -f "$FABRICFIT")" "$WORK/bin/fabricfit"
export PATH=$WORK/bin:$PATH
# The batch scripts the examples submit, as short jobs.
for s in train.sh train_moe.sh pretrain.sh; do printf '#!/bin/bash\nsleep 1\n' > "$WORK/$s"; done

# Substitutions, FROM|TO, applied in this order to each command's text; TO is shell text
# (LAB, WORK and JOBID are set above).
# shellcheck disable=SC2016 # TO is expanded by the shell that runs the command
subst=(
  # JOBID: the last job a command before submitted (first, as the TO text below says $JOBID)
  'JOBID|$JOBID'
  'squeue -j 42|squeue -j $JOBID'
  'show job 42|show job $JOBID'
  # The site's files: the lab's log and snapshot; discover writes a snapshot of its own
  '/var/log/slurm/slurmctld.log|$LAB/log/slurmctld.log'
  '/shared/fabricfit/fabric.snapshot|$LAB/fabric.snapshot'
  '/var/lib/fabricfit/fabric.snapshot|$WORK/fabric.snapshot'
  # explain reads /etc/slurm/fabricfit.conf by default; the lab's is in its directory
  'fabricfit explain|fabricfit explain --conf $LAB/fabricfit.conf'
  # The discovery host's HCA is libumad2sim's, talking to the lab's ibsim (IBSIM_SOCKNAME)
  'fabricfit discover|LD_PRELOAD=$FABRICFIT_UMAD2SIM fabricfit discover'
  'fabricfit diff|LD_PRELOAD=$FABRICFIT_UMAD2SIM fabricfit diff'
)
release=$(slurm_release)
case $release in
  # From 25.11 a bare word after `show topology` is a topology name; the guide's comment
  # gives the node= form for those releases.
  24.11.*) ;;
  *) subst+=('show topology gpu[|show topology node=gpu[') ;;
esac

substitute() {
  local cmd=$1 pair
  for pair in "${subst[@]}"; do cmd=${cmd//"${pair%%|*}"/"${pair#*|}"}; done
  printf '%s' "$cmd"
}

# run_cmd WHERE COMMAND: the command, substituted, in WORK with the lab's environment.
run_cmd() {
  local where=$1 doc=$2 cmd rc id
  cmd=$(substitute "$doc")
  # The guide's sacct line is for a job that ended.
  if [[ $doc == sacct* ]] && [ -n "$JOBID" ]; then wait_job "$JOBID" 120 > /dev/null; fi
  (cd "$WORK" && timeout 120 bash -o pipefail -c "$cmd") < /dev/null > "$WORK/out" 2> "$WORK/err"
  rc=$?
  ran=$((ran + 1))
  # libumad2sim (the lab's stand-in for an HCA) says on stderr that it reached ibsim: not
  # the command's own output.
  sed -i '/^ibwarn: \[[0-9]*\] sim_connect: attached as client /d' "$WORK/err"
  if [ "$rc" -eq 0 ] && [ ! -s "$WORK/err" ] && ! grep -qiE '(^|: )(error|fatal):' "$WORK/out"; then
    ok "$where: $doc"
  else
    fail "$where: $doc (exit $rc)" "ran as: $cmd" "$(head -n 5 "$WORK/err")" "$(grep -iE '(^|: )(error|fatal):' "$WORK/out" | head -n 3)"
  fi
  id=$(sed -n 's/^Submitted batch job \([0-9][0-9]*\).*/\1/p' "$WORK/out" | tail -n 1)
  if [ -n "$id" ]; then
    JOBID=$id
    # The commands after a submission look at where it went, as an admin would a moment later:
    # its decision is logged once it is placed (those before it may have to end first).
    wait_for 60 grep -qE "fabricfit: eval_nodes JobId=$id[ _+]" "$LAB/log/slurmctld.log" ||
      diag "job $id was not placed within 60 s"
  fi
}

ran=0 skipped=0 files=() block= block_cmds=0
# end_block: a command block that ran nothing and gave no reason fails.
end_block() {
  if [ -n "$block" ] && [ "$block_cmds" -eq 0 ]; then
    fail "$block: a command block with no commands and no <!-- doc-test: skip: REASON -->"
  fi
  block= block_cmds=0
}
while IFS=$'\t' read -r kind where what reason; do
  case $kind in
    block)
      end_block
      case $what in
        commands) block=$where ;;
        skip) skipped=$((skipped + 1)); _tap_n=$((_tap_n + 1)); echo "ok $_tap_n # SKIP $where not run: $reason" ;;
        file) files+=("$where") ;;
        *) fail "$where: $reason" ;;
      esac ;;
    cmd) block_cmds=$((block_cmds + 1)); run_cmd "$where" "$what" ;;
  esac
done <<< "$records"
end_block

diag "$ran commands run in Slurm $release, $skipped blocks not run (reasons above)," \
  "${#files[@]} blocks are file contents, not commands: ${files[*]}"
for d in "${docs[@]}"; do
  n=$(grep -c "^cmd	$d:" <<< "$records")
  check "$d has commands that ran ($n)" test "$n" -gt 0
done
done_testing
