# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# contrib/lab/options.sh: the lab's settings and their defaults, --help, and the command line
# that sets them. One parser serves every command, so they all take --dir (and the
# FABRICFIT_* variables) the same way, and the defaults --help prints are the ones in force.
# Sourced by contrib/lab.sh.

# ---------------------------------------------------------------------------------------------
# Defaults
# ---------------------------------------------------------------------------------------------
LAB_DIR=${FABRICFIT_LAB_DIR:-/var/tmp/fabricfit-lab}
NODES=32
LEAVES=4
GPUS=8
RAILS=1
SPINES=2
UPLINKS=           # default: hosts per leaf (non-blocking leaves)
DEGRADE=()         # --degrade SPEC (repeatable): generate --degrade, uplinks running below rate
TOPOLOGY=fabricfit
CTLD_PORT=16817
SLURMD_PORT=17001  # first slurmd port; node i listens on SLURMD_PORT+i-1
CPUS=32            # per node, what slurmd claims thanks to SlurmdParameters=config_overrides
MEM_MB=4000
TIMEOUT=60         # seconds to wait for each daemon / for all nodes to turn idle
FORCE=0
SIGNAL=TERM        # restart-slurmctld: how slurmctld is stopped
UMAD2SIM=no        # --umad2sim: preload umad2sim into slurmctld (the controller never discovers
                   # by design; discovery runs out of band: `fabricfit discover`)
FF_CONF_SRC=       # optional file copied to DIR/fabricfit.conf
SLURM_CONF_EXTRA=  # optional file appended to slurm.conf
SPANK_SO=          # --spank-plugin: the fabricfit.so plugstack.conf loads (default: Slurm's plugin dir)
STORAGE_HCAS=0     # --storage-hcas: 1 gives every host a storage HCA (mlx5_<rails>) on a storage leaf
NVL_DOMAIN_SIZE=0  # --nvl-domain-size N: NVLink domains of N consecutive hosts (blocks.conf)
COMPUTE_HCA=       # --compute-hca: the discovery's compute-HCA pattern (default: every HCA)
PLUGIN_DIR=        # optional directory searched for plugins before Slurm's own (PluginDir)
ACCOUNTING=none    # --accounting slurmdbd: job history in slurmdbd on a lab MariaDB (sacct)
MYSQL_PORT=        # DBD_PORT + 1 with --accounting slurmdbd
DBD_PORT=          # --dbd-port: slurmdbd's port (default: just above the slurmd ports);
                   # MariaDB listens on the next one
SLURM_ENV_FILE=${FABRICFIT_SLURM_ENV:-/opt/fabricfit/slurm/current.env}
SLURM_RELEASE=${FABRICFIT_SLURM_VERSION:-}  # --slurm: a release under /opt/fabricfit/slurm instead
UMAD2SIM_SO=${FABRICFIT_UMAD2SIM:-/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so}

usage() {
  cat <<EOF
Usage: $PROG up     [--nodes N] [--leaves L] [--gpus G] [--rails R] [--spines S] [--uplinks U]
                    [--topology fabricfit|tree] [--dir DIR] [--ctld-port P] [--slurmd-port P]
                    [--cpus C] [--mem MB] [--timeout SECS] [--fabricfit-conf FILE]
                    [--slurm-conf-extra FILE] [--spank-plugin SO] [--storage-hcas N]
                    [--compute-hca REGEX] [--plugin-dir DIR] [--umad2sim|--no-umad2sim]
                    [--slurm VERSION] [--degrade SPEC]... [--accounting none|slurmdbd]
                    [--dbd-port P] [--force]
       $PROG down   [--dir DIR]
       $PROG restart-slurmctld [--dir DIR] [--signal TERM|KILL] [--timeout SECS]
                                             stop slurmctld (TERM: it saves its state; KILL:
                                             a crash) and start it again on its saved state
       $PROG status [--dir DIR]
       $PROG env    [--dir DIR]

Defaults: $NODES nodes x $GPUS GPUs on $LEAVES leaves, $SPINES spines, uplinks = hosts per leaf,
$RAILS rail, topology $TOPOLOGY, dir ${LAB_DIR}, slurmctld port $CTLD_PORT, slurmd ports
$SLURMD_PORT.. (one per node), wait timeout ${TIMEOUT}s.

Environment: FABRICFIT_BIN (fabricfit CLI, default 'fabricfit' on PATH), FABRICFIT_SLURM_ENV
(default /opt/fabricfit/slurm/current.env), FABRICFIT_SLURM_VERSION (as --slurm),
FABRICFIT_SLURM_PREFIX (default /opt/fabricfit/slurm), FABRICFIT_LAB_DIR (default --dir),
FABRICFIT_UMAD2SIM (path of libumad2sim.so).

  --topology fabricfit  TopologyPlugin=topology/fabricfit (needs topology_fabricfit.so)
  --slurm VERSION       run the Slurm release contrib/setup-slurm.sh built into
                        \$FABRICFIT_SLURM_PREFIX/VERSION (26.05.3, or a series such as 26.05 for
                        its newest build) instead of the one FABRICFIT_SLURM_ENV names
  --umad2sim            run slurmctld with umad2sim preloaded and IBSIM_SOCKNAME set (off by
                        default: the controller reads snapshots, discovery runs out of band)
  --topology tree       TopologyPlugin=topology/tree with a topology.conf of the discovered fabric
  --topology block      TopologyPlugin=topology/block with the NVLink domains' BlockName lines
                        (needs --nvl-domain-size)
  --nvl-domain-size N   NVLink domains of N consecutive hosts of a leaf (generate
                        --nvl-domain-size; DIR/blocks.conf), read into the snapshot by
                        discover --blocks
  --spank-plugin SO     the fabricfit.so that plugstack.conf loads (e.g. a build tree's .libs/)
  --storage-hcas 0|1    1: every host has a storage HCA (mlx5_<rails>) on a storage leaf
                        cabled to the first spine (generate --storage-hcas)
  --compute-hca REGEX   discover with this compute-HCA pattern (e.g. 'mlx5_[01]')
  --degrade SPEC        repeatable: degraded uplinks, as fabricfit generate --degrade
                        (groups=LIST,rail=R,fraction=F,rate=RATE, e.g. groups=3,fraction=0.5,rate=4xEDR)
  --plugin-dir DIR      look for plugins (topology_fabricfit.so) in DIR before Slurm's plugin
                        directory: a build's plugin tried without installing it
  --accounting slurmdbd
                        job history as a site keeps it: a MariaDB server (data in DIR/mysql,
                        127.0.0.1 only, throw-away: no grant tables) and slurmdbd, with
                        AccountingStorageType=accounting_storage/slurmdbd, so sacct works
                        (needs Slurm built with MariaDB: contrib/setup-slurm.sh does that)
  --dbd-port P          slurmdbd's port (default: the one after the last slurmd port); MariaDB
                        listens on P+1
  --force               with up: take down a running lab in DIR first
EOF
}

# parse_args ARGS...: the command into LAB_CMD and its options into the settings above
# (contrib/lab.sh then sources and runs that command's file).
parse_args() {
  [ $# -gt 0 ] || { usage >&2; exit 2; }
  local cmd=$1; shift
  case $cmd in
    up|down|status|env|restart-slurmctld) ;;
    -h|--help|help) usage; exit 0 ;;
    *) usage >&2; die "unknown command '$cmd'" ;;
  esac
  while [ $# -gt 0 ]; do
    local opt=$1
    case $opt in
      --force) FORCE=1; shift; continue ;;
      --no-umad2sim) UMAD2SIM=no; shift; continue ;;
      --umad2sim) UMAD2SIM=yes; shift; continue ;;
      -h|--help) usage; exit 0 ;;
      --*=*) set -- "${opt%%=*}" "${opt#*=}" "${@:2}"; continue ;;
      --*) [ $# -ge 2 ] || die "$opt needs a value" ;;
      *) die "unexpected argument '$opt'" ;;
    esac
    local val=$2; shift 2
    if [ "$cmd" != up ] && [ "$opt" != --dir ] && [ "$opt" != --signal ] && [ "$opt" != --timeout ]; then
      die "$cmd takes only --dir, --signal and --timeout (got $opt)"
    fi
    case $opt in
      --dir) LAB_DIR=$val ;;
      --nodes) NODES=$val ;;
      --leaves) LEAVES=$val ;;
      --gpus) GPUS=$val ;;
      --rails) RAILS=$val ;;
      --spines) SPINES=$val ;;
      --uplinks) UPLINKS=$val ;;
      --topology) TOPOLOGY=$val ;;
      --ctld-port) CTLD_PORT=$val ;;
      --slurmd-port) SLURMD_PORT=$val ;;
      --cpus) CPUS=$val ;;
      --mem) MEM_MB=$val ;;
      --timeout) TIMEOUT=$val ;;
      --fabricfit-conf) FF_CONF_SRC=$(realpath -m "$val") ;;
      --slurm-conf-extra) SLURM_CONF_EXTRA=$(realpath -m "$val") ;;
      --plugin-dir) PLUGIN_DIR=$(realpath -m "$val") ;;
      --signal) SIGNAL=$val ;;
      --slurm) SLURM_RELEASE=$val ;;
      --spank-plugin) SPANK_SO=$(realpath -m "$val") ;;
      --storage-hcas) STORAGE_HCAS=$val ;;
      --compute-hca) COMPUTE_HCA=$val ;;
      --degrade) DEGRADE+=("$val") ;;
      --nvl-domain-size) NVL_DOMAIN_SIZE=$val ;;
      --accounting) ACCOUNTING=$val ;;
      --dbd-port) DBD_PORT=$val ;;
      *) die "unknown option '$opt' (see $PROG --help)" ;;
    esac
  done
  LAB_CMD=$cmd
}
