#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Fourth CI target: the Debian package. Builds contextlens_<version>_<arch>.deb with CPack from leg 1's
# release build (without one: a release build without the tests, build-package), validates its desktop
# entry and AppStream metainfo, then installs it with apt in a fresh Debian 12 (bookworm) chroot made
# with debootstrap, apt resolving its Depends from the mirror, and runs the installed programs there:
# the GUI offscreen on the installed demo transcript (--screenshot) and contextlens-cli with the
# installed BPE vocabularies.
# Needs root, debootstrap and network access to the Debian mirror. Nothing is kept afterwards but the
# build directory.
#
#   scripts/ci-package.sh                  all of it
#   scripts/ci-package.sh --prepare ROOT   only the tools and the fresh Debian 12 in the empty
#                                          directory ROOT (debootstrap), to overlap with leg 1
#   scripts/ci-package.sh --root ROOT      all of it, in a chroot --prepare made; removes it
set -euo pipefail
cd "$(dirname "$0")/.."
src=$PWD
dir=build-package
id=io.github.contextlens.ContextLens
demo=/usr/share/contextlens/demo/demo-session.jsonl
mode=all
root=
case ${1:-} in
  --prepare) mode=prepare; root=${2:?--prepare needs a directory} ;;
  --root) mode=run; root=${2:?--root needs a directory} ;;
  "") ;;
  *) echo "usage: $0 [--prepare ROOT | --root ROOT]" >&2; exit 2 ;;
esac

prepare() {
  # Packaging and checking tools (not needed by the build itself, so not in deps-debian.txt).
  local need=() mirror
  command -v debootstrap >/dev/null || need+=(debootstrap)
  command -v dpkg-shlibdeps >/dev/null || need+=(dpkg-dev)
  command -v appstreamcli >/dev/null || need+=(appstream)
  command -v desktop-file-validate >/dev/null || need+=(desktop-file-utils)
  command -v file >/dev/null || need+=(file)
  if ((${#need[@]})); then
    echo "== installing: ${need[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -o DPkg::Lock::Timeout=600 --no-install-recommends \
      "${need[@]}" >/dev/null
  fi
  mirror=$(awk '/^URIs:/ {print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
  [ -n "$mirror" ] || mirror=http://deb.debian.org/debian
  chmod 755 "$root"
  echo "== debootstrap bookworm from $mirror into $root"
  debootstrap --variant=minbase bookworm "$root" "$mirror" >"$root.debootstrap.log" 2>&1 \
    || { tail -50 "$root.debootstrap.log"; return 1; }
  rm -f "$root.debootstrap.log"
  cp /etc/resolv.conf "$root/etc/resolv.conf"
  touch "$root/.contextlens-prepared"
}

if [ "$mode" = prepare ]; then
  prepare
  exit 0
fi
[ "$mode" = run ] || root=$(mktemp -d /tmp/contextlens-bookworm.XXXXXX)
tmp=$(mktemp -d /tmp/contextlens-package.XXXXXX)
cleanup() {
  umount "$root/proc" 2>/dev/null || true
  rm -rf --one-file-system "$root" "$tmp"
}
trap cleanup EXIT
if [ "$mode" = all ]; then
  prepare
else
  [ -f "$root/.contextlens-prepared" ] || { echo "$root: not a chroot made by --prepare"; exit 1; }
fi

# --- (a) the package ------------------------------------------------------------------------------
# From leg 1's release build when it is there (the same sources and flags; tests and benchmarks have no
# install rules, so the package is what a -DBUILD_TESTING=OFF build gives, without compiling it all a
# third time), else from a clean release build without tests, as the README says.
if [ -f build/CMakeCache.txt ] && grep -q '^CMAKE_BUILD_TYPE:STRING=Release$' build/CMakeCache.txt; then
  dir=build
  echo "== packaging leg 1's release build ($dir)"
  cmake --build "$dir" -j2 >/dev/null
  rm -f "$dir"/contextlens_*.deb
  # The README's -DBUILD_TESTING=OFF still configures (no tests, no benchmarks).
  cmake -S . -B "$tmp/no-tests" -G Ninja -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF >"$tmp/no-tests.log" 2>&1 \
    || { cat "$tmp/no-tests.log"; exit 1; }
  [ ! -f "$tmp/no-tests/CTestTestfile.cmake" ] || { echo "-DBUILD_TESTING=OFF still configured tests"; exit 1; }
else
  rm -rf "$dir"
  # Reuse the vocabularies leg 1 fetched (fetch-vocab.sh re-verifies them); else setup.sh fetches them.
  if [ -d build/vocab ]; then
    mkdir -p "$dir" && cp -r build/vocab "$dir/"
  fi
  scripts/setup.sh "$dir" -DBUILD_TESTING=OFF
  [ ! -f "$dir/CTestTestfile.cmake" ] || { echo "-DBUILD_TESTING=OFF still configured tests"; exit 1; }
fi
for f in o200k_base.tiktoken cl100k_base.tiktoken; do
  [ -f "$dir/vocab/$f" ] || { echo "no $dir/vocab/$f: the package would have no exact token counts"; exit 1; }
done
echo "== cpack -G DEB"
(cd "$dir" && cpack -G DEB) >"$tmp/cpack.log" 2>&1 || { cat "$tmp/cpack.log"; exit 1; }
debs=("$dir"/contextlens_*.deb)
[ ${#debs[@]} -eq 1 ] && [ -f "${debs[0]}" ] || { echo "expected one contextlens_*.deb in $dir"; ls "$dir"; exit 1; }
deb=${debs[0]}
dpkg-deb --field "$deb" Package Version Architecture Section Depends Recommends Installed-Size
host_count=$("$dir/app/contextlens-cli" tokens "$src/resources/demo/demo-session.jsonl")

# --- (b) the desktop entry and the metainfo, as packaged -------------------------------------------
dpkg-deb -x "$deb" "$tmp/x"
echo "== appstreamcli validate --no-net"
appstreamcli validate --no-net "$tmp/x/usr/share/metainfo/$id.metainfo.xml"
# The tree as a whole: the metainfo's launchable names the packaged .desktop file, and so on.
appstreamcli validate-tree --no-net "$tmp/x"
echo "== desktop-file-validate"
desktop-file-validate "$tmp/x/usr/share/applications/$id.desktop"
echo "desktop file valid"

# --- (c) a fresh Debian 12 installs it and runs it ------------------------------------------------
echo "== the fresh Debian 12 in $root"
mount -t proc proc "$root/proc"
mkdir -p "$root/pkg"
cp "$deb" "$root/pkg/"
chmod -R a+rX "$root/pkg"

chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
  ID="$id" DEMO="$demo" HOST_COUNT="$host_count" bash -euo pipefail -c '
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  cd /pkg
  echo "== apt-get install ./$(ls contextlens_*.deb)"
  apt-get install -y -qq ./contextlens_*.deb >/tmp/apt.log 2>&1 || { cat /tmp/apt.log; exit 1; }
  dpkg-query -W contextlens libqt6widgets6
  cd /
  [ ! -e /work ] || { echo "/work exists in the chroot: the build tree could hide a missing vocabulary"; exit 1; }

  echo "== installed files"
  for f in /usr/bin/contextlens /usr/bin/contextlens-cli \
           /usr/share/applications/$ID.desktop /usr/share/metainfo/$ID.metainfo.xml \
           /usr/share/icons/hicolor/scalable/apps/$ID.svg /usr/share/mime/packages/$ID.xml \
           /usr/share/contextlens/vocab/o200k_base.tiktoken /usr/share/contextlens/vocab/cl100k_base.tiktoken "$DEMO"; do
    [ -s "$f" ] || { echo "missing: $f"; exit 1; }
    echo "ok $f"
  done
  # shared-mime-info (when apt brought it) registers *.jsonl through its dpkg trigger.
  if [ -f /usr/share/mime/globs2 ]; then
    grep -q "application/jsonl:\*\.jsonl" /usr/share/mime/globs2 || { echo "*.jsonl is not registered"; exit 1; }
    echo "ok *.jsonl is application/jsonl"
  fi

  echo "== contextlens-cli info $DEMO"
  contextlens-cli info "$DEMO" >/tmp/info.txt || { cat /tmp/info.txt; exit 1; }
  cat /tmp/info.txt
  grep -q "^format *claude-code" /tmp/info.txt || { echo "info: not read as a Claude Code session"; exit 1; }

  echo "== contextlens-cli tokens --report $DEMO (exact counts from /usr/share/contextlens/vocab)"
  contextlens-cli tokens --report "$DEMO" >/tmp/tokens.txt || { cat /tmp/tokens.txt; exit 1; }
  cat /tmp/tokens.txt
  grep -q "estimator error against exact o200k_base" /tmp/tokens.txt || { echo "no exact o200k_base counts"; exit 1; }
  count=$(head -n1 /tmp/tokens.txt)
  [ "$count" = "$HOST_COUNT" ] || { echo "o200k_base count $count, the build tree says $HOST_COUNT"; exit 1; }
  contextlens-cli tokens --encoding cl100k_base "$DEMO" >/tmp/cl100k.txt || { cat /tmp/cl100k.txt; exit 1; }
  echo "exact token counts: o200k_base $count, cl100k_base $(cat /tmp/cl100k.txt)"

  echo "== QT_QPA_PLATFORM=offscreen contextlens --screenshot /tmp/shot.png $DEMO"
  QT_QPA_PLATFORM=offscreen contextlens --screenshot /tmp/shot.png "$DEMO"
'

# The screenshot, checked here (the chroot has no `file`): a PNG of the default size, and no blank
# window (the demo rendered is ~350 KB; an empty window compresses to a few KB).
shot=$root/tmp/shot.png
[ -f "$shot" ] || { echo "no screenshot"; exit 1; }
kind=$(file -b "$shot")
bytes=$(stat -c %s "$shot")
echo "screenshot: $kind, $bytes bytes"
[[ $kind == "PNG image data, 1400 x 860,"* ]] || { echo "not a 1400x860 PNG"; exit 1; }
((bytes > 100000)) || { echo "screenshot too small to show the transcript"; exit 1; }
echo "== package $(basename "$deb") installs and runs on a fresh Debian 12"
