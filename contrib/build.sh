#!/usr/bin/env bash
# Builds and installs fabricfit against the Slurm that contrib/setup-slurm.sh provides:
# the plugins into Slurm's plugin directory, the fabricfit command into $PREFIX/bin.
#   contrib/build.sh [--no-setup] [--check]
# Environment: FABRICFIT_BUILD_DIR (default ./build), PREFIX (default /usr/local).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${FABRICFIT_BUILD_DIR:-$top/build}
prefix=${PREFIX:-/usr/local}
setup=yes check=no
for arg in "$@"; do
  case "$arg" in
    --no-setup) setup=no ;;
    --check) check=yes ;;
    *) echo "build.sh: unknown option $arg" >&2; exit 2 ;;
  esac
done

log() { printf 'build: %s\n' "$*" >&2; }

env_file=${FABRICFIT_SLURM_ENV:-/opt/fabricfit/slurm/current.env}
if [ "$setup" = yes ]; then
  "$top/contrib/setup-slurm.sh" > /dev/null
fi
[ -f "$env_file" ] || { echo "build: $env_file missing: run contrib/setup-slurm.sh" >&2; exit 1; }
# shellcheck disable=SC1090
. "$env_file"

cd "$top"
if [ ! -x configure ] || [ configure.ac -nt configure ] || [ Makefile.am -nt Makefile.in ]; then
  log "autoreconf"
  autoreconf -fi > /dev/null 2>&1 || autoreconf -fi
fi
mkdir -p "$build"
cd "$build"
want="--prefix=$prefix --with-slurm=$SLURM_PREFIX --with-slurm-source=$SLURM_SRC"
if [ ! -f Makefile ] || [ "$(cat .fabricfit-configured 2>/dev/null)" != "$want" ] || [ "$top/configure" -nt Makefile ]; then
  log "configure $want"
  # shellcheck disable=SC2086
  "$top/configure" $want > configure.out 2>&1 || { tail -30 configure.out >&2; exit 1; }
  echo "$want" > .fabricfit-configured
fi
log "make"
make -j"$(nproc)" > make.out 2>&1 || { grep -E 'error|Error' make.out | head -30 >&2; tail -20 make.out >&2; exit 1; }
if [ "$check" = yes ]; then
  log "make check"
  make -j"$(nproc)" check
fi
log "make install (plugins into $SLURM_PREFIX/lib/slurm, fabricfit into $prefix/bin)"
make install > install.out 2>&1 || { tail -20 install.out >&2; exit 1; }
