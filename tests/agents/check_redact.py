# SPDX-License-Identifier: MIT
"""(r) Redaction before sharing: a recorded Claude Code session with secrets planted in a user
message and in a tool result, exported with `convert --to claude-code --redact`: no planted secret in
the export, the placeholder there; then the export resumed by the real agent: accepted (exit 0, a
turn request logged), the placeholder in what it sent, no planted secret in any logged request.

Called by check.py for each recorded Claude Code session (check(...) below). The secrets are made up
and assembled at run time.
"""

import json
from pathlib import Path

# Made up, in pieces (no secret scanner should see a key in this file).
SECRETS = {
    "anthropic-key": "sk-" + "ant-api03-" + "Zq3vN8pLw2XcR7tY" * 5 + "-Lk2Mn4AA",
    "github-token": "gh" + "p_" + "8Kd2Lm4Np6Qr8St0Uv2Wx4Yz6Ab8Cd0Ef2Gh4Ij",
    "env-secret": "hunter2hunter9",
}


def plant(session: Path, out: Path) -> bool:
    """A copy of session with the anthropic key in the last user prompt and a .env file (GitHub
    token, database password) in the last tool result: the live context, which a resume sends (what
    came before the agent's own compaction is not sent). False when the session has neither."""
    lines = session.read_text(encoding="utf-8").splitlines(keepends=True)
    planted_prompt = planted_result = False
    for i in reversed(range(len(lines))):
        line = lines[i]
        try:
            obj = json.loads(line)
        except ValueError:
            continue
        if obj.get("type") != "user" or not isinstance(obj.get("message"), dict):
            continue
        content = obj["message"].get("content")
        if (not planted_prompt and isinstance(content, str) and not obj.get("isMeta")
                and not obj.get("isCompactSummary") and not content.lstrip().startswith("<")):
            obj["message"]["content"] = content + "\nMy API key is " + SECRETS["anthropic-key"] + " (keep it safe)."
            planted_prompt = True
        elif not planted_result and isinstance(content, list):
            for block in content:
                if isinstance(block, dict) and block.get("type") == "tool_result":
                    env = "GITHUB_TOKEN=" + SECRETS["github-token"] + "\nDB_PASSWORD=" + SECRETS["env-secret"] + "\n"
                    if isinstance(block.get("content"), str):
                        block["content"] = env + block["content"]
                    else:
                        block["content"] = [{"type": "text", "text": env}] + list(block.get("content") or [])
                    planted_result = True
                    break
        else:
            continue
        lines[i] = json.dumps(obj, ensure_ascii=False, separators=(",", ":")) + "\n"
    out.write_text("".join(lines), encoding="utf-8")
    return planted_prompt and planted_result


def check(cli, rep, agent: str, session: Path, work: Path, resume) -> None:
    """resume(agent, session, base) -> (RunResult, first turn request body or None): check.py's."""
    subject = f"{agent}/recorded"
    work.mkdir(parents=True, exist_ok=True)
    planted = work / "planted.jsonl"
    planted_ok = plant(session, planted)
    if not rep.add("r-plant", subject, planted_ok, "" if planted_ok else "no user prompt or tool result to plant secrets in"):
        return
    export = work / "redacted.jsonl"
    rc, out, err = cli.json("convert", planted, "--to", "claude-code", "-o", export, "--force", "--redact")
    ok = rc == 0 and out is not None and export.exists()
    if not rep.add("r-export", subject, ok, "" if ok else f"convert --redact exit {rc}: {(err or '')[-300:]}"):
        return
    text = export.read_text(encoding="utf-8")
    leaked = [rule for rule, secret in SECRETS.items() if secret in text]
    counts = out.get("redaction", {}).get("rules", {})
    ok = not leaked and "[REDACTED:anthropic-key:1]" in text and all(counts.get(rule, 0) >= 1 for rule in SECRETS)
    rep.add("r-no-secret", subject, ok, "" if ok else f"leaked: {leaked}; counts: {counts}")
    result, request = resume(agent, export, work / "resume")
    ok = result.rc == 0 and request is not None
    if not rep.add("r-resume", subject, ok, "" if ok else f"agent exit {result.rc}, {len(result.requests)} request(s)"):
        return
    sent = json.dumps([r.get("body") for r in result.requests], ensure_ascii=False)
    leaked = [rule for rule, secret in SECRETS.items() if secret in sent]
    ok = not leaked and "[REDACTED:anthropic-key:1]" in sent
    rep.add("r-resume-redacted", subject, ok,
            "" if ok else f"leaked to the model: {leaked}" if leaked else "the placeholder is not in the resumed request")
