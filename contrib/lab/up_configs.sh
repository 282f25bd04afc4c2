# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# contrib/lab/up_configs.sh: the files the Slurm daemons read: slurm.conf, cgroup.conf,
# gres.conf (with the fake GPU devices it points at), plugstack.conf, fabricfit.conf, and
# the node names expanded into DIR/nodes. Regenerated on every up; what they say is what a
# site would write for this fabric.

make_gpu_devices() {
  local i last=$(( GPUS - 1 ))
  for i in $(seq 0 "$last"); do
    # A real character device is closest to the truth; in containers mknod may be denied.
    mknod -m 666 "$LAB_DIR/dev/nvidia$i" c 195 "$i" 2>/dev/null ||
      ln -s /dev/null "$LAB_DIR/dev/nvidia$i"
  done
  if [ "$GPUS" -eq 1 ]; then GPU_FILES=$LAB_DIR/dev/nvidia0; else GPU_FILES="$LAB_DIR/dev/nvidia[0-$last]"; fi
}

# DefMemPerGPU as a GPU site sets it: memory is a consumable resource (CR_Core_Memory), and a
# job without --mem would otherwise be given its node's whole memory, so four 1-GPU jobs would
# take four nodes. A node's memory split evenly over its GPUs lets all of them be used. An
# extra file (--slurm-conf-extra) that sets its own keeps it: written once, no "specified more
# than once" error in the daemons' logs.
# extra_sets KEY: the extra file sets KEY itself (as DefMemPerGPU above, written once).
extra_sets() { [ -n "$SLURM_CONF_EXTRA" ] && grep -qi "^[[:space:]]*$1=" "$SLURM_CONF_EXTRA"; }
mem_per_gpu_param() {
  if extra_sets DefMemPerGPU; then
    echo "# DefMemPerGPU: set in $SLURM_CONF_EXTRA, below"
  else
    echo "DefMemPerGPU=$(( MEM_MB / GPUS ))"
  fi
}

write_configs() {
  local topo_plugin=topology/$TOPOLOGY
  cat > "$CONF" <<EOF
# Written by contrib/lab.sh up: a local lab cluster ($NODES nodes x $GPUS GPUs, $LEAVES leaves).
# Regenerated on every 'up'; edit lab.sh (or use --slurm-conf-extra) instead.
ClusterName=fabricfit
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$CTLD_PORT
$(comm_params)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$MUNGE_SOCK
StateSaveLocation=$LAB_DIR/state
SlurmdSpoolDir=$LAB_DIR/spool/slurmd.%n
SlurmctldPidFile=$RUN/slurmctld.pid
SlurmdPidFile=$RUN/slurmd.%n.pid
SlurmctldLogFile=$LOGS/slurmctld.log
SlurmdLogFile=$LOGS/slurmd.%n.log
$(if extra_sets SlurmctldDebug; then echo "# SlurmctldDebug: set in $SLURM_CONF_EXTRA, below"; else echo SlurmctldDebug=info; fi)
SlurmdDebug=info
PlugStackConfig=$LAB_DIR/plugstack.conf
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
$(accounting_params)
JobCompType=jobcomp/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
$(mem_per_gpu_param)
# else slurmd reports the host's real CPUs and memory, and the node is INVAL
SlurmdParameters=config_overrides
GresTypes=gpu
MailProg=/bin/true
SchedulerParameters=batch_sched_delay=0
ReturnToService=2
TopologyPlugin=$topo_plugin
PluginDir=${PLUGIN_DIR:+$PLUGIN_DIR:}$SLURM_PREFIX/lib/slurm
NodeName=$NODELIST NodeHostname=localhost NodeAddr=127.0.0.1 Port=$SLURMD_PORT-$(( SLURMD_PORT + NODES - 1 )) CPUs=$CPUS Boards=1 SocketsPerBoard=2 CoresPerSocket=$(( CPUS / 2 )) ThreadsPerCore=1 RealMemory=$MEM_MB Gres=gpu:$GPUS State=UNKNOWN
PartitionName=gpu Nodes=ALL Default=YES MaxTime=UNLIMITED State=UP
EOF
  if [ $(( CPUS % 2 )) -ne 0 ]; then
    sed -i "s/Boards=1 SocketsPerBoard=2 CoresPerSocket=[0-9]*/Boards=1 SocketsPerBoard=1 CoresPerSocket=$CPUS/" "$CONF"
  fi
  if [ -n "$SLURM_CONF_EXTRA" ]; then
    { echo "# --- from $SLURM_CONF_EXTRA ---"; cat "$SLURM_CONF_EXTRA"; } >> "$CONF"
  fi

  echo "CgroupPlugin=disabled" > "$LAB_DIR/cgroup.conf"

  # A GPU given only as Count= is dropped and the node goes INVAL: point File= at devices.
  cat > "$LAB_DIR/gres.conf" <<EOF
AutoDetect=off
NodeName=$NODELIST Name=gpu File=$GPU_FILES
EOF

  local spank=${SPANK_SO:-$SLURM_PREFIX/lib/slurm/fabricfit.so}
  if [ -e "$spank" ]; then
    # slurmstepd keeps its own last good copy (a compute node's, not the controller's).
    echo "optional $spank conf=$LAB_DIR/fabricfit.conf last_good=$LAB_DIR/spool/fabricfit.conf.last-good" \
      > "$LAB_DIR/plugstack.conf"
  else
    echo "# $spank is not installed: no SPANK plugins" > "$LAB_DIR/plugstack.conf"
  fi

  if [ -n "$FF_CONF_SRC" ]; then
    cp "$FF_CONF_SRC" "$LAB_DIR/fabricfit.conf"
  else
    cat > "$LAB_DIR/fabricfit.conf" <<EOF
# fabricfit.conf for the lab in $LAB_DIR (written by contrib/lab.sh up).
# Simulated fabric: $NETFILE, served by ibsim as IBSIM_SOCKNAME=$IBSIM_SOCKNAME;
# discovered live into the snapshot below by \`fabricfit discover\`.
SnapshotFile=$SNAPSHOT
EOF
  fi
}

# Expand the node list into $LAB_DIR/nodes, one name per line (same order as the ports).
expand_nodes() {
  slurm scontrol show hostnames "$NODELIST" > "$LAB_DIR/nodes" 2> "$LOGS/hostnames.log" ||
    { show_tail "$LOGS/hostnames.log"; die "scontrol cannot expand node list '$NODELIST'"; }
  local n
  n=$(wc -l < "$LAB_DIR/nodes")
  [ "$n" -eq "$NODES" ] || die "fabricfit generate listed $n nodes ($NODELIST), expected $NODES"
}
