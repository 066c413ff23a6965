#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Exact o200k_base counting, ContextLens (cl::bpe) against gpt-tokenizer 4.0.0 on node, side by side
# in one run, on one deterministic ~10 MB file of mixed text (bench_bpe --write-text: prose, code,
# JSON, CJK and base64 interleaved in ~64 KB blocks), then on each of the five kinds alone (10 MB
# each: gpt-tokenizer's speed depends much on the text). Writes bench/results-tokenizer.md.
#
# The "## History" section of that file (before/after figures, kept by hand) is carried over.
#
# Each side is a fresh process that reads the file first and then starts its clock: the clock covers
# loading the vocabulary (node: require('gpt-tokenizer/encoding/o200k_base'), which parses the ranks
# and builds its maps; ours: Tokenizer::loadFile of o200k_base.tiktoken) and counting the whole file
# (node: countTokens(text); ours: count(), and separately countParallel(text, 2)). Process start and
# reading the file are outside that clock; the whole-process wall time is reported beside it.
# Runs are interleaved (node, ours 1 thread, ours 2 threads) RUNS times; medians are compared. The
# script fails when the two token counts differ. Target: ours (1 thread) >= 5x node.
#
# gpt-tokenizer is installed with npm into a temporary directory (only the npm registry is used); when
# npm cannot fetch it the script says so and exits 0 without touching the results file.
# Usage: scripts/bench-tokenizer.sh [RUNS, default 3]   (env BENCH_BUILD: build dir, default build-bench)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BENCH_BUILD:-"$root/build-bench"}
runs=${1:-3}
package=gpt-tokenizer@4.0.0
out="$root/bench/results-tokenizer.md"

command -v node >/dev/null && command -v npm >/dev/null || {
    echo "bench-tokenizer: node and npm are required; skipping the comparison" >&2
    exit 0
}

cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
ninja -C "$build" -j2 bench_bpe >/dev/null
"$root/scripts/fetch-vocab.sh" "$build/vocab" >/dev/null
bench="$build/bench/bench_bpe"
export CONTEXTLENS_VOCAB_DIR="$build/vocab"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

mkdir -p "$tmp/node"
if ! (cd "$tmp/node" && npm init -y >/dev/null 2>&1 \
        && timeout 300 npm install --silent --no-audit --no-fund --ignore-scripts "$package" >npm.log 2>&1); then
    cat "$tmp/node/npm.log" >&2 || true
    echo "bench-tokenizer: npm could not fetch $package from the registry; skipping the comparison" >&2
    exit 0
fi
gpt_version=$(cd "$tmp/node" && node -p "require('gpt-tokenizer/package.json').version")
cat >"$tmp/node/count.js" <<'EOF'
'use strict';
const fs = require('fs');
const text = fs.readFileSync(process.argv[2], 'utf8');
const cpu0 = process.cpuUsage();
const t0 = process.hrtime.bigint();
const { countTokens } = require('gpt-tokenizer/encoding/o200k_base');
const t1 = process.hrtime.bigint();
const n = countTokens(text);
const t2 = process.hrtime.bigint();
const cpu = process.cpuUsage(cpu0);
const ms = (a, b) => (Number(b - a) / 1e6).toFixed(1);
console.log(`tokens=${n} load_ms=${ms(t0, t1)} count_ms=${ms(t1, t2)} total_ms=${ms(t0, t2)} ` +
            `cpu_ms=${((cpu.user + cpu.system) / 1000).toFixed(1)}`);
EOF

kinds=(mixed prose code json cjk base64)
for kind in "${kinds[@]}"; do
    "$bench" --write-text "$tmp/$kind.txt" 10 "$kind" >/dev/null
done
bytes=$(stat -c %s "$tmp/mixed.txt")

# One process; appends "<kind> <side> tokens=.. load_ms=.. count_ms=.. total_ms=.. cpu_ms=..
# process_ms=<wall time of the whole process>" to $tmp/runs.
run() {
    local kind=$1 side=$2
    shift 2
    local start end line
    start=$(date +%s%N)
    line=$("$@") || { echo "bench-tokenizer: $* failed" >&2; exit 1; }
    [[ $line == tokens=* ]] || { echo "bench-tokenizer: unexpected output from $*: $line" >&2; exit 1; }
    end=$(date +%s%N)
    echo "$kind $side $line process_ms=$(( (end - start) / 1000000 ))" | tee -a "$tmp/runs"
}

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
for kind in "${kinds[@]}"; do
    for ((i = 1; i <= runs; i++)); do
        run "$kind" node node "$tmp/node/count.js" "$tmp/$kind.txt"
        run "$kind" ours-1thr "$bench" --count "$tmp/$kind.txt" 1
        run "$kind" ours-2thr "$bench" --count "$tmp/$kind.txt" 2
    done
    counts=$(awk -v k="$kind" '$1 == k { print $3 }' "$tmp/runs" | sort -u)
    if [[ $(wc -l <<<"$counts") -ne 1 ]]; then
        echo "bench-tokenizer: token counts differ on the $kind text:" >&2
        grep "^$kind " "$tmp/runs" >&2
        exit 1
    fi
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

# median <kind> <side> <key>
median() {
    awk -v kind="$1" -v side="$2" -v key="$3" '$1 == kind && $2 == side {
            for (i = 3; i <= NF; i++) { split($i, kv, "="); if (kv[1] == key) print kv[2] } }' "$tmp/runs" \
        | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
ratio() { awk -v a="$(median "$1" node "$2")" -v b="$(median "$1" "$3" "$2")" 'BEGIN { printf "%.2f", a / b }'; }
tokens() { awk -v k="$1" '$1 == k { sub("tokens=", "", $3); print $3; exit }' "$tmp/runs"; }
row() {
    local side=$1 label=$2 total
    total=$(median mixed "$side" total_ms)
    printf '| %s | %s | %s | %s | %s | %s | %.1f |\n' "$label" "$(median mixed "$side" load_ms)" \
        "$(median mixed "$side" count_ms)" "$total" "$(median mixed "$side" cpu_ms)" "$(median mixed "$side" process_ms)" \
        "$(awk -v b="$bytes" -v t="$total" 'BEGIN { print b / 1e3 / t }')"
}

history=""
[[ -f "$out" ]] && history=$(sed -n '/^## History/,$p' "$out")
{
    echo "# Exact o200k_base counting: ContextLens against gpt-tokenizer (node)"
    echo
    echo "Generated by \`scripts/bench-tokenizer.sh $runs\` on $(date -u '+%Y-%m-%d %H:%M UTC') (commit $(git -C "$root" rev-parse --short HEAD)$(git -C "$root" diff --quiet HEAD -- core/tokens bench/bench_bpe.cpp || echo ', with uncommitted changes to core/tokens or bench_bpe'))."
    echo
    echo "- Machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $(awk '/MemTotal/ {printf "%.1f GiB", $2/1048576}' /proc/meminfo) RAM; load average $load_before before, $load_after after"
    echo "- Versions: node $(node --version), npm $(npm --version), gpt-tokenizer $gpt_version; $(c++ --version | head -n1), Release build"
    echo "- Text: $bytes bytes of prose, code, JSON, CJK and base64 interleaved in ~64 KB blocks"
    echo "  (\`bench_bpe --write-text FILE 10\`), $(tokens mixed) o200k_base tokens on both sides; below it each kind"
    echo "  alone, 10 MB each (\`bench_bpe --write-text FILE 10 KIND\`)."
    echo "- Clock: starts after the file is read, so it covers the vocabulary load and the count; process"
    echo "  start is excluded (\"process\" is the whole process's wall time, start and file read included)."
    echo "  Median of $runs interleaved runs, one fresh process each."
    echo
    echo "## Mixed text, 10 MB"
    echo
    echo "| counter | load ms | count ms | load + count ms | CPU ms | process ms | MB/s (load + count) |"
    echo "|---|---:|---:|---:|---:|---:|---:|"
    row node "gpt-tokenizer $gpt_version, node $(node --version), countTokens"
    row ours-1thr "ContextLens count(), 1 thread"
    row ours-2thr "ContextLens countParallel(), 2 threads"
    echo
    echo "**Speed-up over gpt-tokenizer (load + count): $(ratio mixed total_ms ours-1thr)× on 1 thread, $(ratio mixed total_ms ours-2thr)× on 2 threads** (target: ≥ 5× on 1 thread)."
    echo "By whole-process wall time: $(ratio mixed process_ms ours-1thr)× and $(ratio mixed process_ms ours-2thr)×; by CPU time: $(ratio mixed cpu_ms ours-1thr)× and $(ratio mixed cpu_ms ours-2thr)×."
    echo
    echo "## Each kind of text alone, 10 MB"
    echo
    echo "gpt-tokenizer keeps a cache of 100 000 merged pieces, so its speed depends much on how often"
    echo "pieces repeat: the mixed text's random CJK and base64 pieces keep evicting the prose ones."
    echo
    echo "| text | tokens | node load + count ms | ours 1 thread ms | speed-up | ours 2 threads ms | speed-up |"
    echo "|---|---:|---:|---:|---:|---:|---:|"
    for kind in "${kinds[@]}"; do
        printf '| %s | %s | %s | %s | %s× | %s | %s× |\n' "$kind" "$(tokens "$kind")" "$(median "$kind" node total_ms)" \
            "$(median "$kind" ours-1thr total_ms)" "$(ratio "$kind" total_ms ours-1thr)" \
            "$(median "$kind" ours-2thr total_ms)" "$(ratio "$kind" total_ms ours-2thr)"
    done
    echo
    echo "Commands (TEXT = the generated file, in a temporary directory):"
    echo
    echo '```'
    echo "$bench --write-text TEXT 10 [KIND]"
    echo "node count.js TEXT      # in a directory where 'npm install $package' ran; count.js is in scripts/bench-tokenizer.sh"
    echo "CONTEXTLENS_VOCAB_DIR=$build/vocab $bench --count TEXT 1"
    echo "CONTEXTLENS_VOCAB_DIR=$build/vocab $bench --count TEXT 2"
    echo '```'
    echo
    echo "Every run:"
    echo
    echo '```'
    sed "s|$root/||" "$tmp/runs"
    echo '```'
    if [[ -n "$history" ]]; then
        echo
        echo "$history"
    fi
} >"$out"
echo "wrote $out"
