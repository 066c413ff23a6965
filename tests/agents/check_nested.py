# SPDX-License-Identifier: MIT
"""(n) Agents started by a subagent, and a named agent of the session's team running in the background,
with the real Claude Code (check.py runs it; it can run alone too).

The session's Agent call starts a subagent whose own Agent call starts another. Claude Code writes
each agent's conversation to <session>/subagents/agent-<id>.jsonl and beside it agent-<id>.meta.json;
the inner agent's call and result are lines of the outer agent's file. `info --json` must list the
two runs as a tree (the outer started by the session's call, the inner by the outer agent, each
with the description of its call), and the inner agent's file opened alone must name the outer
agent's file and the line of its call.

The team agent: the session's Agent call names it and sends it to the background, then the session
sends it a message (SendMessage to its name) while it works; Claude Code resumes it with the message
and tells the session twice that it stopped (<task-notification>). `info --json` must give the run
its name, say it ran in the background, and link the SendMessage call and both notifications to it.

  check_nested.py --cli PATH --work DIR [--bin-dir DIR]
"""

import json
import shutil
from pathlib import Path

from agentlib import ClaudeCode

OUTER, INNER = "Survey the folder", "Count lines"


def agent_call(description: str, prompt: str) -> dict:
    return {"tool_calls": [{"name": "Agent", "args": {"description": description, "prompt": prompt,
                                                       "subagent_type": "general-purpose",
                                                       "run_in_background": False}}]}


# The model's answers in the order Claude Code asks: the session, the outer agent, the inner agent,
# then the outer and the session finish.
SCRIPT = {"turns": [agent_call(OUTER, "List the files and ask a helper to count their lines."),
                    agent_call(INNER, "Count the lines of every file."),
                    {"text": "No files, so 0 lines."},
                    {"text": "The folder is empty; the helper counted 0 lines."},
                    {"text": "Done: the folder is empty."}]}


def run_nested(cli, rep, bin_dir: Path, work: Path):
    agent = ClaudeCode(bin_dir)
    shutil.rmtree(work, ignore_errors=True)
    result = agent.run(work / "home", work / "work", "Survey this folder with a subagent.", SCRIPT, work / "logs",
                       timeout=240)
    files = agent.session_files(work / "home")
    if not rep.add("n-record", "claude-code", result.rc == 0 and files,
                   "" if result.rc == 0 else f"exit {result.rc}: {result.stderr[-300:]}"):
        return
    session = files[0]
    metas = sorted((session.parent / session.stem / "subagents").glob("agent-*.meta.json"))
    if not rep.add("n-meta-files", "claude-code", len(metas) == 2,
                   "" if len(metas) == 2 else f"{len(metas)} agent meta files beside the subagents (a new layout?)"):
        return
    rc, info, err = cli.json("info", session)
    runs = info.get("subagentRuns", []) if rc == 0 else []
    outer = next((r for r in runs if r.get("description") == OUTER), None)
    inner = next((r for r in runs if r.get("description") == INNER), None)
    ok = (outer is not None and inner is not None and outer["startedBy"] == "session" and outer["depth"] == 1
          and inner["startedBy"] == outer["agentId"] and inner["depth"] == 2
          and inner["sessionMessage"] == outer["message"])
    if not rep.add("n-tree", "claude-code", ok, "" if ok else f"exit {rc}: {err.strip()[-200:]}; runs: {json.dumps(runs)[:600]}"):
        return
    inner_file = session.parent / session.stem / "subagents" / f"agent-{inner['agentId']}.jsonl"
    rc, alone, err = cli.json("info", inner_file)
    parent = alone.get("parent", {}) if rc == 0 else {}
    outer_file = inner_file.with_name(f"agent-{outer['agentId']}.jsonl")
    line = parent.get("line", 0)
    call_line = outer_file.read_text().splitlines()[line - 1] if 0 < line <= len(outer_file.read_text().splitlines()) else ""
    ok = parent.get("session") == str(outer_file) and '"name":"Agent"' in call_line and INNER in call_line
    rep.add("n-agent-file", "claude-code", ok, "" if ok else f"exit {rc}: {err.strip()[-200:]}; parent: {parent}")


# The session's requests and the agent's (its prompt carries TEAM_TASK) interleave: the agent's
# first answer waits, so that the session's message reaches it while it works.
TEAM_TASK = "TEAM-TASK-COUNT"
TEAM_SCRIPT = {"turns": [
    {"tool_calls": [{"name": "Agent", "args": {"description": "Count the files", "prompt": f"{TEAM_TASK}: count the files here.",
                                               "subagent_type": "general-purpose", "name": "counter",
                                               "run_in_background": True}}]},
    {"when": TEAM_TASK, "text": "Counting the files now.", "delay": 4},
    {"tool_calls": [{"name": "SendMessage", "args": {"to": "counter", "message": "Include hidden files too.",
                                                     "summary": "hidden files"}}]},
    {"text": "Asked the counter to include hidden files."},
    {"when": TEAM_TASK, "text": "0 files, hidden ones included."},
    {"text": "The counter reported 0 files."}]}


def run_team(cli, rep, bin_dir: Path, work: Path):
    agent = ClaudeCode(bin_dir)
    shutil.rmtree(work, ignore_errors=True)
    result = agent.run(work / "home", work / "work", "Count the files with a named helper in the background.", TEAM_SCRIPT,
                       work / "logs", timeout=240)
    files = agent.session_files(work / "home")
    if not rep.add("n-team-record", "claude-code", result.rc == 0 and files,
                   "" if result.rc == 0 else f"exit {result.rc}: {result.stderr[-300:]}"):
        return
    rc, info, err = cli.json("info", files[0])
    runs = info.get("subagentRuns", []) if rc == 0 else []
    lines = [json.loads(line) for line in files[0].read_text().splitlines() if line.strip()]
    conversation = [d for d in lines if d.get("type") in ("user", "assistant")]
    sent = sum(1 for d in conversation for b in (d["message"].get("content") if isinstance(d["message"].get("content"), list) else [])
               if b.get("type") == "tool_use" and b.get("name") == "SendMessage")
    notices = sum(1 for d in conversation if isinstance(d["message"].get("content"), str)
                  and d["message"]["content"].startswith("<task-notification>"))
    run = runs[0] if len(runs) == 1 else {}
    ok = (run.get("name") == "counter" and run.get("background") is True and run.get("startedBy") == "session"
          and sent == 1 and len(run.get("messagesTo", [])) == 1 and notices >= 1 and len(run.get("notifications", [])) == notices)
    rep.add("n-team-links", "claude-code", ok,
            "" if ok else f"exit {rc}: {err.strip()[-200:]}; {sent} SendMessage, {notices} notifications in the file; runs: {json.dumps(runs)[:600]}")


def main():
    from check import run_alone
    run_alone(__doc__, lambda cli, rep, args: (run_nested(cli, rep, args.bin_dir, args.work / "nested"),
                                               run_team(cli, rep, args.bin_dir, args.work / "team")))

if __name__ == "__main__":
    main()
