# SPDX-License-Identifier: MIT
"""How to run Claude Code, Codex, Gemini CLI, Qwen Code and GitHub Copilot CLI offline against the fake
model server.

Each run gets its own fake server (its own script and request log) and a throwaway HOME; the agent
talks to 127.0.0.1 only. Versions are pinned; the npm install lives in a cache folder outside the
repository (see scripts/ci-agents.sh).
"""

import json
import os
import re
import socket
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

import fake_model_server

VERSIONS = {"claude-code": "@anthropic-ai/claude-code@2.1.328", "codex": "@openai/codex@0.169.0",
            "gemini-cli": "@google/gemini-cli@0.61.0", "qwen-code": "@qwen-code/qwen-code@0.24.4",
            "copilot-cli": "@github/copilot@1.0.102"}
API_FORMAT = {"claude-code": "anthropic", "codex": "openai-responses", "gemini-cli": "gemini", "qwen-code": "openai-chat",
              "copilot-cli": "openai-chat"}
CLAUDE_MODEL = "claude-sonnet-4-5"
CODEX_MODEL = "gpt-5-codex"
GEMINI_MODEL = "gemini-2.5-pro"
QWEN_MODEL = "qwen3-coder-plus"
COPILOT_MODEL = "gpt-4.1"
# Copilot CLI compacts in the background at 80 % of its prompt limit; its system prompt and tools alone
# are about 10 500 tokens, so a limit of 16 000 makes a few turns cross it.
COPILOT_PROMPT_LIMIT = 16_000
# Codex compacts when reported input tokens pass this; Gemini CLI at compressionThreshold x window.
CODEX_COMPACT_LIMIT = 100_000
GEMINI_THRESHOLD = 0.5
OVER_CODEX_LIMIT = 150_000
OVER_GEMINI_LIMIT = 700_000  # gemini-2.5-pro window 1,048,576 x 0.5
OVER_QWEN_LIMIT = 900_000  # qwen3-coder-plus window 1,000,000 x 0.85

_BASE_ENV = {k: v for k, v in os.environ.items() if k in ("PATH", "LANG", "LC_ALL", "TZ", "TMPDIR", "TERM")}


def default_bin_dir() -> Path:
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return Path(os.environ.get("CONTEXTLENS_AGENTS_DIR") or cache / "contextlens-agents") / "node_modules" / ".bin"


@dataclass
class RunResult:
    rc: int
    stdout: str
    stderr: str
    log_dir: Path
    seconds: float
    requests: list = field(default_factory=list)  # logged request entries, in order

    def turn_requests(self):
        return [r for r in self.requests if r["kind"] == "turn"]


def load_requests(log_dir: Path) -> list:
    return [json.loads(p.read_text()) for p in sorted(Path(log_dir).glob("*.json"))]


def free_port() -> int:
    """A port free on 127.0.0.1 now (for a proxy that must be named before it starts)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def claude_slug(cwd: Path) -> str:
    return re.sub(r"[/.]", "-", str(cwd))


class Agent:
    name = ""
    own_compaction = True  # False: thresholds so high the agent never compacts by itself

    def __init__(self, bin_dir: Path):
        self.bin_dir = Path(bin_dir)

    def env(self, home: Path, port: int) -> dict:
        return {**_BASE_ENV, "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"),
                "XDG_CACHE_HOME": str(home / ".cache"), "XDG_DATA_HOME": str(home / ".local/share"),
                "XDG_STATE_HOME": str(home / ".local/state"), "NO_COLOR": "1"}

    def prepare(self, home: Path, port: int):
        pass

    def argv(self, prompt: str, resume: str | None) -> list:
        raise NotImplementedError

    def run(self, home: Path, cwd: Path, prompt: str, script: dict, log_dir: Path, resume: str | None = None,
            timeout: int = 180, record: tuple | None = None) -> RunResult:
        """record: (contextlens-cli, FILE[, [more record options]]): the agent talks to the fake server
        through the proxy of `contextlens-cli record -o FILE`, which starts it (the agent's settings
        name the proxy's port)."""
        home, cwd, log_dir = Path(home), Path(cwd), Path(log_dir)
        home.mkdir(parents=True, exist_ok=True)
        cwd.mkdir(parents=True, exist_ok=True)
        server = fake_model_server.start(script, log_dir)
        try:
            port, argv = server.server_port, self.argv(prompt, resume)
            if record:
                port = free_port()
                argv = [str(record[0]), "record", "-o", str(record[1]), "--listen", f"127.0.0.1:{port}",
                        "--upstream", f"http://127.0.0.1:{server.server_port}"] + [str(x) for x in record[2:3] and record[2]] \
                    + ["--"] + argv
            self.prepare(home, port)
            start = time.monotonic()
            try:
                p = subprocess.run(argv, cwd=cwd, env=self.env(home, port),
                                   stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=timeout)
                rc, out, err = p.returncode, p.stdout, p.stderr
            except subprocess.TimeoutExpired as e:
                rc, out, err = 124, str(e.stdout or ""), f"timeout after {timeout} s\n{e.stderr or ''}"
            seconds = time.monotonic() - start
        finally:
            server.shutdown()
            server.server_close()
        return RunResult(rc, out, err, log_dir, seconds, load_requests(log_dir))

    def session_files(self, home: Path) -> list:
        raise NotImplementedError


class ClaudeCode(Agent):
    name = "claude-code"

    def env(self, home, port):
        return {**super().env(home, port), "ANTHROPIC_BASE_URL": f"http://127.0.0.1:{port}",
                "ANTHROPIC_API_KEY": "fake-key", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
                "DISABLE_AUTOUPDATER": "1", "DISABLE_TELEMETRY": "1", "DISABLE_ERROR_REPORTING": "1"}

    def argv(self, prompt, resume):
        cmd = [str(self.bin_dir / "claude"), "-p", prompt, "--model", CLAUDE_MODEL, "--allowedTools", "Bash"]
        return cmd + (["--resume", resume] if resume else [])

    def session_files(self, home):
        return sorted((Path(home) / ".claude" / "projects").glob("*/*.jsonl"))

    @staticmethod
    def session_id(path: Path) -> str:
        return path.stem

    @staticmethod
    def place(session: Path, home: Path, cwd: Path) -> str:
        """Puts a session where `claude --resume ID` run in cwd finds it; returns ID."""
        sid = None
        for line in Path(session).read_text().splitlines():
            try:
                sid = json.loads(line).get("sessionId") or sid
            except (ValueError, AttributeError):
                pass
        sid = sid or Path(session).stem
        target = Path(home) / ".claude" / "projects" / claude_slug(Path(cwd)) / f"{sid}.jsonl"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(Path(session).read_bytes())
        return sid


class Codex(Agent):
    name = "codex"

    def env(self, home, port):
        return {**super().env(home, port), "FAKE_API_KEY": "fake-key", "CODEX_HOME": str(home / ".codex")}

    def prepare(self, home, port):
        codex = Path(home) / ".codex"
        codex.mkdir(parents=True, exist_ok=True)
        (codex / "config.toml").write_text(f"""model = "{CODEX_MODEL}"
model_provider = "fake"
approval_policy = "never"
sandbox_mode = "danger-full-access"
check_for_update_on_startup = false
model_context_window = {200_000 if self.own_compaction else 1_000_000}
model_auto_compact_token_limit = {CODEX_COMPACT_LIMIT if self.own_compaction else 900_000}

[model_providers.fake]
name = "fake"
base_url = "http://127.0.0.1:{port}/v1"
wire_api = "responses"
env_key = "FAKE_API_KEY"
supports_websockets = false

[analytics]
enabled = false

[features]
plugins = false
remote_plugin = false
plugin_sharing = false
apps = false
in_app_updates = false
tool_suggest = false
""")

    def argv(self, prompt, resume):
        cmd = [str(self.bin_dir / "codex"), "exec", "--strict-config", "--skip-git-repo-check",
               "--dangerously-bypass-approvals-and-sandbox"]
        return cmd + (["resume", resume, prompt] if resume else [prompt])

    def session_files(self, home):
        return sorted((Path(home) / ".codex" / "sessions").glob("*/*/*/rollout-*.jsonl"))

    @staticmethod
    def session_id(path: Path) -> str:
        first = json.loads(Path(path).read_text().splitlines()[0])
        return first["payload"]["id"]

    @staticmethod
    def place(session: Path, home: Path, cwd: Path) -> str:
        """Puts a rollout under ~/.codex/sessions/YYYY/MM/DD/; returns the session id to resume.

        Codex refuses to resume a thread under another model provider, and its built-in "openai"
        provider must not be used here (it reaches out beyond the base URL). So a rollout recorded
        under another provider (the generator writes "openai") gets only its session_meta line's
        model_provider switched to "fake"; every other byte stays as exported."""
        sid = Codex.session_id(session)
        lines = Path(session).read_bytes().split(b"\n")
        meta = json.loads(lines[0])
        if meta["payload"].get("model_provider", "fake") != "fake":
            meta["payload"]["model_provider"] = "fake"
            lines[0] = json.dumps(meta, separators=(",", ":")).encode()
        stamp = time.strftime("%Y-%m-%dT%H-%M-%S", time.gmtime())
        day = Path(home) / ".codex" / "sessions" / time.strftime("%Y/%m/%d", time.gmtime())
        day.mkdir(parents=True, exist_ok=True)
        (day / f"rollout-{stamp}-{sid}.jsonl").write_bytes(b"\n".join(lines))
        return sid


class GeminiCli(Agent):
    name = "gemini-cli"

    def env(self, home, port):
        return {**super().env(home, port), "GEMINI_API_KEY": "fake-key",
                "GOOGLE_GEMINI_BASE_URL": f"http://127.0.0.1:{port}", "GEMINI_CLI_NO_RELAUNCH": "true"}

    def prepare(self, home, port):
        gemini = Path(home) / ".gemini"
        gemini.mkdir(parents=True, exist_ok=True)
        # Gemini CLI also masks old bulky tool outputs before sending (contextManagement.tools.outputMasking)
        never = 10**12
        masking = {} if self.own_compaction else {"contextManagement": {"tools": {"outputMasking": {
            "protectionThresholdTokens": never, "minPrunableThresholdTokens": never}}}}
        (gemini / "settings.json").write_text(json.dumps({**masking,
            "security": {"auth": {"selectedType": "gemini-api-key"}, "folderTrust": {"enabled": False}},
            "privacy": {"usageStatisticsEnabled": False},
            "telemetry": {"enabled": False},
            "general": {"enableAutoUpdate": False, "enableAutoUpdateNotification": False},
            "ide": {"enabled": False},
            "model": {"name": GEMINI_MODEL, "compressionThreshold": GEMINI_THRESHOLD if self.own_compaction else 0.99}}, indent=1))

    def argv(self, prompt, resume):
        cmd = [str(self.bin_dir / "gemini"), "--yolo", "--model", GEMINI_MODEL]
        return cmd + (["--resume", resume] if resume else []) + ["-p", prompt]

    def session_files(self, home):
        return sorted((Path(home) / ".gemini" / "tmp").glob("*/chats/session-*.jsonl"))

    @staticmethod
    def main_session(files: list) -> Path:
        """Each resume may leave a small file with only a header; the conversation is the largest."""
        return max(files, key=lambda p: p.stat().st_size)

    @staticmethod
    def place(session: Path, home: Path, cwd: Path) -> str:
        """Puts a session in the chats folder of cwd's project; resume it with 'latest'."""
        chats = Path(home) / ".gemini" / "tmp" / Path(cwd).name / "chats"
        chats.mkdir(parents=True, exist_ok=True)
        stamp = time.strftime("%Y-%m-%dT%H-%M", time.gmtime(time.time() - 3600))
        first = json.loads(Path(session).read_text().splitlines()[0])
        sid8 = str(first.get("sessionId", "00000000"))[:8]
        (chats / f"session-{stamp}-{sid8}.jsonl").write_bytes(Path(session).read_bytes())
        return "latest"


class QwenCode(Agent):
    name = "qwen-code"

    def env(self, home, port):
        return {**super().env(home, port), "OPENAI_BASE_URL": f"http://127.0.0.1:{port}/v1", "OPENAI_API_KEY": "fake-key",
                "OPENAI_MODEL": QWEN_MODEL, "QWEN_CODE_SUPPRESS_YOLO_WARNING": "1"}

    def prepare(self, home, port):
        qwen = Path(home) / ".qwen"
        qwen.mkdir(parents=True, exist_ok=True)
        # Its own compression at 85 % of the window (reported usage crosses it); for resumes of exports
        # never, nor its clearing of old tool results after an hour idle or past 500 000 characters.
        context = {} if self.own_compaction else {"autoCompactThreshold": 0.99,
                                                  "clearContextOnIdle": {"toolResultsThresholdMinutes": -1}}
        (qwen / "settings.json").write_text(json.dumps({
            "context": context, "privacy": {"usageStatisticsEnabled": False}, "telemetry": {"enabled": False},
            "general": {"enableAutoUpdate": False}}, indent=1))

    def argv(self, prompt, resume):
        cmd = [str(self.bin_dir / "qwen"), "--yolo"]
        return cmd + (["--resume", resume] if resume else []) + ["-p", prompt]

    def session_files(self, home):
        return sorted((Path(home) / ".qwen" / "projects").glob("*/chats/*.jsonl"))

    @staticmethod
    def session_id(path: Path) -> str:
        return Path(path).stem

    @staticmethod
    def session_cwd(session: Path) -> str | None:
        """The folder the session's records name: Qwen Code resumes a session only in its own project."""
        for line in Path(session).read_text().splitlines():
            try:
                cwd = json.loads(line).get("cwd")
            except (ValueError, AttributeError):
                continue
            if cwd:
                return cwd
        return None

    @staticmethod
    def place(session: Path, home: Path, cwd: Path) -> str:
        """Puts a session in the chats folder of cwd's project (the folder named after cwd); returns its id."""
        sid = None
        for line in Path(session).read_text().splitlines():
            try:
                sid = sid or json.loads(line).get("sessionId")
            except (ValueError, AttributeError):
                pass
        sid = sid or Path(session).stem
        chats = Path(home) / ".qwen" / "projects" / re.sub(r"[^a-zA-Z0-9]", "-", str(cwd)) / "chats"
        chats.mkdir(parents=True, exist_ok=True)
        (chats / f"{sid}.jsonl").write_bytes(Path(session).read_bytes())
        return sid


class CopilotCli(Agent):
    name = "copilot-cli"

    def env(self, home, port):
        return {**super().env(home, port), "COPILOT_OFFLINE": "true", "COPILOT_PROVIDER_BASE_URL": f"http://127.0.0.1:{port}/v1",
                "COPILOT_PROVIDER_API_KEY": "fake-key", "COPILOT_MODEL": COPILOT_MODEL,
                "COPILOT_PROVIDER_MAX_PROMPT_TOKENS": str(COPILOT_PROMPT_LIMIT if self.own_compaction else 1_000_000)}

    def argv(self, prompt, resume):
        cmd = [str(self.bin_dir / "copilot"), "-p", prompt, "--allow-all-tools"]
        return cmd + ([f"--resume={resume}"] if resume else [])

    def session_files(self, home):
        return sorted((Path(home) / ".copilot" / "session-state").glob("*/events.jsonl"))

    @staticmethod
    def session_id(path: Path) -> str:
        return Path(path).parent.name

    @staticmethod
    def place(session: Path, home: Path, cwd: Path) -> str:
        """Puts a session where `copilot --resume=ID` finds it (its session.start names ID); returns ID."""
        sid = None
        for line in Path(session).read_text().splitlines():
            try:
                event = json.loads(line)
            except ValueError:
                continue
            if isinstance(event, dict) and event.get("type") == "session.start":
                sid = (event.get("data") or {}).get("sessionId")
                break
        sid = sid or Path(session).parent.name
        folder = Path(home) / ".copilot" / "session-state" / sid
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "events.jsonl").write_bytes(Path(session).read_bytes())
        return sid


AGENTS = {"claude-code": ClaudeCode, "codex": Codex, "gemini-cli": GeminiCli, "qwen-code": QwenCode,
          "copilot-cli": CopilotCli}


if __name__ == "__main__":  # scripts/ci-agents.sh installs exactly these
    print(" ".join(VERSIONS.values()))
