#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks contextlens-cli against sessions recorded by the real agents (record.py) and what the agents
sent to the fake model server.

  (a) validate / info load each recorded session: exit 0, no warnings or errors, no violations
      (info-level notes are listed, not failed)
  (b) convert to the same format writes the file back byte for byte
  (c) convert to the agent's API format equals the live context of the agent's last request (the
      export's final answer aside): same tool-call ids (Gemini: same calls by name and id), same tool
      results, same number of user and assistant turns, its texts all in the request, the compaction
      summary present, the history the agent compacted away absent
  (e) the fixed part `context --json` gives for the session (system prompt, tool definitions, Claude
      Code's attachments) matches what the agent's last request sent besides the conversation (its
      system prompt, tools and Claude Code's reminders), both estimated by contextlens-cli: within
      5 % where the session records those texts, 15 % (the estimator's stated band) where it is
      measured; and the live context at the end is one figure three ways: the sum of the categories,
      the last row of `context --over-time` and `info`'s live total
  (d) every strategy on each recorded and on a generated session: the export placed where the agent
      looks, resumed with a short prompt, and the logged request checked: accepted; the export's
      texts and kept tool calls there, each once; the texts the strategy wrote (summary, placeholders)
      there; dropped tool calls absent; no tool call the uncompacted resume does not send (history
      from before the last compaction); smaller than the uncompacted resume when a reduction is
      reported. Strategies run with --window so that the session fills 95 % of it (they act).
      compact --json reports fates as counts only, so the dropped tool calls and the written texts
      come from comparing `convert --to API` of the input with `compact --to API` of the result.
  (s) Claude Code: the server tool blocks in each export's live context (the recorded session's last
      answer carries a web search the server ran) reach the resumed request unchanged
  (r) Claude Code: a redacted export (`convert --redact`) of the recorded session with planted
      secrets has none of them and resumes in the agent (check_redact.py)
  (f) Claude Code: a compaction put over its session in the middle of a turn is reported undone by
      `info` and `watch` afterwards (check_undone.py)
  (n) Claude Code: a subagent that starts an agent of its own; `info` lists the runs as a tree and
      the inner agent's file names the outer one's call; a named agent in the background that the
      session messages: its name, the message and its notifications linked to it (check_nested.py)
  (w) every agent through `contextlens-cli record`'s proxy: it finishes its task, every request body
      the server received is in the recording byte for byte, and its key is nowhere (check_record.py)
  (h) every agent with `contextlens-cli hook` on its compaction hooks: one snapshot per compaction,
      linked by `audit`; Claude Code's status line rendered in a terminal (check_hooks.py)

  check.py RECORDINGS --cli PATH --work DIR [--jobs 2] [--messages 40] [--json OUT] [--markdown OUT]
Exit 1 when any check fails.
"""

import argparse
import concurrent.futures
import datetime
import filecmp
import json
import math
import os
import platform
import re
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

from agentlib import API_FORMAT, AGENTS, VERSIONS, default_bin_dir, load_requests
import check_nested
import check_record
import check_hooks
import check_redact
import check_undone
import fake_model_server
from fake_model_server import SUMMARY_MARKER

RESUME_PROMPT = "Give me a one-line status of where we are."
RESUME_SCRIPT = {"turns": [{"text": "Status: resumed from the saved session."}]}
TRIGGER_SHARE = 0.95  # strategies run with a window the session fills to this share, so that they act


# ---------------------------------------------------------------------------------------------
# The conversation part of an API request or export, per API format.

KEY = {"anthropic": "messages", "openai-responses": "input", "gemini": "contents", "openai-chat": "messages"}


def conversation(api: str, body: dict) -> list:
    items = body.get(KEY[api]) or []
    # Chat Completions carries the system prompt as a message: not part of the conversation.
    return [m for m in items if m.get("role") != "system"] if api == "openai-chat" else items


def conv_chars(api: str, body: dict) -> int:
    return len(json.dumps(conversation(api, body), ensure_ascii=False))


def norm_id(call_id: str) -> str:
    """Gemini CLI stores 'run_shell_command__<id>' and sends '<id>'. A Claude Code export gives the
    tool ids of its new context a '_cl' + 6 hex suffix (Claude Code finds results by id across the
    file): the same call."""
    if not call_id:
        return call_id
    call_id = call_id.split("__", 1)[-1]
    return re.sub(r"_cl[0-9a-f]{6}$", "", call_id)


def tool_calls(api: str, body: dict) -> list:
    """[(name, id)] of the tool calls in order."""
    out = []
    for item in conversation(api, body):
        if api == "anthropic" and isinstance(item.get("content"), list):
            out += [(b.get("name"), b.get("id")) for b in item["content"] if b.get("type") == "tool_use"]
        elif api == "openai-responses" and item.get("type") in ("function_call", "custom_tool_call",
                                                                 "local_shell_call"):
            out.append((item.get("name"), item.get("call_id")))
        elif api == "gemini":
            out += [(p["functionCall"].get("name"), norm_id(p["functionCall"].get("id")))
                    for p in item.get("parts", []) if "functionCall" in p]
        elif api == "openai-chat":
            out += [((c.get("function") or {}).get("name"), c.get("id")) for c in item.get("tool_calls") or []]
    return out


def tool_results(api: str, body: dict) -> list:
    """Ids of the tool results in order (Gemini: normalised functionResponse ids)."""
    out = []
    for item in conversation(api, body):
        if api == "anthropic" and isinstance(item.get("content"), list):
            out += [b.get("tool_use_id") for b in item["content"] if b.get("type") == "tool_result"]
        elif api == "openai-responses" and item.get("type", "").endswith("_output"):
            out.append(item.get("call_id"))
        elif api == "gemini":
            out += [norm_id(p["functionResponse"].get("id")) for p in item.get("parts", []) if "functionResponse" in p]
        elif api == "openai-chat" and item.get("role") == "tool":
            out.append(item.get("tool_call_id"))
    return out


def call_ids(api: str, body: dict) -> set:
    return {norm_id(i) for _, i in tool_calls(api, body) if i}


def roles(api: str, body: dict) -> dict:
    """Turns by role: user / assistant messages (Responses: message items; Gemini: user / model)."""
    count = {"user": 0, "assistant": 0}
    for item in conversation(api, body):
        if api == "openai-responses" and item.get("type", "message") != "message":
            continue
        role = {"model": "assistant"}.get(item.get("role"), item.get("role"))
        if role in count:
            count[role] += 1
    return count


def texts(api: str, body: dict) -> list:
    """Every text in the conversation part (strings, text blocks, tool outputs)."""
    out = []

    def walk(v):
        if isinstance(v, str):
            out.append(v)
        elif isinstance(v, list):
            for x in v:
                walk(x)
        elif isinstance(v, dict):
            for k, x in v.items():
                if k not in ("id", "call_id", "tool_use_id", "tool_call_id", "type", "role", "name", "signature"):
                    walk(x)
    walk(conversation(api, body))
    return out


def message_texts(api: str, body: dict) -> list:
    """The plain texts of user and assistant messages: no thinking, no tool input or output."""
    out = []
    for item in conversation(api, body):
        if api == "anthropic":
            content = item.get("content")
            out += [content] if isinstance(content, str) else \
                [b.get("text", "") for b in content or [] if b.get("type") == "text"]
        elif api == "openai-responses" and item.get("type", "message") == "message":
            out += [c.get("text", "") for c in item.get("content") or [] if isinstance(c, dict)]
        elif api == "gemini":
            out += [p["text"] for p in item.get("parts", []) if "text" in p and not p.get("thought")]
        elif api == "openai-chat" and item.get("role") in ("user", "assistant"):
            content = item.get("content")
            out += [content] if isinstance(content, str) else \
                [c.get("text", "") for c in content or [] if isinstance(c, dict) and c.get("type") == "text"]
    return [t for t in out if t]


def without_final_answer(api: str, body: dict) -> dict:
    """A session export ends with the answer to the agent's last request: drop it to compare."""
    items = list(conversation(api, body))
    while items:
        last = items[-1]
        role = last.get("role")
        if api == "openai-responses" and last.get("type") in ("function_call", "reasoning"):
            role = "assistant"
        if role not in ("assistant", "model"):
            break
        items.pop()
    if api == "openai-chat":  # the system message stays where it was
        items = [m for m in body.get("messages") or [] if m.get("role") == "system"] + items
    return {**body, KEY[api]: items}


# ---------------------------------------------------------------------------------------------

class Cli:
    def __init__(self, path: Path):
        self.path = Path(path)

    def run(self, *args, timeout=300):
        for attempt in range(30):  # a rebuild may remove or rewrite the binary for a moment
            try:
                p = subprocess.run([str(self.path), *map(str, args)], capture_output=True, text=True,
                                   timeout=timeout)
                return p.returncode, p.stdout, p.stderr
            except OSError as e:
                print(f"  waiting for {self.path}: {e.strerror}", flush=True)
                time.sleep(10)
        raise RuntimeError(f"{self.path} did not become runnable")

    def json(self, *args):
        rc, out, err = self.run(*args, "--json")
        try:
            return rc, json.loads(out), err
        except ValueError:
            return rc, None, (out + err)[-2000:]


class Report:
    def __init__(self):
        self.checks = []  # {"check", "subject", "ok", "reason"}

    def add(self, check, subject, ok, reason="", **extra):
        self.checks.append({"check": check, "subject": subject, "ok": bool(ok), "reason": reason, **extra})
        print(f"  [{'PASS' if ok else 'FAIL'}] {check} {subject}" + (f": {reason}" if reason else ""), flush=True)
        return ok


# ---------------------------------------------------------------------------------------------
# (a) (b) (c)

def check_load(cli: Cli, rep: Report, agent: str, session: Path):
    for command in ("validate", "info"):
        rc, data, err = cli.json(command, session)
        diags = (data or {}).get("diagnostics", [])
        viol = (data or {}).get("violations", [])
        said = [f"{d.get('severity')}: {d.get('text') or d.get('message')}" for d in diags] + \
               [f"violation: message {v.get('message')}: {v.get('reason')}" for v in viol]
        bad = [t for t in said if not t.startswith("info:")]  # notes pass, warnings and errors fail
        shown = "; ".join(said[:8]) + (f" (+{len(said) - 8} more)" if len(said) > 8 else "")
        rep.add(f"a-{command}", agent, rc == 0 and data is not None and not bad,
                "; ".join(filter(None, [f"exit {rc}" if rc else "", shown])), diagnostics=said, exit=rc)


def check_roundtrip(cli: Cli, rep: Report, agent: str, session: Path, work: Path):
    out = work / f"roundtrip-{agent}{session.suffix}"
    out.unlink(missing_ok=True)
    rc, _, err = cli.run("convert", session, "--to", agent, "-o", out)
    same = out.exists() and filecmp.cmp(session, out, shallow=False)
    reason = "" if same else (f"convert exit {rc}: {err.strip()[-300:]}" if not out.exists() else
                              f"bytes differ: {session.stat().st_size} -> {out.stat().st_size} "
                              f"(first difference at byte {first_difference(session, out)})")
    rep.add("b-roundtrip", agent, same, reason + (f"; convert exit {rc}" if same and rc else ""), exit=rc)


def first_difference(a: Path, b: Path) -> int:
    x, y = a.read_bytes(), b.read_bytes()
    return next((i for i in range(min(len(x), len(y))) if x[i] != y[i]), min(len(x), len(y)))


def check_live_context(cli: Cli, rep: Report, agent: str, recording: dict, base: Path, work: Path):
    api = API_FORMAT[agent]
    out = work / f"live-{agent}.json"
    out.unlink(missing_ok=True)
    rc, _, err = cli.run("convert", recording["session"], "--to", api, "-o", out)
    if not out.exists():
        return rep.add("c-live-context", agent, False, f"convert --to {api} exit {rc}: {err.strip()[-300:]}")
    export = without_final_answer(api, json.loads(out.read_text()))
    steps = [base / s["log_dir"] for s in recording["steps"]]
    requests = [r for d in steps for r in load_requests(d)]
    last = [r for r in load_requests(steps[-1]) if r["kind"] == "turn"][-1]["body"]
    compactions = [r["body"] for r in requests if r["kind"] == "compaction"]
    before = set().union(*(call_ids(api, c) for c in compactions)) if compactions else set()
    gone = before - call_ids(api, last)  # what the agent's own compaction removed
    problems = []
    key = (lambda calls: calls) if api == "gemini" else (lambda calls: [i for _, i in calls])
    want, got = key(tool_calls(api, last)), key(tool_calls(api, export))
    if want != got:
        problems.append(f"tool calls: request {want}, export {got}")
    if tool_results(api, last) != tool_results(api, export):
        problems.append(f"tool results: request {tool_results(api, last)}, export {tool_results(api, export)}")
    if roles(api, last) != roles(api, export):
        problems.append(f"turns: request {roles(api, last)}, export {roles(api, export)}")
    sent = "\n".join(texts(api, last))
    unsent = [t for t in message_texts(api, export) if len(t.strip()) >= 20 and t.strip()[:200] not in sent]
    if unsent:
        problems.append(f"{len(unsent)} text(s) of the export not in the request, e.g. {unsent[0][:90]!r}")
    if not any(SUMMARY_MARKER in t for t in texts(api, export)):
        problems.append("compaction summary missing")
    revived = sorted(gone & call_ids(api, export))
    if revived:
        problems.append(f"{len(revived)} tool call(s) from before the compaction present: {revived}")
    rep.add("c-live-context", agent, not problems, "; ".join(problems),
            request_chars=conv_chars(api, last), export_chars=conv_chars(api, export))


# ---------------------------------------------------------------------------------------------
# (e)

FIXED_TOLERANCE = {"recorded": 0.05, "measured": 0.15, "default": 0.15}


def request_fixed_texts(api: str, body: dict, session: Path):
    """System texts, tool definitions and reminders of a request: what it sends besides the conversation."""
    system, tools, reminders = [], body.get("tools") or [], []
    if api == "anthropic":
        s = body.get("system") or []
        system = [s] if isinstance(s, str) else [b.get("text", "") for b in s]
        for m in body["messages"]:
            content = m["content"] if isinstance(m["content"], list) else [{"type": "text", "text": m["content"]}]
            reminders += [b["text"] for b in content
                          if b.get("type") == "text" and b["text"].lstrip().startswith("<system-reminder>")]
    elif api == "openai-responses":
        system = [body["instructions"]] if body.get("instructions") else []
        # Codex sends its system prompt (session_meta base_instructions) as the first developer message.
        meta = json.loads(session.read_text().splitlines()[0]).get("payload", {})
        base = (meta.get("base_instructions") or {}).get("text", "")
        for item in body.get("input", []):
            if item.get("type") == "message" and item.get("role") == "developer":
                text = "".join(c.get("text", "") for c in item.get("content", []) if isinstance(c, dict))
                if base and text.startswith(base[:200]):
                    system.append(text)
    elif api == "openai-chat":  # Qwen Code: its system message; its reminders are user messages of their own
        for m in body.get("messages") or []:
            content = m.get("content")
            parts = [content] if isinstance(content, str) else [c.get("text", "") for c in content or []
                                                                if isinstance(c, dict)]
            if m.get("role") == "system":
                system += parts
            elif m.get("role") == "user":
                reminders += [p for p in parts if p.lstrip().startswith("<system-reminder>")]
        tools = [t.get("function", t) for t in tools]
    else:
        system = [p.get("text", "") for p in (body.get("systemInstruction") or {}).get("parts", [])]
    return [t for t in system if t], tools, reminders


def check_fixed_part(cli: Cli, rep: Report, agent: str, recording: dict, base: Path, work: Path):
    session = Path(recording["session"])
    # Like with like: both sides by the seed 001 estimator (the session's fixed part as derived from
    # the fake server's usage, the request's texts as sent), without the calibrated count's factor.
    rc, ctx, err = cli.json("context", session, "--estimator", "seed")
    if rc != 0 or not ctx:
        return rep.add("e-fixed-part", agent, False, f"context exit {rc}: {err.strip()[-300:]}")
    fixed = sum(c["tokens"] for c in ctx["categories"] if c["group"] == "fixed")
    if agent == "copilot-cli":  # it records its system prompt in the session: a message there, sent every time
        fixed += sum(c["tokens"] for c in ctx["categories"] if c["key"] == "system_messages")
    last = [r for r in load_requests(base / recording["steps"][-1]["log_dir"]) if r["kind"] == "turn"][-1]["body"]
    system, tools, reminders = request_fixed_texts(API_FORMAT[agent], last, session)
    # The request's part as an Anthropic document: the same estimator counts both sides.
    doc = {"model": "m", "system": [{"type": "text", "text": t} for t in system], "tools": tools,
           "messages": [{"role": "user", "content": [{"type": "text", "text": r} for r in reminders] or "."}]}
    path = work / f"fixed-{agent}.json"
    path.write_text(json.dumps(doc))
    rc, req, err = cli.json("context", path, "--estimator", "seed")
    if rc != 0 or not req:
        return rep.add("e-fixed-part", agent, False, f"context of the request exit {rc}: {err.strip()[-300:]}")
    sent = sum(c["tokens"] for c in req["categories"]
               if c["key"] in ("system_messages", "tools") or c["key"].startswith("mcp:") or (c["key"] == "user" and reminders))
    # Four computations of the live context, in the agent's count, agree: the categories at the end,
    # the last row of the series over time, info's live total (the status bar's figure) and analyze's
    # usage (the triggers').
    _, live, _ = cli.json("context", session)
    rc, series, _ = cli.json("context", session, "--over-time")
    rows = (series or {}).get("rows", [])
    _, info, _ = cli.json("info", session)
    _, analysis, _ = cli.json("analyze", session)
    live = live or {"categories": [], "total": None}
    parts = sum(c["tokens"] for c in live["categories"] if c["group"] != "space")
    figures = {"categories": parts, "total": live["total"], "last row": rows[-1]["total"] if rows else None,
               "info live": ((info or {}).get("live") or {}).get("totalTokens"),
               "analyze usage": ((analysis or {}).get("usage") or {}).get("tokens")}
    rep.add("e-adds-up", agent, rc == 0 and len(set(figures.values())) == 1,
            "" if len(set(figures.values())) == 1 else ", ".join(f"{k} {v}" for k, v in figures.items()))
    source = ctx["fixedSource"]
    off = (fixed - sent) / sent if sent else 1.0
    tolerance = FIXED_TOLERANCE.get(source, 0.15)
    rep.add("e-fixed-part", agent, abs(off) <= tolerance,
            f"session {fixed} ({source}) vs request {sent}: {off:+.1%} (allowed ±{tolerance:.0%})",
            session_fixed=fixed, request_fixed=sent, source=source, deviation=round(off, 4))


# ---------------------------------------------------------------------------------------------
# (d)

def make_agent(name: str, bin_dir: Path):
    agent = AGENTS[name](bin_dir)
    agent.own_compaction = False  # resumes measure what ContextLens wrote, not the agent's own compaction
    return agent


def resume(agent_name: str, bin_dir: Path, session: Path, base: Path):
    agent = make_agent(agent_name, bin_dir)
    home, cwd = base / "home", base / "work"
    # Qwen Code resumes a session only in the folder its records name (check_strategies makes it).
    named = agent.session_cwd(session) if hasattr(agent, "session_cwd") else None
    if named and Path(named).is_dir():
        cwd = Path(named)
    cwd.mkdir(parents=True, exist_ok=True)
    resume_id = agent.place(session, home, cwd)
    result = agent.run(home, cwd, RESUME_PROMPT, RESUME_SCRIPT, base / "logs", resume=resume_id)
    turns = result.turn_requests()
    return result, (turns[0]["body"] if turns else None)


def request_total(cli: Cli, body: dict, path: Path):
    """The live total of a request the agent sent, opened as an API document (seed 001 estimator)."""
    path.write_text(json.dumps(body))
    _, info, _ = cli.json("info", path, "--estimator", "seed")
    return ((info or {}).get("live") or {}).get("totalTokens")


# How far ContextLens's predicted live total of an export may be from the request the agent sends
# when it resumes it, both relative to the uncompacted session and its resumed request.
LIVE_TOLERANCE = 0.02


def inserted_texts(api: str, original: dict, compacted: dict) -> list:
    """Texts the strategy wrote (summaries, placeholders): in the compacted export, not in the original."""
    known = set(texts(api, original))
    return [t for t in texts(api, compacted) if t not in known and len(t.strip()) >= 20]


def text_problems(api: str, export: dict, summary: list, request: dict, sent_text: str) -> list:
    problems = []
    unsent = [t for t in message_texts(api, export) if len(t.strip()) >= 20 and t.strip()[:200] not in sent_text]
    if unsent:  # the conversation the export holds must reach the model
        problems.append(f"{len(unsent)} of the export's texts not sent, e.g. {unsent[0][:80]!r}")
    missing = [t for t in summary if t.strip()[:200] not in sent_text]
    if missing:
        problems.append(f"{len(missing)} text(s) the strategy wrote (summary, placeholder) not sent, "
                        f"e.g. {missing[0][:80]!r}")
    exported = message_texts(api, export)
    extra = Counter(message_texts(api, request)) - Counter(exported)
    doubled = sum(n for t, n in extra.items() if t in set(exported))
    if doubled:  # e.g. the agent merged a kept line with its pre-boundary original
        problems.append(f"{doubled} text block(s) of the export sent more often than the export holds them")
    return problems


# The strategy whose summary a model writes in each agent's checks ("NAME+model" rows): the summary
# comes from a second fake server speaking OpenAI Chat Completions, as a local model server would.
MODEL_URL = [""]  # set by main(): the summary server's base URL
MODEL_STRATEGY = {"claude-code": "claude-code-compact", "codex": "codex", "gemini-cli": "gemini-cli",
                  "qwen-code": "qwen-code", "copilot-cli": "copilot-cli"}
MODEL_SUMMARY = (
    "<analysis>Short.</analysis>\n<summary>\n1. Primary Request and Intent: a few shell commands in the scratch "
    "folder.\n2. Key Technical Concepts: shell\n3. Files and Code Sections: a.txt\n4. Errors and fixes: none\n"
    "5. Problem Solving: none\n6. All user messages: see above\n7. Pending Tasks: none\n8. Current Work: done\n"
    "9. Optional Next Step: none. MODEL-SUMMARY-5C1D\n</summary>")


SERVER_RESULT_TYPES = ("web_search_tool_result", "web_fetch_tool_result", "code_execution_tool_result",
                       "bash_code_execution_tool_result", "text_editor_code_execution_tool_result")


def server_blocks(contents) -> dict:
    """Server tool blocks (server_tool_use and its results) among message contents, by (id, type)."""
    out = {}
    for content in contents:
        for b in content if isinstance(content, list) else []:
            if isinstance(b, dict) and (b.get("type") == "server_tool_use" or b.get("type") in SERVER_RESULT_TYPES):
                out[(b.get("id") or b.get("tool_use_id"), b["type"])] = b
    return out


def live_server_blocks(session: Path) -> dict:
    """A Claude Code session's server tool blocks after its last compaction."""
    contents = []
    for line in session.read_text(encoding="utf-8").splitlines():
        try:
            o = json.loads(line)
        except ValueError:
            continue
        if o.get("type") == "system" and o.get("subtype") == "compact_boundary":
            contents = []
        m = o.get("message")
        if isinstance(m, dict) and m.get("role") == "assistant" and not o.get("isSidechain"):
            contents.append(m.get("content"))
    return server_blocks(contents)


def server_block_problems(export: Path, request: dict) -> tuple:
    """(blocks expected, problems): each kept server block must be sent as it is in the export."""
    kept = live_server_blocks(export)
    sent = server_blocks(m.get("content") for m in request.get("messages", []) if m.get("role") == "assistant")
    problems = [f"server block {k[1]} {k[0]} not sent" if k not in sent else f"server block {k[1]} {k[0]} changed"
                for k, b in kept.items() if sent.get(k) != b]
    return len(kept), problems


def run_strategy(ctx: dict, strategy: str) -> dict:
    name, model = (strategy[:-6], True) if strategy.endswith("+model") else (strategy, False)
    cli, agent, api, session, work = ctx["cli"], ctx["agent"], ctx["api"], ctx["session"], ctx["work"] / strategy
    work.mkdir(parents=True, exist_ok=True)
    row = {"agent": agent, "session": ctx["label"], "strategy": strategy, "ok": False, "reason": ""}
    out, out_api = work / f"compacted{session.suffix}", work / "compacted.api.json"
    for p in (out, out_api):
        p.unlink(missing_ok=True)
    common = [session, "--strategy", name, "--window", ctx["window"]]
    if model:
        common += ["--summarizer", "openai", "--base-url", ctx["model_url"], "--model", "local-summary-model",
                   "--cache-dir", work / "summary-cache"]
    rc, data, err = cli.json("compact", *common, "-o", out)
    if data is None or not out.exists():
        row["reason"] = f"compact exit {rc}: {err.strip()[-300:]}"
        return row
    stats = data["stats"]
    row.update(tokens_before=stats["tokensBefore"], tokens_after=stats["tokensAfter"],
               reduction=stats["reduction"], changed=data.get("changed"), fates=stats.get("fates"))
    problems = []
    if rc != 0:
        problems.append(f"compact exit {rc}: " + "; ".join(
            v.get("reason", "") for v in data.get("resultViolations", []) + data.get("violations", []))[:300])
    rc2, _, err2 = cli.run("compact", *common, "--to", api, "-o", out_api)
    if not out_api.exists():
        problems.append(f"compact --to {api} exit {rc2}: {err2.strip()[-200:]}")
        compacted_api = {}
    else:
        compacted_api = json.loads(out_api.read_text())
    original_api = ctx["original_api"]
    dropped = call_ids(api, original_api) - call_ids(api, compacted_api) if compacted_api else set()
    kept = call_ids(api, compacted_api)
    summary = inserted_texts(api, original_api, compacted_api) if compacted_api else []

    result, request = resume(agent, ctx["bin_dir"], out, work / "resume")
    row.update(resume_exit=result.rc, requests=[r["kind"] for r in result.requests],
               request_messages=len(conversation(api, request)) if request else None,
               request_chars=conv_chars(api, request) if request else None,
               baseline_messages=ctx["baseline_messages"], baseline_chars=ctx["baseline_chars"])
    if request is not None and ctx.get("baseline_total"):
        # The prediction against the agent: live after / live before (fixed part included, as
        # compact predicts it) and the resumed request's total / the uncompacted resume's, both
        # sides by the same estimator, so the ratio compares what the export frees.
        _, seed, _ = cli.json("compact", *common, "--estimator", "seed")
        s = (seed or {}).get("stats") or {}
        sent = request_total(cli, request, work / "resumed.request.json")
        if s.get("liveBefore") and sent:
            row.update(live_predicted=round(s["liveAfter"] / s["liveBefore"], 4),
                       live_sent=round(sent / ctx["baseline_total"], 4))
            row["live_deviation"] = round(row["live_predicted"] - row["live_sent"], 4)
    if result.rc != 0 or request is None:
        tail = (result.stderr or result.stdout).strip().splitlines()[-3:]
        problems.append(f"agent did not resume (exit {result.rc}, {len(result.requests)} request(s)): "
                        + " | ".join(tail)[-400:])
    else:
        sent_ids, sent_text = call_ids(api, request), "\n".join(texts(api, request))
        if stats.get("messagesAfter", 1):  # (with nothing left the API export holds only a filler text)
            problems += text_problems(api, compacted_api, summary, request, sent_text)
        if model and data.get("changed") and "MODEL-SUMMARY-5C1D" not in sent_text:
            problems.append("the model's summary is not in the resumed request")
        if model and not data.get("changed"):
            problems.append("the model summary was not applied: " + str(data.get("note"))[:200])
        if api == "anthropic":
            row["server_blocks"], server_problems = server_block_problems(out, request)
            problems += server_problems
        lost = sorted(kept - sent_ids)
        if lost:
            problems.append(f"{len(lost)} kept tool call(s) not sent: {lost[:4]}")
        revived = sorted(dropped & sent_ids)
        if revived:
            problems.append(f"{len(revived)} dropped tool call(s) sent: {revived[:4]}")
        older = sorted(sent_ids - ctx["baseline_ids"])
        if older:  # e.g. history from before the session's last compaction brought back
            problems.append(f"{len(older)} tool call(s) sent that the uncompacted resume does not send: "
                            f"{older[:4]}")
        if stats["reduction"] > 0 and row["request_chars"] >= ctx["baseline_chars"]:
            problems.append(f"reported {stats['reduction']:.0%} reduction but the request is not smaller: "
                            f"{ctx['baseline_chars']} -> {row['request_chars']} characters")
    row["ok"], row["reason"] = not problems, "; ".join(problems)
    row["dropped_ids"], row["summary_texts"] = len(dropped), len(summary)
    return row


def check_strategies(cli: Cli, rep: Report, agent: str, label: str, session: Path, work: Path, bin_dir: Path,
                     strategies: list, jobs: int) -> list:
    api = API_FORMAT[agent]
    work.mkdir(parents=True, exist_ok=True)
    orig_api = work / "original.api.json"
    orig_api.unlink(missing_ok=True)
    cli.run("convert", session, "--to", api, "-o", orig_api)
    _, info, _ = cli.json("info", session)
    tokens = max(1, (info or {}).get("tokens", {}).get("estimated", 1))
    result, baseline = resume(agent, bin_dir, session, work / "baseline")
    if not rep.add("d-baseline-resume", f"{agent}/{label}", result.rc == 0 and baseline is not None,
                   f"exit {result.rc}: {result.stderr.strip()[-300:]}" if result.rc or baseline is None else ""):
        return []
    ctx = {"cli": cli, "agent": agent, "api": api, "session": session, "work": work, "label": label,
           "bin_dir": bin_dir, "window": math.ceil(tokens / TRIGGER_SHARE),
           "original_api": json.loads(orig_api.read_text()) if orig_api.exists() else {},
           "baseline_messages": len(conversation(api, baseline)), "baseline_chars": conv_chars(api, baseline),
           "baseline_ids": call_ids(api, baseline), "model_url": MODEL_URL[0],
           "baseline_total": request_total(cli, baseline, work / "baseline.request.json")}
    rows = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        for row in pool.map(lambda s: run_strategy(ctx, s), strategies + [MODEL_STRATEGY[agent] + "+model"]):
            row["window"] = ctx["window"]
            rep.add("d-strategy", f"{agent}/{label}/{row['strategy']}", row["ok"], row["reason"])
            subject = f"{agent}/{label}/{row['strategy']}"
            if "live_deviation" in row:
                text = (f"predicted {row['live_predicted']:.1%} of the live total, the agent sent "
                        f"{row['live_sent']:.1%} of its uncompacted request (allowed ±{LIVE_TOLERANCE:.0%})")
                if label == "recorded":  # the agent's own session: its fixed part measured by its usage
                    rep.add("d-live-total", subject, abs(row["live_deviation"]) <= LIVE_TOLERANCE, text)
                else:  # generated: no usage, the family's default fixed part; measured, not yet held to 2 %
                    print(f"  [info] d-live-total {subject}: {text}", flush=True)
            elif label == "recorded" and row.get("resume_exit") == 0:
                rep.add("d-live-total", f"{agent}/{label}/{row['strategy']}", False,
                        "no prediction or request total to compare")
            rows.append(row)
    if agent == "claude-code" and label == "recorded":
        # (s) not vacuous: the recorded web search is in the live context, and exports keep it.
        carried = [r["strategy"] for r in rows if r.get("server_blocks")]
        rep.add("s-server-tools", f"{agent}/{label}", len(live_server_blocks(session)) == 2 and bool(carried),
                "" if carried else f"the session has {len(live_server_blocks(session))} live server block(s) "
                                   "(2 expected) and no export kept one")
    return rows


# ---------------------------------------------------------------------------------------------

def markdown(meta: dict, rep: Report, rows: list) -> str:
    lines = ["# Real agents: recorded sessions, compaction exports, resumes", "",
             "Produced by `scripts/ci-agents.sh --write-results` (tests/agents/). Each agent runs offline "
             "against tests/agents/fake_model_server.py; the request sizes are the characters of the "
             "conversation part (messages / input / contents) of the first request the agent sends when "
             "resuming.", "",
             f"- machine: {meta['machine']}", f"- date: {meta['date']}",
             f"- agents: {', '.join(meta['agents'])}", f"- contextlens-cli: {meta['cli_version']}",
             f"- checks: {meta['passed']} passed, {meta['failed']} failed; leg duration {meta['seconds']} s "
             "(install reused, record, check; 2 resumes at a time)", "",
             "## Recorded sessions (a, b, c, e)", "", "| check | agent | verdict | reason |", "|---|---|---|---|"]
    for c in rep.checks:
        if c["check"][0] in "abce":
            lines.append(f"| {c['check']} | {c['subject']} | {'pass' if c['ok'] else 'FAIL'} | "
                         f"{md(c['reason'])} |")
    for agent in AGENTS:
        for label in dict.fromkeys(r["session"] for r in rows if r["agent"] == agent):
            sel = [r for r in rows if r["agent"] == agent and r["session"] == label]
            lines += ["", f"## {agent}, {label} session (window {sel[0]['window']})", "",
                      "| strategy | tokens before → after | request messages before → after | "
                      "request chars before → after | live total predicted / sent | verdict | reason |",
                      "|---|---|---|---|---|---|---|"]
            for r in sel:
                live = (f"{r['live_predicted']:.1%} / {r['live_sent']:.1%}" if "live_deviation" in r else "-")
                lines.append(
                    f"| {r['strategy']} | {r.get('tokens_before', '-')} → {r.get('tokens_after', '-')} | "
                    f"{r.get('baseline_messages', '-')} → {r.get('request_messages', '-')} | "
                    f"{r.get('baseline_chars', '-')} → {r.get('request_chars', '-')} | {live} | "
                    f"{'pass' if r['ok'] else 'FAIL'} | {md(r['reason'])} |")
    return "\n".join(lines) + "\n"


def md(s: str) -> str:
    """A table cell: no folders of this run, no quoted texts (they may be the agents' own prompts)."""
    s = re.sub(r"(?:/[^\s/:'\"]+)+/", "", str(s))
    s = re.sub(r", e\.g\. (['\"]).*?\1(?=;|$)", "", s)
    return s.replace("|", "\\|").replace("\n", " ")[:400]


def run_alone(doc: str, run, with_agents: bool = False):
    """main() of a check module run on its own: --cli, --work, --bin-dir (--agents with with_agents);
    run(cli, report, args) does its checks; exit 1 when one fails."""
    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cli", type=Path, required=True)
    ap.add_argument("--work", type=Path, required=True)
    ap.add_argument("--bin-dir", type=Path, default=default_bin_dir())
    if with_agents:
        ap.add_argument("--agents", default="claude-code,codex,gemini-cli")
    args = ap.parse_args()
    args.work = args.work.resolve()
    rep = Report()
    begun = time.monotonic()
    run(Cli(args.cli), rep, args)
    failed = [c for c in rep.checks if not c["ok"]]
    print(f"\n{len(rep.checks) - len(failed)} passed, {len(failed)} failed ({time.monotonic() - begun:.0f} s)")
    sys.exit(1 if failed or not rep.checks else 0)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("recordings", type=Path, help="the OUT folder of record.py")
    ap.add_argument("--cli", type=Path, required=True)
    ap.add_argument("--work", type=Path, required=True)
    ap.add_argument("--bin-dir", type=Path, default=default_bin_dir())
    ap.add_argument("--agents", default="claude-code,codex,gemini-cli,qwen-code")
    ap.add_argument("--strategies", help="comma-separated; default: every one `strategies --json` lists")
    ap.add_argument("--messages", type=int, default=40,
                    help="size of the generated sessions (40 stays below Gemini CLI's own tool-output masking, "
                         "which starts past about 80K tokens of tool output and would confound the sizes)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--json", type=Path, help="write every check and row here")
    ap.add_argument("--markdown", type=Path, help="write the results table here")
    args = ap.parse_args()
    start = time.monotonic()
    cli, rep, rows = Cli(args.cli), Report(), []
    work = args.work.resolve()
    work.mkdir(parents=True, exist_ok=True)
    summary_server = fake_model_server.start({"default_text": MODEL_SUMMARY}, work / "summary-requests")
    MODEL_URL[0] = f"http://127.0.0.1:{summary_server.server_port}/v1"
    _, listing, _ = cli.json("strategies")
    strategies = args.strategies.split(",") if args.strategies else [s["name"] for s in listing["strategies"]]
    for agent in args.agents.split(","):
        base = args.recordings.resolve() / agent
        recording = json.loads((base / "recording.json").read_text())
        print(f"== {agent}: recorded session {recording['session']}", flush=True)
        if not rep.add("recording", agent, recording["ok"] and recording["session"],
                       "; ".join(f"{s['step']} exit {s['rc']}" for s in recording["steps"])
                       if not recording["ok"] else ""):
            continue
        session = Path(recording["session"])
        check_load(cli, rep, agent, session)
        check_roundtrip(cli, rep, agent, session, work)
        check_live_context(cli, rep, agent, recording, base, work)
        check_fixed_part(cli, rep, agent, recording, base, work)
        rows += check_strategies(cli, rep, agent, "recorded", session, work / agent / "recorded", args.bin_dir,
                                 strategies, args.jobs)
        if agent == "claude-code":  # (r) a redacted export resumes (check_redact.py)
            check_redact.check(cli, rep, agent, session, work / agent / "redact",
                               lambda a, s, b: resume(a, args.bin_dir, s, b))
        generated = work / agent / f"generated-{args.messages}.jsonl"
        project = work / agent / "generated-project"  # where a Qwen Code session must be resumed
        project.mkdir(parents=True, exist_ok=True)
        rc, _, err = cli.run("generate", "--format", agent, "--messages", args.messages, "--seed", 1, "-o", generated,
                             *(["--cwd", project] if agent == "qwen-code" else []))
        if rep.add("generate", agent, rc == 0 and generated.exists(), err.strip()[-300:] if rc else ""):
            rows += check_strategies(cli, rep, agent, f"generated {args.messages}-message", generated,
                                     work / agent / "generated", args.bin_dir, strategies, args.jobs)
    if "claude-code" in args.agents.split(","):  # (f) an undone compaction: tests/agents/check_undone.py
        print("== claude-code: a compaction saved in the middle of its turn", flush=True)
        check_undone.run_undone(cli, rep, args.bin_dir, work / "undone")
        print("== claude-code: agents started by a subagent", flush=True)
        check_nested.run_nested(cli, rep, args.bin_dir, work / "nested")
        print("== claude-code: a named agent of the session's team, in the background", flush=True)
        check_nested.run_team(cli, rep, args.bin_dir, work / "team")
    print("== the recording proxy between each agent and the server", flush=True)
    check_record.run_record(cli, rep, args.agents.split(","), args.bin_dir, work / "record")
    print("== inside the agents: compaction hooks, Claude Code's status line", flush=True)
    check_hooks.run_inside(cli, rep, args.agents.split(","), args.bin_dir, work / "hooks")
    failed = [c for c in rep.checks if not c["ok"]]
    _, version, _ = cli.run("--version")
    meta = {"machine": f"{platform.system()} {platform.release()}, {os.cpu_count()} cores, "
                       f"{platform.freedesktop_os_release().get('PRETTY_NAME', '')}",
            "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            "agents": [VERSIONS[a] for a in args.agents.split(",")], "cli_version": version.strip(),
            "passed": len(rep.checks) - len(failed), "failed": len(failed),
            "seconds": round(time.time() - float(os.environ.get("CI_AGENTS_START", time.time() - (time.monotonic() - start))))}
    if args.json:
        args.json.write_text(json.dumps({"meta": meta, "checks": rep.checks, "rows": rows}, indent=1))
    if args.markdown:
        args.markdown.write_text(markdown(meta, rep, rows))
    print(f"\n{meta['passed']} checks passed, {meta['failed']} failed ({meta['seconds']} s)")
    for c in failed:
        print(f"  FAIL {c['check']} {c['subject']}: {c['reason']}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
