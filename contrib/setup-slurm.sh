#!/usr/bin/env bash
# Prepares a Debian 12 machine for building and testing fabricfit:
#   1. installs the Debian packages the build, the lab and the tests need;
#   2. takes a Slurm release's source: by default 24.11 from Debian's source archive
#      (suite trixie), checked against the archive's Sources index; or a release tarball
#      the site has (--tarball FILE, checked with --sha256 HEX when given); or an already
#      configured Slurm source tree (--source DIR);
#   3. builds and installs it into $FABRICFIT_SLURM_PREFIX/<version>, keeping the
#      configured build tree in $FABRICFIT_SLURM_PREFIX/build/slurm-<version> (an
#      out-of-tree topology plugin needs its config.h and libtopology_common.a). A finished
#      build of the same version is reused (and given slurmdbd's MariaDB plugin if it
#      lacks it).
# Writes the paths it settled on as shell assignments into $FABRICFIT_SLURM_PREFIX/<version>.env
# and, for the default release (or with --current), into current.env; prints them.
#   contrib/setup-slurm.sh                          Slurm 24.11 from Debian's archive
#   contrib/setup-slurm.sh --tarball slurm-26.05.3.tar.bz2 [--sha256 HEX] [--current]
#   contrib/setup-slurm.sh --release 26.05.3        a finished build, or the tarball of that
#                                                   release from $FABRICFIT_SLURM_TARBALLS
#   contrib/setup-slurm.sh --source DIR [--current] a configured Slurm tree, built in place
set -euo pipefail

SLURM_SERIES=24.11
BASE=${FABRICFIT_SLURM_PREFIX:-/opt/fabricfit/slurm}
CACHE=${FABRICFIT_CACHE:-/var/cache/fabricfit}
JOBS=${FABRICFIT_JOBS:-$(nproc)}
top=$(cd "$(dirname "$0")/.." && pwd)
# Release tarballs with their SHA-256 in a README.md table (CI: shared/ beside the clone).
TARBALLS=${FABRICFIT_SLURM_TARBALLS:-$top/../shared/slurm}

log() { printf 'setup: %s\n' "$*" >&2; }
die() { printf 'setup: error: %s\n' "$*" >&2; exit 1; }

usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }

tarball_arg= sha_arg= source_arg= release_arg= current=no
while [ $# -gt 0 ]; do
  case $1 in
    --tarball) [ $# -ge 2 ] || die "--tarball needs a file"; tarball_arg=$(realpath -m "$2"); shift 2 ;;
    --sha256) [ $# -ge 2 ] || die "--sha256 needs a hash"; sha_arg=$2; shift 2 ;;
    --source) [ $# -ge 2 ] || die "--source needs a directory"; source_arg=$(realpath -m "$2"); shift 2 ;;
    --release) [ $# -ge 2 ] || die "--release needs a version"; release_arg=$2; shift 2 ;;
    --current) current=yes; shift ;;
    -h|--help) usage; exit 0 ;;
    *) die "unknown argument '$1' (see --help)" ;;
  esac
done
[ -z "$sha_arg" ] || [ -n "$tarball_arg" ] || die "--sha256 goes with --tarball"
[ -z "$sha_arg" ] || [[ $sha_arg =~ ^[0-9a-fA-F]{64}$ ]] || die "--sha256 wants 64 hex digits, not '$sha_arg'"
n_sources=0
for a in "$tarball_arg" "$source_arg" "$release_arg"; do [ -n "$a" ] && n_sources=$((n_sources + 1)); done
[ "$n_sources" -le 1 ] || die "give one of --tarball, --source, --release"
# The releases fabricfit's configure accepts.
supported() { case $1 in 24.11.*|25.11.*|26.05.*) return 0 ;; *) return 1 ;; esac; }

[ "$(id -u)" -eq 0 ] || die "must run as root (installs packages and builds into $BASE)"

PACKAGES=(
  build-essential autoconf automake libtool pkg-config dpkg-dev
  munge libmunge-dev libjson-c-dev libyaml-dev libhwloc-dev libssl-dev
  libmariadb-dev mariadb-server-core mariadb-client-core
  libibnetdisc-dev libibmad-dev libibumad-dev infiniband-diags ibsim-utils libumad2sim0 opensm
  libboost-graph-dev libfmt-dev nlohmann-json3-dev libcli11-dev libyaml-cpp-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  clang-format clang-tidy clang
  # clang's libFuzzer and sanitizer runtimes (`make fuzz`, contrib/run-sanitizers.sh): only a
  # Recommends of clang, which --no-install-recommends leaves out.
  libclang-rt-14-dev
  jq python3
  gdb file
  # What a minimal Debian 12 (the debian:12 image, mmdebstrap --variant=minbase) lacks and
  # the lab and the tests use: ss (the tests' free ports, the loopback checks), ps (lab.sh
  # down finds a daemon's children), bzip2 (the Slurm release tarballs).
  iproute2 procps bzip2
  chromium
  debhelper mmdebstrap
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

# ---- where the source comes from: sets version and, unless a finished build is reused,
# tarball (+ want_sha) or source_tree ----
debian_tarball() {
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

  mkdir -p "$CACHE/src"
  if [ ! -f "$CACHE/src/$tarball" ] || ! echo "$want_sha  $CACHE/src/$tarball" | sha256sum -c --quiet - 2>/dev/null; then
    rm -f "$CACHE/src/$tarball"
    log "fetching $tarball"
    # The .debian.tar.xz may answer 404 on this archive; the upstream tarball is all we need.
    (cd "$CACHE/src" && apt-get source --download-only "slurm-wlm/trixie" >&2) || true
    [ -f "$CACHE/src/$tarball" ] || die "could not download $tarball from the Debian source archive"
  fi
  tarball=$CACHE/src/$tarball
}

# Version of a Slurm release tarball, from its META file (Major/Minor/Micro).
tarball_version() {
  local meta
  meta=$(tar -xOf "$1" --wildcards '*/META' 2>/dev/null | head -n 40) || true
  awk '$1 == "Major:" { ma = $2 } $1 == "Minor:" { mi = $2 } $1 == "Micro:" { mc = $2 }
       END { if (ma != "" && mi != "" && mc != "") print ma "." mi "." mc }' <<<"$meta"
}

# The SHA-256 a README.md table in $TARBALLS gives for a file name.
listed_sha() {
  [ -r "$TARBALLS/README.md" ] || return 0
  awk -F'|' -v f="$1" '{ gsub(/ /, "", $2); gsub(/ /, "", $4) } $2 == f { print $4; exit }' "$TARBALLS/README.md"
}

tarball= want_sha= source_tree= version=
if [ -n "$source_arg" ]; then
  [ -f "$source_arg/config.h" ] && [ -f "$source_arg/slurm/slurm_version.h" ] ||
    die "$source_arg is not a configured Slurm source tree (no config.h or slurm/slurm_version.h)"
  hex=$(awk '$1 == "#define" && $2 == "SLURM_VERSION_NUMBER" { print $3; exit }' "$source_arg/slurm/slurm_version.h")
  n=$((hex)); version="$(( (n >> 16) & 255 )).$(( (n >> 8) & 255 )).$(( n & 255 ))"
  # slurm_version.h spells the minor without its leading zero (26.5.3): use the release name.
  version=$(awk -F. '{ printf "%d.%02d.%d", $1, $2, $3 }' <<<"$version")
  source_tree=$source_arg
elif [ -n "$tarball_arg" ]; then
  [ -r "$tarball_arg" ] || die "$tarball_arg is not readable"
  if [ -n "$sha_arg" ]; then
    echo "${sha_arg,,}  $tarball_arg" | sha256sum -c --quiet - 2>/dev/null ||
      die "$tarball_arg does not match the SHA-256 given ($sha_arg): $(sha256sum "$tarball_arg" | cut -d' ' -f1)"
    log "$(basename "$tarball_arg") matches sha256 $sha_arg"
  else
    log "warning: no --sha256 for $tarball_arg: its integrity is not checked"
  fi
  version=$(tarball_version "$tarball_arg")
  [ -n "$version" ] || die "$tarball_arg has no META file with Major/Minor/Micro: not a Slurm release tarball?"
  tarball=$tarball_arg; want_sha=$sha_arg
elif [ -n "$release_arg" ]; then
  version=$release_arg
  [[ $version =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || die "--release wants a full version such as 26.05.3, not '$version'"
  if [ ! -f "$BASE/$version/.fabricfit-built" ]; then
    tarball=$TARBALLS/slurm-$version.tar.bz2
    [ -r "$tarball" ] || die "no finished build in $BASE/$version and no $tarball: use --tarball FILE"
    want_sha=$(listed_sha "slurm-$version.tar.bz2")
    [ -n "$want_sha" ] || die "$TARBALLS/README.md lists no sha256 for slurm-$version.tar.bz2"
    echo "$want_sha  $tarball" | sha256sum -c --quiet - 2>/dev/null ||
      die "$tarball does not match the sha256 $TARBALLS/README.md lists ($want_sha)"
    log "$(basename "$tarball") matches sha256 $want_sha ($TARBALLS/README.md)"
  fi
else
  debian_tarball
  current=yes
  echo "$want_sha  $tarball" | sha256sum -c --quiet - || die "$tarball does not match the archive's SHA256 $want_sha"
fi
supported "$version" || die "Slurm $version is not supported: fabricfit builds against Slurm 24.11, 25.11 or 26.05"

PREFIX=$BASE/$version
BUILD=$BASE/build/slurm-$version
if [ -n "$source_tree" ]; then
  # A tree the site configured: it is built and installed where its configure said.
  BUILD=$source_tree
  PREFIX=$(awk '$1 == "prefix" && $2 == "=" { print $3; exit }' "$BUILD/Makefile" 2>/dev/null || true)
  [ -n "$PREFIX" ] || die "$BUILD/Makefile names no prefix: run Slurm's configure there first"
fi
STAMP=$PREFIX/.fabricfit-built
# One build of a version at a time: a second setup (a rerun of run-tests.sh while an
# interrupted one's build still runs, say) waits for the first, then reuses what it built
# instead of deleting its tree from under it.
mkdir -p "$BASE"
exec 9> "$BASE/.setup-$version.lock"
if ! flock -n 9; then
  log "another setup is building Slurm $version: waiting for it"
  flock 9 || die "could not lock $BASE/.setup-$version.lock"
fi

if [ -f "$STAMP" ] && [ -x "$PREFIX/sbin/slurmctld" ] && [ -f "$BUILD/config.h" ]; then
  log "reusing Slurm $version in $PREFIX (build tree $BUILD)"
elif [ -n "$source_tree" ]; then
  log "building Slurm $version in $BUILD, installing into $PREFIX"
  (
    cd "$BUILD"
    make -j"$JOBS" > make.log 2>&1 || { tail -60 make.log >&2; exit 1; }
    make install > install.log 2>&1 || { tail -40 install.log >&2; exit 1; }
  ) || die "Slurm build failed (logs in $BUILD)"
  touch "$STAMP"
  log "Slurm $version installed in $PREFIX"
else
  log "building Slurm $version into $PREFIX (about 6 minutes on 2 cores)"
  rm -rf "$BUILD" "$PREFIX"
  mkdir -p "$BUILD"
  tar -xf "$tarball" -C "$BUILD" --strip-components=1
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

# slurmdbd's MariaDB plugin (the lab's --accounting slurmdbd). A build made before the
# MariaDB headers were installed lacks it: its tree is configured again with the same
# arguments, and only that plugin and the library it links are built and installed.
if [ ! -e "$PREFIX/lib/slurm/accounting_storage_mysql.so" ] && [ -z "$source_tree" ]; then
  log "adding slurmdbd's accounting_storage/mysql plugin to Slurm $version in $PREFIX"
  (
    cd "$BUILD"
    ./config.status --recheck > recheck.log 2>&1 && ./config.status > recheck.log 2>&1 ||
      { tail -40 recheck.log >&2; exit 1; }
    grep -q '^#define HAVE_MYSQL 1' config.h || { echo "configure did not find MariaDB's headers" >&2; exit 1; }
    make -C src/database > mysql-plugin.log 2>&1 &&
      make -C src/plugins/accounting_storage/mysql install >> mysql-plugin.log 2>&1 ||
      { tail -40 mysql-plugin.log >&2; exit 1; }
  ) || die "could not build Slurm's accounting_storage/mysql plugin (logs in $BUILD)"
fi

ENV_FILE=$BASE/$version.env
mkdir -p "$(dirname "$ENV_FILE")"
cat > "$ENV_FILE.tmp" <<EOE
SLURM_VERSION=$version
SLURM_PREFIX=$PREFIX
SLURM_SRC=$BUILD
EOE
mv "$ENV_FILE.tmp" "$ENV_FILE"
if [ "$current" = yes ]; then
  CURRENT_ENV=${FABRICFIT_ENV_FILE:-$BASE/current.env}
  cp "$ENV_FILE" "$CURRENT_ENV.tmp" && mv "$CURRENT_ENV.tmp" "$CURRENT_ENV"
fi
cat "$ENV_FILE"
