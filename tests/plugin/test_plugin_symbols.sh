#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Drift test: slurmctld refuses a topology plugin that lacks any symbol of the syms[] list in
# its release's src/interfaces/topology.c (and any plugin without plugin_name, plugin_type
# and plugin_version). Compares that list, read from the Slurm source tree the plugin was
# built against, with what the built plugin exports (nm -D), and names what is missing.
# Environment (set by `make check`): SLURM_SRC, FF_PLUGIN_SO.
set -u
src=${SLURM_SRC:?SLURM_SRC is not set}
so=${FF_PLUGIN_SO:?FF_PLUGIN_SO is not set}
iface=$src/src/interfaces/topology.c
n=0 failed=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $*"; }

[ -r "$iface" ] || { echo "not ok 1 - $iface is not readable"; echo "1..1"; exit 1; }
[ -r "$so" ] || { echo "not ok 1 - $so is not built"; echo "1..1"; exit 1; }

# The quoted names between "syms[] = {" and the closing "};".
mapfile -t wanted < <(awk '/^static const char \*syms\[\] = \{/ { on = 1; next }
                             on && /^\};/ { exit }
                             on { while (match($0, /"[A-Za-z0-9_]+"/)) {
                                    print substr($0, RSTART + 1, RLENGTH - 2)
                                    $0 = substr($0, RSTART + RLENGTH) } }' "$iface")
if [ "${#wanted[@]}" -lt 5 ]; then
  not_ok "read the syms[] list of $iface (found ${#wanted[@]} names: is this a Slurm source tree?)"
  echo "1..$n"; exit 1
fi
ok "$iface lists ${#wanted[@]} symbols a topology plugin must export"
wanted+=(plugin_name plugin_type plugin_version)   # every plugin (src/common/plugin.c)

exported=$(nm -D --defined-only "$so" | awk '{ print $NF }' | sort -u)
missing=()
for s in "${wanted[@]}"; do
  grep -qx "$s" <<<"$exported" || missing+=("$s")
done
if [ ${#missing[@]} -eq 0 ]; then
  ok "$(basename "$so") exports all of them"
else
  not_ok "$(basename "$so") lacks ${#missing[@]} symbol(s) slurmctld needs: ${missing[*]}"
fi

# plugin_version must equal this release's SLURM_VERSION_NUMBER or the plugin is refused.
want=$(awk '$1 == "#define" && $2 == "SLURM_VERSION_NUMBER" { print $3; exit }' "$src/slurm/slurm_version.h")
got=$(objdump -s -j .rodata --start-address="0x$(nm -D --defined-only "$so" | awk '$3 == "plugin_version" { print $1 }')" \
        --stop-address="$(printf '0x%x' $(( 0x$(nm -D --defined-only "$so" | awk '$3 == "plugin_version" { print $1 }') + 4 )))" \
        "$so" 2>/dev/null | awk '/^ [0-9a-f]+ / { print $2; exit }')
# objdump shows the little-endian bytes: reverse them into a number.
if [ -n "$got" ]; then
  got=$(printf '0x%s%s%s%s' "${got:6:2}" "${got:4:2}" "${got:2:2}" "${got:0:2}")
fi
if [ -n "$want" ] && [ -n "$got" ] && [ $((want)) -eq $((got)) ]; then
  ok "plugin_version is $want, this release's SLURM_VERSION_NUMBER"
else
  not_ok "plugin_version is '${got:-unreadable}' but the release is ${want:-unknown}"
fi

echo "1..$n"
[ "$failed" -eq 0 ]
