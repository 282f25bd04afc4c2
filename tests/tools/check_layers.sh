#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The layers of src/ (docs/architecture.md): a file includes only files of its own folder's
# layer or of a lower one, and never a sibling of the same layer (selection and waiting,
# readers and generate). TAP output, one line per folder; the offending includes are named.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
# folder rank: lower layers first
layer_of() {
  case "$1" in
    common) echo 0 ;;
    topology | topology/passes) echo 1 ;;
    topology/readers | topology/generate) echo 2 ;;
    health) echo 3 ;;
    health/collect) echo 4 ;;
    placement) echo 5 ;;
    placement/runtime) echo 6 ;;
    placement/selection | placement/waiting) echo 7 ;;
    site) echo 8 ;;
    placement/slurm) echo 9 ;;
    replay) echo 10 ;;
    capi) echo 11 ;;
    cli | plugin) echo 12 ;;
    *) echo "" ;;
  esac
}
n=0 failed=0
while read -r dir; do
  rel=${dir#"$top/src/"}
  own=$(layer_of "$rel")
  n=$((n + 1))
  if [ -z "$own" ]; then
    echo "not ok $n - src/$rel has no layer in tests/tools/check_layers.sh"; failed=$((failed + 1)); continue
  fi
  bad=()
  for f in "$dir"/*.cpp "$dir"/*.hpp "$dir"/*.c "$dir"/*.h; do
    [ -f "$f" ] || continue
    while read -r inc; do
      idir=$(dirname "$inc")
      other=$(layer_of "$idir")
      [ -n "$other" ] || continue   # system, Slurm, build or same-folder headers
      if [ "$other" -gt "$own" ] || { [ "$other" -eq "$own" ] && [ "$idir" != "$rel" ] && [ "$own" -ne 1 ]; }; then
        bad+=("${f#"$top/"} includes $inc")
      fi
    done < <(sed -n 's/^#include "\([^"]*\/[^"]*\)".*/\1/p' "$f")
  done
  if [ ${#bad[@]} -eq 0 ]; then
    echo "ok $n - src/$rel (layer $own) includes nothing above it"
  else
    echo "not ok $n - src/$rel (layer $own) includes from above or beside it"
    printf '#   %s\n' "${bad[@]}"
    failed=$((failed + 1))
  fi
done < <(find "$top/src" -mindepth 1 -type d | sort)
echo "1..$n"
[ "$failed" -eq 0 ]
