#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Reduces a recorded GitHub Copilot CLI events.jsonl to a fixture that may be committed.

    python3 reduce.py ~/.copilot/session-state/<id>/events.jsonl > session.jsonl

Copilot CLI's own texts never go into the repository: every system.message's content (its system
prompt) becomes a short neutral text of the same shape (a role line, then headed sections), and
tool outputs longer than 2 000 characters keep their head and tail. Every other byte of each line is
kept as the agent wrote it (the lines are re-serialized compactly, keys in their order).
"""
import json
import sys

NEUTRAL_SYSTEM = (
    "You are a terminal assistant working in the user's folder. Work on the task until it is done.\n\n"
    "# Tone and style\n* Keep answers short.\n\n"
    "# Tools\n* Use the shell tool to run commands; read files before changing them.\n\n"
    "<environment>\nThe working directory is the user's project.\n</environment>"
)
LIMIT = 2000


def shorten(text: str) -> str:
    if len(text) <= LIMIT:
        return text
    return text[: LIMIT // 2] + "\n[... shortened for the fixture ...]\n" + text[-LIMIT // 2 :]


def reduce(event: dict) -> dict:
    data = event.get("data")
    if not isinstance(data, dict):
        return event
    if event.get("type") == "system.message" and isinstance(data.get("content"), str):
        data["content"] = NEUTRAL_SYSTEM
    if event.get("type") == "tool.execution_complete" and isinstance(data.get("result"), dict):
        for key in ("content", "detailedContent"):
            if isinstance(data["result"].get(key), str):
                data["result"][key] = shorten(data["result"][key])
    return event


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        for line in f:
            if line.strip():
                sys.stdout.write(json.dumps(reduce(json.loads(line)), ensure_ascii=False, separators=(",", ":")) + "\n")


if __name__ == "__main__":
    main()
