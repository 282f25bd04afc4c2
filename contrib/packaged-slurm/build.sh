#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# contrib/packaged-slurm/build.sh: in a Debian root whose Slurm is Debian's slurm-wlm
# package (contrib/check-packaged-slurm.sh makes it), the steps docs/admin-guide.md gives a
# site on packaged Slurm:
#   1. the source of the installed package version (`apt-get source slurm-wlm=VERSION`:
#      upstream tarball plus Debian's patches), configured with the flags debian/rules
#      gives dh_auto_configure, and libtopology_common.a built (the topology plugin links it);
#   2. fabricfit from /work/fabricfit: configure --with-slurm=/usr --with-slurm-source=...,
#      make, make install-plugins (into the directory the packaged Slurm loads from).
# Kept between runs: the configured Slurm tree (per package version) and fabricfit's build
# directory (make rebuilds what changed). Prints "ok"/"not ok" lines; exits nonzero on failure.
set -euo pipefail
log() { printf 'build: %s\n' "$*"; }
die() { printf 'build: error: %s\n' "$*"; exit 1; }
JOBS=${FABRICFIT_JOBS:-2}

version=$(dpkg-query -W -f='${Version}' slurmctld) || die "no slurmctld package installed"
upstream=${version#*:}; upstream=${upstream%-*}
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
plugindir=/usr/lib/$multiarch/slurm-wlm
log "packaged Slurm: slurmctld $version (upstream $upstream), plugins in $plugindir"

# ---- 1. the package's source, configured as the package was ----
srcroot=/work/slurm-source/$version
tree=$srcroot/slurm-wlm-$upstream
if [ ! -f "$srcroot/.ready" ]; then
  rm -rf "$srcroot" && mkdir -p "$srcroot" && cd "$srcroot"
  # mmdebstrap leaves no package lists behind: the Sources index comes from the deb-src lines.
  apt-get update -q > apt-update.log 2>&1 || { tail -8 apt-update.log; die "apt-get update failed"; }
  log "apt-get source slurm-wlm=$version"
  # Fails as a whole when any part (.dsc, .debian.tar.xz) cannot be fetched; what it did
  # fetch stays, and what is missing is said below.
  apt-get source -q "slurm-wlm=$version" > apt-source.log 2>&1 || { sed 's/^/  /' apt-source.log | tail -8; }
  # The package's paths and --disable-debug (NDEBUG: checked against the packaged slurmctld
  # below); then the flags debian/rules gives dh_auto_configure, which come later and so win.
  configure_args=(--prefix=/usr --libdir="/usr/lib/$multiarch" --sysconfdir=/etc/slurm
    --localstatedir=/var --runstatedir=/run --disable-debug --without-rpath --enable-pam)
  if [ -f "$tree/debian/rules" ]; then
    # Expanded by make itself; a rules file that configures twice (the emulator build)
    # gives its first.
    rules_args=$(cd "$tree" && make -s -n -f debian/rules override_dh_auto_configure 2> /dev/null |
      sed -n 's/.*dh_auto_configure.* -- //p' | head -n1) || rules_args=
    log "debian/rules: dh_auto_configure -- ${rules_args:-(no flags found)}"
    # shellcheck disable=SC2206 # the rules' flags are words, as make passes them to a shell
    configure_args+=($rules_args)
    echo "# Slurm source: slurm-wlm $version with Debian's patches, flags from its debian/rules"
  else
    # An archive that serves the upstream tarball but not Debian's part (seen on mirrors
    # and proxies that keep only some files): the upstream source of the same release
    # with the package's paths. Debian's patches are then missing: said, not hidden.
    orig=$(ls "$srcroot"/slurm-wlm_"$upstream".orig.tar.* 2> /dev/null | head -n1)
    [ -n "$orig" ] || die "apt-get source fetched neither slurm-wlm $version nor its upstream tarball (deb-src lines in the root's sources?)"
    rm -rf "$tree" && mkdir -p "$tree"
    tar -xf "$orig" -C "$tree" --strip-components=1
    echo "# Slurm source: upstream $upstream only: the archive did not serve slurm-wlm $version's .dsc/.debian.tar.xz ($srcroot/apt-source.log): no Debian patches, no debian/rules flags"
  fi
  cd "$tree"
  log "./configure ${configure_args[*]}"
  if ! ./configure "${configure_args[@]}" > configure.log 2>&1; then
    # A flag of debian/rules that wants a library the package was built with (--with-pmix,
    # say): install the package's build dependencies, from the Sources index, and again.
    log "configure failed ($(tail -n1 configure.log)): apt-get build-dep slurm-wlm=$version, then again"
    apt-get build-dep -y -q "slurm-wlm=$version" > build-dep.log 2>&1 || { tail -8 build-dep.log; die "apt-get build-dep failed"; }
    ./configure "${configure_args[@]}" > configure.log 2>&1 || { tail -30 configure.log; die "Slurm's configure failed ($tree/configure.log)"; }
  fi
  # Only what an out-of-tree topology plugin links; the rest of Slurm is the package's.
  make -C src/plugins/topology/common -j"$JOBS" > make-topology-common.log 2>&1 ||
    { tail -30 make-topology-common.log; die "building libtopology_common.a failed"; }
  touch "$srcroot/.ready"
fi
[ -f "$tree/src/plugins/topology/common/.libs/libtopology_common.a" ] || die "no libtopology_common.a in $tree"
# The package was configured without debugging (--disable-debug: NDEBUG) exactly when its
# slurmctld lacks verify_lock(); a tree configured the other way builds a plugin that
# calls it, and the packaged slurmctld cannot load that.
ctld_bin=$(readlink -f /usr/sbin/slurmctld)
if nm -D "$ctld_bin" | grep -q ' T verify_lock$'; then pkg_ndebug=no; else pkg_ndebug=yes; fi
if grep -q '^#define NDEBUG 1' "$tree/config.h"; then tree_ndebug=yes; else tree_ndebug=no; fi
if [ "$pkg_ndebug" = "$tree_ndebug" ]; then
  echo "ok - the configured tree and the packaged slurmctld agree on debugging (NDEBUG: $tree_ndebug)"
else
  echo "not ok - the configured tree has NDEBUG=$tree_ndebug, the packaged slurmctld $ctld_bin NDEBUG=$pkg_ndebug"
  exit 1
fi

# ---- 2. fabricfit against the packaged Slurm ----
cd /work/fabricfit
if [ ! -x configure ] || [ configure.ac -nt configure ]; then
  log "autoreconf -fi"
  autoreconf -fi > /work/autoreconf.log 2>&1 || { tail -20 /work/autoreconf.log; die "autoreconf failed"; }
fi
mkdir -p /work/build && cd /work/build
want="--with-slurm=/usr --with-slurm-source=$tree"
if [ ! -f Makefile ] || [ "$(cat .configured-with 2> /dev/null)" != "$want" ]; then
  log "../fabricfit/configure $want"
  # shellcheck disable=SC2086
  ../fabricfit/configure $want > configure.out 2>&1 || { tail -30 configure.out; die "fabricfit's configure failed"; }
  echo "$want" > .configured-with
fi
grep -E 'Slurm plugins go into|installed Slurm at' configure.out | sed 's/^/# /'
grep -q "Slurm plugins go into $plugindir " configure.out &&
  echo "ok - configure chose the packaged Slurm's plugin directory $plugindir by itself" ||
  { echo "not ok - configure did not choose $plugindir (configure.out)"; exit 1; }
log "make -j$JOBS"
nice make -j"$JOBS" > make.log 2>&1 || { tail -40 make.log; die "make failed (/work/build/make.log)"; }
make check-symbols 2>&1 | tee check-symbols.log | grep -E '^(ok|not ok)' || true
! grep -q '^not ok' check-symbols.log || die "the symbol test failed"
make install > install.log 2>&1 || { tail -20 install.log; die "make install failed"; }
for so in topology_fabricfit.so fabricfit.so; do
  [ -f "$plugindir/$so" ] || die "$plugindir/$so was not installed"
done
echo "ok - make install put topology_fabricfit.so and fabricfit.so in $plugindir, fabricfit in $(command -v fabricfit)"
