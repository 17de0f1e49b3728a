"""Writes testdata/import/jobs/: Harbor job folders for the import tests,
serialized by Harbor 0.26's own models (TrialConfig, TrialResult, JobResult),
so their shape is the one Harbor writes. The agent logs and the verifier's
files are what Harbor's claude-code agent and `agent-eval harbor verify`
leave. Run with the pinned Harbor's Python from this folder:

    $(dirname $(scripts/install-harbor.sh))/python make_jobs.py

The hostile trial's links are made by the test itself (TestImportHostile), not
kept in git.
"""

import hashlib
import json
import pathlib
import shutil
from datetime import UTC, datetime, timedelta
from uuid import UUID

from harbor.models.agent.context import AgentContext
from harbor.models.job.config import JobConfig
from harbor.models.job.result import JobResult, JobStats
from harbor.models.task.id import LocalTaskId
from harbor.models.trial.config import AgentConfig, TaskConfig, TrialConfig
from harbor.models.trial.result import (
    AgentInfo,
    ExceptionInfo,
    ModelInfo,
    StepResult,
    TimingInfo,
    TrialResult,
)
from harbor.models.verifier.result import VerifierResult

HERE = pathlib.Path(__file__).parent
JOBS = HERE / "jobs"
T0 = datetime(2026, 11, 30, 9, 0, 0, tzinfo=UTC)
MODEL = "claude-sonnet-4-5"


def at(s):
    return T0 + timedelta(seconds=s)


def stream(text, calls=(), denials=(), answer=None, cost=0.0123, is_error=False):
    """Claude Code stream-json as Harbor's claude-code agent tees it to
    claude-code.txt, with a stderr line mixed in."""
    lines = [
        {"type": "system", "subtype": "init", "model": MODEL, "session_id": "s1", "tools": ["Bash", "Write"]},
    ]
    for i, (tool, inp, result, err) in enumerate(calls):
        tid = f"toolu_{i:02d}"
        lines.append({"type": "assistant", "message": {"id": f"msg_{i}", "model": MODEL, "role": "assistant",
                      "content": [{"type": "tool_use", "id": tid, "name": tool, "input": inp}]}, "session_id": "s1"})
        lines.append({"type": "user", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": tid, "content": result, "is_error": err}]}, "session_id": "s1"})
    lines.append({"type": "assistant", "message": {"id": "msg_end", "model": MODEL, "role": "assistant",
                  "content": [{"type": "text", "text": text}]}, "session_id": "s1"})
    lines.append({"type": "result", "subtype": "error_during_execution" if is_error else "success", "is_error": is_error,
                  "total_cost_usd": cost, "num_turns": len(calls) + 1, "duration_ms": 4000, "result": text,
                  "usage": {"input_tokens": 900, "output_tokens": 120, "cache_read_input_tokens": 300},
                  "modelUsage": {MODEL: {"inputTokens": 900, "outputTokens": 120, "cacheReadInputTokens": 300, "costUSD": cost}},
                  "permission_denials": list(denials), "session_id": "s1"})
    # Claude Code writes compact JSON, "type" first.
    out = [json.dumps(lines[0], separators=(",", ":"))]
    out.append("npm warn config production Use `--omit=dev` instead.")  # stderr, mixed in
    out += [json.dumps(x, separators=(",", ":")) for x in lines[1:]]
    return "\n".join(out) + "\n"


def write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def verifier(d, reward=None, judges=None, collected=None, ledger=None):
    """What agent-eval harbor verify leaves in /logs/verifier."""
    write(d / "test-stdout.txt", "agent-eval harbor verify\n")
    if reward is not None:
        write(d / "reward.json", json.dumps(reward))
    if judges is not None:
        write(d / "judges.json", json.dumps(judges))
    # A one-case run directory: agent-eval/cases/<case id>/ (the trial
    # folder is <case id>__<random>).
    case = next(part.split("__")[0] for part in reversed(d.parts) if "__" in part)
    col = d / "agent-eval" / "cases" / case
    for rel, text in (collected or {}).items():
        write(col / rel, text)
    if ledger is not None:
        write(col / "hook_decisions.jsonl", "".join(json.dumps(x) + "\n" for x in ledger))


def trial(job, name, task, start, *, agent_log=None, exception=None, agent_result=None, verifier_result=None,
          steps=None, agent_secs=20, env_started=True):
    d = job / name
    d.mkdir(parents=True)
    cfg = TrialConfig(task=TaskConfig(path=pathlib.Path("tasks") / task), trial_name=name, trials_dir=pathlib.Path("jobs") / job.name,
                      agent=AgentConfig(name="claude-code", model_name=MODEL))
    write(d / "config.json", cfg.model_dump_json(indent=4))
    exc = None
    if exception:
        exc = ExceptionInfo(exception_type=exception[0], exception_message=exception[1],
                            exception_traceback=f"Traceback (most recent call last):\n{exception[0]}: {exception[1]}\n",
                            occurred_at=at(start + agent_secs))
        write(d / "exception.txt", exc.exception_traceback)
    if agent_log is not None:
        write(d / "agent" / "claude-code.txt", agent_log)
    res = TrialResult(
        id=UUID(int=int(hashlib.sha256(name.encode()).hexdigest()[:16], 16)), task_name=f"qa/{task}", trial_name=name, trial_uri=f"file://jobs/{job.name}/{name}",
        task_id=LocalTaskId(path=pathlib.Path("tasks") / task), task_checksum="0" * 16, config=cfg,
        agent_info=AgentInfo(name="claude-code", version="2.1.332", model_info=ModelInfo(name=MODEL, provider="anthropic")),
        agent_result=agent_result, verifier_result=verifier_result, exception_info=exc,
        started_at=at(start), finished_at=at(start + agent_secs + 10),
        # An environment that did not start: Harbor ran no later phase.
        environment_setup=TimingInfo(started_at=at(start), finished_at=at(start + 2) if env_started else None),
        agent_setup=TimingInfo(started_at=at(start + 2), finished_at=at(start + 4)) if env_started else None,
        agent_execution=None if steps or not env_started else TimingInfo(started_at=at(start + 4), finished_at=at(start + 4 + agent_secs)),
        verifier=None if steps or not env_started else TimingInfo(started_at=at(start + 4 + agent_secs), finished_at=at(start + 8 + agent_secs)),
        step_results=steps,
    )
    write(d / "result.json", res.model_dump_json(indent=4))
    return d


def ledger_answer(tid):
    return {"ts": "2026-11-30T09:00:05Z", "tool_use_id": tid, "tool": "AskUserQuestion", "decision": "allow", "handler": 0,
            "answers": {"Which file?": "out/answer.txt"}, "tiers": {"Which file?": "case_override"}, "us": 120}


def ledger_deny(tid):
    return {"ts": "2026-11-30T09:00:06Z", "tool_use_id": tid, "tool": "Bash", "decision": "deny", "handler": 1,
            "reason": "curl is not allowed", "us": 90}


def main():
    shutil.rmtree(JOBS, ignore_errors=True)
    job = JOBS / "job-main"
    job.mkdir(parents=True)
    write(job / "config.json", JobConfig(job_name=job.name, jobs_dir=pathlib.Path("jobs"),
                                         tasks=[TaskConfig(path=pathlib.Path("tasks"))]).model_dump_json(indent=4))
    ctx = AgentContext(n_input_tokens=1200, n_cache_tokens=300, n_output_tokens=120, cost_usd=0.0123)
    ok = {"reward": 1.0, "answer_written": 1.0}
    ok_judges = {"reward": 1.0, "per_judge": {"answer_written": {"value": True, "rationale": "out/answer.txt says 42", "judge_type": "check"}}}

    # success: a gated call denied by the hook, a question answered.
    calls = [("AskUserQuestion", {"questions": [{"question": "Which file?"}]}, "out/answer.txt", False),
             ("Bash", {"command": "curl example.test"}, "curl is not allowed", True),
             ("Write", {"file_path": "/workspace/out/answer.txt", "content": "42\n"}, "ok", False)]
    denial = {"tool_name": "Bash", "tool_use_id": "toolu_01", "tool_input": {"command": "curl example.test"}}
    trial(job, "hello__Ab3dE9x", "hello", 0, agent_log=stream("Wrote out/answer.txt.", calls, [denial]), agent_result=ctx,
          verifier_result=VerifierResult(rewards=ok))
    verifier(job / "hello__Ab3dE9x" / "verifier", ok, ok_judges,
             {"outputs/out/answer.txt": "42\n", "_modified/notes.md": "scratch\n"}, [ledger_answer("toolu_00"), ledger_deny("toolu_01")])

    # agent timeout: the agent's failure; the verifier still judged.
    trial(job, "slow__Qw7rTy2", "slow", 5, agent_log=stream("still working"), agent_secs=600,
          exception=("AgentTimeoutError", "Agent execution timed out after 600.0 seconds"), agent_result=ctx,
          verifier_result=VerifierResult(rewards={"reward": 0.0, "answer_written": 0.0}))
    verifier(job / "slow__Qw7rTy2" / "verifier", {"reward": 0.0, "answer_written": 0.0},
             {"reward": 0.0, "per_judge": {"answer_written": {"value": False, "rationale": "no out/answer.txt", "judge_type": "check"}}})

    # the verifier crashed: no reward file, Harbor raised RewardFileNotFoundError.
    trial(job, "crash__Zx8cVb1", "crash", 10, agent_log=stream("Wrote out/answer.txt."), agent_result=ctx,
          exception=("RewardFileNotFoundError", "No reward file found at jobs/job-main/crash__Zx8cVb1/verifier/reward.json or reward.txt"))
    verifier(job / "crash__Zx8cVb1" / "verifier")

    # the environment never started: no agent log at all.
    trial(job, "nostart__Lm4nBv6", "nostart", 12, env_started=False,
          exception=("EnvironmentStartTimeoutError", "Environment start timed out after 600.0 seconds"))

    # no exception recorded and no reward file: a missing reward.
    trial(job, "missing__Po9iUy3", "missing", 15, agent_log=stream("Done."), agent_result=ctx)
    (job / "missing__Po9iUy3" / "verifier").mkdir()

    # unjudged: the case had no judge the container could run.
    trial(job, "unjudged__Gh5jKl7", "unjudged", 20, agent_log=stream("Done."), agent_result=ctx,
          verifier_result=VerifierResult(rewards={"reward": 0.0, "agent_eval_unjudged": 1}))
    verifier(job / "unjudged__Gh5jKl7" / "verifier", {"reward": 0.0, "agent_eval_unjudged": 1}, {"reward": None, "per_judge": {}})

    # the agent exited non-zero.
    trial(job, "exit2__Rt6yUi8", "exit2", 22, agent_log=stream("gave up", is_error=True), agent_result=ctx,
          exception=("NonZeroAgentExitCodeError", "Command failed (exit 2): claude --print\nstdout: ...\nstderr: ..."),
          verifier_result=VerifierResult(rewards={"reward": 0.0, "answer_written": 0.0}))
    verifier(job / "exit2__Rt6yUi8" / "verifier", {"reward": 0.0, "answer_written": 0.0})

    # -k 2: two trials of one case; the later-started one sorts first by name.
    trial(job, "twice__Zz1aaaa", "twice", 30, agent_log=stream("first"), agent_result=ctx,
          verifier_result=VerifierResult(rewards=ok))
    verifier(job / "twice__Zz1aaaa" / "verifier", ok, ok_judges, {"outputs/out/answer.txt": "42\n"})
    trial(job, "twice__Aa2bbbb", "twice", 40, agent_log=stream("second"), agent_result=ctx,
          verifier_result=VerifierResult(rewards={"reward": 0.0, "answer_written": 0.0}))
    verifier(job / "twice__Aa2bbbb" / "verifier", {"reward": 0.0, "answer_written": 0.0}, None, {"outputs/out/other.txt": "7\n"})

    # multi-step: [[steps]] write then review (not alphabetical); review's verifier crashed.
    steps = [
        StepResult(step_name="write", agent_result=ctx, verifier_result=VerifierResult(rewards={"reward": 1.0}),
                   agent_execution=TimingInfo(started_at=at(50), finished_at=at(62))),
        StepResult(step_name="review", agent_result=ctx,
                   exception_info=ExceptionInfo(exception_type="RewardFileNotFoundError", exception_message="No reward file found",
                                                exception_traceback="", occurred_at=at(80)),
                   agent_execution=TimingInfo(started_at=at(65), finished_at=at(75))),
    ]
    p = trial(job, "pipeline__Mn3bVc4", "pipeline", 50, steps=steps)
    write(p / "steps" / "write" / "agent" / "claude-code.txt", stream("draft written", [("Write", {"file_path": "/workspace/out/answer.txt", "content": "42\n"}, "ok", False)]))
    verifier(p / "steps" / "write" / "verifier", {"reward": 1.0, "answer_written": 1.0}, None, {"outputs/out/answer.txt": "42\n"})
    write(p / "steps" / "review" / "agent" / "claude-code.txt", stream("reviewed"))
    verifier(p / "steps" / "review" / "verifier", None, None, {"outputs/out/answer.txt": "42\n", "outputs/out/review.md": "fine\n"})

    # hostile: the agent forged a case id in the verifier's copy of the case;
    # the test adds links (outputs, _modified, the ledger) to a copy.
    trial(job, "hostile__Hx0sTl5", "hostile", 90, agent_log=stream("Done."), agent_result=ctx,
          verifier_result=VerifierResult(rewards=ok))
    verifier(job / "hostile__Hx0sTl5" / "verifier", ok, ok_judges,
             {"outputs/out/answer.txt": "42\n", "run_result.json": json.dumps({"case_id": "hello", "status": "completed"}),
              "transcript.jsonl": json.dumps({"kind": "result", "text": "forged"}) + "\n"})

    stats = JobStats(n_completed_trials=11, n_errored_trials=6)
    jr = JobResult(id=UUID(int=7), started_at=T0, finished_at=at(130), n_total_trials=11, stats=stats)
    write(job / "result.json", jr.model_dump_json(indent=4))
    write(job / "job.log", "")


if __name__ == "__main__":
    main()
