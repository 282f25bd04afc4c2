#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Builds fabricfit's Debian packages for the Slurm release contrib/setup-slurm.sh built
# (or one a site installed: its prefix and its configured source tree), with
# dpkg-buildpackage and debhelper from the template in contrib/debian/:
#   fabricfit_<V>-<R>_<arch>.deb                      the command, man pages, systemd units,
#                                                     docs; depends on no Slurm
#   fabricfit-slurm-plugins_<V>-<R>+slurm<S>_<arch>.deb  topology_fabricfit.so and the SPANK
#                                                     plugin in that Slurm's plugin directory,
#                                                     for Slurm <S> exactly
# The plugins' package pins the Slurm release it was built for: when a Debian package owns
# that Slurm (Debian's slurm-wlm, SchedMD's slurm-smd built from the tarball's debian/), it
# depends on that package at that micro release only, e.g. "slurm-smd (>= 25.11.7),
# slurm-smd (<< 25.11.8~)"; when Slurm was built from source (no package owns it), its
# preinst refuses to install unless the Slurm in that prefix is that release.
# docs/packages.md.
#   contrib/build-debs.sh [--slurm VERSION] [--out DIR] [--revision N] [--check]
# --slurm VERSION  the release setup-slurm.sh built ($FABRICFIT_SLURM_PREFIX/VERSION.env),
#                  default the one current.env names; or FABRICFIT_SLURM_ENV=FILE with
#                  SLURM_PREFIX and SLURM_SRC (a site's own Slurm)
# --out DIR        where the .deb files go (default ./debs)
# --revision N     Debian revision (default 1)
# --check          run `make check` during the build (default: DEB_BUILD_OPTIONS=nocheck;
#                  contrib/run-tests.sh runs the tests)
# Environment: CC/CXX (e.g. "ccache gcc"), FABRICFIT_DEB_WORK (build directory, default
# build-deb in this tree), FABRICFIT_SLURM_PREFIX (default /opt/fabricfit/slurm).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
base=${FABRICFIT_SLURM_PREFIX:-/opt/fabricfit/slurm}
release= out=$PWD/debs revision=1 check=no
die() { printf 'build-debs: error: %s\n' "$*" >&2; exit 1; }
log() { printf 'build-debs: %s\n' "$*" >&2; }
while [ $# -gt 0 ]; do
  case "$1" in
    --slurm) [ $# -ge 2 ] || die "--slurm needs a version"; release=$2; shift ;;
    --out) [ $# -ge 2 ] || die "--out needs a directory"; out=$(realpath -m "$2"); shift ;;
    --revision) [ $# -ge 2 ] || die "--revision needs a number"; revision=$2; shift ;;
    --check) check=yes ;;
    -h|--help) sed -n '3,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown option $1 (see --help)" ;;
  esac
  shift
done
[[ $revision =~ ^[0-9][0-9A-Za-z.~]*$ ]] || die "--revision wants a Debian revision such as 1, not '$revision'"
for tool in dpkg-buildpackage dh dpkg-query; do
  command -v "$tool" > /dev/null || die "$tool is missing (apt-get install debhelper dpkg-dev; contrib/setup-slurm.sh installs them)"
done

# ---- the Slurm to build against ----
if [ -n "$release" ]; then
  env_file=$base/$release.env
else
  env_file=${FABRICFIT_SLURM_ENV:-$base/current.env}
fi
SLURM_PREFIX= SLURM_SRC=
if [ -f "$env_file" ]; then
  # shellcheck disable=SC1090
  . "$env_file"
elif [ -n "$release" ] && [ -f "$base/$release/.fabricfit-built" ]; then
  SLURM_PREFIX=$base/$release SLURM_SRC=$base/build/slurm-$release
else
  die "$env_file missing: run contrib/setup-slurm.sh${release:+ --release $release}"
fi
[ -f "$SLURM_PREFIX/include/slurm/slurm_version.h" ] || die "no Slurm headers in $SLURM_PREFIX/include/slurm"
[ -f "$SLURM_SRC/config.h" ] || die "$SLURM_SRC is not a configured Slurm source tree"
# major.minor.micro from the installed headers, as configure reads it.
slurm_version=$(awk '$1 == "#define" && $2 == "SLURM_VERSION_NUMBER" { print $3; exit }' \
  "$SLURM_PREFIX/include/slurm/slurm_version.h" |
  { read -r hex; n=$((hex)); printf '%d.%02d.%d\n' $(( (n >> 16) & 255 )) $(( (n >> 8) & 255 )) $(( n & 255 )); })
[ -z "$release" ] || [ "$release" = "$slurm_version" ] || die "$SLURM_PREFIX holds Slurm $slurm_version, not $release"
# Where slurm.conf lives for this Slurm: its configured sysconfdir.
sysconfdir=$(awk '$1 == "sysconfdir" && $2 == "=" { print $3; exit }' "$SLURM_SRC/Makefile" 2>/dev/null)
[ -n "$sysconfdir" ] || sysconfdir=/etc/slurm

# ---- who owns that Slurm: a dpkg package (depend on it), or nobody (preinst check) ----
# Packaged Slurm: its headers belong to a -dev package (Debian's libslurm-dev, SchedMD's
# slurm-smd-dev) and its plugins to another package of the same release (Debian's
# slurm-wlm-basic-plugins, SchedMD's slurm-smd), whose plugin directory is PluginDir.
next_micro() { local IFS=.; set -- $1; echo "$1.$2.$(( $3 + 1 ))"; }
upstream_of() { local v=${1#*:}; echo "${v%-*}"; }
plugin_dir=$SLURM_PREFIX/lib/slurm
owner=
header_owner=$(dpkg-query -S "$(realpath "$SLURM_PREFIX/include/slurm/slurm_version.h")" 2>/dev/null | head -n1 | sed 's/:.*//; s/,.*//') || header_owner=
if [ -n "$header_owner" ]; then
  while IFS= read -r line; do
    pkg=${line%%:*}; pkg=${pkg%%,*}; path=${line#*: }
    pv=$(dpkg-query -W -f='${Version}' "$pkg" 2>/dev/null) || continue
    case "$(upstream_of "$pv")" in
      "$slurm_version"|"$slurm_version"[!0-9]*) owner=$pkg owner_version=$pv plugin_dir=$(dirname "$path"); break ;;
    esac
  done < <(dpkg-query -S '*/topology_tree.so' 2>/dev/null)
  [ -n "$owner" ] || die "Slurm's headers in $SLURM_PREFIX belong to package $header_owner, but no installed package holds Slurm $slurm_version's plugins (topology_tree.so)"
  epoch=
  case "$owner_version" in *:*) epoch=${owner_version%%:*}: ;; esac
  slurm_depends="$owner (>= $epoch$slurm_version), $owner (<< $epoch$(next_micro "$slurm_version")~)"
  owner_note="Slurm $slurm_version here belongs to the Debian package $owner ($owner_version): this package depends on $owner at release $slurm_version only."
  log "Slurm $slurm_version is package $owner $owner_version (plugins in $plugin_dir): Depends: $slurm_depends"
else
  slurm_depends=
  owner_note="Slurm $slurm_version here is built from source in $SLURM_PREFIX, which no Debian package owns: the package refuses to install (preinst) unless the Slurm in $SLURM_PREFIX is release $slurm_version."
  log "Slurm $slurm_version in $SLURM_PREFIX belongs to no package: the plugins' preinst checks the release"
fi

# ---- the source tree with its debian/ directory, in a work directory ----
version=$(sed -n 's/^AC_INIT(\[fabricfit\], \[\([^]]*\)\].*/\1/p' "$top/configure.ac")
[ -n "$version" ] || die "no version in configure.ac's AC_INIT"
deb_version=$version-$revision
plugins_version=$deb_version+slurm$slurm_version
work=${FABRICFIT_DEB_WORK:-$top/build-deb}
src=$work/fabricfit-$version
rm -rf "$src" && mkdir -p "$src"
if git -C "$top" rev-parse --git-dir > /dev/null 2>&1; then
  # The tracked files as they are in the work tree (edits included, build output not).
  (cd "$top" && git ls-files -z --cached --others --exclude-standard | tar --null -T - -cf -) | tar -xf - -C "$src"
else
  tar -C "$top" --exclude='./build' --exclude='./build-*' --exclude='./debs' -cf - . | tar -xf - -C "$src"
fi
rm -rf "$src/debian" && cp -r "$top/contrib/debian" "$src/debian"
subst() {
  sed -e "s|@SLURM_VERSION@|$slurm_version|g" -e "s|@SLURM_PREFIX@|$SLURM_PREFIX|g" \
      -e "s|@SLURM_PLUGIN_DIR@|$plugin_dir|g" -e "s|@SLURM_PLUGIN_DIR_REL@|${plugin_dir#/}|g" \
      -e "s|@SLURM_SYSCONFDIR@|$sysconfdir|g" -e "s|@SLURM_SYSCONFDIR_REL@|${sysconfdir#/}|g" \
      -e "s|@SLURM_OWNER_NOTE@|$owner_note|g" "$1"
}
d=$src/debian
subst "$d/control.in" > "$d/control"
subst "$d/fabricfit-slurm-plugins.install.in" > "$d/fabricfit-slurm-plugins.install"
subst "$d/plugstack-fabricfit.conf.in" > "$d/plugstack-fabricfit.conf"
# dh_installdeb marks only files under /etc as conffiles: a Slurm configured with another
# sysconfdir (a source build's <prefix>/etc) gets its snippet listed explicitly.
case "$sysconfdir/" in
  /etc/*) ;;
  *) echo "$sysconfdir/plugstack.conf.d/fabricfit.conf" > "$d/fabricfit-slurm-plugins.conffiles" ;;
esac
# A Slurm owned by a package is pinned by Depends; a source-built one by the preinst check.
[ -n "$owner" ] || subst "$d/preinst.in" > "$d/fabricfit-slurm-plugins.preinst"
rm -f "$d"/*.in
cat > "$d/slurm.mk" <<EOM
SLURM_VERSION = $slurm_version
SLURM_PREFIX = $SLURM_PREFIX
SLURM_SRC = $SLURM_SRC
SLURM_PLUGIN_DIR = $plugin_dir
SLURM_SYSCONFDIR = $sysconfdir
SLURM_DEPENDS = $slurm_depends
PLUGINS_VERSION = $plugins_version
EOM
# The last commit's date (SOURCE_DATE_EPOCH comes from it): the same tree builds the same
# packages.
changelog_date=$(git -C "$top" log -1 --format=%aD 2>/dev/null) || changelog_date=
[ -n "$changelog_date" ] || changelog_date=$(date -R)
cat > "$d/changelog" <<EOM
fabricfit ($deb_version) unstable; urgency=medium

  * Built by contrib/build-debs.sh for Slurm $slurm_version ($SLURM_PREFIX).

 -- fabricfit developers <fabricfit@localhost>  $changelog_date
EOM

# ---- build ----
log "dpkg-buildpackage: fabricfit $deb_version, plugins $plugins_version (Slurm $slurm_version, into $plugin_dir)"
opts="parallel=$(nproc)"
[ "$check" = yes ] || opts="$opts nocheck"
rm -f "$work"/*.deb "$work"/*.buildinfo "$work"/*.changes
(cd "$src" && DEB_BUILD_OPTIONS="$opts" dpkg-buildpackage -b -us -uc) \
  > "$work/build.log" 2>&1 || { tail -40 "$work/build.log" >&2; die "dpkg-buildpackage failed (log: $work/build.log)"; }
mkdir -p "$out"
for f in "$work"/fabricfit_"$deb_version"_*.deb "$work"/fabricfit-slurm-plugins_"$plugins_version"_*.deb; do
  [ -f "$f" ] || die "dpkg-buildpackage made no $(basename "$f")"
  mv "$f" "$out/"
  echo "$out/$(basename "$f")"
done
