# SPDX-License-Identifier: MIT
"""(h) ContextLens inside the agents (check.py runs it; it can run alone too).

Compaction hooks: each agent runs record.py's scenario (turns, its own compaction, a resumed turn)
with `contextlens-cli hook` configured on its compaction hooks: Claude Code PreCompact and
PostCompact (~/.claude/settings.json), Codex PreCompact and PostCompact (~/.codex/hooks.json with the
hooks feature on), Gemini CLI PreCompress (~/.gemini/settings.json; it fires before every turn's check, so
the hook keeps the newest snapshot no compaction followed besides one per compaction), Qwen Code
PreCompact and PostCompact (~/.qwen/settings.json, Claude Code's events and hook input). The agent must
finish every step, the hook must have kept one snapshot per compaction of the session, and an
after-record with the facts checked where the agent has PostCompact (Codex hands no summary over:
the hook reads it from the session); `audit SESSION --hooks-root ROOT` must link every
compaction to its snapshot, readable; where the agent only appends to its file (Claude Code, Codex, Qwen Code)
the snapshot is the state the file's history holds, so the summary kept as many of its facts as the
audit counts on the file.

Status line: Claude Code runs interactively in a pseudo-terminal with `contextlens-cli statusline`
as its statusLine command, on a session placed for it; the line it renders must be the one the
command prints for the same session (the figures of `context` and `cost`).

  check_hooks.py --cli PATH --work DIR [--agents a,b] [--bin-dir DIR]
"""

import json
import os
import pty
import re
import select
import shutil
import subprocess
import time
from pathlib import Path

import record
from agentlib import AGENTS, ClaudeCode, Codex, GeminiCli, QwenCode


def hook_root(home: Path) -> Path:
    return home / ".local" / "share" / "contextlens" / "backups"  # XDG_DATA_HOME of agentlib's env


def with_hooks(agent_cls, command: str):
    """The agent class with `command` on its compaction hooks, written after its own settings."""

    class Hooked(agent_cls):
        def prepare(self, home, port):
            super().prepare(home, port)
            entry = [{"hooks": [{"type": "command", "command": command}]}]
            if agent_cls is ClaudeCode:
                settings = Path(home) / ".claude" / "settings.json"
                settings.parent.mkdir(parents=True, exist_ok=True)
                settings.write_text(json.dumps({"hooks": {"PreCompact": entry, "PostCompact": entry}}))
            elif agent_cls is QwenCode:  # Claude Code's hook events and input, in its own settings
                settings = Path(home) / ".qwen" / "settings.json"
                data = json.loads(settings.read_text())
                data["hooks"] = {"PreCompact": entry, "PostCompact": entry}
                settings.write_text(json.dumps(data, indent=1))
            elif agent_cls is GeminiCli:
                settings = Path(home) / ".gemini" / "settings.json"
                data = json.loads(settings.read_text())
                data["hooks"] = {"PreCompress": entry}
                settings.write_text(json.dumps(data, indent=1))
            elif agent_cls is Codex:
                codex = Path(home) / ".codex"
                config = (codex / "config.toml").read_text()
                config = config.replace("[features]\n", "[features]\nhooks = true\n")
                for event in ("PreCompact", "PostCompact"):
                    config += f'\n[[hooks.{event}]]\n[[hooks.{event}.hooks]]\ntype = "command"\ncommand = {json.dumps(command)}\n'
                (codex / "config.toml").write_text(config)

        def argv(self, prompt, resume):
            cmd = super().argv(prompt, resume)
            # Codex runs a hook only once the user has trusted it (asked interactively, kept under
            # [hooks.state] in config.toml); here the flag that stands for that approval.
            return cmd[:2] + ["--dangerously-bypass-hook-trust"] + cmd[2:] if agent_cls is Codex else cmd

    return Hooked


def run_scenario(agent, name: str, base: Path) -> tuple:
    home, work = base / "home", base / "work"
    resume, failed = None, ""
    for index, (step, prompt, script, resumed) in enumerate(record.steps_for(name), 1):
        result = agent.run(home, work, prompt, script, base / "logs" / f"{index}-{step}", resume if resumed else None)
        if result.rc != 0:
            failed = f"{step}: exit {result.rc}: {result.stderr[-400:]}"
            break
        files = agent.session_files(home)
        if not files:
            failed = f"{step}: no session file"
            break
        resume = record.session_id(name, files)
    files = agent.session_files(home)
    session = (GeminiCli.main_session(files) if name == "gemini-cli" else files[0]) if files else None
    return home, session, failed


# The agents whose compaction hooks this check configures.
HOOKED = ("claude-code", "codex", "gemini-cli", "qwen-code")


def run_hooks(cli, rep, agents: list, bin_dir: Path, work: Path):
    for name in agents:
        if name not in HOOKED:
            print(f"  [info] h-hook-scenario {name}: no compaction hook configured for this agent", flush=True)
            continue
        base = work / name
        shutil.rmtree(base, ignore_errors=True)
        agent = with_hooks(AGENTS[name], f"{Path(cli.path).resolve()} hook")(bin_dir)
        home, session, failed = run_scenario(agent, name, base)
        if not rep.add("h-hook-scenario", name, not failed and session is not None, failed):
            continue
        root = hook_root(home)
        records = [json.loads(line) for f in root.glob("*/compactions.jsonl") for line in f.read_text().splitlines()]
        rc, audit, err = cli.json("audit", session, "--strategies", "none", "--hooks-root", root)
        compactions = (audit or {}).get("compactions", [])
        before = [r for r in records if r["kind"] == "before"]
        after = [r for r in records if r["kind"] == "after"]
        # Gemini CLI fires PreCompress before every turn's check; the hook keeps one snapshot per
        # compaction and the newest one no compaction followed yet.
        extra = (0, 1) if name == "gemini-cli" else (0,)
        ok = rc == 0 and compactions and len(before) - len(compactions) in extra
        rep.add("h-hook-snapshots", name, ok,
                "" if ok else f"{len(before)} snapshots for {len(compactions)} compactions (audit exit {rc}: {err[-200:]})")
        if name != "gemini-cli":
            ok = len(after) == len(compactions) and all(r["factsChecked"] for r in after)
            rep.add("h-hook-after", name, ok, "" if ok else f"{len(after)} after-records: {after}")
        linked = [c.get("snapshot") for c in compactions]
        ok = bool(linked) and all(s and s["readable"] for s in linked)
        rep.add("h-hook-linked", name, ok, "" if ok else f"snapshots per compaction: {linked}")
        if ok and name != "gemini-cli":
            same = all(s["factsKept"] == c["factsKept"] and len(s["dropped"]) == len(c["dropped"])
                       for s, c in zip(linked, compactions))
            rep.add("h-hook-same-state", name, same,
                    "" if same else "; ".join(f"snapshot {s['factsKept']}/{s['factsKept'] + len(s['dropped'])}, file "
                                              f"{c['factsKept']}/{c['factsTotal']}" for s, c in zip(linked, compactions)))


ANSI = re.compile(rb"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07]*\x07|\x1b[()][0-9A-Za-z]")


def run_statusline(cli, rep, bin_dir: Path, work: Path, session: Path):
    """Claude Code in a pseudo-terminal, showing `contextlens-cli statusline` for a placed session."""
    base = work / "statusline"
    shutil.rmtree(base, ignore_errors=True)
    home, cwd = base / "home", base / "work"
    cwd.mkdir(parents=True)
    sid = ClaudeCode.place(session, home, cwd)
    placed = next((home / ".claude" / "projects").glob(f"*/{sid}.jsonl"))
    state = base / "state"
    (home / ".claude").mkdir(parents=True, exist_ok=True)
    (home / ".claude" / "settings.json").write_text(json.dumps(
        {"statusLine": {"type": "command", "command": f"{Path(cli.path).resolve()} statusline --state-dir {state}"}}))
    # No first-run screens: onboarding done, the folder trusted, the key approved.
    (home / ".claude.json").write_text(json.dumps({
        "hasCompletedOnboarding": True, "theme": "dark", "bypassPermissionsModeAccepted": True,
        "customApiKeyResponses": {"approved": ["fake-key"[-20:]], "rejected": []},
        "projects": {str(cwd): {"hasTrustDialogAccepted": True, "hasCompletedProjectOnboarding": True}}}))
    agent = ClaudeCode(bin_dir)
    from fake_model_server import start
    server = start({"turns": [{"text": "ok"}]}, base / "logs")
    env = {**agent.env(home, server.server_port), "TERM": "xterm-256color", "COLUMNS": "160", "LINES": "40"}
    env.pop("NO_COLOR", None)
    argv = [str(bin_dir / "claude"), "--resume", sid, "--model", "claude-sonnet-4-5"]
    pid, fd = pty.fork()
    if pid == 0:
        os.chdir(cwd)
        os.execve(argv[0], argv, env)
    screen, expected = b"", None
    given = base / "input.json"
    given.write_text(json.dumps({"session_id": sid, "transcript_path": str(placed), "model": {"id": "claude-sonnet-4-5"},
                                 "context_window": {"context_window_size": 200000}}))
    rc, printed, _ = cli.run("statusline", "--no-state", "--input", given)
    expected_context = printed.split(" of ")[0].strip() if rc == 0 else None
    deadline = time.monotonic() + 60
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([fd], [], [], 0.5)
            if ready:
                try:
                    chunk = os.read(fd, 65536)
                except OSError:
                    break
                if not chunk:
                    break
                screen += chunk
                if b"\x1b[6n" in chunk:  # a cursor position query: answer it as a terminal would
                    os.write(fd, b"\x1b[1;1R")
            text = ANSI.sub(b" ", screen).decode("utf-8", "replace")
            if expected_context and re.search(re.escape(expected_context) + r"\s+of\s+200,000\s+tokens", text):
                expected = True
                break
    finally:
        try:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
        except OSError:
            pass
        server.shutdown()
        server.server_close()
    tail = ANSI.sub(b" ", screen[-3000:]).decode("utf-8", "replace")
    called = state.exists() and any(state.iterdir())
    rep.add("h-statusline-rendered", "claude-code", bool(expected),
            "" if expected else f"expected '{expected_context} of 200,000 tokens' (cli exit {rc}: {printed.strip()}); "
                                f"state written: {called}; screen ends: {' '.join(tail.split())[-600:]}")


def run_inside(cli, rep, agents: list, bin_dir: Path, work: Path):
    """The hooks of every agent, then Claude Code's status line on the session its hook run recorded."""
    run_hooks(cli, rep, agents, bin_dir, work)
    if "claude-code" in agents:
        sessions = sorted((work / "claude-code" / "home" / ".claude" / "projects").glob("*/*.jsonl"))
        if rep.add("h-statusline-session", "claude-code", bool(sessions), "" if sessions else "no session recorded"):
            run_statusline(cli, rep, bin_dir, work, sessions[0])


def main():
    from check import run_alone
    run_alone(__doc__, lambda cli, rep, args: run_inside(cli, rep, args.agents.split(","), args.bin_dir, args.work), True)


if __name__ == "__main__":
    main()
