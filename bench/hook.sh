#!/usr/bin/env bash
# Times `agent-eval hook` as a whole process against a minimal static Go
# binary that only decodes the input and encodes a decision (bench/floor),
# for a deny through env_checks, a pass-through and a case_override answer.
# Usage: bench/hook.sh [N]   (N runs per scenario, default 200)
set -euo pipefail
cd "$(dirname "$0")/.."
n="${1:-200}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
CGO_ENABLED=0 go build -trimpath -ldflags '-s -w' -o "$tmp/agent-eval" ./cmd/agent-eval
CGO_ENABLED=0 go build -trimpath -ldflags '-s -w' -o "$tmp/floor" ./bench/floor
go build -o "$tmp/hooktime" ./bench/hooktime
cat > "$tmp/tool_handlers.yaml" <<'YAML'
hook_model: claude-haiku-4-5-20251001
handlers:
  - match: Questions asked to the user via AskUserQuestion.
    patterns: [AskUserQuestion]
    case_overrides:
      "Deploy to production?": "no"
  - match: Any interaction with Jira, via MCP tools or Bash scripts calling the Jira API.
    patterns: [Bash, "mcp__atlassian__*"]
    input_filters: ['\bjira\b', 'atlassian\.net', '/rest/api/[0-9]+/issue']
    env_checks:
      JIRA_SERVER: {must_contain: [localhost, 127.0.0.1, emulator, test, staging, sandbox]}
YAML
echo "agent-eval hook vs. the floor, $n runs each, on $(nproc) cores ($(go version | cut -d' ' -f3))"
"$tmp/hooktime" -hook "$tmp/agent-eval" -floor "$tmp/floor" -handlers "$tmp/tool_handlers.yaml" -n "$n"
