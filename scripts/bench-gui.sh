#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# GUI benchmark (bench/bench_gui.cpp): the real main window, offscreen, opens generated 10 MB and
# 100 MB Claude Code sessions with File › Open's code path; times the first rows shown and everything
# computed, median of RUNS fresh processes each. Two kinds of input per size:
# - as generated, default settings: the analysis and the exact counts cover the live context after
#   the last compaction (the generator compacts like Claude Code does);
# - the heaviest: View › Whole History (every message analysed and counted) on a copy whose texts are
#   all distinct (the generator re-reads the same files, so its texts repeat and the estimator's
#   per-text cache would count only 4 of its 48 MB; a real session's texts mostly differ).
# - one unbroken line: a session whose first user message is 100 MB of hex without a space or a newline
#   (issue 29: the window laid such a line out in one piece and froze for minutes).
# Besides opening: selecting the message with the most text until its detail is painted, and its raw
# JSON view.
# And the same generator's 800 MB session, as generated.
# Writes bench/results-gui.md; the run it replaces moves under "Earlier runs".
# Targets: 100 MB: first rows <= 300 ms, everything <= 1500 ms on the 2-core reference machine;
# 800 MB (the size real sessions reach): first rows <= 1 s, everything <= 3 s.
# Usage: scripts/bench-gui.sh [RUNS]   (env BENCH_BUILD: build dir, default build-bench; BENCH_DATA;
#        BENCH_GUI_BASELINE: another build's bench_gui, run in turn with this one so that both see the
#        same machine, and BENCH_GUI_BASELINE_NAME: what it is, e.g. its commit)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BENCH_BUILD:-"$root/build-bench"}
data=${BENCH_DATA:-"$build/bench-data"}
runs=${1:-3}
"$root/scripts/fetch-vocab.sh" "$build/vocab" >/dev/null # the exact counts need o200k_base
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
ninja -C "$build" -j2 contextlens-cli bench_gui >/dev/null
mkdir -p "$data"
for mb in 10 100 800; do
    session="$data/session-${mb}mb.jsonl"
    distinct="$data/session-${mb}mb-distinct.jsonl"
    [[ -f $session ]] || "$build/app/contextlens-cli" generate --format claude-code --size-mb "$mb" --seed 1 -o "$session" >/dev/null
    [[ $mb != 800 ]] || continue # the size real sessions reach (anthropics/claude-code #42810): as generated only
    # Every text, thinking and tool result text gets a number of its own in front.
    [[ -f $distinct ]] || python3 - "$session" "$distinct" <<'EOF'
import json, sys
n = 0
def mark(text):
    global n
    n += 1
    return f"[{n}] {text}"
with open(sys.argv[1], encoding="utf-8") as src, open(sys.argv[2], "w", encoding="utf-8") as out:
    for line in src:
        record = json.loads(line)
        message = record.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, str):
            message["content"] = mark(content)
        for block in content if isinstance(content, list) else []:
            if not isinstance(block, dict):
                continue
            for key in ("text", "thinking", "content"):
                if isinstance(block.get(key), str):
                    block[key] = mark(block[key])
            for part in block.get("content") if isinstance(block.get("content"), list) else []:
                if isinstance(part, dict) and isinstance(part.get("text"), str):
                    part["text"] = mark(part["text"])
        out.write(json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n")
EOF
done

# 100 MB of hex on one line in the first user message, then a short answer.
longline="$data/session-longline-100mb.jsonl"
[[ -f $longline ]] || python3 - "$longline" <<'EOF'
import sys
head = '{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"s","timestamp":"2025-09-03T00:47:19.293Z","message":{"role":"user","content":"'
tail = ('"}}\n{"type":"assistant","uuid":"a1","parentUuid":"u1","sessionId":"s","timestamp":"2025-09-03T00:47:20.000Z",'
        '"message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4","content":[{"type":"text",'
        '"text":"Done."}],"usage":{"input_tokens":5,"cache_creation_input_tokens":100,"cache_read_input_tokens":1000,'
        '"output_tokens":20}}}\n')
block = bytes((i * 7 + i // 16) % 16 for i in range(1 << 20)).translate(bytes.maketrans(bytes(range(16)), b"0123456789abcdef"))
with open(sys.argv[1], "wb") as out:
    out.write(head.encode())
    for _ in range(100):
        out.write(block)
    out.write(tail.encode())
EOF

export QT_QPA_PLATFORM=offscreen
loadavg=$(cut -d' ' -f1-3 /proc/loadavg)
bench="$build/bench/bench_gui"
baseline=()
[[ -z ${BENCH_GUI_BASELINE:-} ]] || baseline=(--baseline "$BENCH_GUI_BASELINE")
generated=$("$bench" --runs "$runs" --markdown "${baseline[@]}" "$data/session-10mb.jsonl" "$data/session-100mb.jsonl" \
    "$data/session-800mb.jsonl" 2>/dev/null)
heaviest=$("$bench" --runs "$runs" --markdown "${baseline[@]}" --whole-history "$data/session-10mb-distinct.jsonl" \
    "$data/session-100mb-distinct.jsonl" 2>/dev/null | tail -n +3)
unbroken=$("$bench" --runs "$runs" --markdown "${baseline[@]}" "$longline" 2>/dev/null | tail -n +3)
# The 100 MB session with the Timeline dock shown (built with the transcript), then zoomed.
timeline=$("$bench" --runs "$runs" --markdown --timeline "$data/session-100mb.jsonl" 2>/dev/null | tail -n +3)
commit=$(git -C "$root" rev-parse --short HEAD)
[[ -z $(git -C "$root" status --porcelain -- core widgets bench) ]] || commit+=" with uncommitted changes"

out="$root/bench/results-gui.md"
earlier=""
if [[ -f $out ]]; then
    # The run this one replaces, under its own date and commit, then the runs before it.
    when=$(sed -n 's/^Generated by scripts\/bench-gui.sh on \(.*\)\.$/\1/p' "$out")
    when+=$(sed -n 's/.*\(load average [0-9. ]*\) before the runs$/, \1/p' "$out")
    earlier=$(awk -v when="$when" '
        /^## This run/ { keep = 1; print "### " when; next }
        /^## Earlier runs/ { keep = 2; next }
        keep { print }' "$out")
fi
{
    echo "# GUI benchmark: opening a session"
    echo
    echo "Generated by scripts/bench-gui.sh on $(date -u '+%Y-%m-%d %H:%M UTC') at commit ${commit}."
    echo
    echo "- Machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $(awk '/MemTotal/ {printf "%.1f GiB", $2/1048576}' /proc/meminfo) RAM, load average ${loadavg} before the runs"
    echo "- Compiler: $(c++ --version | head -n1), Release build; Qt $(qtpaths6 --qt-version 2>/dev/null || echo 6), QT_QPA_PLATFORM=offscreen"
    echo "- What is timed: the real MainWindow (1400 x 860) opens the session with \`openFile\`, as File › Open"
    echo "  does: the load on the thread pool, then the views. \"First rows\": the paint pass in which the"
    echo "  transcript view first painted rows is over: for a file of 32 MiB or more its first messages,"
    echo "  loaded from its first MiB while the whole file loads (since 2026-11-30 11:00; \"whole file's"
    echo "  rows\": the same for the whole file's rows, the earlier runs' first rows). \"Everything\": the"
    echo "  analysis is in the tree's columns,"
    echo "  the context map and the analysis panel, the estimator table's exact o200k_base counts are in, the"
    echo "  strategy tables are built, and the window has painted it. Load, analysis, exact counts and"
    echo "  strategy tables: when each arrived on the GUI thread. GUI thread CPU: its own work until"
    echo "  everything, which other processes on the machine do not inflate. Longest GUI stall: the largest"
    echo "  delay of a 5 ms timer, i.e. how long the window could not react. Median of ${runs} processes, one"
    echo "  open each (range in brackets)."
    echo "- Inputs: \`contextlens-cli generate --format claude-code --size-mb N --seed 1\` with default"
    echo "  settings (analysis and counts cover the live context after the last compaction), and the same"
    echo "  session with View › Whole History on a copy whose texts are all distinct (\"distinct\": every"
    echo "  message analysed, every text counted exactly, as in a real session without compactions)."
    echo "  \"longline\": a session whose first user message is one unbroken line of 100 MB of hex."
    echo "- Detail, raw JSON: then selecting the message with the most text until the detail pane is"
    echo "  painted, and turning on its raw JSON view (not part of \"everything\")."
    echo "- \"timeline shown\": the Timeline dock raised as the load finishes, so that the timeline is built"
    echo "  with the transcript; \"timeline zoom\": then a zoom to a quarter of the session, until painted."
    echo "- Targets: 100 MB: first rows <= 300 ms, everything <= 1500 ms on the 2-core reference machine;"
    echo "  800 MB: first rows <= 1 s, everything <= 3 s."
    if [[ -n ${BENCH_GUI_BASELINE:-} ]]; then
        echo "- Rows marked \"baseline\": ${BENCH_GUI_BASELINE_NAME:-another build}."
        echo "  Each of its processes was followed by one of this build's, so that both saw the same machine"
        echo "  (\"–\": a figure it does not report)."
    fi
    echo
    echo "## This run"
    echo
    echo "$generated"
    echo "$heaviest"
    echo "$unbroken"
    echo "$timeline"
    echo
    echo "## Earlier runs"
    if [[ -n $earlier ]]; then
        echo
        echo "$earlier"
    fi
} > "$out"
cat "$out"
