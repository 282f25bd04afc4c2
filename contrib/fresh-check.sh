#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The README's two commands on a fresh, minimal Debian 12, as a new user meets them: a
# release check, not part of every CI run (it builds Slurm 24.11 from scratch, then runs the
# whole suite: well over an hour on 2 cores).
#
#   1. mmdebstrap --variant=minbase bookworm: what the debian:12 image and a minimal install
#      give (no iproute2, no procps, no clang runtimes, no python3);
#   2. /etc/hosts and /etc/hostname as the Debian installer writes them: the host name on
#      127.0.1.1 (issue 28: the lab must still listen on loopback and be reached there);
#   3. this tree (its committed HEAD, `git archive`) in /work/fabricfit and the Slurm release
#      tarballs beside it in /work/shared/slurm, as CI lays them out;
#   4. in that root (chroot, its own UTS and mount namespaces, /proc, /dev, /sys; the
#      machine's network: apt must reach the archive): `contrib/demo.sh`, `contrib/lab.sh
#      down`, then `contrib/run-tests.sh`, each logged to OUT.
#
#   contrib/fresh-check.sh [--out DIR] [--demo-only] [--keep] [--reuse-slurm VERSION]
#                          [-- RUN-TESTS-OPTIONS...]
#     --out DIR     logs and the root (default /var/tmp/fabricfit-fresh-check)
#     --demo-only   stop after the demo (about 20 minutes: packages, Slurm, fabricfit, lab)
#     --keep        keep the root afterwards (default: removed when both commands passed)
#     --reuse-slurm VERSION
#                   copy this machine's Slurm build of VERSION (prefix and build tree under
#                   $FABRICFIT_SLURM_PREFIX, default /opt/fabricfit/slurm) into the root, so
#                   that setup-slurm.sh there reuses it instead of building Slurm (saves
#                   about 7 minutes per release; not a check of the Slurm build itself)
#     after --      options for contrib/run-tests.sh (e.g. --no-releases --no-sanitizers)
# Environment: FRESH_SUITE (default bookworm), FRESH_HOSTNAME (default fabricfit-fresh),
# FRESH_DEMO_ARGS (lab.sh up options for the demo, e.g. "--ctld-port 26817 --slurmd-port
# 27001" where another lab holds the default ports: the root shares this machine's network).
# Ends with one line per command and "fresh-check: PASS" or "fresh-check: FAIL".
# The result of the last release check goes in docs/testing.md.
set -euo pipefail
PROG=${0##*/}
top=$(cd "$(dirname "$0")/.." && pwd)
out=/var/tmp/fabricfit-fresh-check
demo_only=no keep=no reuse=()
slurm_base=${FABRICFIT_SLURM_PREFIX:-/opt/fabricfit/slurm}
suite=${FRESH_SUITE:-bookworm}
host=${FRESH_HOSTNAME:-fabricfit-fresh}
while [ $# -gt 0 ]; do
  case $1 in
    --out) out=$(realpath -m "$2"); shift 2 ;;
    --demo-only) demo_only=yes; shift ;;
    --keep) keep=yes; shift ;;
    --reuse-slurm) reuse+=("$2"); shift 2 ;;
    --) shift; break ;;
    -h|--help) sed -n '3,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "$PROG: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
log() { printf '%s: %s\n' "$PROG" "$*" >&2; }
die() { printf '%s: error: %s\n' "$PROG" "$*" >&2; exit 1; }

[ "$(id -u)" -eq 0 ] || die "must run as root (mmdebstrap, chroot, mounts)"
for t in mmdebstrap unshare chroot git; do command -v "$t" > /dev/null || die "needs $t"; done
# A private mount namespace keeps the root's mounts from the machine's (and lets them vanish
# with it); where unshare cannot make one (a chroot, some containers), this check cannot run.
unshare --mount --uts --propagation private true 2> /dev/null ||
  die "cannot make a private mount and UTS namespace here (a chroot or container?): run it on a VM"

root=$out/root
mkdir -p "$out"
[ ! -e "$root" ] || die "$root exists (a previous run kept with --keep?): remove it first"

# ---- 1. the root: minbase, the machine's Debian archive entries for the suite ----
sources=()
for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
  [ -f "$f" ] && grep -q "$suite" "$f" && grep -qE '^(deb |Types:.*\bdeb\b)' "$f" && sources+=("$f")
done
t0=$SECONDS
log "mmdebstrap --variant=minbase $suite $root"
mmdebstrap --variant=minbase "$suite" "$root" "${sources[@]}" > "$out/mmdebstrap.log" 2>&1 ||
  { tail -20 "$out/mmdebstrap.log" >&2; die "mmdebstrap failed (log: $out/mmdebstrap.log)"; }
log "root made in $((SECONDS - t0)) s"

# ---- 2. host name and /etc/hosts as the Debian installer writes them ----
echo "$host" > "$root/etc/hostname"
cat > "$root/etc/hosts" <<EOF
127.0.0.1	localhost
127.0.1.1	$host.example.org	$host

# The following lines are desirable for IPv6 capable hosts
::1     localhost ip6-localhost ip6-loopback
ff02::1 ip6-allnodes
ff02::2 ip6-allrouters
EOF
cp /etc/resolv.conf "$root/etc/resolv.conf" 2> /dev/null || true

# ---- 3. the tree and the release tarballs ----
mkdir -p "$root/work/fabricfit" "$root/work/shared"
git -C "$top" archive --format=tar HEAD | tar -C "$root/work/fabricfit" -xf -
[ -d "$top/../shared/slurm" ] && cp -r "$top/../shared/slurm" "$root/work/shared/"
log "tree $(git -C "$top" rev-parse --short HEAD) in $root/work/fabricfit"
for v in "${reuse[@]}"; do
  [ -e "$slurm_base/$v/.fabricfit-built" ] || die "no finished Slurm $v build in $slurm_base"
  mkdir -p "$root$slurm_base/build"
  cp -a "$slurm_base/$v" "$slurm_base/$v.env" "$root$slurm_base/"
  cp -a "$slurm_base/build/slurm-$v" "$root$slurm_base/build/"
  log "Slurm $v copied from this machine (--reuse-slurm): setup-slurm.sh reuses it"
done

# ---- 4. the README's commands in the root ----
# in_root LOG COMMAND: COMMAND (a shell command, from /work/fabricfit) in the root with its
# host name, /proc, /dev and /sys, in namespaces that vanish with it; output to LOG.
in_root() {
  local logf=$1 cmd=$2
  unshare --mount --uts --propagation private --fork sh -c '
    r=$1; h=$2; c=$3
    hostname "$h" && mount -t proc proc "$r/proc" && mount --rbind /dev "$r/dev" &&
      mount --rbind /sys "$r/sys" && mkdir -p "$r/run" "$r/tmp" && mount -t tmpfs tmpfs "$r/run" &&
      exec chroot "$r" /usr/bin/env -i HOME=/root TERM=dumb LANG=C.UTF-8 \
        PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
        bash -c "cd /work/fabricfit && $c"' sh "$root" "$host" "$cmd" > "$logf" 2>&1
}

status=0
t=$SECONDS
if in_root "$out/demo.log" "FABRICFIT_LAB_DIR=/var/tmp/fabricfit-lab contrib/demo.sh ${FRESH_DEMO_ARGS:-}"; then
  demo="passed"
else
  demo="FAILED (exit $?)"; status=1
fi
# The demo leaves its lab up: take it down (its daemons are this machine's processes).
in_root "$out/lab-down.log" "contrib/lab.sh down --dir /var/tmp/fabricfit-lab" || { demo+=", lab.sh down FAILED"; status=1; }
echo "demo (contrib/demo.sh): $demo in $((SECONDS - t)) s; host name $host on 127.0.1.1${reuse[*]:+; Slurm ${reuse[*]} reused}; log $out/demo.log"
grep -q 'NCCL_IB_HCA=' "$out/demo.log" && echo "  the nccl-2x8 job's tasks saw NCCL_IB_HCA" ||
  { echo "  the nccl-2x8 job's tasks saw no NCCL_IB_HCA"; status=1; }

if [ "$demo_only" = no ]; then
  t=$SECONDS
  in_root "$out/run-tests.log" "contrib/run-tests.sh $*" || true
  summary=$(tail -n 1 "$out/run-tests.log")
  echo "tests (contrib/run-tests.sh $*): $summary in $((SECONDS - t)) s; log $out/run-tests.log"
  [[ $summary =~ ^[0-9]+\ passed,\ 0\ failed$ ]] || status=1
  grep -E '^not ok|skipped' "$out/run-tests.log" | head -20 | sed 's/^/  /' || true
fi

if [ "$status" -eq 0 ] && [ "$keep" = no ]; then
  rm -rf "$root"
else
  log "root kept in $root"
fi
[ "$status" -eq 0 ] && echo "fresh-check: PASS" || echo "fresh-check: FAIL"
exit "$status"
