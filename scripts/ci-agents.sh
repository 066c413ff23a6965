#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# CI leg: the real agents. Installs the pinned Claude Code, Codex, Gemini CLI and Qwen Code from npm (reused when
# already installed), records fresh sessions with each against the loopback fake model server
# (tests/agents/), each including the agent's own compaction, then checks contextlens-cli on them:
# load without diagnostics, byte-identical round trip, live context equal to what the agent sent, and
# every strategy's export resumed by the agent (tests/agents/check.py says exactly what is asserted).
#
#   scripts/ci-agents.sh [--cli PATH] [--write-results] [--keep] [--copy-to DIR] [--jobs N]
#
# --write-results  write bench/results-agents.md from this run
# --keep           keep the scratch folder (homes, sessions, request logs); kept anyway on failure
# --copy-to DIR    also copy the recorded sessions and request logs to DIR (never into the repository:
#                  they hold the agents' own prompts)
# Nothing leaves 127.0.0.1: every agent's base URL is the fake server; telemetry and updates are off.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
repo=$PWD
cli=$repo/build/app/contextlens-cli
write_results=0 keep=0 copy_to="" jobs=2
while (($#)); do
    case $1 in
        --cli) cli=$(realpath "$2"); shift ;;
        --write-results) write_results=1 ;;
        --keep) keep=1 ;;
        --copy-to) copy_to=$2; shift ;;
        --jobs) jobs=$2; shift ;;
        *) echo "ci-agents: unknown option $1" >&2; exit 2 ;;
    esac
    shift
done
step() { echo "---- $1 ($(($(date +%s) - start)) s)"; }
scratch=""
cleanup() {
    local rc=$?
    if [[ -n $scratch ]]; then
        if ((rc == 0 && keep == 0)); then rm -rf "$scratch"; else echo "ci-agents: scratch kept in $scratch"; fi
    fi
    echo "==== ci-agents: $( ((rc == 0)) && echo passed || echo FAILED) in $(($(date +%s) - start)) s"
}
trap cleanup EXIT

step "tools"
command -v node >/dev/null && command -v npm >/dev/null || { echo "ci-agents: node and npm are needed" >&2; exit 1; }
node_major=$(node -p 'process.versions.node.split(".")[0]')
((node_major >= 20)) || { echo "ci-agents: Gemini CLI needs Node.js 20 or newer, found $(node --version)" >&2; exit 1; }
python3 -c 'import sys; sys.exit(sys.version_info < (3, 11))' || { echo "ci-agents: python3 >= 3.11 needed" >&2; exit 1; }

step "agents: install the pinned versions"
agents_dir=${CONTEXTLENS_AGENTS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/contextlens-agents}
read -r -a packages <<<"$(python3 tests/agents/agentlib.py)"
installed_ok=1
for p in "${packages[@]}"; do
    name=${p%@*} want=${p##*@}
    have=$(node -p "require('$agents_dir/node_modules/$name/package.json').version" 2>/dev/null || true)
    [[ $have == "$want" ]] || installed_ok=0
done
if ((installed_ok)); then
    echo "reusing $agents_dir (${packages[*]})"
else
    mkdir -p "$agents_dir"
    # A failed install fails the leg (set -e): no agent, no check.
    npm install --prefix "$agents_dir" --no-audit --no-fund --save-exact --loglevel=error "${packages[@]}"
fi
export CONTEXTLENS_AGENTS_DIR=$agents_dir CI_AGENTS_START=$start PYTHONDONTWRITEBYTECODE=1
for a in claude codex gemini qwen; do
    echo "$a: $(timeout 60 "$agents_dir/node_modules/.bin/$a" --version 2>&1 | tail -1)"
done

step "contextlens-cli"
for _ in $(seq 30); do [[ -x $cli ]] && break; echo "waiting for $cli"; sleep 10; done
[[ -x $cli ]] || { echo "ci-agents: $cli missing (build first: scripts/setup.sh build)" >&2; exit 1; }
"$cli" --version

scratch=$(mktemp -d "${TMPDIR:-/tmp}/contextlens-agents.XXXXXX")

step "record: each agent, its own compaction included"
record_args=("$scratch/recordings")
[[ -n $copy_to ]] && record_args+=(--copy-to "$copy_to")
python3 tests/agents/record.py "${record_args[@]}"

step "check: load, round trip, live context, every strategy resumed by its agent"
check_args=("$scratch/recordings" --cli "$cli" --work "$scratch/check" --jobs "$jobs" --json "$scratch/results.json")
((write_results)) && check_args+=(--markdown "$repo/bench/results-agents.md")
status=0
python3 tests/agents/check.py "${check_args[@]}" || status=$?

step "running: save in place refused while Codex and Claude Code are mid-turn, done after they exit"
python3 tests/agents/check_running.py --cli "$cli" --work "$scratch/running" || status=$?
((write_results)) && echo "wrote bench/results-agents.md"
exit $status
