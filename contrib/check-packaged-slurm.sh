#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Release check: fabricfit on a distribution's packaged Slurm, the way docs/admin-guide.md
# ("On your distribution's Slurm packages") tells a site to do it, on Debian 13 (trixie)
# and its slurm-wlm 24.11:
#   1. a trixie root (mmdebstrap from deb.debian.org) with Debian's slurmctld, slurmd,
#      slurm-client, slurm-wlm-basic-plugins, libslurm-dev, munge and fabricfit's build
#      dependencies; cached in CACHE/<slurm-wlm version>/root, so reruns skip it;
#   2. in it (contrib/packaged-slurm/build.sh): the package's own source (`apt-get source`),
#      configured as debian/rules configures it, libtopology_common.a built there; fabricfit
#      (this tree's tracked files as they are now) configured with --with-slurm=/usr, built,
#      its plugins installed where the packaged Slurm looks;
#   3. in it, in namespaces of its own (mount, UTS, PID, network: loopback only, nothing of
#      this machine's ports; everything it starts dies with it), contrib/packaged-slurm/
#      cluster.sh: munged, the packaged slurmctld with TopologyPlugin=topology/fabricfit and
#      a snapshot from tests/fixtures, two packaged slurmds; checks the plugin loaded
#      (slurmctld's log, `scontrol show topology`) and that fabricfit placed a batch job.
#
#   contrib/check-packaged-slurm.sh [--cache DIR] [--rebuild] [--offline]
#     --cache DIR   where the roots are kept (default /var/cache/fabricfit/trixie-slurm)
#     --rebuild     make the root anew (and the Slurm source and fabricfit build in it)
#     --offline     reuse the newest cached root without asking the archive for a newer
#                   slurm-wlm (default: a newer one gets a new root)
# Prints TAP-like ok / not ok lines, ends with "packaged-slurm: PASS" (exit 0) or
# "packaged-slurm: FAIL" (exit 1). Logs in CACHE/<version>/logs.
set -euo pipefail
PROG=${0##*/}
top=$(cd "$(dirname "$0")/.." && pwd)
cache=/var/cache/fabricfit/trixie-slurm
rebuild=no offline=no
suite=trixie
while [ $# -gt 0 ]; do
  case $1 in
    --cache) [ $# -ge 2 ] || { echo "$PROG: --cache needs a directory" >&2; exit 2; }; cache=$(realpath -m "$2"); shift 2 ;;
    --rebuild) rebuild=yes; shift ;;
    --offline) offline=yes; shift ;;
    -h|--help) sed -n '4,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "$PROG: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
log() { printf '%s: %s\n' "$PROG" "$*" >&2; }
die() { printf '%s: error: %s\n' "$PROG" "$*" >&2; echo "packaged-slurm: FAIL"; exit 1; }

[ "$(id -u)" -eq 0 ] || die "must run as root (mmdebstrap, chroot, namespaces)"
for t in mmdebstrap unshare chroot git tar ip; do command -v "$t" > /dev/null || die "needs $t (contrib/setup-slurm.sh installs mmdebstrap)"; done
unshare --mount --uts --pid --net --fork --propagation private true 2> /dev/null ||
  die "cannot make private mount, UTS, PID and network namespaces here (a container?): run it on a VM"
mkdir -p "$cache"

# Debian's archive for the suite: binaries and sources (apt-get source needs deb-src).
sources_list() {
  cat <<EOF
deb http://deb.debian.org/debian $suite main
deb-src http://deb.debian.org/debian $suite main
deb http://deb.debian.org/debian-security $suite-security main
deb-src http://deb.debian.org/debian-security $suite-security main
EOF
}
# What the root holds: the packaged Slurm (daemons, client, plugins, headers), munge, the
# build dependencies of fabricfit (docs/building.md) and of configuring Slurm's source.
PACKAGES=(
  slurmctld slurmd slurm-client slurm-wlm-basic-plugins libslurm-dev munge libmunge-dev
  dpkg-dev build-essential autoconf automake libtool pkg-config
  libboost-graph-dev libfmt-dev nlohmann-json3-dev libcli11-dev libyaml-cpp-dev
  libibnetdisc-dev libibmad-dev libibumad-dev
  libhwloc-dev libjson-c-dev libyaml-dev libpam0g-dev
  iproute2 procps ca-certificates
)

# in_root CMD...: CMD in the root with /proc, /dev, /sys and a private /run, in mount and
# PID namespaces that vanish with it (every process it starts dies with it); this machine's
# network (apt reaches the archive).
in_root() {
  unshare --mount --pid --fork --propagation private sh -c '
    r=$1; shift
    mount -t proc proc "$r/proc" && mount --rbind /dev "$r/dev" && mount --rbind /sys "$r/sys" &&
      mount -t tmpfs tmpfs "$r/run" &&
      exec chroot "$r" /usr/bin/env -i HOME=/root TERM=dumb LANG=C.UTF-8 \
        PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin "$@"' sh "$root" "$@"
}
# in_root_isolated CMD...: the same with a UTS namespace (its own host names) and a network
# namespace of its own: only loopback, so the cluster binds nothing of this machine. Slurm
# resolves names with AI_ADDRCONFIG, which glibc answers "not known" for IPv4 while no IPv4
# address but 127.0.0.1 exists: a documentation address (192.0.2.1) on lo gives it one.
in_root_isolated() {
  unshare --mount --uts --net --pid --fork --propagation private sh -c '
    r=$1; shift
    ip link set lo up && ip addr add 192.0.2.1/32 dev lo && mount -t proc proc "$r/proc" && mount --rbind /dev "$r/dev" && mount --rbind /sys "$r/sys" &&
      mount -t tmpfs tmpfs "$r/run" &&
      exec chroot "$r" /usr/bin/env -i HOME=/root TERM=dumb LANG=C.UTF-8 \
        PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin "$@"' sh "$root" "$@"
}

# ---- 1. the root: the newest cached one, unless the archive has a newer slurm-wlm ----
t_all=$SECONDS
root=
newest=$(ls -1dt "$cache"/*/root/.fabricfit-root-ready 2> /dev/null | head -n1 || true)
if [ "$rebuild" = no ] && [ -n "$newest" ]; then
  root=${newest%/.fabricfit-root-ready}
  have=$(cat "$newest")
  if [ "$offline" = no ]; then
    log "asking the archive for slurm-wlm in $suite (installed in the cached root: $have)"
    cand=$(in_root sh -c 'apt-get update -q > /dev/null 2>&1 && apt-cache policy slurmctld' |
      awk '$1 == "Candidate:" { print $2 }') || cand=
    [ -n "$cand" ] || log "warning: could not ask the archive (offline?): reusing the root of $have"
    if [ -n "$cand" ] && [ "$cand" != "$have" ]; then
      log "the archive has slurm-wlm $cand: a new root"
      root=
    fi
  fi
fi
if [ -z "$root" ]; then
  new=$cache/root.new
  rm -rf "$new"
  sources_list > "$cache/sources.list"
  log "mmdebstrap --variant=minbase $suite (Debian's Slurm packages and fabricfit's build dependencies)"
  t=$SECONDS
  inc=$(IFS=,; echo "${PACKAGES[*]}")
  nice mmdebstrap --variant=minbase --include="$inc" "$suite" "$new" "$cache/sources.list" > "$cache/mmdebstrap.log" 2>&1 ||
    { tail -20 "$cache/mmdebstrap.log" >&2; die "mmdebstrap failed (log: $cache/mmdebstrap.log)"; }
  version=$(chroot "$new" dpkg-query -W -f='${Version}' slurmctld)
  [ -n "$version" ] || die "the new root has no slurmctld package"
  cp /etc/resolv.conf "$new/etc/resolv.conf" 2> /dev/null || true
  rm -rf "${cache:?}/$version"
  mkdir -p "$cache/$version"
  mv "$new" "$cache/$version/root"
  root=$cache/$version/root
  echo "$version" > "$root/.fabricfit-root-ready"
  log "root for slurm-wlm $version made in $((SECONDS - t)) s: $root"
fi
version=$(cat "$root/.fabricfit-root-ready")
logs=$(dirname "$root")/logs
mkdir -p "$logs"
echo "# Debian $suite, slurm-wlm $version, root $root"

# ---- 2. the tree: tracked files as they are now, their times kept (make rebuilds what changed) ----
mkdir -p "$root/work/fabricfit"
(cd "$top" && git ls-files -z | tar --null -T - -cf -) | tar -C "$root/work/fabricfit" -xf -
log "tree $(git -C "$top" rev-parse --short HEAD)$(git -C "$top" diff --quiet HEAD -- . || echo ' (with uncommitted changes)') in $root/work/fabricfit"

status=0
t=$SECONDS
if in_root bash /work/fabricfit/contrib/packaged-slurm/build.sh > "$logs/build.log" 2>&1; then
  echo "ok - fabricfit built against the packaged Slurm, plugins installed ($((SECONDS - t)) s; log $logs/build.log)"
else
  echo "not ok - building fabricfit against the packaged Slurm ($((SECONDS - t)) s; log $logs/build.log):"
  tail -15 "$logs/build.log" | sed 's/^/#   /'
  status=1
fi
grep -E '^(ok|not ok|#) ' "$logs/build.log" || true

if [ "$status" -eq 0 ]; then
  t=$SECONDS
  rc=0
  in_root_isolated bash /work/fabricfit/contrib/packaged-slurm/cluster.sh > "$logs/cluster.log" 2>&1 || rc=$?
  grep -E '^(ok|not ok|#) ' "$logs/cluster.log" || true
  if [ "$rc" -ne 0 ]; then
    grep -q '^not ok ' "$logs/cluster.log" || { echo "not ok - the cluster check exited $rc (log $logs/cluster.log)"; tail -15 "$logs/cluster.log" | sed 's/^/#   /'; }
    status=1
  fi
  echo "# cluster check $((SECONDS - t)) s; log $logs/cluster.log, daemons' logs in $root/var/tmp/ff-packaged/logs"
fi
echo "# total $((SECONDS - t_all)) s"
[ "$status" -eq 0 ] && echo "packaged-slurm: PASS" || echo "packaged-slurm: FAIL"
exit "$status"
