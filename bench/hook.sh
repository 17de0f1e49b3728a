#!/usr/bin/env bash
# Times `agent-eval hook` as a whole process against a minimal static Go
# binary that only decodes the input and encodes a decision (bench/floor),
# for a deny through env_checks, a pass-through and a case_override answer:
# wall and CPU time per process and their ratios to the floor (the goal is
# at most 2.5x). With BASE (a git ref, e.g. main) that ref's build is timed
# beside it, interleaved, for a before/after on the same machine. PASSES
# passes, each printed with the load averages (the machine is shared: other
# work moves every figure), then the median of the passes' ratios.
# Usage: bench/hook.sh [N [BASE [PASSES]]]   (N runs per scenario, default 200; PASSES default 1)
set -euo pipefail
cd "$(dirname "$0")/.."
n="${1:-200}" base="${2:-}" passes="${3:-1}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
CGO_ENABLED=0 go build -trimpath -ldflags '-s -w' -o "$tmp/agent-eval" ./cmd/agent-eval
CGO_ENABLED=0 go build -trimpath -ldflags '-s -w' -o "$tmp/floor" ./bench/floor
go build -o "$tmp/hooktime" ./bench/hooktime
baseflag=()
if [ -n "$base" ]; then
	mkdir "$tmp/base"
	git archive "$base" | tar -x -C "$tmp/base"
	(cd "$tmp/base" && CGO_ENABLED=0 go build -trimpath -ldflags '-s -w' -o "$tmp/agent-eval-base" ./cmd/agent-eval)
	baseflag=(-base "$tmp/agent-eval-base")
fi
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
load() { uptime | sed 's/.*load average: /load /'; }
echo "agent-eval hook vs. the floor, $n runs each, on $(nproc) cores ($(go version | cut -d' ' -f3))${base:+; base: $base}"
for k in $(seq 1 "$passes"); do
	echo "pass $k: $(load)"
	"$tmp/hooktime" -hook "$tmp/agent-eval" "${baseflag[@]}" -floor "$tmp/floor" -handlers "$tmp/tool_handlers.yaml" -n "$n" | tee -a "$tmp/passes.txt"
done
echo "after the passes: $(load)"
if [ "$passes" -gt 1 ]; then
	# "hook against the floor, median of the scenarios: wall 3.69x, cpu 4.04x (goal …)"
	awk '/against the floor/ { w[$1] = w[$1] " " substr($10, 1, length($10) - 2); c[$1] = c[$1] " " substr($12, 1, length($12) - 1) }
		function med(s,   a, m, i, j, t) { m = split(s, a, " "); for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t } return (m % 2) ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2 }
		END { for (k in w) printf "%s: median of %d passes: wall %.2fx, cpu %.2fx\n", k, split(w[k], x, " "), med(w[k]), med(c[k]) }' "$tmp/passes.txt"
fi
