#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Second CI target, and CI's sanitizer leg: a fresh Debian 13 (trixie) chroot made with debootstrap,
# with Qt 6.8 and KF6 SyntaxHighlighting, building ContextLens with highlighting compiled in and with
# AddressSanitizer + UndefinedBehaviorSanitizer, and running the whole suite under them.
# One tree for both: leg 1 already checks the -O3 Release build on Debian 12; this leg is about the
# newer compiler, Qt and KF6 and about memory errors, and a second sanitized tree (Debian 12,
# scripts/ci-sanitize.sh) would cost CI another half hour of compiling. -O1 without debug info:
# UBSan names file and line by itself, ASan's stacks name functions.
#
#   scripts/ci-trixie.sh                  make the chroot, build and test in it, remove it
#   scripts/ci-trixie.sh --prepare ROOT   only make the chroot in the empty directory ROOT
#                                         (debootstrap, build dependencies), to overlap with leg 1
#   scripts/ci-trixie.sh --root ROOT      build and test in a chroot --prepare made; removes it
# Needs root, debootstrap and network access to the Debian mirror. Nothing is kept afterwards.
set -euo pipefail
cd "$(dirname "$0")/.."
src=$PWD
mode=all
root=
case ${1:-} in
  --prepare) mode=prepare; root=${2:?--prepare needs a directory} ;;
  --root) mode=run; root=${2:?--root needs a directory} ;;
  "") ;;
  *) echo "usage: $0 [--prepare ROOT | --root ROOT]" >&2; exit 2 ;;
esac

prepare() {
  command -v debootstrap >/dev/null || {
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -o DPkg::Lock::Timeout=600 debootstrap
  }
  local mirror
  mirror=$(awk '/^URIs:/ {print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
  [ -n "$mirror" ] || mirror=http://deb.debian.org/debian
  # mktemp makes directories 0700: as the chroot's "/", that would stop every user but root
  # (tst_robustscan runs the CLI as nobody, whose loader then could not open libmimalloc).
  chmod 755 "$root"
  echo "== debootstrap trixie from $mirror into $root"
  debootstrap --variant=minbase trixie "$root" "$mirror" >"$root.debootstrap.log" 2>&1 \
    || { tail -50 "$root.debootstrap.log"; return 1; }
  rm -f "$root.debootstrap.log"
  cp /etc/resolv.conf "$root/etc/resolv.conf"
  cp scripts/deps-debian.txt "$root/deps-debian.txt"
  echo "== build dependencies in $root"
  chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 bash -euo pipefail -c '
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends libkf6syntaxhighlighting-dev mold \
      $(grep -v -e "^#" -e "^npm$" /deps-debian.txt) >/tmp/apt.log 2>&1 || { tail -50 /tmp/apt.log; exit 1; }
    dpkg-query -W qt6-base-dev libkf6syntaxhighlighting-dev'
  touch "$root/.contextlens-prepared"
}

cleanup() {
  umount "$root/proc" 2>/dev/null || true
  rm -rf --one-file-system "$root"
}

if [ "$mode" = all ]; then
  root=$(mktemp -d /tmp/contextlens-trixie.XXXXXX)
  trap cleanup EXIT
  prepare
elif [ "$mode" = prepare ]; then
  prepare
  exit 0
else
  trap cleanup EXIT
  [ -f "$root/.contextlens-prepared" ] || { echo "$root: not a chroot made by --prepare"; exit 1; }
fi

mount -t proc proc "$root/proc"
mkdir -p "$root/src/main"
git ls-files -z | xargs -0 tar -cf - | tar -xf - -C "$root/src/main"
if [ -d "$src/build/vocab" ]; then
  mkdir -p "$root/src/main/build" && cp -r "$src/build/vocab" "$root/src/main/build/"
fi
for data in samples real-sessions; do
  if [ -d "$src/../shared/$data" ]; then
    mkdir -p "$root/src/shared" && cp -r "$src/../shared/$data" "$root/src/shared/"
  fi
done

chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 CONTEXTLENS_CI="${CONTEXTLENS_CI:-}" CONTEXTLENS_WERROR=0 bash -euo pipefail -c '
  cd /src/main
  # Warnings stay warnings here: -O1 with the sanitizers makes GCC warn about code it cannot see through.
  # mold (Debian package) links the 80 sanitized test programs in a fraction of ld.bfd'"'"'s time. A unity
  # build compiles the libraries eight sources to a file instead of one by one (the CLI commands and
  # each test stay apart); a plain build checks every file on its own in leg 1.
  scripts/setup.sh build -DCONTEXTLENS_WITH_KSYNTAX=ON -DCMAKE_BUILD_TYPE=None "-DCMAKE_CXX_FLAGS=-O1" \
    -DCONTEXTLENS_SANITIZE=ON -DCONTEXTLENS_BENCH=OFF -DCMAKE_EXE_LINKER_FLAGS=-fuse-ld=mold -DCMAKE_UNITY_BUILD=ON
  grep -q "define CONTEXTLENS_HAVE_KSYNTAX 1" build/widgets/config-contextlens.h || { echo "KSyntaxHighlighting was not found"; exit 1; }
  . scripts/sanitizer-env.sh
  ctest --test-dir build --output-on-failure -j2
'
