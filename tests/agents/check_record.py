# SPDX-License-Identifier: MIT
"""(w) The recording proxy with the real agents (check.py runs it; it can run alone too).

`contextlens-cli record -o FILE --upstream FAKE -- AGENT ...` starts each agent pointed at its proxy,
which forwards to the fake model server. The agent must finish its task (a shell command and a
streamed answer), every request body the server received must be in the recording byte for byte
(the server logs each body's SHA-256), each of them answered, and the agent's key ("fake-key", sent
as x-api-key, Authorization or x-goog-api-key) must appear nowhere in the recording or in what the
proxy printed.

Then the recording is opened like a session: `requests` lists every request the server received,
each model call with the usage the server answered (the fake server counts bytes / 4 of the body
it received), and the last model call opens as FILE#N with the messages of its body, the answer
appended as the last message, and the measured usage on it; an export of it is the body's document
with that answer added. The stated fixed-part default of each agent (docs/design/tokens.md) is within
10 % of the system prompt and tool definitions its first request really sent, as ContextLens
estimates them. Each agent's second request only appends to its first (Claude Code moves its
cache_control marker forward: not a change), so the prompt cache reads all of it: no break.

The agent's own compaction on the wire: the scenario of record.py (turns, the agent's compaction,
a resumed turn) runs through the proxy into one recording. `requests` must mark exactly the requests
the fake server classified as compaction requests, and `audit SESSION --recording REC` must link
every compaction of the session to one of them (the answer's summary is the session's).

Compaction on the wire: the first task of record.py runs twice through `record --strategy trim-tools`,
once with --dry-run, once live. Each agent finishes both. The dry run forwards every request as the
agent sent it; live forwards the compacted body of each request the strategy changed (the server
receives exactly the recorded "rewrite" body) and the original of the others. The provider's count of
each compacted request (the fake server's bytes / 4) is within 2 % of what ContextLens predicted, in
the live run and for the same request of the dry run.

  check_record.py --cli PATH --work DIR [--agents a,b] [--bin-dir DIR]
"""

import base64
import hashlib
import json
import shutil
from pathlib import Path

from agentlib import AGENTS
from fake_model_server import estimate_tokens

ANSWER = "Recorded run finished: the file holds the greeting."
SCRIPT = {"turns": [{"shell": ["echo hello > greeting.txt"]}, {"text": ANSWER, "chunks": 6}]}
KEY = "fake-key"


def body_bytes(line: dict) -> bytes:
    if "bodyBase64" in line:
        return base64.b64decode(line["bodyBase64"])
    return line.get("body", "").encode("utf-8")


def run_record(cli, rep, agents: list, bin_dir: Path, work: Path):
    for name in agents:
        agent = AGENTS[name](bin_dir)
        where = work / name
        shutil.rmtree(where, ignore_errors=True)
        where.mkdir(parents=True)
        recording = where / "recording.jsonl"
        result = agent.run(where / "home", where / "work", "Write hello to greeting.txt with the shell, then say so.", SCRIPT,
                           where / "logs", timeout=240, record=(cli.path, recording))
        done = result.rc == 0 and ANSWER in result.stdout and (where / "work" / "greeting.txt").exists()
        if not rep.add("w-agent-finished", name, done,
                       "" if done else f"exit {result.rc}: {result.stderr[-400:]} / {result.stdout[-200:]}"):
            continue
        text = recording.read_text() if recording.exists() else ""
        lines = [json.loads(line) for line in text.splitlines() if line.strip()]
        requests = {d["id"]: d for d in lines if d.get("type") == "request"}
        responses = {d["id"]: d for d in lines if d.get("type") == "response"}
        recorded = [hashlib.sha256(body_bytes(d)).hexdigest() for d in requests.values()]
        received = [r["bodySha256"] for r in result.requests if r.get("method") == "POST"]
        missing = [h for h in received if h not in recorded]
        unanswered = [i for i in requests if i not in responses or responses[i].get("error")]
        ok = bool(received) and not missing and len(recorded) == len(received) and not unanswered
        rep.add("w-bodies-recorded", name, ok,
                "" if ok else f"{len(received)} bodies received, {len(recorded)} recorded, {len(missing)} not in the "
                              f"recording, {len(unanswered)} without an answer")
        printed = result.stdout + result.stderr
        leaks = [where for where, t in (("recording", text), ("output", printed)) if KEY in t]
        rep.add("w-no-key", name, not leaks and bool(text), "" if not leaks else f"the key is in the {', '.join(leaks)}")
        check_opened(cli, rep, name, recording, lines, result, where)
        check_session_link(cli, rep, agent, recording, result, where)
        check_compaction(cli, rep, agent, bin_dir, work / f"{name}-compaction")
        check_wire_strategy(cli, rep, agent, work / f"{name}-wire")


# core/tokens/fixedpart.cpp defaultFixedTokens, for a session that records neither its fixed part nor usage.
FIXED_DEFAULTS = {"claude-code": 20000, "codex": 9000, "gemini-cli": 11000, "qwen-code": 18000}
ARRAYS = {"anthropic": "messages", "openai-responses": "input", "openai-chat": "messages", "gemini": "contents"}


def check_opened(cli, rep, name, recording: Path, lines: list, result, where: Path):
    """The recording read back by ContextLens: the request list, and the last model call opened."""
    rc, listed, err = cli.json("requests", recording)
    calls = [r for r in (listed or {}).get("list", []) if r.get("api")]
    served = [r for r in result.requests if r.get("method") == "POST" and r.get("api")]
    bodies = [body_bytes(d) for d in lines if d.get("type") == "request"]
    wrong = [r["number"] for r in calls
             if not r.get("usage") or r["usage"]["context"] != estimate_tokens(bodies[r["number"] - 1])]
    ok = rc == 0 and listed is not None and len(listed["list"]) == len(bodies) and len(calls) == len(served) and not wrong
    if not rep.add("w-requests-listed", name, ok,
                   "" if ok else f"rc {rc}, {len(calls)} model calls listed, {len(served)} served; usage not the "
                                 f"server's for {wrong}: {err[-300:]}"):
        return
    sent = calls[0]["tokens"]["system"] + calls[0]["tokens"]["tools"]
    default = FIXED_DEFAULTS[name]
    ok = abs(sent - default) <= 0.10 * sent
    rep.add("w-fixed-default", name, ok, f"first request: system prompt + tools {sent}, the stated default {default} "
                                         f"({100.0 * (default - sent) / sent:+.1f} %)")
    kinds = [(r["number"], (r.get("cache") or {}).get("kind"), (r.get("cache") or {}).get("previous")) for r in calls]
    ok = len(calls) >= 2 and kinds[0][1] == "first" and all(k == "append" and p == kinds[i][0] for i, (n, k, p) in enumerate(kinds[1:])) \
        and listed["cache"]["breaks"] == 0
    rep.add("w-cache-append", name, ok, "" if ok else f"cache steps {kinds}, {listed['cache']}")
    last = calls[-1]
    rc, info, err = cli.json("info", last["open"])
    body = json.loads(bodies[last["number"] - 1])
    sent = body.get(ARRAYS[last["api"]], [])
    answered = info is not None and (info.get("recording") or {}).get("answered")
    measured = info is not None and info["tokens"]["measured"] == last["usage"]["context"]
    exported = where / "request.json"
    erc, _, eerr = cli.run("convert", last["open"], "--to", last["api"], "-o", exported, "--force")
    doc = json.loads(exported.read_text()) if exported.exists() else {}
    array = doc.get(ARRAYS[last["api"]], [])
    same_start = array[:len(sent)] == sent and len(array) == len(sent) + 1
    ok = rc in (0, 1) and answered and measured and erc == 0 and same_start and info["format"] == last["api"]
    rep.add("w-request-opens", name, ok,
            "" if ok else f"info rc {rc} answered {answered} measured {measured}; export rc {erc} "
                          f"({len(array)} items for {len(sent)} sent): {(err + eerr)[-300:]}")


def check_session_link(cli, rep, agent, recording: Path, result, where: Path):
    """`requests` finds the session the agent wrote (Claude Code and Codex by the session id they
    send; Gemini CLI's and Qwen Code's named) and links the answer of every turn the fake server served to it."""
    from agentlib import GeminiCli
    home = where / "home"
    if agent.name in ("gemini-cli", "qwen-code"):  # their requests name no session
        args = ["--session", GeminiCli.main_session(agent.session_files(home))]
    else:
        args = ["--home", home]
    rc, listed, err = cli.json("requests", recording, *args)
    session = (listed or {}).get("session") or {}
    turns = sum(1 for r in result.requests if r.get("method") == "POST" and r.get("kind") == "turn")
    ok = bool(session.get("path")) and session.get("linked", 0) >= turns > 0
    rep.add("w-session-linked", agent.name, ok, f"{session.get('linked')} answers linked to {session.get('path')}, "
                                                f"{turns} turns served" + ("" if ok else f": {err[-300:]}"))


def check_compaction(cli, rep, agent, bin_dir: Path, where: Path):
    from record import steps_for, session_id
    from agentlib import GeminiCli
    shutil.rmtree(where, ignore_errors=True)
    recording, served, resume = where / "recording.jsonl", [], None
    for index, (step, prompt, script, resumed) in enumerate(steps_for(agent.name), 1):
        result = agent.run(where / "home", where / "work", prompt, script, where / "logs" / f"{index}-{step}",
                           resume if resumed else None, record=(cli.path, recording))
        served += [r for r in result.requests if r.get("method") == "POST"]
        files = agent.session_files(where / "home")
        if not rep.add("w-compaction-recorded", f"{agent.name} {step}", result.rc == 0 and bool(files),
                       "" if result.rc == 0 else f"exit {result.rc}: {result.stderr[-300:]}"):
            return
        resume = session_id(agent.name, files)
    rc, listed, err = cli.json("requests", recording)
    marked = [r["number"] for r in (listed or {}).get("list", []) if r.get("compaction")]
    asked = sum(1 for r in served if r.get("kind") == "compaction")
    ok = listed is not None and len(marked) == asked > 0
    rep.add("w-compaction-listed", agent.name, ok, "" if ok else f"marked {marked}, the server saw {asked} compaction requests: {err[-300:]}")
    files = agent.session_files(where / "home")
    session = GeminiCli.main_session(files) if agent.name == "gemini-cli" else files[0]
    rc, audited, err = cli.json("audit", session, "--recording", recording, "--strategies", "none")
    comps = (audited or {}).get("compactions", [])
    linked = [c["wire"]["request"] for c in comps if (c.get("wire") or {}).get("linked")]
    ok = bool(comps) and len(linked) == len(comps) and all(n in marked for n in linked)
    rep.add("w-compaction-linked", agent.name, ok, "" if ok else f"{len(comps)} compactions, linked to {linked} "
                                                                 f"(compaction requests {marked}): {err[-300:]}")


def sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def within(predicted: int, measured: int, share: float = 0.02) -> bool:
    return measured > 0 and abs(predicted - measured) <= share * measured


def check_wire_strategy(cli, rep, agent, where: Path):
    from record import FIRST, FIRST_TURNS
    shutil.rmtree(where, ignore_errors=True)
    runs = {}
    for mode in ("dry-run", "live"):
        recording = where / mode / "recording.jsonl"
        options = ["--strategy", "trim-tools"] + (["--dry-run"] if mode == "dry-run" else [])
        result = agent.run(where / mode / "home", where / mode / "work", FIRST, {"turns": FIRST_TURNS}, where / mode / "logs",
                           record=(cli.path, recording, options))
        done = result.rc == 0 and FIRST_TURNS[-1]["text"] in result.stdout
        if not rep.add("w-wire-finished", f"{agent.name} {mode}", done,
                       "" if done else f"exit {result.rc}: {result.stderr[-400:]} / {result.stdout[-200:]}"):
            return
        lines = [json.loads(line) for line in recording.read_text().splitlines() if line.strip()]
        requests = {d["id"]: d for d in lines if d.get("type") == "request"}
        rewrites = {d["id"]: d for d in lines if d.get("type") == "rewrite"}
        received = [r["bodySha256"] for r in result.requests if r.get("method") == "POST"]
        expected = [sha(rewrites[i]["body"]) if rewrites.get(i, {}).get("forwarded") == "compacted" else hashlib.sha256(body_bytes(d)).hexdigest()
                    for i, d in requests.items() if d.get("method") == "POST"]
        changed = [i for i, w in rewrites.items() if w.get("changed")]
        compacted = [i for i, w in rewrites.items() if w.get("forwarded") == "compacted"]
        shape = not compacted if mode == "dry-run" else compacted == changed
        ok = bool(changed) and shape and sorted(received) == sorted(expected)
        rep.add("w-wire-forwarded", f"{agent.name} {mode}", ok,
                "" if ok else f"changed {changed}, compacted forwarded {compacted}; {len(received)} bodies received, "
                              f"{len(set(received) & set(expected))} of them the expected ones")
        rc, listed, err = cli.json("requests", recording)
        runs[mode] = (rewrites, {r["number"]: r for r in (listed or {}).get("list", [])})
    live_rewrites, live_listed = runs["live"]
    dry_rewrites, _ = runs["dry-run"]
    # Request k of each run is the same step of the same scripted task (ids count from 1 in each run).
    misses = []
    for k, w in live_rewrites.items():
        measured = (live_listed.get(k, {}).get("usage") or {}).get("context", 0)
        if w.get("forwarded") == "compacted" and w.get("calibrated") and not within(w["predictedAfter"], measured):
            misses.append(f"live #{k}: predicted {w['predictedAfter']}, the server counted {measured}")
        dry = dry_rewrites.get(k, {})
        if w.get("forwarded") == "compacted" and dry.get("changed") and dry.get("calibrated") and not within(dry["predictedAfter"], measured):
            misses.append(f"dry run #{k}: predicted {dry['predictedAfter']}, live the server counted {measured}")
    checked = [k for k, w in live_rewrites.items() if w.get("forwarded") == "compacted" and w.get("calibrated")]
    ok = bool(checked) and not misses
    rep.add("w-wire-predicted", agent.name, ok, "" if ok else "; ".join(misses) or "no calibrated compacted request")


def main():
    from check import run_alone
    run_alone(__doc__, lambda cli, rep, args: run_record(cli, rep, args.agents.split(","), args.bin_dir, args.work), True)

if __name__ == "__main__":
    main()
