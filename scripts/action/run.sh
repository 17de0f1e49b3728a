#!/usr/bin/env bash
# Runs and scores an eval for the GitHub Action (action.yml). agent-eval
# itself appends the verdict to $GITHUB_STEP_SUMMARY (score) and prints the
# annotations (report --format github); this script only wires the inputs
# to the flags and hands the results on through $GITHUB_OUTPUT. It exits 0
# whenever a run directory was written, so the artifact and comment steps
# still run; the action's last step exits with agent-eval's code.
#
# Environment (the action's inputs):
#   AGENT_EVAL_CONFIG      the eval config (default eval.yaml)
#   AGENT_EVAL_ARGS        extra flags for agent-eval run, split on blanks
#   AGENT_EVAL_FAKE_MODEL  true: --fake-model
#   AGENT_EVAL_AGENT_BIN   --agent-bin
#   AGENT_EVAL_BASELINE    the base branch's scored run directory (may be empty)
#   AGENT_EVAL_RUNS_DIR    where runs go (default $RUNNER_TEMP/agent-eval/runs: a path
#                          with no hidden folder, which upload-artifact would leave out)
#   AGENT_EVAL_RUN_ID      the run's id (default ci-$GITHUB_RUN_ID-$GITHUB_RUN_ATTEMPT)
set -euo pipefail

config="${AGENT_EVAL_CONFIG:-eval.yaml}"
runs_dir="${AGENT_EVAL_RUNS_DIR:-${RUNNER_TEMP:-.}/agent-eval/runs}"
run_id="${AGENT_EVAL_RUN_ID:-ci-${GITHUB_RUN_ID:-local}-${GITHUB_RUN_ATTEMPT:-1}}"
baseline="${AGENT_EVAL_BASELINE:-}"
output="${GITHUB_OUTPUT:-/dev/null}"

flags=(-c "$config" --runs-dir "$runs_dir" --run-id "$run_id")
case "${AGENT_EVAL_FAKE_MODEL:-false}" in
true) flags+=(--fake-model) ;;
false | "") ;;
*)
	echo "run.sh: fake-model must be true or false, not \"$AGENT_EVAL_FAKE_MODEL\"" >&2
	exit 2
	;;
esac
if [ -n "${AGENT_EVAL_AGENT_BIN:-}" ]; then
	flags+=(--agent-bin "$AGENT_EVAL_AGENT_BIN")
fi
if [ -n "${AGENT_EVAL_ARGS:-}" ]; then
	read -r -a extra <<<"$AGENT_EVAL_ARGS"
	flags+=("${extra[@]}")
fi
if [ -n "$baseline" ] && [ ! -f "$baseline/summary.yaml" ]; then
	echo "::warning title=agent-eval::baseline $baseline holds no summary.yaml; scoring without it"
	baseline=""
fi

# Without a baseline run --score does it all; with one, score compares
# (run has no --baseline), and its verdict already says what got worse.
set +e
if [ -z "$baseline" ]; then
	agent-eval run --score "${flags[@]}"
	rc=$?
else
	agent-eval run "${flags[@]}"
	rc=$?
fi
set -e

run_dir=""
for d in "$runs_dir"/*/"$run_id"; do
	if [ -f "$d/run_result.json" ]; then
		run_dir=$(cd "$d" && pwd)
	fi
done
if [ -z "$run_dir" ]; then
	echo "run.sh: agent-eval run wrote no run directory (exit $rc)" >&2
	echo "exit-code=$rc" >>"$output"
	echo "verdict=error" >>"$output"
	exit "$((rc == 0 ? 3 : rc))"
fi

if [ -n "$baseline" ] && [ "$rc" -le 1 ]; then
	# 1 from run is a case that did not exit 0: the judges weigh it.
	set +e
	agent-eval score -c "$config" --baseline "$baseline" "$run_dir"
	rc=$?
	set -e
fi
if [ "$rc" -le 1 ]; then
	agent-eval report --format github "$run_dir" ||
		echo "::warning title=agent-eval::could not annotate the job from $run_dir"
fi

case "$rc" in
0) verdict=passed ;;
1) verdict=failed ;;
*) verdict=error ;;
esac
{
	echo "run-dir=$run_dir"
	echo "verdict=$verdict"
	echo "exit-code=$rc"
} >>"$output"
echo "run.sh: $run_dir: $verdict (exit $rc)" >&2
