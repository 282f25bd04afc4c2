#!/usr/bin/env bash
# Prepares a Debian 12 machine for building and testing fabricfit:
#   1. installs the Debian packages the build, the lab and the tests need;
#   2. fetches Slurm 24.11's source from Debian's source archive (suite trixie),
#      checks it against the archive's Sources index;
#   3. builds and installs it into $FABRICFIT_SLURM_PREFIX/<version>, keeping the
#      configured build tree (an out-of-tree topology plugin needs its config.h and
#      libtopology_common.a). A finished build of the same version is reused.
# Prints the paths it settled on as shell assignments into $FABRICFIT_ENV_FILE.
set -euo pipefail

SLURM_SERIES=24.11
BASE=${FABRICFIT_SLURM_PREFIX:-/opt/fabricfit/slurm}
CACHE=${FABRICFIT_CACHE:-/var/cache/fabricfit}
ENV_FILE=${FABRICFIT_ENV_FILE:-$BASE/current.env}
JOBS=${FABRICFIT_JOBS:-$(nproc)}

log() { printf 'setup: %s\n' "$*" >&2; }
die() { printf 'setup: error: %s\n' "$*" >&2; exit 1; }

[ "$(id -u)" -eq 0 ] || die "must run as root (installs packages and builds into $BASE)"

PACKAGES=(
  build-essential autoconf automake libtool pkg-config dpkg-dev
  munge libmunge-dev libjson-c-dev libyaml-dev libhwloc-dev libssl-dev
  libibnetdisc-dev libibmad-dev libibumad-dev infiniband-diags ibsim-utils libumad2sim0 opensm
  libboost-graph-dev libfmt-dev nlohmann-json3-dev libcli11-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  clang-format clang-tidy
  jq
  chromium
)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  log "installing packages: ${missing[*]}"
  apt-get update -q >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" >&2
fi

# Debian 12 ships Slurm 22.05, whose topology API has no node selection hook; Debian 13
# (trixie) carries 24.11 in the same archive.
SRC_LIST=/etc/apt/sources.list.d/fabricfit-trixie-src.sources
if [ ! -f "$SRC_LIST" ]; then
  log "adding deb-src entry for trixie in $SRC_LIST"
  cat > "$SRC_LIST" <<'EOS'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: trixie
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOS
  apt-get update -q >&2
fi

uris=$(cd /tmp && apt-get source --print-uris slurm-wlm/trixie 2>/dev/null) || true
if ! grep -q "orig.tar.gz" <<<"$uris"; then
  apt-get update -q >&2
  uris=$(cd /tmp && apt-get source --print-uris slurm-wlm/trixie) || die "apt-get source cannot find slurm-wlm in trixie"
fi
orig_line=$(grep -E "slurm-wlm_[0-9.]+\.orig\.tar\.gz" <<<"$uris" | head -n1)
tarball=$(awk '{print $2}' <<<"$orig_line")
want_sha=$(awk '{print $4}' <<<"$orig_line" | sed 's/^SHA256://')
version=${tarball#slurm-wlm_}; version=${version%.orig.tar.gz}
case "$version" in
  "$SLURM_SERIES".*) ;;
  *) die "the archive serves Slurm $version, not a $SLURM_SERIES release" ;;
esac
[ -n "$want_sha" ] || die "no SHA256 for $tarball in the Sources index"
log "the archive serves Slurm $version ($tarball, sha256 $want_sha)"

PREFIX=$BASE/$version
BUILD=$BASE/build/slurm-$version
STAMP=$PREFIX/.fabricfit-built

if [ -f "$STAMP" ] && [ -x "$PREFIX/sbin/slurmctld" ] && [ -f "$BUILD/config.h" ]; then
  log "reusing Slurm $version in $PREFIX (build tree $BUILD)"
else
  mkdir -p "$CACHE/src"
  if [ ! -f "$CACHE/src/$tarball" ] || ! echo "$want_sha  $CACHE/src/$tarball" | sha256sum -c --quiet - 2>/dev/null; then
    rm -f "$CACHE/src/$tarball"
    log "fetching $tarball"
    # The .debian.tar.xz may answer 404 on this archive; the upstream tarball is all we need.
    (cd "$CACHE/src" && apt-get source --download-only "slurm-wlm/trixie" >&2) || true
    [ -f "$CACHE/src/$tarball" ] || die "could not download $tarball from the Debian source archive"
  fi
  echo "$want_sha  $CACHE/src/$tarball" | sha256sum -c --quiet - || die "$tarball does not match the archive's SHA256 $want_sha"

  log "building Slurm $version into $PREFIX (about 6 minutes on 2 cores)"
  rm -rf "$BUILD" "$PREFIX"
  mkdir -p "$BUILD"
  tar -xzf "$CACHE/src/$tarball" -C "$BUILD" --strip-components=1
  (
    cd "$BUILD"
    ./configure --prefix="$PREFIX" --sysconfdir="$PREFIX/etc" --enable-multiple-slurmd \
      --disable-debug --without-rpath > configure.log 2>&1 || { tail -40 configure.log >&2; exit 1; }
    make -j"$JOBS" > make.log 2>&1 || { tail -60 make.log >&2; exit 1; }
    make install > install.log 2>&1 || { tail -40 install.log >&2; exit 1; }
  ) || die "Slurm build failed (logs in $BUILD)"
  touch "$STAMP"
  log "Slurm $version installed in $PREFIX"
fi

mkdir -p "$(dirname "$ENV_FILE")"
cat > "$ENV_FILE.tmp" <<EOE
SLURM_VERSION=$version
SLURM_PREFIX=$PREFIX
SLURM_SRC=$BUILD
EOE
mv "$ENV_FILE.tmp" "$ENV_FILE"
cat "$ENV_FILE"
