#!/bin/sh
# Dump what the engine computes (analysis, comparison, every strategy's export, every conversion)
# for the samples, the project's test data and generated sessions, into OUTDIR. Two dumps made by two
# builds are compared with `diff -r` to show that a restructuring changed no behaviour.
# Usage: scripts/behaviour-dump.sh CLI OUTDIR
set -eu
cli=$1; out=$2
here=$(cd "$(dirname "$0")/.." && pwd)
rm -rf "$out"; mkdir -p "$out/in"
i=0
for f in "$here"/resources/demo/*.jsonl "$here"/../shared/samples/*/*.json* $(find "$here/tests/data" -type f -name '*.json*' | sort); do
  case $f in *schema*) continue;; esac
  [ -f "$f" ] || continue
  i=$((i+1)); cp "$f" "$out/in/$i-$(basename "$f")"
done
for fmt in claude-code codex gemini-cli openai-chat; do
  "$cli" generate --format $fmt --messages 300 --seed 7 -o "$out/in/gen-$fmt.jsonl" >/dev/null
done
strategies=$("$cli" strategies --json | python3 -c 'import json,sys; print(" ".join(s["name"] for s in json.load(sys.stdin)["strategies"]))')
# Durations and the dump's own directory are the only parts that differ between two runs of one build.
strip() { sed -E -e 's/"(ms|millis|elapsed[A-Za-z]*|[a-zA-Z]*Ms|seconds)": *[0-9.e+-]+/"\1": 0/g' -e "s|$out|OUT|g"; }
for f in "$out"/in/*; do
  b=$(basename "$f"); d="$out/$b.d"; mkdir -p "$d"
  "$cli" info "$f" --json 2>&1 | strip > "$d/info.json" || true
  "$cli" analyze "$f" --json 2>&1 | strip > "$d/analyze.json" || true
  "$cli" compare "$f" --json 2>&1 | strip > "$d/compare.json" || true
  for s in $strategies; do
    "$cli" compact "$f" --strategy "$s" --json -o "$d/export-$s" 2>&1 | strip > "$d/compact-$s.json" || true
    "$cli" compact "$f" --strategy "$s" --param force=true --json -o "$d/forced-$s" 2>&1 | strip > "$d/forced-$s.json" || true
  done
  for t in claude-code codex gemini-cli openai-chat openai-responses anthropic gemini; do
    "$cli" convert "$f" --to $t -o "$d/convert-$t" --json >/dev/null 2>&1 || true
  done
done
# Written files carry fresh ids and the time of writing: replace both by placeholders.
find "$out" -name 'export-*' -o -name 'forced-*' ! -name '*.json' -o -name 'convert-*' | while read -r w; do
  [ -f "$w" ] || continue
  sed -E -i -e 's/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/UUID/g' \
    -e "s/$(date -u +%Y-%m-%d)T[0-9:.]+Z?/NOW/g" "$w"
done
echo "$i inputs + 4 generated dumped to $out"
