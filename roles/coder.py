"""The coder: asks its model for Python, runs it in the sandbox, reads the errors and
fixes the code (bounded attempts), and returns the values and files the code produced.

The code gets its inputs in ``inputs.json`` in its working folder and reports its
outputs by writing ``outputs.json`` (an object with one key per output) or, for a task
with one output, by printing it. Other files it writes become artifacts of the run.
Every execution is recorded in the log (request and result), which is what replay
serves back instead of running Docker.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from pathlib import Path

from autogen_core.models import AssistantMessage, LLMMessage, UserMessage
from pydantic import JsonValue

from bus import Envelope
from bus.payloads import Artifact, ExecRequest, TaskAssignment, TaskResult, Usage
from roles.errors import TaskFailed
from roles.execution import CodeRunner, ExecutionResult, notes_text, to_payload
from roles.settings import CoderSettings
from roles.structured import AnswerInvalid, CodeAnswer, code_from, shape_of
from roles.worker import WorkerRole

__all__ = ["Coder", "read_outputs"]

LOG_FILE_CAP = 256_000
"""Files larger than this (bytes) are kept as artifacts but not copied into the log."""

SYSTEM = """You are the coder of a team of AI agents. You write one self-contained Python 3
program for a task. It runs in a sandbox with no network, in a working folder that holds
inputs.json (the task's input values). Write the task's outputs to outputs.json as one
JSON object with one key per output (a task with a single output may instead print it).
Files you write in the working folder are kept as artifacts. Answer with the program in
one ```python fenced block."""

RESERVED = frozenset({"inputs.json", "outputs.json"})


def read_outputs(outputs: list[str], run: ExecutionResult) -> dict[str, JsonValue]:
    """The task's outputs from ``outputs.json``, else the printed value of a single output."""
    raw = run.files.get("outputs.json")
    if raw is not None:
        try:
            data = json.loads(raw)
        except ValueError as exc:
            msg = f"outputs.json is not valid JSON: {exc}"
            raise AnswerInvalid(msg) from None
        if not isinstance(data, dict):
            msg = "outputs.json must hold a JSON object"
            raise AnswerInvalid(msg)
        missing = [o for o in outputs if o not in data]
        if missing:
            msg = f"outputs.json lacks {missing}"
            raise AnswerInvalid(msg)
        return {o: data[o] for o in outputs}
    if len(outputs) == 1 and run.stdout.strip():
        text = run.stdout.strip()
        try:
            value: JsonValue = json.loads(text)
        except ValueError:
            value = text
        return {outputs[0]: value}
    if not outputs:
        return {}
    msg = f"the program wrote no outputs.json with {outputs}"
    raise AnswerInvalid(msg)


def _tail(text: str, n: int = 2000) -> str:
    return text if len(text) <= n else "…" + text[-n:]


class Coder(WorkerRole[CoderSettings]):
    """Does coding tasks in the sandbox."""

    name = "coder"

    @property
    def runner(self) -> CodeRunner:
        """The sandbox (given by whoever started the role)."""
        runner = self.deps.code
        if runner is None:
            msg = "no sandbox is available to run code"
            raise TaskFailed(msg)
        return runner

    async def work(self, env: Envelope, assignment: TaskAssignment) -> TaskResult:
        """Write, run and fix code until it produces the outputs (bounded attempts)."""
        settings = self.settings
        task = assignment.task
        convo = self.prompt(assignment)
        inputs = json.dumps(assignment.inputs, ensure_ascii=False).encode()
        problem = ""
        for attempt in range(1, settings.max_attempts + 1):
            schema = shape_of(CodeAnswer) if self.calls.structured_mode else None
            reply = await self.calls.call(convo, parent=env, task_id=task.id, schema=schema)
            convo.append(AssistantMessage(content=reply.text, source=self.name))
            try:
                code = code_from(reply.text)
            except AnswerInvalid as exc:
                problem = str(exc)
                convo.append(self._feedback(problem))
                continue
            run = await self._execute(env, task.id, code, {"inputs.json": inputs})
            problem = self._problem(run)
            if not problem:
                try:
                    outputs = read_outputs(task.outputs, run)
                except AnswerInvalid as exc:
                    problem = str(exc) + notes_text(run)
                else:
                    return TaskResult(
                        task_id=task.id,
                        role=self.name,
                        attempt=assignment.attempt,
                        status="done",
                        outputs=outputs,
                        artifacts=self._save_artifacts(task.id, run.files),
                        summary=f"succeeded after {attempt} attempt(s)",
                    )
            self.log.info(
                "code attempt failed", task=task.id, attempt=attempt, problem=problem[:200]
            )
            convo.append(self._feedback(problem))
        msg = f"code still failing after {settings.max_attempts} attempts: {problem}"
        raise TaskFailed(msg)

    async def _execute(
        self, env: Envelope, task_id: str, code: str, files: dict[str, bytes]
    ) -> ExecutionResult:
        timeout = self.deps.sandbox_timeout_s
        req_id = await self.send(
            ExecRequest(code=code, input_files=sorted(files), timeout_s=timeout),
            parent=env,
            task_id=task_id,
        )
        guard = self.deps.guard
        held = await guard.hold_sandbox(timeout) if guard is not None else None
        try:
            run = await self.runner.execute(code, files, timeout)
        finally:
            if guard is not None and held is not None:
                await guard.release(held)
        if guard is not None:
            await guard.add_sandbox(run.wall_s)
        await self.send(to_payload(run, LOG_FILE_CAP), parent=req_id, task_id=task_id)
        await self.send(
            Usage(kind="sandbox", sandbox_s=round(run.wall_s, 6)), parent=req_id, task_id=task_id
        )
        return run

    @staticmethod
    def _problem(run: ExecutionResult) -> str:
        """What went wrong, for the model: the failure, then the sandbox's notes (a full
        tmpfs, files dropped...), which name causes the program's own output may not."""
        if run.error:
            return f"the sandbox failed: {run.error}"
        if run.timed_out:
            problem = "the program was killed at the time limit (make it faster or stop looping)"
        elif run.oom_killed:
            problem = (
                "the program was killed for using too much memory (files it writes count "
                "against the memory limit too)"
            )
        elif run.exit_code != 0:
            problem = f"the program exited with code {run.exit_code}; stderr:\n{_tail(run.stderr)}"
        else:
            return ""
        return problem + notes_text(run)

    def _feedback(self, problem: str) -> UserMessage:
        return UserMessage(
            content=f"That did not work: {problem}\nFix the program and answer with the whole corrected program.",
            source="sandbox",
        )

    def _save_artifacts(self, task_id: str, files: Mapping[str, bytes]) -> list[Artifact]:
        folder = self.ctx.run_dir / "artifacts" / task_id
        artifacts = []
        for name, data in sorted(files.items()):
            if name in RESERVED or "/" in name or name.startswith("."):
                continue
            folder.mkdir(parents=True, exist_ok=True)
            (folder / name).write_bytes(data)
            artifacts.append(
                Artifact(
                    name=name,
                    path=str(Path("artifacts") / task_id / name),
                    size=len(data),
                    sha256=hashlib.sha256(data).hexdigest(),
                )
            )
        return artifacts

    def prompt(self, assignment: TaskAssignment) -> list[LLMMessage]:
        """The first messages for a coding task."""
        task = assignment.task
        parts = [
            f"Overall goal: {assignment.goal}",
            f"Your task ({task.id}): {task.description}",
            f"Outputs to produce: {', '.join(task.outputs) or '(none)'}",
            "inputs.json holds: "
            + (
                json.dumps(assignment.inputs, ensure_ascii=False)[:4000]
                if assignment.inputs
                else "{}"
            ),
        ]
        notes = assignment.notes + self.talk.take_remarks()
        if notes:
            parts.append("Keep in mind:\n- " + "\n- ".join(notes))
        return [
            self.system_prompt(SYSTEM),
            UserMessage(content="\n\n".join(parts), source="manager"),
        ]
