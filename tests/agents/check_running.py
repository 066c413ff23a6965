#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Saving in place beside a running agent (docs/design/saving.md, "A running agent").

For Codex (`codex exec resume`) and Claude Code (`claude -p --resume`): a short session is recorded,
then resumed with a turn whose answer the fake model server holds back (the agent has written the
turn's first lines and waits). Meanwhile `contextlens-cli compact FILE --in-place` must fail, naming
the agent and its pid, and leave the file as the agent has it. After the agent exits, the same save
must succeed, and every line the agent wrote (its answer included) must be in the file.

  check_running.py --cli PATH --work DIR [--agents codex,claude-code]
Exit 1 when any check fails. About 30-40 s. `--agents gemini-cli` also runs (Gemini CLI is found by
its working folder); it is not in the default set: the save after it exits is refused today by the
live-context check (trim-tools on a Gemini CLI session; a separate problem, not a running agent).
"""

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

from agentlib import AGENTS, default_bin_dir
import fake_model_server

ANSWER = "CTXLENS-RUNNING-ANSWER-5D21"
# The save: tool outputs trimmed (the resumed turn has one), as in the report of issue 29.
STRATEGY = ["--strategy", "trim-tools", "--param", "keepLastToolRounds=0"]
NAME = {"codex": "Codex", "claude-code": "Claude Code", "gemini-cli": "Gemini CLI"}


def turn_requests(log_dir: Path) -> int:
    n = 0
    for p in Path(log_dir).glob("*.json"):
        try:
            n += json.loads(p.read_text()).get("kind") == "turn"
        except (OSError, ValueError):
            pass
    return n


def check(agent_name: str, cli: Path, work: Path, bin_dir: Path) -> list:
    """[(check, ok, reason)]"""
    out = []
    agent = AGENTS[agent_name](bin_dir)
    agent.own_compaction = False
    home, cwd = work / agent_name / "home", work / agent_name / "project"
    first = agent.run(home, cwd, "Say hello.", {"turns": [{"text": "Hello."}]}, work / agent_name / "log-first")
    files = agent.session_files(home)
    if first.rc != 0 or not files:
        return [("record", False, f"exit {first.rc}, {len(files)} session file(s): {first.stderr[-300:]}")]
    session = files[0]
    sid = agent.session_id(session) if hasattr(agent, "session_id") else "latest"  # Gemini CLI: --resume latest

    # The resumed turn: a tool call, then the answer held back for a while.
    log_dir = work / agent_name / "log-resume"
    server = fake_model_server.start({"turns": [{"shell": ["echo running-check"]}, {"text": ANSWER, "delay": 12}]}, log_dir)
    backups = work / agent_name / "backups"
    compact = [str(cli), "compact", str(session), *STRATEGY, "--in-place", "--backup-root", str(backups)]
    try:
        agent.prepare(home, server.server_port)
        proc = subprocess.Popen(agent.argv("Run the check, then answer.", sid), cwd=cwd,
                                env=agent.env(home, server.server_port), stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 90
        while turn_requests(log_dir) < 2 and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.2)
        time.sleep(1)  # the request for the answer is out: the agent waits for it
        mid_turn = session.read_bytes()
        p = subprocess.run(compact, capture_output=True, text=True, timeout=120)
        refused = p.returncode != 0 and NAME[agent_name] in p.stderr and "pid" in p.stderr
        out.append(("refused mid-turn", refused and proc.poll() is None,
                    f"exit {p.returncode}: {(p.stderr or p.stdout).strip()[-300:]}"))
        now = session.read_bytes()
        out.append(("file untouched by the refusal", now.startswith(mid_turn), f"{len(mid_turn)} -> {len(now)} bytes"))
        stdout, stderr = proc.communicate(timeout=120)
        out.append(("agent finished its turn", proc.returncode == 0 and ANSWER in stdout,
                    f"exit {proc.returncode}: {stderr.strip()[-200:]}"))
    finally:
        server.shutdown()
        server.server_close()

    written = session.read_bytes()
    p = subprocess.run(compact, capture_output=True, text=True, timeout=120)
    out.append(("saved after the agent exited", p.returncode == 0 and "saved in place" in p.stdout,
                f"exit {p.returncode}: {(p.stderr or p.stdout).strip()[-300:]}"))
    saved = session.read_bytes()
    answer_in = ANSWER.encode() in saved
    if agent_name == "claude-code":
        # A Claude Code compaction appends: every line the agent wrote is there as it was.
        missing = [l for l in written.splitlines() if l and l not in saved]
        out.append(("every line the agent wrote is in the file", answer_in and not missing,
                    f"{len(missing)} line(s) missing, answer {'present' if answer_in else 'absent'}"))
    else:
        # The rollout is rewritten without the tool round trim-tools drops (its call, output and events,
        # renumbered): every other record the agent wrote is there, as it wrote it.
        def norm(line):
            record = json.loads(line)
            record.pop("ordinal", None)
            return json.dumps(record, sort_keys=True)
        lines = [l for l in written.splitlines() if l.strip()]
        calls = {json.loads(l).get("payload", {}).get("call_id") for l in lines if b'"function_call"' in l} - {None}
        have = {norm(l) for l in saved.splitlines() if l.strip()}
        missing = [l for l in lines if norm(l) not in have and not any(c.encode() in l for c in calls)]
        out.append(("every line the agent wrote is in the file (but the trimmed tool round)", answer_in and not missing,
                    f"{len(missing)} line(s) missing, answer {'present' if answer_in else 'absent'}: "
                    + "; ".join(m[:120].decode(errors="replace") for m in missing[:3])))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cli", type=Path, required=True)
    ap.add_argument("--work", type=Path, required=True)
    ap.add_argument("--bin-dir", type=Path, default=default_bin_dir())
    ap.add_argument("--agents", default="codex,claude-code")
    args = ap.parse_args()
    start = time.monotonic()
    failed = 0
    for name in args.agents.split(","):
        for what, ok, reason in check(name, args.cli.resolve(), args.work.resolve(), args.bin_dir):
            failed += not ok
            print(f"  [{'PASS' if ok else 'FAIL'}] running {name}: {what}" + (f" ({reason})" if reason else ""), flush=True)
    print(f"running-agent checks: {failed} failed ({time.monotonic() - start:.0f} s)")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
