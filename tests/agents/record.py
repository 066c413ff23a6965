#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Records fresh sessions with the real agents against the fake model server.

Each agent runs in OUT/<agent>/ with a throwaway home/ and a work/ folder where its shell commands
really run. The scenario: a first prompt with shell tool calls, a resumed turn, the agent's own
compaction (Claude Code: /compact; Codex: auto-compaction from reported usage; Gemini CLI:
compression from reported promptTokenCount; Qwen Code: compression from the reported prompt tokens),
then one more resumed turn with a tool call.
OUT/<agent>/recording.json lists the steps, their request logs and the session files.

  record.py OUT [--agents claude-code,codex,gemini-cli,qwen-code] [--bin-dir DIR] [--copy-to DIR]

--copy-to also copies each agent's session files, request logs and recording.json to DIR/<agent>/ and
lists them in DIR/READY (recordings hold the agents' own prompts: keep them out of the repository).
"""

import argparse
import json
import shutil
import sys
from pathlib import Path

from agentlib import (AGENTS, OVER_CODEX_LIMIT, OVER_GEMINI_LIMIT, OVER_QWEN_LIMIT, VERSIONS, ClaudeCode, Codex,
                      CopilotCli, GeminiCli, QwenCode, default_bin_dir)

FIRST = "Please create a.txt containing the word hello, then show me the file and the folder listing."
SECOND = "Append a second line 'world' to a.txt and count its lines."
LAST = "Which files are in the folder now, and how large are they?"

FIRST_TURNS = [{"shell": ["echo hello > a.txt"]}, {"shell": ["cat a.txt", "ls"]},
               {"text": "a.txt now holds 'hello'; it is the only file here."}]
SECOND_TURNS = [{"shell": ["echo world >> a.txt"]}, {"shell": ["wc -l a.txt"]},
                {"text": "a.txt has two lines now."}]
LAST_TURNS = [{"shell": ["ls -l"]}, {"text": "Only a.txt, 12 bytes."}]
# Claude Code's last answer also carries a web search the server ran itself (server_tool_use and
# web_search_tool_result in the assistant message): after the compaction, so that it is in the live
# context the exports keep and the agent sends back.
SERVER_SEARCH = {"query": "wc line count trailing newline",
                 "results": [{"url": "https://example.org/wc", "title": "wc counts newlines"},
                             {"url": "https://example.org/posix", "title": "POSIX lines"}]}


def steps_for(agent: str):
    """(name, prompt, script, resumed) in order; the compaction is the agent's own."""
    if agent == "claude-code":
        return [("first", FIRST, {"turns": FIRST_TURNS}, False),
                ("second", SECOND, {"turns": SECOND_TURNS}, True),
                ("compact", "/compact", {}, True),
                ("last", LAST, {"turns": LAST_TURNS[:-1] + [{**LAST_TURNS[-1], "server_search": SERVER_SEARCH}]}, True)]
    if agent == "codex":  # the second turn reports usage over the limit: Codex compacts mid-turn
        second = [SECOND_TURNS[0], {**SECOND_TURNS[1], "usage": {"input": OVER_CODEX_LIMIT}}, SECOND_TURNS[2]]
        return [("first", FIRST, {"turns": FIRST_TURNS}, False),
                ("second-autocompact", SECOND, {"turns": second}, True),
                ("last", LAST, {"turns": LAST_TURNS}, True)]
    if agent in ("gemini-cli", "qwen-code"):  # same, through the reported prompt tokens
        over = OVER_GEMINI_LIMIT if agent == "gemini-cli" else OVER_QWEN_LIMIT
        second = [SECOND_TURNS[0], {**SECOND_TURNS[1], "usage": {"input": over}}, SECOND_TURNS[2]]
        return [("first", FIRST, {"turns": FIRST_TURNS}, False),
                ("second-compress", SECOND, {"turns": second}, True),
                ("last", LAST, {"turns": LAST_TURNS}, True)]
    if agent == "copilot-cli":  # its prompt limit is low (agentlib): past 80 % of it in the last step, it
        # compacts in the background while a slow call is answered, and takes the summary in at the next turn
        last = [LAST_TURNS[0], {"shell": ["wc -c a.txt"], "delay": 3}, LAST_TURNS[1]]
        return [("first", FIRST, {"turns": FIRST_TURNS}, False),
                ("second", SECOND, {"turns": SECOND_TURNS}, True),
                ("last-compact", LAST, {"turns": last}, True)]
    raise ValueError(agent)


def session_id(agent, files):
    if agent == "claude-code":
        return ClaudeCode.session_id(files[0])
    if agent == "codex":
        return Codex.session_id(files[0])
    if agent == "qwen-code":
        return QwenCode.session_id(files[0])
    if agent == "copilot-cli":
        return CopilotCli.session_id(files[0])
    return "latest"


def record(agent_name: str, out: Path, bin_dir: Path) -> dict:
    agent = AGENTS[agent_name](bin_dir)
    base = out / agent_name
    shutil.rmtree(base, ignore_errors=True)
    home, work = base / "home", base / "work"
    steps, resume = [], None
    for index, (name, prompt, script, resumed) in enumerate(steps_for(agent_name), 1):
        log_dir = base / "logs" / f"{index}-{name}"
        result = agent.run(home, work, prompt, script, log_dir, resume if resumed else None)
        kinds = [r["kind"] for r in result.requests]
        steps.append({"step": name, "prompt": prompt, "rc": result.rc, "seconds": round(result.seconds, 1),
                      "log_dir": str(log_dir.relative_to(base)), "requests": kinds,
                      "stderr_tail": result.stderr[-1500:] if result.rc else ""})
        if result.rc != 0:
            break
        files = agent.session_files(home)
        if not files:
            steps[-1]["rc"] = "no session file"
            break
        resume = session_id(agent_name, files)
    files = agent.session_files(home)
    main = GeminiCli.main_session(files) if agent_name == "gemini-cli" and files else (files[0] if files else None)
    manifest = {"agent": agent_name, "package": VERSIONS[agent_name], "home": str(home), "cwd": str(work),
                "session": str(main) if main else None, "session_files": [str(f) for f in files],
                "session_id": resume, "steps": steps,
                "ok": all(s["rc"] == 0 for s in steps) and len(steps) == len(steps_for(agent_name))}
    (base / "recording.json").write_text(json.dumps(manifest, indent=1))
    return manifest


def copy_out(manifest: dict, out: Path, dest: Path) -> list:
    base, target = out / manifest["agent"], dest / manifest["agent"]
    shutil.rmtree(target, ignore_errors=True)
    (target / "session").mkdir(parents=True)
    for f in manifest["session_files"]:
        shutil.copy2(f, target / "session" / Path(f).name)
    shutil.copytree(base / "logs", target / "logs")
    shutil.copy2(base / "recording.json", target / "recording.json")
    return sorted(str(p.relative_to(dest)) for p in target.rglob("*") if p.is_file())


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out", type=Path)
    ap.add_argument("--agents", default="claude-code,codex,gemini-cli,qwen-code")
    ap.add_argument("--bin-dir", type=Path, default=default_bin_dir())
    ap.add_argument("--copy-to", type=Path)
    args = ap.parse_args()
    failed, listing = False, []
    for name in args.agents.split(","):
        m = record(name, args.out.resolve(), args.bin_dir)
        print(f"{name}: {'ok' if m['ok'] else 'FAILED'}: " + ", ".join(
            f"{s['step']} rc={s['rc']} {s['seconds']}s {'/'.join(s['requests'])}" for s in m["steps"]))
        for s in m["steps"]:
            if s["rc"] != 0:
                print(s["stderr_tail"], file=sys.stderr)
        failed |= not m["ok"]
        if args.copy_to:
            files = copy_out(m, args.out.resolve(), args.copy_to)
            listing.append(f"{name} ({m['package']}): {'ok' if m['ok'] else 'FAILED'}; session: "
                           f"{Path(m['session']).name if m['session'] else '-'}; steps: "
                           + ", ".join(f"{s['step']} ({'/'.join(s['requests'])})" for s in m["steps"]))
            listing += [f"  {f}" for f in files]
    if args.copy_to:
        (args.copy_to / "READY").write_text("\n".join(listing) + "\n")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
