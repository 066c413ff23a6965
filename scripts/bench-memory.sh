#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Peak memory of the write path: every `convert` target and `compact -o` against reading alone, on a
# generated 200 MB Claude Code session and on a session whose one tool result is a single 50 MB line.
# Each command is its own process, measured by GNU time (peak RSS); the figure is peak RSS / file size.
# Target (issue 16): every write path under 3x; reading is the floor a write path that loads its
# output back to validate it cannot go below. Writes bench/results-memory.md.
# Usage: scripts/bench-memory.sh   (env BENCH_BUILD: build dir, default build-bench; BENCH_DATA: data dir)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BENCH_BUILD:-"$root/build-bench"}
data=${BENCH_DATA:-"$build/bench-data"}
[[ -x /usr/bin/time ]] || { echo "needs GNU time: apt-get install time" >&2; exit 2; }

cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
ninja -C "$build" -j2 contextlens-cli >/dev/null
cli="$build/app/contextlens-cli"
mkdir -p "$data"
big="$data/session-200mb.jsonl"
line="$data/one-50mb-line.jsonl"
[[ -f $big ]] || "$cli" generate --format claude-code --size-mb 200 --seed 1 -o "$big" >/dev/null
if [[ ! -f $line ]]; then
    {
        printf '%s\n' '{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"s","timestamp":"2026-01-01T00:00:00Z","message":{"role":"user","content":"read the log"}}'
        printf '%s\n' '{"type":"assistant","uuid":"u2","parentUuid":"u1","sessionId":"s","timestamp":"2026-01-01T00:00:01Z","message":{"role":"assistant","id":"m1","content":[{"type":"tool_use","id":"t1","name":"Read","input":{"file_path":"/var/log/big.log"}}]}}'
        printf '%s' '{"type":"user","uuid":"u3","parentUuid":"u2","sessionId":"s","timestamp":"2026-01-01T00:00:02Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"'
        head -c 52428800 /dev/zero | tr '\0' 'x'
        printf '%s\n' '"}]}}'
    } >"$line"
fi

out="$data/out.tmp"
measure() { # file, label, command...
    local file=$1 label=$2
    shift 2
    local kb
    kb=$(/usr/bin/time -f '%M' "$@" 2>&1 >/dev/null | tail -n 1 || true)
    awk -v l="$label" -v kb="$kb" -v size="$(stat -c %s "$file")" \
        'BEGIN { printf "| %s | %.0f | %.2f |\n", l, kb / 1024, kb * 1024 / size }'
}
table() { # file
    local f=$1
    echo "| command | peak RSS (MB) | x file |"
    echo "|---|---:|---:|"
    measure "$f" "info (read only)" "$cli" info "$f"
    for to in claude-code codex gemini-cli openai-chat openai-responses anthropic gemini; do
        measure "$f" "convert --to $to" "$cli" convert "$f" --to "$to" -o "$out" --force
    done
    for s in snip microcompaction claude-code-compact; do
        measure "$f" "compact --strategy $s -o" "$cli" compact "$f" --strategy "$s" -o "$out" --force
    done
    measure "$f" "compact --strategy snip --to anthropic -o" "$cli" compact "$f" --strategy snip --to anthropic -o "$out" --force
}

{
    echo "# Write-path memory"
    echo
    echo "$(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo), $(. /etc/os-release; echo "$PRETTY_NAME"), $("$cli" --version)."
    echo "Made by scripts/bench-memory.sh: peak RSS of one process per command (GNU time), over the input's size."
    echo "Every command that writes also loads its output back to validate it."
    echo
    echo "## Generated Claude Code session, $(( $(stat -c %s "$big") / 1048576 )) MB"
    echo
    table "$big"
    echo
    echo "## One tool result of 50 MB on a single line ($(( $(stat -c %s "$line") / 1048576 )) MB)"
    echo
    table "$line"
} | tee "$root/bench/results-memory.md"
rm -f "$out"
