#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Node-side collector for `fabricfit discover --nvlink-report DIR` (NVLink domains) and
# fabricfit.conf's NvlinkReport=DIR (NVLink health, `fabricfit health --sweep`): writes this node's
# `nvidia-smi -q` (each GPU's Fabric section says which NVLink domain it joined) to
# DIR/HOST, HOST being `hostname -s` unless given. DIR is shared (NFS) with the host that
# runs discover and the health sweeps; run this on every GPU node from slurmd's
# HealthCheckProgram script (with HealthCheckNodeState=ANY, so that drained nodes report
# too) or a systemd timer, not from a prolog, which a drained node never runs
# (docs/admin-guide.md, "NVLink domains").
#
#   nvlink-report.sh DIR [HOST]
#
# The report is written to a temporary file in DIR whose name starts with '.' (discover
# skips those) and renamed over DIR/HOST only once nvidia-smi has succeeded, so discover
# never reads half a report, and a failing nvidia-smi leaves the last good one in place.
# Exit status: 0 written; 1 nvidia-smi failed or DIR cannot be written; 2 usage, or no
# nvidia-smi on PATH.
set -u
me=nvlink-report.sh

if [ $# -lt 1 ] || [ $# -gt 2 ] || [ "$1" = -h ] || [ "$1" = --help ]; then
  echo "usage: $me DIR [HOST]   (writes \`nvidia-smi -q\` to DIR/HOST; HOST: hostname -s)" >&2
  exit 2
fi
dir=$1
if ! command -v nvidia-smi > /dev/null 2>&1; then
  echo "$me: nvidia-smi not found on PATH ($PATH): is the NVIDIA driver installed here?" >&2
  exit 2
fi
host=${2:-$(hostname -s)}
if [ -z "$host" ] || [[ $host == .* ]] || [[ $host == */* ]]; then
  echo "$me: '$host' cannot name a report file" >&2
  exit 2
fi
if [ ! -d "$dir" ]; then
  echo "$me: $dir is not a directory" >&2
  exit 1
fi
# In DIR itself, so that the rename is atomic (same file system).
tmp=$(mktemp "$dir/.$host.XXXXXX") || { echo "$me: cannot write in $dir" >&2; exit 1; }
trap 'rm -f "$tmp"' EXIT
nvidia-smi -q > "$tmp"
rc=$?
if [ "$rc" -ne 0 ]; then
  echo "$me: nvidia-smi -q failed (exit $rc); $dir/$host left as it was" >&2
  exit 1
fi
chmod 0644 "$tmp" # mktemp's 0600 would hide it from discover run as another user
if ! mv -f "$tmp" "$dir/$host"; then
  echo "$me: cannot rename $tmp to $dir/$host" >&2
  exit 1
fi
trap - EXIT
