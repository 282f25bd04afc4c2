#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# contrib/packaged-slurm/cluster.sh: the packaged Slurm with fabricfit's plugins (installed
# by build.sh), as a site configures it: /etc/slurm/slurm.conf with
# TopologyPlugin=topology/fabricfit and no PluginDir (the package's own default),
# /etc/slurm/fabricfit.conf, a plugstack.conf.d snippet, the snapshot in /var/lib/fabricfit
# (tests/fixtures/snapshots/two-tier.snap: gpu001-gpu004, two leaf groups), munged as the
# munge user on its default socket, slurmctld and two slurmds (gpu001, gpu002: each in a
# UTS namespace with its own host name, both on 127.0.0.1). Checks that slurmctld loaded
# the plugin, that `scontrol show topology` is fabricfit's, and that a two-node GPU batch
# job is placed by fabricfit and its tasks get fabricfit's NCCL settings.
# Run by contrib/check-packaged-slurm.sh in namespaces of their own (loopback only, PID:
# whatever is left running dies with it); prints ok / not ok lines, exits nonzero on a failure.
set -uo pipefail
D=/var/tmp/ff-packaged
LOGS=$D/logs
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
plugindir=/usr/lib/$multiarch/slurm-wlm
n=0 failed=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $*"; }
# check DESC CMD...: ok when CMD succeeds.
check() { local d=$1; shift; if "$@"; then ok "$d"; else not_ok "$d"; fi; }
show() { echo "# --- $1 (last ${2:-15} lines)"; tail -n "${2:-15}" "$1" 2> /dev/null | sed 's/^/#   /'; }
finish() {
  echo "1..$n"
  [ "$failed" -eq 0 ]
  exit
}
# bail DESC LOG: a step the rest depends on failed.
bail() { not_ok "$1"; [ -n "${2:-}" ] && show "$2" 25; finish; }
wait_for() {   # wait_for SECONDS CMD...
  local end=$((SECONDS + $1)); shift
  until "$@"; do [ "$SECONDS" -lt "$end" ] || return 1; sleep 0.5; done
}

cleanup() {
  scontrol shutdown > /dev/null 2>&1 || true
  sleep 1
  for p in $(cat "$D"/*.pid 2> /dev/null); do kill "$p" 2> /dev/null || true; done
}
trap cleanup EXIT

# A new cluster each run: no state of the last one (jobs, nodes) carries over.
rm -rf "$D" /var/spool/slurmctld /var/spool/slurmd.* && mkdir -p "$LOGS" "$D/dev"
hostname localhost
printf '127.0.0.1\tlocalhost gpu001 gpu002\n' > /etc/hosts

# ---- configuration, as a site writes it (docs/admin-guide.md) ----
mkdir -p /var/lib/fabricfit /var/spool/slurmctld /etc/slurm/plugstack.conf.d
cp /work/fabricfit/tests/fixtures/snapshots/two-tier.snap /var/lib/fabricfit/fabric.snapshot
for i in 0 1 2 3 4 5 6 7; do
  # Fake GPU devices for gres.conf: a character device where allowed, else /dev/null's.
  mknod -m 666 "$D/dev/nvidia$i" c 195 "$i" 2> /dev/null || ln -sf /dev/null "$D/dev/nvidia$i"
done
cat > /etc/slurm/slurm.conf <<EOF
# contrib/packaged-slurm/cluster.sh: Debian's slurm-wlm with fabricfit, on loopback.
ClusterName=packaged
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=6817
SlurmdPort=6818
CommunicationParameters=NoInAddrAny,NoCtldInAddrAny
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
StateSaveLocation=/var/spool/slurmctld
SlurmdSpoolDir=/var/spool/slurmd.%n
SlurmctldPidFile=$D/slurmctld.pid.slurm
SlurmdPidFile=$D/slurmd.%n.pid.slurm
SlurmctldLogFile=$LOGS/slurmctld.log
SlurmdLogFile=$LOGS/slurmd.%n.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
SlurmdParameters=config_overrides
GresTypes=gpu
MailProg=/bin/true
ReturnToService=2
TopologyPlugin=topology/fabricfit
NodeName=gpu001 NodeHostname=gpu001 NodeAddr=127.0.0.1 Port=6821 CPUs=8 Boards=1 SocketsPerBoard=2 CoresPerSocket=4 ThreadsPerCore=1 RealMemory=4000 Gres=gpu:8 State=UNKNOWN
NodeName=gpu002 NodeHostname=gpu002 NodeAddr=127.0.0.1 Port=6822 CPUs=8 Boards=1 SocketsPerBoard=2 CoresPerSocket=4 ThreadsPerCore=1 RealMemory=4000 Gres=gpu:8 State=UNKNOWN
PartitionName=gpu Nodes=ALL Default=YES MaxTime=UNLIMITED State=UP
EOF
echo "CgroupPlugin=disabled" > /etc/slurm/cgroup.conf
cat > /etc/slurm/gres.conf <<EOF
AutoDetect=off
NodeName=gpu[001-002] Name=gpu File=$D/dev/nvidia[0-7]
EOF
cat > /etc/slurm/fabricfit.conf <<EOF
SnapshotFile=/var/lib/fabricfit/fabric.snapshot
DefaultPattern=ring
EOF
echo "optional $plugindir/fabricfit.so conf=/etc/slurm/fabricfit.conf last_good=/var/spool/fabricfit.conf.last-good" \
  > /etc/slurm/plugstack.conf.d/fabricfit.conf
grep -q '^include /etc/slurm/plugstack.conf.d/' /etc/slurm/plugstack.conf 2> /dev/null ||
  echo "include /etc/slurm/plugstack.conf.d/*.conf" >> /etc/slurm/plugstack.conf
! grep -q '^PluginDir' /etc/slurm/slurm.conf || bail "slurm.conf sets no PluginDir"
echo "# slurm.conf: no PluginDir (the package's default, $plugindir); TopologyPlugin=topology/fabricfit"

# ---- munged, as the package runs it ----
mkdir -p /run/munge && chown munge:munge /run/munge && chmod 755 /run/munge
runuser -u munge -- /usr/sbin/munged -F > "$LOGS/munged.stderr" 2>&1 &
echo $! > "$D/munged.pid"
wait_for 10 test -S /run/munge/munge.socket.2 || bail "munged started" "$LOGS/munged.stderr"
munge -n | unmunge > /dev/null 2>&1 || bail "munge credentials round-trip" /var/log/munge/munged.log

# ---- the packaged daemons ----
slurmctld -D > "$LOGS/slurmctld.stderr" 2>&1 &
echo $! > "$D/slurmctld.pid"
ctld_up() { kill -0 "$(cat "$D/slurmctld.pid")" 2> /dev/null && scontrol ping 2> /dev/null | grep -q 'is UP'; }
ctld_dead() { ! kill -0 "$(cat "$D/slurmctld.pid")" 2> /dev/null; }
wait_for 40 sh -c 'scontrol ping 2>/dev/null | grep -q "is UP" || ! kill -0 "$1" 2>/dev/null' _ "$(cat "$D/slurmctld.pid")"
if ! ctld_up; then
  not_ok "the packaged slurmctld ($(readlink -f /usr/sbin/slurmctld)) came up with TopologyPlugin=topology/fabricfit$(ctld_dead && echo ': it exited')"
  show "$LOGS/slurmctld.log" 20
  grep -E 'fabricfit|topology' "$LOGS/slurmctld.stderr" | head -5 | sed 's/^/#   /'
  finish
fi
ok "the packaged slurmctld ($(readlink -f /usr/sbin/slurmctld)) is up with TopologyPlugin=topology/fabricfit"
loaded=$(grep -m1 'fabricfit: topology/fabricfit loaded' "$LOGS/slurmctld.log")
check "slurmctld's log: ${loaded#*] }" test -n "$loaded"
[ -n "$loaded" ] || { show "$LOGS/slurmctld.log" 20; finish; }

for node in gpu001 gpu002; do
  mkdir -p "/var/spool/slurmd.$node"
  unshare --uts sh -c 'hostname "$1" && exec slurmd -D' sh "$node" >> "$LOGS/slurmd.stderr" 2>&1 &
  echo $! > "$D/slurmd.$node.pid"
done
nodes_idle() { [ "$(sinfo -h -N -t idle -o '%N' 2> /dev/null | sort -u | wc -l)" -eq 2 ]; }
if wait_for 60 nodes_idle; then
  ok "two packaged slurmds (gpu001, gpu002) registered; both idle"
else
  not_ok "two packaged slurmds registered and idle: $(sinfo -h -N -o '%N %t' 2> /dev/null | tr '\n' ' ')"
  sinfo -R 2>&1 | sed 's/^/#   /'
  show "$LOGS/slurmd.stderr" 10; show "$LOGS/slurmctld.log" 10
  finish
fi

# ---- what fabricfit shows and decides ----
topo=$(scontrol show topology 2>&1)
echo "$topo" | head -8 | sed 's/^/#   /'
check "scontrol show topology is fabricfit's: Placement=fabricfit, the snapshot, its leaf groups" \
  bash -c 'grep -q "Placement=fabricfit" <<<"$1" && grep -q "/var/lib/fabricfit/fabric.snapshot" <<<"$1" && grep -q "ib-leaf-001" <<<"$1"' _ "$topo"

cd "$D" || bail "cd $D"
jid=$(sbatch --parsable -N 2 --gpus-per-node=8 --comm-pattern=ring -t 5 -o "$D/job-%j.out" \
  --wrap 'srun -l sh -c "echo NCCL_IB_HCA=\$NCCL_IB_HCA FABRICFIT_LEAF_GROUPS=\$FABRICFIT_LEAF_GROUPS"' 2> "$LOGS/sbatch.err")
[ -n "$jid" ] || bail "sbatch -N 2 --gpus-per-node=8 --comm-pattern=ring (the SPANK option: fabricfit.so loaded by sbatch)" "$LOGS/sbatch.err"
ok "sbatch took job $jid with --comm-pattern=ring (fabricfit's SPANK option)"
job_done() { [ -z "$(squeue -h -j "$jid" 2> /dev/null)" ]; }
wait_for 60 job_done || not_ok "job $jid finished within 60 s: $(squeue -h -j "$jid" -o '%T %R' 2> /dev/null)"
decision=$(grep -m1 "fabricfit: eval_nodes JobId=$jid " "$LOGS/slurmctld.log")
echo "# ${decision#*] }"
check "fabricfit placed job $jid (slurmctld log: eval_nodes ... placement=fabricfit)" \
  bash -c '[[ $1 == *placement=fabricfit* ]]' _ "$decision"
state=$(scontrol show job "$jid" 2> /dev/null | grep -o 'JobState=[A-Z]*' | head -n1)
check "job $jid completed ($state) on $(scontrol show job "$jid" 2> /dev/null | grep -o ' NodeList=[^ ]*' | head -n1 | cut -d= -f2)" \
  test "$state" = JobState=COMPLETED
out=$(cat "$D/job-$jid.out" 2> /dev/null)
echo "$out" | sed 's/^/#   /'
# "=mlx5_0:1": NCCL's exact-match prefix and the port, as the SPANK plugin writes it.
check "its tasks on both nodes got fabricfit's NCCL settings (NCCL_IB_HCA==mlx5_0:1, FABRICFIT_LEAF_GROUPS=ib-leaf-001)" \
  bash -c '[ "$(grep -c "NCCL_IB_HCA==mlx5_0:1 FABRICFIT_LEAF_GROUPS=ib-leaf-001" <<<"$1")" -eq 2 ]' _ "$out"
[ "$failed" -eq 0 ] || { show "$LOGS/slurmctld.log" 20; show "$LOGS/slurmd.gpu001.log" 10; }
finish
