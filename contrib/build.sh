#!/usr/bin/env bash
# Builds and installs fabricfit against the Slurm that contrib/setup-slurm.sh provides:
# the plugins into Slurm's plugin directory, the fabricfit command into $PREFIX/bin.
#   contrib/build.sh [--no-setup] [--check] [--slurm VERSION [--plugins-only]]
# --slurm VERSION  build against that release (setup-slurm.sh's $BASE/VERSION.env or its
#                  finished build), default: the one current.env names (24.11).
# --plugins-only   only the two plugins, in build-slurm-VERSION, linking the core already
#                  built in the default build directory (configure --with-core-build), and
#                  install only them; then the symbol test (`make check-symbols`).
# Environment: FABRICFIT_BUILD_DIR (default ./build), PREFIX (default /usr/local),
# FABRICFIT_SLURM_PREFIX (default /opt/fabricfit/slurm), CC/CXX (e.g. "ccache gcc").
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${FABRICFIT_BUILD_DIR:-$top/build}
core_build=$build
prefix=${PREFIX:-/usr/local}
base=${FABRICFIT_SLURM_PREFIX:-/opt/fabricfit/slurm}
setup=yes check=no release= plugins_only=no
while [ $# -gt 0 ]; do
  case "$1" in
    --no-setup) setup=no ;;
    --check) check=yes ;;
    --plugins-only) plugins_only=yes ;;
    --slurm) [ $# -ge 2 ] || { echo "build.sh: --slurm needs a version" >&2; exit 2; }; release=$2; shift ;;
    *) echo "build.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
[ "$plugins_only" = no ] || [ -n "$release" ] || { echo "build.sh: --plugins-only goes with --slurm VERSION" >&2; exit 2; }

log() { printf 'build: %s\n' "$*" >&2; }

env_file=${FABRICFIT_SLURM_ENV:-$base/current.env}
if [ -n "$release" ]; then
  [ "$setup" = no ] || "$top/contrib/setup-slurm.sh" --release "$release" > /dev/null
  env_file=$base/$release.env
elif [ "$setup" = yes ]; then
  "$top/contrib/setup-slurm.sh" > /dev/null
fi
if [ -f "$env_file" ]; then
  # shellcheck disable=SC1090
  . "$env_file"
elif [ -n "$release" ] && [ -f "$base/$release/.fabricfit-built" ]; then
  SLURM_PREFIX=$base/$release SLURM_SRC=$base/build/slurm-$release
else
  echo "build: $env_file missing: run contrib/setup-slurm.sh${release:+ --release $release}" >&2; exit 1
fi

cd "$top"
if [ ! -x configure ] || [ configure.ac -nt configure ] || [ Makefile.am -nt Makefile.in ]; then
  log "autoreconf"
  autoreconf -fi > /dev/null 2>&1 || autoreconf -fi
fi
opts=(--prefix="$prefix" --with-slurm="$SLURM_PREFIX" --with-slurm-source="$SLURM_SRC")
if [ "$plugins_only" = yes ]; then
  [ -f "$core_build/libfabricfit_api.la" ] ||
    { echo "build: $core_build/libfabricfit_api.la missing: build the default release first" >&2; exit 1; }
  build=$top/build-slurm-$release
  opts+=(--with-core-build="$core_build")
fi
# Compilers as configure arguments (one each: "ccache gcc" is one value).
[ -z "${CC:-}" ] || opts+=("CC=$CC")
[ -z "${CXX:-}" ] || opts+=("CXX=$CXX")
want="${opts[*]}"
mkdir -p "$build"
cd "$build"
if [ ! -f Makefile ] || [ "$(cat .fabricfit-configured 2>/dev/null)" != "$want" ] || [ "$top/configure" -nt Makefile ]; then
  log "configure $want"
  "$top/configure" "${opts[@]}" > configure.out 2>&1 || { tail -30 configure.out >&2; exit 1; }
  echo "$want" > .fabricfit-configured
fi
if [ "$plugins_only" = yes ]; then
  log "make plugins (Slurm $release, core from $core_build)"
  make -j"$(nproc)" plugins > make.out 2>&1 || { grep -E 'error|Error' make.out | head -30 >&2; tail -20 make.out >&2; exit 1; }
  log "make check-symbols"
  make check-symbols
  log "make install-plugins (into $SLURM_PREFIX/lib/slurm)"
  make install-plugins > install.out 2>&1 || { tail -20 install.out >&2; exit 1; }
  exit 0
fi
log "make"
make -j"$(nproc)" > make.out 2>&1 || { grep -E 'error|Error' make.out | head -30 >&2; tail -20 make.out >&2; exit 1; }
if [ "$check" = yes ]; then
  log "make check"
  make -j"$(nproc)" check
fi
log "make install (plugins into $SLURM_PREFIX/lib/slurm, fabricfit into $prefix/bin)"
make install > install.out 2>&1 || { tail -20 install.out >&2; exit 1; }
