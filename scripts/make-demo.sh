#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Regenerates the bundled demo transcript resources/demo/demo-session.jsonl (Claude Code, ~150
# messages, a few hundred KB) with the CLI's generator. Deterministic: the same seed gives the same
# bytes, so rerunning it changes nothing unless the generator changed.
# Usage: scripts/make-demo.sh [BUILD_DIR]
#   (default: the CLI of ./build when it exists, else one built in ./build-demo)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-"$root/build"}
if [ -z "${1:-}" ] && [ ! -x "$build/app/contextlens-cli" ]; then
    build="$root/build-demo"
fi
cli="$build/app/contextlens-cli"
if [ ! -x "$cli" ]; then
    cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
    ninja -C "$build" contextlens-cli
fi
mkdir -p "$root/resources/demo"
"$cli" generate --format claude-code --messages 150 --seed 2025 --max-read-lines 40 \
    -o "$root/resources/demo/demo-session.jsonl"
"$cli" info "$root/resources/demo/demo-session.jsonl" | head -20
