#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Times `contextlens-cli statusline` the way Claude Code runs it: a new process per call, the
statusLine JSON on standard input, after each line the agent appends to its session.

The session is a generated Claude Code file (scripts/bench-statusline.sh makes it); its last lines
are held back and appended one at a time, a call after each. Reports, in ms of wall time per call
(process start included): the first call of a session (no state yet: the whole file is read), the
calls after each appended line (only the part after the last compaction is read), a call with
nothing new, and --no-state (the whole file every time) for comparison. Prints a Markdown table.
"""
import argparse
import json
import os
import statistics
import subprocess
import tempfile
import time
from pathlib import Path


def run(cli: str, payload: bytes, state: str | None) -> tuple[float, dict]:
    args = [cli, "statusline", "--json"] + (["--state-dir", state] if state else ["--no-state"])
    t0 = time.perf_counter()
    p = subprocess.run(args, input=payload, capture_output=True, check=True)
    ms = (time.perf_counter() - t0) * 1000
    return ms, json.loads(p.stdout)


def pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(round(q * (len(s) - 1))))]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", required=True)
    ap.add_argument("--session", required=True, help="a generated Claude Code session")
    ap.add_argument("--appended", type=int, default=60, help="lines held back and appended one by one")
    ap.add_argument("--label", default="")
    a = ap.parse_args()
    lines = Path(a.session).read_bytes().splitlines(keepends=True)
    head, tail = lines[: -a.appended], lines[-a.appended :]
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "session.jsonl"
        path.write_bytes(b"".join(head))
        payload = json.dumps({"hook_event_name": "Status", "session_id": "bench", "transcript_path": str(path),
                              "model": {"id": "claude-sonnet-4-5"},
                              "context_window": {"context_window_size": 200000}}).encode()
        cold = []
        for k in range(3):
            ms, first = run(a.cli, payload, str(Path(tmp) / f"cold{k}"))
            assert not first["read"]["warm"], first
            cold.append(ms)
        state = str(Path(tmp) / "state")
        run(a.cli, payload, state)
        warm, read, inner = [], [], []
        with open(path, "ab") as f:
            for line in tail:
                f.write(line)
                f.flush()
                ms, out = run(a.cli, payload, state)
                if not out["read"]["warm"]:
                    raise SystemExit(f"a call read the whole file: {out['read']['why']}")
                warm.append(ms)
                read.append(out["read"]["bytes"])
                inner.append(out["read"]["ms"])
        same = [run(a.cli, payload, state)[0] for _ in range(5)]
        whole = []
        for _ in range(3):
            ms, full = run(a.cli, payload, None)
            whole.append(ms)
        _, last = run(a.cli, payload, state)
        size = path.stat().st_size
    off = abs(last["context"]["total"] - full["context"]["total"]) / max(1, full["context"]["total"]) * 100
    print(f"| {a.label or Path(a.session).name} | {size / 1e6:.1f} | {statistics.median(cold):.1f} "
          f"| {statistics.median(warm):.1f} / {pct(warm, 0.9):.1f} / {max(warm):.1f} "
          f"| {statistics.median(inner):.1f} | {statistics.median(read) / 1e6:.2f} | {statistics.median(same):.1f} "
          f"| {statistics.median(whole):.1f} | {off:.2f} % | {abs(last['cost']['dollars'] - full['cost']['dollars']):.2g} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
