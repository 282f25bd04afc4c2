#!/usr/bin/env bash
# The Debian packages an admin installs (contrib/build-debs.sh, docs/packages.md):
#   - built with dpkg-buildpackage for the default Slurm release (FABRICFIT_SLURM_VERSION);
#   - the command's package installs with apt on a fresh Debian system (a throw-away root
#     made by mmdebstrap, cached in /var/cache/fabricfit) that has no Slurm and none of the
#     build's libraries, so a missing shared-library Depends fails, and its fabricfit runs;
#   - the plugins' package refuses to install where the Slurm at its prefix is another
#     release (the real other release mounted there, in that root);
#   - installed here with dpkg -i, the lab's placement test passes on the package's files.
# The plugins' files the build installed here before are put back at the end.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

[ "$(id -u)" -eq 0 ] || skip_all "needs root (dpkg -i, chroot)"
base=${FABRICFIT_SLURM_PREFIX:-/opt/fabricfit/slurm}
cache=${FABRICFIT_CACHE:-/var/cache/fabricfit}
release=${FABRICFIT_SLURM_VERSION:-$(. "${FABRICFIT_SLURM_ENV:-$base/current.env}" && echo "$SLURM_VERSION")}
prefix=$base/$release
plugin_dir=$prefix/lib/slurm
for tool in dpkg-buildpackage dh mmdebstrap unshare chroot; do
  command -v "$tool" > /dev/null || { fail "$tool is installed (contrib/setup-slurm.sh installs debhelper, mmdebstrap)"; done_testing; }
done

make_tmpdir ff-test-debs
out=$TEST_TMPDIR/debs
version=$(sed -n 's/^AC_INIT(\[fabricfit\], \[\([^]]*\)\].*/\1/p' "$TOP_SRCDIR/configure.ac")

# ---- build (FABRICFIT_DEBS_DIR: packages build-debs.sh made already, e.g. a rerun) ----
if [ -n "${FABRICFIT_DEBS_DIR:-}" ]; then
  mkdir -p "$out" && cp "$FABRICFIT_DEBS_DIR"/*.deb "$out/"
  diag "packages from $FABRICFIT_DEBS_DIR (not built by this run)"
elif ! "$TOP_SRCDIR/contrib/build-debs.sh" --slurm "$release" --out "$out" > "$TEST_TMPDIR/build.log" 2>&1; then
  fail "contrib/build-debs.sh --slurm $release" "$(tail -30 "$TEST_TMPDIR/build.log")"
  done_testing
fi
cmd_deb=$(ls "$out"/fabricfit_"$version"-*.deb 2>/dev/null | head -n1)
plug_deb=$(ls "$out"/fabricfit-slurm-plugins_"$version"-*+slurm"$release"_*.deb 2>/dev/null | head -n1)
check "build-debs.sh made the command's package ($(basename "${cmd_deb:-none}"))" test -f "$cmd_deb"
check "and the plugins' package for Slurm $release ($(basename "${plug_deb:-none}"))" test -f "$plug_deb"
[ -f "$cmd_deb" ] && [ -f "$plug_deb" ] || done_testing

cmd_depends=$(dpkg-deb -f "$cmd_deb" Depends)
check "the command's Depends are shared libraries from shlibs, no Slurm: $cmd_depends" \
  bash -c '[[ "$1" == *libfmt* && "$1" == *libibnetdisc* && "$1" == *libc6* && "$1" != *slurm* ]]' _ "$cmd_depends"
check "the command's package has the CLI, man pages, systemd units and docs" \
  bash -c 'c=$(dpkg-deb -c "$1"); for f in ./usr/bin/fabricfit ./usr/share/man/man1/fabricfit.1.gz \
    ./usr/share/man/man5/fabricfit.conf.5.gz ./lib/systemd/system/fabricfit-discover.timer \
    ./usr/share/doc/fabricfit/README.md.gz; do grep -q " $f\$" <<<"$c" || { echo "missing $f"; exit 1; }; done' _ "$cmd_deb"
plug_version=$(dpkg-deb -f "$plug_deb" Version)
check "the plugins' version names the Slurm release ($plug_version)" \
  bash -c '[[ "$1" == *"+slurm$2" ]]' _ "$plug_version" "$release"
check "its description names it too" bash -c 'dpkg-deb -f "$1" Description | grep -q "Slurm $2"' _ "$plug_deb" "$release"
check "its files are the two plugins in $plugin_dir and the plugstack.conf snippet" \
  bash -c 'c=$(dpkg-deb -c "$1"); grep -q " .$2/topology_fabricfit.so\$" <<<"$c" && grep -q " .$2/fabricfit.so\$" <<<"$c" &&
    grep -q "/plugstack.conf.d/fabricfit.conf\$" <<<"$c"' _ "$plug_deb" "$plugin_dir"
owner=$(dpkg-query -S "$plugin_dir/topology_tree.so" 2>/dev/null | cut -d: -f1)
if [ -z "$owner" ]; then
  # Source-built Slurm: no package to depend on; the preinst checks the release.
  check "Slurm in $prefix belongs to no package: the plugins' Depends name no Slurm ($(dpkg-deb -f "$plug_deb" Depends))" \
    bash -c '! dpkg-deb -f "$1" Depends | grep -qi slurm' _ "$plug_deb"
  check "and its preinst checks the release in $prefix" \
    bash -c 'dpkg-deb -I "$1" preinst | grep -q "^want=$2\$"' _ "$plug_deb" "$release"
else
  check "Slurm in $prefix is package $owner: the plugins depend on it at release $release only" \
    bash -c 'dpkg-deb -f "$1" Depends | grep -qF "$2 (<< "' _ "$plug_deb" "$owner"
fi
check "the snippet is a conffile" bash -c 'dpkg-deb -I "$1" conffiles | grep -q "/plugstack.conf.d/fabricfit.conf$"' _ "$plug_deb"

# ---- a fresh Debian system: mmdebstrap root (cached), apt installs the command ----
codename=$(. /etc/os-release && echo "$VERSION_CODENAME")
root_tar=$cache/debroot-$codename.tar
if [ ! -s "$root_tar" ]; then
  # The machine's own Debian archive entries (binary, this release's suites).
  sources=()
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] && grep -q "$codename" "$f" && grep -qE '^(deb |Types:.*\bdeb\b)' "$f" && sources+=("$f")
  done
  mkdir -p "$cache"
  # mmdebstrap writes a tarball when the name ends in .tar (else a directory).
  if ! mmdebstrap --variant=apt "$codename" "$cache/.debroot-$codename.tmp.tar" "${sources[@]}" > "$TEST_TMPDIR/mmdebstrap.log" 2>&1; then
    rm -rf "$cache/.debroot-$codename.tmp.tar"
    fail "mmdebstrap made a $codename root" "$(tail -20 "$TEST_TMPDIR/mmdebstrap.log")"
    done_testing
  fi
  mv "$cache/.debroot-$codename.tmp.tar" "$root_tar"
fi
root=$TEST_TMPDIR/root
mkdir -p "$root" && tar -C "$root" -xf "$root_tar"
cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
cp "$cmd_deb" "$plug_deb" "$root/tmp/"
# The root's /proc and /dev (and, below, the other Slurm release) are mounted for each
# command in a mount namespace of its own, where they vanish with it. Inside a chroot or
# a container unshare may not be able to make that namespace ("cannot change root
# filesystem propagation": / there is no mount point of its own). Then the mounts are made
# in this namespace, slaves of nothing outside (rslave: their unmounting cannot reach the
# machine's /dev), and undone after each command. Where even that is refused, the checks
# on the root cannot run here: one line says so.
if unshare --mount --fork true 2> "$TEST_TMPDIR/unshare.err"; then
  mount_ns=yes
elif mount -t proc proc "$root/proc" 2> "$TEST_TMPDIR/mount.err" && umount "$root/proc"; then
  mount_ns=no
  diag "unshare --mount cannot run here ($(head -n 1 "$TEST_TMPDIR/unshare.err")): the root's mounts are made and undone in this mount namespace"
else
  mount_ns=none
fi
# in_root CMD: CMD (a shell command) in the root, with /proc and /dev.
in_root() {
  if [ "$mount_ns" = yes ]; then
    unshare --mount --fork sh -c 'mount -t proc proc "$1/proc" && mount --rbind /dev "$1/dev" &&
      shift && exec chroot "$0" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive sh -c "$1"' "$root" "$root" "$1"
    return
  fi
  local rc
  mount -t proc proc "$root/proc" || return 1
  if ! { mount --rbind /dev "$root/dev" && mount --make-rslave "$root/dev"; }; then
    umount -R "$root/dev" 2> /dev/null; umount "$root/proc"; return 1
  fi
  chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive sh -c "$1"
  rc=$?
  umount -R "$root/dev"; umount "$root/proc"
  return $rc
}
# dpkg_i_over RELEASE-DIR DEB: dpkg -i of DEB in the root, with RELEASE-DIR mounted
# read-only at $prefix there; prints dpkg's output, returns its status.
dpkg_i_over() {
  if [ "$mount_ns" = yes ]; then
    unshare --mount --fork sh -c 'mount --bind -o ro "$1" "$2" && mount -o remount,bind,ro "$2" &&
      exec chroot "$3" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin dpkg -i "/tmp/$4"' \
      _ "$1" "$root$prefix" "$root" "$2" 2>&1
    return
  fi
  local rc
  mount --bind "$1" "$root$prefix" || return 1
  if ! { mount --make-private "$root$prefix" && mount -o remount,bind,ro "$root$prefix"; }; then
    umount "$root$prefix"; return 1
  fi
  chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin dpkg -i "/tmp/$2" 2>&1
  rc=$?
  umount "$root$prefix"
  return $rc
}
if [ "$mount_ns" = none ]; then
  # One plain line instead of a failure per check: this machine cannot run them at all.
  echo "ok $((_tap_n + 1)) # SKIP the fresh $codename root and the refusal check: this machine can neither unshare a mount namespace ($(head -n 1 "$TEST_TMPDIR/unshare.err")) nor mount /proc in a root ($(head -n 1 "$TEST_TMPDIR/mount.err")): a chroot or a container without CAP_SYS_ADMIN?"
  _tap_n=$((_tap_n + 1))
else
  check "a fresh $codename root, with apt, without Slurm and fabricfit" \
    bash -c '[ -x "$1/usr/bin/apt-get" ] && ! [ -e "$1/usr/bin/fabricfit" ] && ! [ -e "$1'"$prefix"'" ]' _ "$root"
  if in_root "apt-get -q update && apt-get install -y -q --no-install-recommends /tmp/$(basename "$cmd_deb")" > "$TEST_TMPDIR/apt.log" 2>&1; then
    ok "apt-get install ./$(basename "$cmd_deb") on a fresh $codename system"
  else
    fail "apt-get install ./$(basename "$cmd_deb") on a fresh $codename system" "$(tail -20 "$TEST_TMPDIR/apt.log")"
  fi
  installed_libs=$(grep -o 'Setting up lib[^ ]*' "$TEST_TMPDIR/apt.log" | awk '{ print $3 }' | tr '\n' ' ')
  check "apt brought the shared libraries the Depends name (${installed_libs:-none})" \
    bash -c '[[ "$1" == *libfmt* && "$1" == *libibnetdisc* ]]' _ "$installed_libs"
  v=$(in_root "fabricfit --version" 2>&1)
  check "fabricfit --version there says \"fabricfit $version\" ($v)" test "$v" = "fabricfit $version"
  check "fabricfit runs a command there (generate | show)" \
    in_root "fabricfit generate --leaves 2 --hosts-per-leaf 4 -o /tmp/f.net && fabricfit show /tmp/f.net | grep -qi leaf"
  check "the systemd units there run /usr/bin/fabricfit" \
    bash -c 'grep -q "^ExecStart=/usr/bin/fabricfit " "$1/lib/systemd/system/fabricfit-discover.service"' _ "$root"

  # ---- the plugins refuse a Slurm of another release at their prefix ----
  other=
  for d in "$base"/*/.fabricfit-built; do
    r=$(basename "$(dirname "$d")")
    [ "$r" != "$release" ] && other=$r && break
  done
  if [ -z "$other" ]; then
    fail "another Slurm release is built in $base (contrib/setup-slurm.sh --release 25.11.7) for the refusal check"
  else
    # The real $other installation, read-only, where the package expects $release.
    mkdir -p "$root$prefix"
    msg=$(dpkg_i_over "$base/$other" "$(basename "$plug_deb")")
    rc=$?
    check "dpkg -i of the plugins for $release fails where $prefix holds Slurm $other (exit $rc)" test "$rc" -ne 0
    check "its preinst says why: $(grep -m1 'built for' <<<"$msg")" \
      bash -c 'grep -q "built for Slurm $2, but the Slurm in $3 is $4" <<<"$1"' _ "$msg" "$release" "$prefix" "$other"
    check "and the package is not installed there" \
      bash -c '! chroot "$1" dpkg-query -W -f="\${Status}" fabricfit-slurm-plugins 2>/dev/null | grep -q "ok installed"' _ "$root"
  fi
fi

# ---- installed here: the lab's placement test on the package's files ----
backup=$TEST_TMPDIR/backup
mkdir -p "$backup"
for f in topology_fabricfit.so fabricfit.so; do [ -e "$plugin_dir/$f" ] && cp -a "$plugin_dir/$f" "$backup/"; done
# Puts back what the build had installed (copy, then rename: running daemons keep theirs).
restore_plugins() {
  local f
  dpkg --purge fabricfit-slurm-plugins fabricfit > "$TEST_TMPDIR/purge.log" 2>&1
  for f in "$backup"/*.so; do
    [ -e "$f" ] || continue
    cp -a "$f" "$plugin_dir/.$(basename "$f").restore" && mv -f "$plugin_dir/.$(basename "$f").restore" "$plugin_dir/$(basename "$f")"
  done
}
restored=no
trap 'rc=$?; [ "$restored" = yes ] || restore_plugins; (exit $rc); _lib_on_exit' EXIT

if dpkg -i "$cmd_deb" "$plug_deb" > "$TEST_TMPDIR/dpkg.log" 2>&1; then
  ok "dpkg -i of both packages here, where $prefix holds Slurm $release"
else
  fail "dpkg -i of both packages here" "$(tail -20 "$TEST_TMPDIR/dpkg.log")"
fi
for f in topology_fabricfit.so fabricfit.so; do
  check "$plugin_dir/$f belongs to fabricfit-slurm-plugins" \
    bash -c 'dpkg-query -S "$1" | grep -q "^fabricfit-slurm-plugins: "' _ "$plugin_dir/$f"
done
check "the installed files are the package's (dpkg --verify)" bash -c '[ -z "$(dpkg --verify fabricfit-slurm-plugins fabricfit)" ]'

# The placement test with the package's command and plugins (no --plugin-dir: the lab
# loads from Slurm's plugin directory); its lab is kept to read what it loaded.
place_log=$TEST_TMPDIR/placement.log
env -u FABRICFIT_PLUGIN_DIR FABRICFIT_SLURM_VERSION="$release" FABRICFIT_KEEP_LAB=1 \
  PATH="/usr/bin:$PATH" FABRICFIT_BIN=/usr/bin/fabricfit bash "$here/test_placement_lab.sh" > "$place_log" 2>&1
place_rc=$?
p_ok=$(grep -c '^ok ' "$place_log"); p_fail=$(grep -c '^not ok ' "$place_log")
if [ "$place_rc" -eq 0 ] && [ "$p_fail" -eq 0 ] && [ "$p_ok" -gt 0 ]; then
  ok "test_placement_lab.sh on the installed packages: $p_ok passed"
else
  fail "test_placement_lab.sh on the installed packages: $p_ok passed, $p_fail failed (exit $place_rc)" "$(grep -E '^(not ok|#)' "$place_log" | head -20)"
fi
place_dir=$(sed -n 's/^# lab directories (logs) kept: //p' "$place_log" | awk '{ print $1 }')
if [ -n "$place_dir" ] && [ -f "$place_dir/lab/slurm.conf" ]; then
  lab_plugin_dir=$(sed -n 's/^PluginDir=//p' "$place_dir/lab/slurm.conf")
  lab_spank=$(awk '$1 == "optional" || $1 == "required" { print $2; exit }' "$place_dir/lab/plugstack.conf")
  check "that lab loaded topology/fabricfit from $lab_plugin_dir, the package's" \
    bash -c '[ "$1" = "$2" ] && dpkg-query -S "$1/topology_fabricfit.so" | grep -q "^fabricfit-slurm-plugins: "' _ "$lab_plugin_dir" "$plugin_dir"
  check "and the SPANK plugin $lab_spank, the package's" \
    bash -c 'dpkg-query -S "$1" | grep -q "^fabricfit-slurm-plugins: "' _ "$lab_spank"
  check "and it ran the package's command (FABRICFIT_BIN=/usr/bin/fabricfit: generate, discover)" \
    bash -c 'dpkg-query -S /usr/bin/fabricfit | grep -q "^fabricfit: "'
  # Its logs stay when it failed.
  [ "$place_rc" -ne 0 ] || rm -rf "$place_dir"
else
  fail "the placement test's lab directory was kept" "$(tail -5 "$place_log")"
fi
check "the installed files are still the package's after the lab" bash -c '[ -z "$(dpkg --verify fabricfit-slurm-plugins fabricfit)" ]'

# ---- removed, and the build's files back ----
restore_plugins; restored=yes
check "dpkg --purge removed both packages" \
  bash -c '! dpkg-query -W -f="\${Status}" fabricfit fabricfit-slurm-plugins 2>/dev/null | grep -q installed'
check "no package owns $plugin_dir/topology_fabricfit.so any more" bash -c '! dpkg-query -S "$1" > /dev/null 2>&1' _ "$plugin_dir/topology_fabricfit.so"
for f in "$backup"/*.so; do
  [ -e "$f" ] || continue
  check "$(basename "$f") is the one installed before the test again" cmp -s "$f" "$plugin_dir/$(basename "$f")"
done
done_testing
