# SPDX-License-Identifier: MIT
"""(f) An undone compaction, with the real Claude Code (check.py runs it; it can run alone too).

Claude Code appends to its session file by path but continues from the conversation it holds in
memory. While `claude -p --resume` is in the middle of a turn (the fake server holds its answer), a
compacted export is put over the session file the way another tool would (`contextlens-cli compact
-o tmp`, then tmp copied over the session). When Claude Code has finished, its turn hangs off the old
chain: `info --json` and `watch --json` must report the compaction undone, at the boundary's line.
Before that, the same export resumed on its own (no race) checks that Claude Code accepts the mark
ContextLens puts in compactMetadata, and sends the smaller context.

  check_undone.py --cli PATH --work DIR [--bin-dir DIR]
"""

import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

import fake_model_server
from agentlib import ClaudeCode, load_requests

HOLD_SECONDS = 6  # the fake server holds the answer of the resumed turn this long
STRATEGY = ["--strategy", "trim-tools", "--param", "keepLastToolRounds=0"]


def boundary_line(path: Path) -> int:
    """Line number of the last compact_boundary that carries ContextLens's mark (0: none)."""
    found = 0
    for n, line in enumerate(path.read_text().splitlines(), 1):
        try:
            o = json.loads(line)
        except ValueError:
            continue
        if o.get("subtype") == "compact_boundary" and "contextlens" in (o.get("compactMetadata") or {}):
            found = n
    return found


def conversation_chars(requests: list) -> int:
    """Characters of the messages the first turn request sent (-1: no such request)."""
    turns = [r for r in requests if r["kind"] == "turn"]
    return len(json.dumps(turns[0]["body"].get("messages", []), ensure_ascii=False)) if turns else -1


def run_undone(cli, rep, bin_dir: Path, work: Path):
    agent = ClaudeCode(bin_dir)
    work.mkdir(parents=True, exist_ok=True)
    home, cwd = work / "home", work / "work"
    cwd.mkdir(parents=True, exist_ok=True)
    generated = work / "generated.jsonl"
    rc, _, err = cli.run("generate", "--format", "claude-code", "--messages", 30, "--seed", 5, "-o", generated)
    if not rep.add("f-generate", "claude-code", rc == 0, err.strip()[-300:]):
        return
    sid = agent.place(generated, home, cwd)
    session = next(p for p in agent.session_files(home) if p.stem == sid)

    # The export alone, resumed: Claude Code takes the marked boundary and sends the smaller context.
    alone = work / "alone"
    compacted = work / "compacted.jsonl"
    rc, _, err = cli.run("compact", session, *STRATEGY, "-o", compacted)
    line = boundary_line(compacted) if rc == 0 else 0
    if not rep.add("f-marked-export", "claude-code", rc == 0 and line > 0,
                   err.strip()[-300:] if rc else "" if line else "no boundary with the contextlens mark"):
        return
    full = work / "full"
    plain = agent.run(full / "home", full / "work", "One line of status, please.", {"turns": [{"text": "Status."}]},
                      full / "logs", resume=agent.place(generated, full / "home", full / "work"))
    marked = agent.run(alone / "home", alone / "work", "One line of status, please.", {"turns": [{"text": "Status."}]},
                       alone / "logs", resume=agent.place(compacted, alone / "home", alone / "work"))
    sent_full, sent_marked = conversation_chars(plain.requests), conversation_chars(marked.requests)
    rep.add("f-marked-resume", "claude-code", plain.rc == 0 and marked.rc == 0 and 0 < sent_marked < sent_full,
            f"exit {plain.rc}/{marked.rc}; characters sent: {sent_full} without, {sent_marked} with the compaction")

    # The race: Claude Code in the middle of its turn, the compacted export copied over its file.
    log_dir = work / "race-logs"
    server = fake_model_server.start({"turns": [{"text": "Finished the step.", "delay": HOLD_SECONDS}]}, log_dir)
    try:
        agent.prepare(home, server.server_port)
        proc = subprocess.Popen(agent.argv("Go on with the next step.", sid), cwd=cwd,
                                env=agent.env(home, server.server_port), stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and proc.poll() is None:
            if any(r["kind"] == "turn" for r in load_requests(log_dir)):
                break
            time.sleep(0.1)
        in_turn = proc.poll() is None
        racing = work / "racing.jsonl"
        rc, _, err = cli.run("compact", session, *STRATEGY, "-o", racing)
        line = boundary_line(racing) if rc == 0 else 0
        if in_turn and line:
            shutil.copyfile(racing, session)  # as `cp` would: the same file, new bytes
        try:
            out, errs = proc.communicate(timeout=120)
        except subprocess.TimeoutExpired:
            proc.kill()
            out, errs = proc.communicate()
    finally:
        server.shutdown()
        server.server_close()
    if not rep.add("f-race", "claude-code", in_turn and line > 0 and proc.returncode == 0,
                   f"in turn {in_turn}, boundary line {line}, claude exit {proc.returncode}: {errs.strip()[-300:]}"
                   if not (in_turn and line and proc.returncode == 0) else ""):
        return
    rc, info, err = cli.json("info", session)
    undone = (info or {}).get("undoneCompactions", [])
    rep.add("f-info", "claude-code", len(undone) == 1 and undone[0].get("line") == line,
            "" if len(undone) == 1 and undone[0].get("line") == line else f"undoneCompactions {undone} (boundary line {line}) {err[-200:]}")
    rc, out, err = cli.run("watch", session, "--json", "--seconds", 1, "--interval", 200)
    events = []
    for text in out.splitlines():
        try:
            events.append(json.loads(text))
        except ValueError:
            pass
    said = [e for e in events if e.get("event") == "undone-compaction"]
    rep.add("f-watch", "claude-code", rc == 0 and len(said) == 1 and said[0].get("line") == line,
            "" if rc == 0 and len(said) == 1 and said[0].get("line") == line else f"exit {rc}, events {said} {err[-200:]}")


def main():
    sys.path.insert(0, str(Path(__file__).parent))
    from check import run_alone
    run_alone(__doc__, lambda cli, rep, args: run_undone(cli, rep, args.bin_dir, args.work))

if __name__ == "__main__":
    main()
