#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A scripted fake model server for running real coding agents offline.

Speaks just enough of four wire formats for Claude Code, Codex and Gemini CLI (and, for their shell
calls, Qwen Code, OpenCode, Cline and GitHub Copilot CLI):
  Anthropic Messages     POST /v1/messages                      (SSE or JSON)
  OpenAI Responses       POST /v1/responses                     (SSE)
  OpenAI Chat            POST /v1/chat/completions              (SSE or JSON)
  Gemini                 POST /v1beta/models/M:generateContent  (JSON)
                         POST /v1beta/models/M:streamGenerateContent?alt=sse
Binds 127.0.0.1 only. Every request is logged as one numbered JSON file (path, headers, body, and the
SHA-256 of the body's bytes).

The script (JSON) is a list of replies taken in order by ordinary requests:
  {"turns": [
     {"shell": ["echo hello > a.txt"]},           one shell tool call per command, run by the agent
     {"tool_calls": [{"name": "Read", "args": {"file_path": "a.txt"}}]},
     {"text": "Done.", "usage": {"input": 900000}},  a final answer; usage is what the server reports
     {"error": {"status": 529, "body": {"error": {"message": "overloaded"}}}},
     {"error": {"status": 429, "body": {...}, "headers": {"retry-after": "1"}}},  extra answer headers
     {"text": "...", "delay": 2.5, "chunks": 8}   wait before answering; stream the text in 8 pieces
     {"text": "...", "stop": "refusal"}           the stop / finish reason to report (default: the usual)
     {"when": "TASK-7", "text": "..."}            taken only by a request whose first user message
                                                  contains TASK-7 (a subagent's prompt), before any
                                                  turn without "when"; the others skip it
   ],
   "summary": "...",        answer to compaction requests (default: a text with SUMMARY_MARKER)
   "default_text": "OK"}    answer once the turns are used up
Compaction requests never take a turn. They are recognised per agent:
  Claude Code: the last user message asks for a summary of the conversation (/compact);
  Codex: header x-codex-turn-metadata has request_kind "compaction";
  Gemini CLI: the system instruction asks for a <state_snapshot> (compression and its self-check);
  Qwen Code (Chat Completions): a system message or the last user message asks for one;
  GitHub Copilot CLI (Chat Completions): the last user message announces the compaction.
Requests from ContextLens itself (User-Agent "ContextLens": its model summaries) always take a turn.
Side requests that are not part of the conversation (Claude Code's title or quota calls, Gemini CLI's
routing / next-speaker / JSON-schema calls, token counting) are answered without taking a turn either.
"""

import argparse
import hashlib
import itertools
import json
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlparse

SUMMARY_MARKER = "CTXLENS-SUMMARY-7F3A"
DEFAULT_SUMMARY = (
    "Recap for the next model: the user asked for a few shell commands in the scratch folder; a.txt was "
    "created with the word hello and read back; nothing is pending. " + SUMMARY_MARKER
)

# Markers of compaction requests: in the last user text (Claude Code), in the system instruction (Gemini CLI).
CLAUDE_COMPACT_MARKERS = ("summary of the conversation",)
GEMINI_COMPRESS_MARKER = "state_snapshot"
# GitHub Copilot CLI: its compaction request ends with a user message announcing the compaction.
COPILOT_COMPACT_MARKER = "history is being compacted"


def estimate_tokens(raw: bytes) -> int:
    return max(1, len(raw) // 4)


def text_of(content) -> str:
    """The text parts of an Anthropic/OpenAI/Gemini content value, joined."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(text_of(c) for c in content)
    if isinstance(content, dict):
        for key in ("text", "content", "parts"):
            if key in content:
                return text_of(content[key])
    return ""


def first_user_text(api: str, body: dict) -> str:
    """The text of the request's first user message (a subagent's is its prompt)."""
    if api == "gemini":
        items = [c for c in body.get("contents", []) if c.get("role") == "user"]
        return text_of(items[0].get("parts", [])) if items else ""
    items = body.get("messages") or body.get("input") or []
    if isinstance(items, str):
        return items
    users = [m for m in items if isinstance(m, dict) and m.get("role") == "user"]
    return text_of(users[0].get("content", "")) if users else ""


class Script:
    """The replies and their order; shared by the handler threads."""

    def __init__(self, data: dict):
        self.turns = list(data.get("turns", []))
        self.summary = data.get("summary", DEFAULT_SUMMARY)
        self.default_text = data.get("default_text", "OK")
        self._taken = set()
        self._lock = threading.Lock()
        self._ids = itertools.count(1)

    def take(self, first_user_text: str = ""):
        """The next reply for a request whose first user message reads first_user_text: the first
        untaken turn whose "when" it contains, else the first untaken turn without a "when"."""
        with self._lock:
            free = [i for i in range(len(self.turns)) if i not in self._taken]
            matching = [i for i in free if self.turns[i].get("when") and self.turns[i]["when"] in first_user_text]
            plain = [i for i in free if not self.turns[i].get("when")]
            pick = (matching or plain or [None])[0]
            if pick is None:
                return None, {"text": self.default_text}
            self._taken.add(pick)
            return pick, self.turns[pick]

    def new_id(self, prefix: str) -> str:
        return f"{prefix}{int(time.time() * 1000) % 10**9:09d}{next(self._ids):04d}"


class RequestLog:
    def __init__(self, directory: Path):
        self.dir = directory
        self.dir.mkdir(parents=True, exist_ok=True)
        self._seq = itertools.count(1)
        self._lock = threading.Lock()

    def write(self, entry: dict):
        with self._lock:
            entry["seq"] = next(self._seq)
            name = f"{entry['seq']:04d}-{entry['api']}-{entry['kind']}.json"
            # Written under a name the readers skip, then renamed: a test polling the folder while
            # the agent waits for its answer never reads half a file.
            part = self.dir / (name + ".part")
            part.write_text(json.dumps(entry, indent=1, ensure_ascii=False))
            part.replace(self.dir / name)


# ---------------------------------------------------------------------------------------------
# Which shell tool the agent offers, and how its arguments look.

def shell_call(api: str, tools: list, command: str):
    names = {t.get("name") or (t.get("function") or {}).get("name") for t in tools or []}
    for decls in (t.get("functionDeclarations", []) for t in tools or []):
        names |= {d.get("name") for d in decls}
    if "Bash" in names:
        return "Bash", {"command": command, "description": "Run a shell command"}
    if "run_shell_command" in names:
        return "run_shell_command", {"command": command, "description": "Run a shell command"}
    if "exec_command" in names:
        return "exec_command", {"cmd": command}
    if "shell_command" in names:
        return "shell_command", {"command": command}
    if "shell" in names:
        return "shell", {"command": ["bash", "-lc", command]}
    if "bash" in names:  # OpenCode, GitHub Copilot CLI
        return "bash", {"command": command, "description": "Run a shell command"}
    if "run_commands" in names:  # Cline
        return "run_commands", {"commands": [command]}
    raise ValueError(f"no shell tool among {sorted(n for n in names if n)}")


def reply_calls(api: str, body: dict, turn: dict):
    tools = body.get("tools", [])
    calls = [shell_call(api, tools, c) for c in turn.get("shell", [])]
    calls += [(c["name"], c.get("args", {})) for c in turn.get("tool_calls", [])]
    return calls


# ---------------------------------------------------------------------------------------------
# Request classification.

def asks_for_snapshot(text: str) -> bool:
    """Names a <state_snapshot> outside any complete one: a request for one, not a resumed summary."""
    return GEMINI_COMPRESS_MARKER in re.sub(r"<state_snapshot>.*?</state_snapshot>", "", text, flags=re.S)


def classify(api: str, body: dict, headers) -> str:
    """'compaction', 'side' (answered without taking a turn) or 'turn'."""
    if (headers.get("user-agent") or "").startswith("ContextLens"):
        return "turn"
    if api == "anthropic":
        messages = body.get("messages", [])
        last = messages[-1] if messages else {}
        last_text = text_of(last.get("content", "")) if last.get("role") == "user" else ""
        if any(m in last_text for m in CLAUDE_COMPACT_MARKERS):
            return "compaction"
        if not body.get("tools"):  # titles, quota probes, topic detection: no tools offered
            return "side"
        return "turn"
    if api == "responses":
        meta = headers.get("x-codex-turn-metadata", "")
        try:
            if json.loads(meta).get("request_kind") == "compaction":
                return "compaction"
        except (ValueError, AttributeError):
            pass
        return "turn"
    if api == "gemini":
        if GEMINI_COMPRESS_MARKER in text_of(body.get("systemInstruction", "")):
            return "compaction"
        config = body.get("generationConfig", {})
        if config.get("responseMimeType") == "application/json" or config.get("responseJsonSchema"):
            return "side"
        return "turn"
    if api == "chat":  # Qwen Code: a system message asking for a <state_snapshot>, or (its cache-friendly
        # compression, the agent's own system prompt kept) a last user message asking for one
        messages = body.get("messages", [])
        system = " ".join(text_of(m.get("content", "")) for m in messages if m.get("role") == "system")
        last = messages[-1] if messages else {}
        last_text = text_of(last.get("content", "")) if last.get("role") == "user" else ""
        # GitHub Copilot CLI: see is_copilot_compaction
        if asks_for_snapshot(system) or asks_for_snapshot(last_text) or is_copilot_compaction(body):
            return "compaction"
    return "turn"


def is_copilot_compaction(body: dict) -> bool:
    messages = body.get("messages", [])
    last = messages[-1] if messages else {}
    return last.get("role") == "user" and COPILOT_COMPACT_MARKER in text_of(last.get("content", ""))


def compaction_text(api: str, summary: str, body: dict) -> str:
    """The summary in the shape each agent asks for."""
    if api == "anthropic":  # Claude Code keeps what is inside <summary>
        return f"<analysis>Short recap of the work.</analysis>\n<summary>{summary}</summary>"
    if api == "chat" and is_copilot_compaction(body):  # Copilot CLI: tagged sections and a checkpoint title
        return (f"<overview>{summary}</overview>\n<history>1. The user asked for shell commands.</history>\n"
                "<next_steps>None.</next_steps>\n<checkpoint_title>Shell commands</checkpoint_title>")
    if api in ("gemini", "chat"):  # Gemini CLI, Qwen Code
        return f"<state_snapshot>{summary}</state_snapshot>"
    return summary


def side_text(api: str, body: dict) -> str:
    config = body.get("generationConfig", {})
    schema = config.get("responseJsonSchema") or config.get("responseSchema")
    if api == "gemini" and schema:
        return json.dumps(fill_schema(schema))
    return "OK"


def fill_schema(schema: dict):
    """A small value matching a JSON schema (Gemini CLI's routing and next-speaker checks)."""
    kind = str(schema.get("type", "object")).lower()
    if "enum" in schema:
        return schema["enum"][0]
    if kind == "object":
        return {k: fill_schema(v) for k, v in schema.get("properties", {}).items()}
    if kind == "array":
        return []
    if kind in ("number", "integer"):
        return 0
    if kind == "boolean":
        return False
    return "user" if "speaker" in json.dumps(schema) else "ok"


# ---------------------------------------------------------------------------------------------
# Answers in each wire format. `calls` is [(name, args)], `usage` {"input": n, "output": m}.

_tls = threading.local()  # per request: how many pieces a streamed text comes in


def pieces(text: str) -> list:
    """The text in the request's number of streamed pieces (at least one, even when empty)."""
    n = max(1, min(getattr(_tls, "chunks", 1), len(text) or 1))
    size = -(-len(text) // n) if text else 0
    return [text[i:i + size] for i in range(0, len(text), size)] if text else [""]


def sse(event, data) -> bytes:
    head = f"event: {event}\n" if event else ""
    return (head + "data: " + json.dumps(data) + "\n\n").encode()


def server_search_blocks(script, search: dict) -> list:
    """A web search the server ran itself (Anthropic server tools): the call and its result, both in
    the assistant message, as the Messages API returns them."""
    call_id = script.new_id("srvtoolu_fake")
    results = [{"type": "web_search_result", "url": r["url"], "title": r["title"],
                "encrypted_content": r.get("encrypted_content", "RW5jcnlwdGVkIGNvbnRlbnQ="), "page_age": None}
               for r in search.get("results", [])]
    return [{"type": "server_tool_use", "id": call_id, "name": "web_search", "input": {"query": search["query"]}},
            {"type": "web_search_tool_result", "tool_use_id": call_id, "content": results}]


def anthropic_answer(script, body, text, calls, usage, stream):
    msg_id = script.new_id("msg_fake")
    search = getattr(_tls, "server_search", None)
    blocks = (server_search_blocks(script, search) if search else []) + (
        [{"type": "text", "text": text}] if text else []) + [
        {"type": "tool_use", "id": script.new_id("toolu_fake"), "name": n, "input": a} for n, a in calls]
    stop = getattr(_tls, "stop", None) or ("tool_use" if calls else "end_turn")
    u = {"input_tokens": usage["input"], "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0,
         "output_tokens": usage["output"]}
    message = {"id": msg_id, "type": "message", "role": "assistant", "model": body.get("model", "fake"),
               "content": blocks, "stop_reason": stop, "stop_sequence": None, "usage": u}
    if not stream:
        return "application/json", json.dumps(message).encode()
    out = [sse("message_start", {"type": "message_start", "message": {**message, "content": [],
                                  "stop_reason": None, "usage": {**u, "output_tokens": 1}}})]
    for i, b in enumerate(blocks):
        if b["type"] == "text":
            start, deltas = {**b, "text": ""}, [{"type": "text_delta", "text": p} for p in pieces(b["text"])]
        elif b["type"] == "web_search_tool_result":
            start, deltas = b, []  # a result block arrives whole
        else:
            start = {**b, "input": {}}
            deltas = [{"type": "input_json_delta", "partial_json": json.dumps(b["input"])}]
        out.append(sse("content_block_start", {"type": "content_block_start", "index": i, "content_block": start}))
        out += [sse("content_block_delta", {"type": "content_block_delta", "index": i, "delta": d}) for d in deltas]
        out.append(sse("content_block_stop", {"type": "content_block_stop", "index": i}))
    out += [sse("message_delta", {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
                                  "usage": {"output_tokens": usage["output"]}}),
            sse("message_stop", {"type": "message_stop"})]
    return "text/event-stream", b"".join(out)


def responses_answer(script, body, text, calls, usage, stream):
    items = []
    if text:
        items.append({"type": "message", "id": script.new_id("msg_fake"), "role": "assistant", "status": "completed",
                      "content": [{"type": "output_text", "text": text, "annotations": []}]})
    for n, a in calls:
        items.append({"type": "function_call", "id": script.new_id("fc_fake"), "call_id": script.new_id("call_fake"),
                      "name": n, "arguments": json.dumps(a), "status": "completed"})
    response = {"id": script.new_id("resp_fake"), "object": "response", "created_at": int(time.time()),
                "model": body.get("model", "fake"), "status": "completed", "output": items,
                "usage": {"input_tokens": usage["input"], "input_tokens_details": {"cached_tokens": 0},
                          "output_tokens": usage["output"], "output_tokens_details": {"reasoning_tokens": 0},
                          "total_tokens": usage["input"] + usage["output"]}}
    if not stream:
        return "application/json", json.dumps(response).encode()
    seq = itertools.count()
    ev = lambda t, **kw: sse(t, {"type": t, "sequence_number": next(seq), **kw})  # noqa: E731
    pending = {**response, "status": "in_progress", "output": [], "usage": None}
    out = [ev("response.created", response=pending), ev("response.in_progress", response=pending)]
    for i, item in enumerate(items):
        out.append(ev("response.output_item.added", output_index=i, item={**item, "status": "in_progress"}))
        if item["type"] == "message":
            out += [ev("response.output_text.delta", item_id=item["id"], output_index=i, content_index=0, delta=p)
                    for p in pieces(text)]
        else:
            out.append(ev("response.function_call_arguments.delta", item_id=item["id"], output_index=i,
                          delta=item["arguments"]))
        out.append(ev("response.output_item.done", output_index=i, item=item))
    out.append(ev("response.completed", response=response))
    return "text/event-stream", b"".join(out)


def chat_answer(script, body, text, calls, usage, stream):
    tool_calls = [{"id": script.new_id("call_fake"), "type": "function",
                   "function": {"name": n, "arguments": json.dumps(a)}} for n, a in calls]
    finish = getattr(_tls, "stop", None) or ("tool_calls" if calls else "stop")
    u = {"prompt_tokens": usage["input"], "completion_tokens": usage["output"],
         "total_tokens": usage["input"] + usage["output"]}
    base = {"id": script.new_id("chatcmpl-fake"), "created": int(time.time()), "model": body.get("model", "fake")}
    message = {"role": "assistant", "content": text or None, **({"tool_calls": tool_calls} if calls else {})}
    if not stream:
        return "application/json", json.dumps({**base, "object": "chat.completion", "choices": [
            {"index": 0, "message": message, "finish_reason": finish}], "usage": u}).encode()
    chunk = lambda delta, fin=None, **kw: sse(None, {**base, "object": "chat.completion.chunk", "choices": [  # noqa
        {"index": 0, "delta": delta, "finish_reason": fin}], **kw})
    out = [chunk({"role": "assistant", "content": p}) for p in pieces(text or "")]
    for i, c in enumerate(tool_calls):
        out.append(chunk({"tool_calls": [{"index": i, **c}]}))
    out.append(chunk({}, finish))
    out.append(sse(None, {**base, "object": "chat.completion.chunk", "choices": [], "usage": u}))
    out.append(b"data: [DONE]\n\n")
    return "text/event-stream", b"".join(out)


def gemini_answer(script, body, text, calls, usage, stream):
    parts = ([{"text": text}] if text else []) + [
        {"functionCall": {"name": n, "args": a, "id": script.new_id("gcall_fake")}} for n, a in calls]
    finish = getattr(_tls, "stop", None) or "STOP"
    answer = {"candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": finish, "index": 0}],
              "usageMetadata": {"promptTokenCount": usage["input"], "candidatesTokenCount": usage["output"],
                                "totalTokenCount": usage["input"] + usage["output"]},
              "modelVersion": "fake", "responseId": script.new_id("gresp_fake")}
    if not stream:
        return "application/json", json.dumps(answer).encode()
    parts_of = pieces(text) if text and not calls else [None]
    out = []
    for k, p in enumerate(parts_of):
        last = k == len(parts_of) - 1
        chunk = answer if p is None else {**answer, "candidates": [
            {"content": {"role": "model", "parts": [{"text": p}]}, "index": 0, **({"finishReason": finish} if last else {})}]}
        if not last:
            chunk = {k2: v for k2, v in chunk.items() if k2 != "usageMetadata"}
        out.append(sse(None, chunk))
    return "text/event-stream", b"".join(out)


ANSWERS = {"anthropic": anthropic_answer, "responses": responses_answer, "chat": chat_answer,
           "gemini": gemini_answer}


def api_of(path: str):
    if path.startswith("/v1/messages/count_tokens"):
        return "anthropic-count"
    if path.startswith("/v1/messages"):
        return "anthropic"
    if path.startswith("/v1/responses"):
        return "responses"
    if path.startswith("/v1/chat/completions"):
        return "chat"
    if ":countTokens" in path:
        return "gemini-count"
    if ":generateContent" in path or ":streamGenerateContent" in path:
        return "gemini"
    return None


# ---------------------------------------------------------------------------------------------

class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "FakeModel/1"

    def log_message(self, *args):  # the request log files say it all
        pass

    def do_GET(self):
        self._log("other", "get", None)
        self._send(404, "application/json", b'{"error":{"message":"not served"}}')

    def do_POST(self):
        url = urlparse(self.path)
        raw = self.rfile.read(int(self.headers.get("content-length") or 0))
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = {"unparsed": raw.decode("utf-8", "replace")}
        api = api_of(url.path)
        if api == "anthropic-count":
            self._log(api, "count", body, raw=raw)
            return self._send(200, "application/json", json.dumps({"input_tokens": estimate_tokens(raw)}).encode())
        if api == "gemini-count":
            self._log(api, "count", body, raw=raw)
            return self._send(200, "application/json", json.dumps({"totalTokens": estimate_tokens(raw)}).encode())
        if api is None:
            self._log("other", "unknown", body, raw=raw)
            return self._send(404, "application/json", b'{"error":{"message":"not served"}}')

        script: Script = self.server.script
        kind = classify(api, body, self.headers)
        index, turn = (None, {"text": compaction_text(api, script.summary, body)}) if kind == "compaction" else \
            (None, {"text": side_text(api, body)}) if kind == "side" else script.take(first_user_text(api, body))
        self._log(api, kind, body, index, raw=raw)
        if turn.get("delay"):
            time.sleep(float(turn["delay"]))
        if "error" in turn:
            err = turn["error"]
            return self._send(err.get("status", 500), "application/json", json.dumps(err.get("body", {})).encode(),
                              err.get("headers", {}))
        usage = {"input": estimate_tokens(raw), "output": 20, **turn.get("usage", {})}
        stream = "alt=sse" in url.query or ":streamGenerateContent" in url.path or bool(body.get("stream"))
        if api == "responses":
            stream = body.get("stream", True)
        try:
            calls = reply_calls(api, body, turn)
        except ValueError as e:
            return self._send(400, "application/json", json.dumps({"error": {"message": str(e)}}).encode())
        _tls.chunks = max(1, int(turn.get("chunks", 1)))
        _tls.stop = turn.get("stop")
        _tls.server_search = turn.get("server_search") if api == "anthropic" else None
        ctype, data = ANSWERS[api](script, body, turn.get("text", ""), calls, usage, stream)
        self._send(200, ctype, data)

    def _log(self, api, kind, body, turn=None, raw=None):
        # The body's bytes as received, by their hash: a proxy in between must pass them unchanged.
        self.server.log.write({"method": self.command, "path": self.path, "api": api, "kind": kind, "turn": turn,
                               "headers": dict(self.headers.items()), "body": body,
                               "bodySha256": hashlib.sha256(raw).hexdigest() if raw is not None else None})

    def _send(self, status, ctype, data: bytes, headers=None):
        self.send_response(status)
        self.send_header("content-type", ctype)
        for name, value in (headers or {}).items():
            self.send_header(name, str(value))
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def make_server(script: dict, log_dir: Path) -> ThreadingHTTPServer:
    """A server for `script` on 127.0.0.1 with a free port (server.server_port)."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    server.script = Script(script)
    server.log = RequestLog(Path(log_dir))
    return server


def start(script: dict, log_dir: Path) -> ThreadingHTTPServer:
    """make_server, serving in a daemon thread; stop it with shutdown()."""
    server = make_server(script, log_dir)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--script", help="script JSON file (default: no turns, every answer is default_text)")
    ap.add_argument("--log-dir", required=True, help="one JSON file per request goes here")
    ap.add_argument("--port-file", help="also write the chosen port here")
    args = ap.parse_args()
    script = json.loads(Path(args.script).read_text()) if args.script else {}
    server = make_server(script, Path(args.log_dir))
    port = server.server_port
    print(port, flush=True)
    if args.port_file:
        Path(args.port_file).write_text(f"{port}\n")
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
