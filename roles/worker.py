"""`WorkerRole`: a role that takes tasks from its work queue, as many at once as its
concurrency, and reports each as done, failed or cancelled."""

from __future__ import annotations

import asyncio
import contextvars
import json
from typing import Any, Literal

from bus import Envelope
from bus.payloads import Control, TaskAssignment, TaskResult
from bus.workqueue import Delivery, QueueSpec
from roles.base import Role
from roles.context import RoleContext, S
from roles.errors import BudgetExceeded, FailureCause, ModelAnswerError, TaskFailed

__all__ = ["WorkerRole", "task_header"]

_TASK_KEY: contextvars.ContextVar[str | None] = contextvars.ContextVar("task_key", default=None)
"""``task#attempt`` of the worker task the current coroutine serves."""


def task_header(assignment: TaskAssignment) -> list[str]:
    """The parts a task's prompt opens with: the overall goal, the task, the outputs to
    produce and the inputs given (as JSON)."""
    task = assignment.task
    parts = [
        f"Overall goal: {assignment.goal}",
        f"Your task ({task.id}): {task.description}",
        f"Produce these outputs: {', '.join(task.outputs) or '(none)'}",
    ]
    if assignment.inputs:
        parts.append("Inputs:\n" + json.dumps(assignment.inputs, ensure_ascii=False, indent=1))
    return parts


class WorkerRole(Role[S]):
    """A role that takes tasks from the work queue of ``task.<role>`` (shared by every
    instance, in this process or any other).

    Up to ``concurrency`` tasks run at once per instance; a failure becomes a failed
    result with the reason, never a crash; a cancel or abort stops work in flight and
    reports it. A shutdown hands tasks in flight back to the queue without a result, so
    another worker does them; a worker that dies outright has them redelivered after the
    ack wait.
    """

    def __init__(self, ctx: RoleContext[S]) -> None:
        super().__init__(ctx)
        self._running: dict[str, asyncio.Task[Any]] = {}
        self._cancelled: set[str] = set()
        """Keys of tasks told to stop: their late results are reported as cancelled."""
        self._withdrawn: dict[str, str] = {}
        """Task id -> the id of the latest cancel of it: an assignment made before that
        cancel and not started yet is reported cancelled, never worked on (the cancel and
        the assignment come by different paths, so either may arrive first)."""

    def queues(self) -> list[QueueSpec]:
        """This role's tasks, as many at once as its concurrency."""
        return [QueueSpec.tasks(self.name, self.settings.concurrency)]

    async def on_delivery(self, delivery: Delivery) -> None:
        """Do a delivered task; returning acknowledges it (after its result is stored)."""
        env = delivery.envelope
        if not isinstance(env.payload, TaskAssignment):
            await self.receive(env)
            return
        assignment = env.payload
        key = f"{assignment.task.id}#{assignment.attempt}"
        running = self._running.get(key)
        if running is not None:  # redelivered to us while we still work on it
            await asyncio.wait({running})
            return
        withdrawn = self._withdrawn.get(assignment.task.id)
        if withdrawn is not None and env.id < withdrawn:  # ids sort by creation time
            cancelled = self._cancelled_result(assignment)
            await self.send(cancelled, parent=env, task_id=assignment.task.id)
            return
        task = asyncio.current_task()
        assert task is not None
        self._running[key] = task
        self.log.info("task started", task=assignment.task.id, attempt=assignment.attempt)
        await self._run(env, assignment, delivery)

    async def on_exhausted(self, delivery: Delivery) -> None:
        """Report a task that no worker of this role could finish as failed."""
        env = delivery.envelope
        if isinstance(env.payload, TaskAssignment):
            reason = (
                f"no {self.name} worker finished it in {delivery.deliveries - 1} deliveries "
                "(workers crashed or stalled); dead-lettered"
            )
            failed = self.failed(env.payload, reason, cause="worker")
            await self.send(failed, parent=env, task_id=env.task_id)

    async def _run(self, env: Envelope, assignment: TaskAssignment, delivery: Delivery) -> None:
        task = assignment.task
        key = f"{task.id}#{assignment.attempt}"
        _TASK_KEY.set(key)
        try:
            try:
                result = await self.work(env, assignment)
            except TaskFailed as exc:
                result = self.failed(assignment, str(exc), cause=exc.cause)
            except ModelAnswerError as exc:
                result = self.failed(assignment, str(exc))
            except BudgetExceeded as exc:
                result = self.failed(assignment, exc.reason, status="budget_exhausted")
            except asyncio.CancelledError:
                if key in self._cancelled:  # told to stop: report it, and drop the delivery
                    await self.send(self._cancelled_result(assignment), parent=env, task_id=task.id)
                    await delivery.ack()
                raise  # else a shutdown: the queue hands the task to another worker
            except Exception as exc:
                self.log.exception("task crashed", task=task.id)
                result = self.failed(assignment, f"internal error: {type(exc).__name__}: {exc}")
            if key in self._cancelled:  # the cancel was lost inside a library call
                result = self._cancelled_result(assignment)
            await self.send(result, parent=env, task_id=task.id)
        finally:
            self._running.pop(key, None)
            self._cancelled.discard(key)

    def checkpoint(self) -> None:
        """Stop a task whose cancel a library call swallowed, before it spends more."""
        if _TASK_KEY.get() in self._cancelled:
            raise asyncio.CancelledError

    def _cancelled_result(self, assignment: TaskAssignment) -> TaskResult:
        return TaskResult(
            task_id=assignment.task.id,
            role=self.name,
            attempt=assignment.attempt,
            status="cancelled",
            error="cancelled",
        )

    def failed(
        self,
        assignment: TaskAssignment,
        reason: str,
        *,
        status: Literal["failed", "budget_exhausted"] = "failed",
        cause: FailureCause = "work",
    ) -> TaskResult:
        """A failed result for ``assignment`` (or one a budget stopped)."""
        return TaskResult(
            task_id=assignment.task.id,
            role=self.name,
            attempt=assignment.attempt,
            status=status,
            error=reason,
            cause=cause,
        )

    async def work(self, env: Envelope, assignment: TaskAssignment) -> TaskResult:
        """Do the task (subclasses implement)."""
        raise NotImplementedError

    async def on_control(self, env: Envelope, control: Control) -> None:
        """Cancel the named tasks, or everything on abort and budget exhaustion."""
        if control.action in ("abort", "budget_exhausted"):
            keys = list(self._running)
        elif control.action == "cancel":
            wanted = set(control.task_ids)
            keys = [k for k in self._running if k.split("#")[0] in wanted]
            for task_id in wanted:
                self._withdrawn[task_id] = max(env.id, self._withdrawn.get(task_id, ""))
        else:
            return
        for key in keys:
            self._cancelled.add(key)
            self._running[key].cancel()
