#!/bin/sh
# Make the README's screenshots (or, with an OUTDIR, the same set elsewhere to compare two builds).
# Usage: scripts/screenshots.sh [APP [OUTDIR]]   (default build/app/contextlens, docs/)
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
app=${1:-$here/build/app/contextlens}; out=${2:-$here/docs}
demo=$here/resources/demo/demo-session.jsonl
samples=$here/../shared/samples/claude-code
mkdir -p "$out"
export QT_QPA_PLATFORM=offscreen
# A fresh configuration: a remembered window layout must not change the pictures.
XDG_CONFIG_HOME=$(mktemp -d); export XDG_CONFIG_HOME; trap 'rm -rf "$XDG_CONFIG_HOME"' EXIT
# A generated Claude Code session that its agent compacted once: history before, live context after.
compacted=$XDG_CONFIG_HOME/compacted.jsonl
"$(dirname "$app")/contextlens-cli" generate --format claude-code --messages 120 --seed 5 --max-read-lines 600 -o "$compacted" >/dev/null
"$app" --screenshot "$out/screenshot-main.png" "$demo"
"$app" --screenshot "$out/screenshot-dark.png" --theme dark "$samples/fixture-compaction.jsonl"
"$app" --screenshot "$out/screenshot-analysis.png" --size 1400x900 "$samples/viewer-sample-edits.jsonl"
"$app" --screenshot "$out/screenshot-analysis-dark.png" --size 1400x900 --theme dark "$samples/viewer-sample-edits.jsonl"
"$app" --screenshot "$out/screenshot-preview.png" --size 1500x900 --view preview:microcompaction "$demo"
"$app" --screenshot "$out/screenshot-compare.png" --size 1500x900 --view compare "$demo"
"$app" --screenshot "$out/screenshot-simulate.png" --size 1400x900 --view simulate:progressive@30000 "$demo"
"$app" --screenshot "$out/screenshot-live.png" --size 1400x900 --view live "$compacted"
"$app" --screenshot "$out/screenshot-composition.png" --size 1500x950 --view composition "$samples/viewer-sample-edits.jsonl"
"$app" --screenshot "$out/screenshot-composition-dark.png" --size 1500x950 --theme dark --view composition "$compacted"
"$app" --screenshot "$out/screenshot-audit.png" --size 1500x950 --view audit "$compacted"
# The timeline, a subagent open in place and a preview at its first change, on a large and a small
# screen, light and dark (the timeline: a compacted session, then one with two subagents).
subagents=$here/tests/data/claudecode/subagents-session.jsonl
"$app" --screenshot "$out/screenshot-timeline-1600x1000-light.png" --size 1600x1000 --view timeline "$compacted"
"$app" --screenshot "$out/screenshot-timeline-1024x700-dark.png" --size 1024x700 --theme dark --view timeline "$subagents"
for shot in "1600x1000 light" "1024x700 dark"; do
  set -- $shot
  "$app" --screenshot "$out/screenshot-subagent-$1-$2.png" --size "$1" --theme "$2" --view subagent "$subagents"
  "$app" --screenshot "$out/screenshot-preview-first-change-$1-$2.png" --size "$1" --theme "$2" --view preview:trim-tools "$demo"
done
# A session being written: the window opens its first part and follows it while the rest arrives.
growing=$XDG_CONFIG_HOME/growing.jsonl
"$(dirname "$app")/contextlens-cli" generate --format claude-code --messages 300 --seed 9 -o "$growing.full" >/dev/null
lines=$(wc -l < "$growing.full")
head -n $((lines - 14)) "$growing.full" > "$growing"
"$app" --screenshot "$out/screenshot-watch.png" --size 1500x900 --view watch "$growing" & shot=$!
sleep 5
tail -n 14 "$growing.full" >> "$growing"
wait $shot
# The session browser over a home of generated sessions in the three agents' layouts.
fakehome=$XDG_CONFIG_HOME/home
cli="$(dirname "$app")/contextlens-cli"
for i in 1 2 3; do
  mkdir -p "$fakehome/.claude/projects/-work-paperjam" "$fakehome/.codex/sessions/2026/11/2$i" "$fakehome/.gemini/tmp/5f0c1d2e/chats"
  "$cli" generate --format claude-code --messages $((60 * i)) --seed $((10 + i)) --max-read-lines 200 \
      -o "$fakehome/.claude/projects/-work-paperjam/0000000$i-aaaa-4bbb-8ccc-dddddddddddd.jsonl" >/dev/null
  "$cli" generate --format codex --messages $((50 * i)) --seed $((20 + i)) --max-read-lines 200 \
      -o "$fakehome/.codex/sessions/2026/11/2$i/rollout-2026-11-2${i}T09-00-00-0000000$i-eeee-4fff-8aaa-bbbbbbbbbbbb.jsonl" >/dev/null
  "$cli" generate --format gemini-cli --messages $((40 * i)) --seed $((30 + i)) --max-read-lines 200 \
      -o "$fakehome/.gemini/tmp/5f0c1d2e/chats/session-2026-11-2${i}T10-00-0000000$i.jsonl" >/dev/null
done
HOME=$fakehome XDG_CACHE_HOME=$XDG_CONFIG_HOME/cache "$app" --screenshot "$out/screenshot-sessions.png" --size 1500x900 --view sessions "$compacted"
# The start page (no file open) over the same home, on a large and a small screen, light and dark.
for shot in "1600x1000 light" "1024x700 dark"; do
  set -- $shot
  HOME=$fakehome XDG_CACHE_HOME=$XDG_CONFIG_HOME/cache "$app" --screenshot "$out/screenshot-start-$1-$2.png" --size "$1" --theme "$2" --view start
done
# A preview whose summary a model writes: the fake model server (tests/agents/) on 127.0.0.1 answers
# with scripts/screenshot-summary.json, streamed; the settings point the app at it.
python3 "$here/tests/agents/fake_model_server.py" --script "$here/scripts/screenshot-summary.json" \
    --log-dir "$XDG_CONFIG_HOME/model-log" --port-file "$XDG_CONFIG_HOME/model-port" >/dev/null &
server=$!
trap 'kill $server 2>/dev/null; rm -rf "$XDG_CONFIG_HOME"' EXIT
for _ in $(seq 50); do [ -s "$XDG_CONFIG_HOME/model-port" ] && break; sleep 0.1; done
mkdir -p "$XDG_CONFIG_HOME/ContextLens"
cat > "$XDG_CONFIG_HOME/ContextLens/contextlens.conf" <<CONF
[summarizer]
useModel=true
provider=anthropic
baseUrl=http://127.0.0.1:$(cat "$XDG_CONFIG_HOME/model-port")
model=claude-3-5-haiku-latest
cacheDir=
CONF
"$app" --screenshot "$out/screenshot-summary.png" --size 1500x950 --view preview:claude-code-compact "$demo"
