"""The manager's scheduler: which validated tasks are ready, and which to start now.

Pure logic and no I/O, so it is unit-tested alone and costs microseconds per task: a
ready heap per role (priority from `graph.priority_key`), dependency counters, and the
free capacity of each role.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass, field
from enum import StrEnum

from pydantic import JsonValue

from bus.payloads import TaskSpec
from roles.manager.graph import longest_paths, priority_key

__all__ = ["Scheduler", "TaskState", "TaskStatus"]


class TaskState(StrEnum):
    """Where a task is."""

    PENDING = "pending"
    READY = "ready"
    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"


@dataclass
class TaskStatus:
    """A task and how it is doing."""

    spec: TaskSpec
    state: TaskState = TaskState.PENDING
    attempts: int = 0
    waiting_on: int = 0
    outputs: dict[str, JsonValue] = field(default_factory=dict)
    error: str | None = None


class Scheduler:
    """Tracks one plan revision's tasks through ready, running, done and failed."""

    def __init__(
        self,
        tasks: dict[str, TaskSpec],
        capacity: dict[str, int],
        values: dict[str, JsonValue] | None = None,
        aliases: dict[str, str] | None = None,
    ) -> None:
        self.status = {tid: TaskStatus(spec) for tid, spec in tasks.items()}
        self.capacity = dict(capacity)
        self.busy: dict[str, int] = dict.fromkeys(capacity, 0)
        self.values: dict[str, JsonValue] = dict(values or {})
        """Named values known so far: goal inputs and outputs of completed tasks."""
        self.aliases = dict(aliases or {})
        self._done = 0
        self._dependants: dict[str, list[str]] = {tid: [] for tid in tasks}
        self._ready: dict[str, list[tuple[tuple[float, float, str], str]]] = {}
        longest = longest_paths(tasks)
        self._keys = {tid: priority_key(spec, longest[tid]) for tid, spec in tasks.items()}
        for tid, spec in tasks.items():
            deps = [d for d in spec.depends_on if d in tasks]
            self.status[tid].waiting_on = len(deps)
            for d in deps:
                self._dependants[d].append(tid)
        for tid, st in self.status.items():
            if st.waiting_on == 0:
                self._make_ready(tid)

    def _make_ready(self, tid: str) -> None:
        st = self.status[tid]
        st.state = TaskState.READY
        heapq.heappush(self._ready.setdefault(st.spec.role, []), (self._keys[tid], tid))

    def next_batch(self) -> list[TaskSpec]:
        """Ready tasks to start now, in priority order, within each role's free capacity."""
        picked: list[tuple[tuple[float, float, str], str]] = []
        for role, heap in self._ready.items():
            free = self.capacity.get(role, 0) - self.busy.get(role, 0)
            while heap and free > 0:
                item = heapq.heappop(heap)
                if self.status[item[1]].state is not TaskState.READY:
                    continue
                picked.append(item)
                free -= 1
        picked.sort()
        batch = []
        for _, tid in picked:
            st = self.status[tid]
            st.state = TaskState.RUNNING
            st.attempts += 1
            self.busy[st.spec.role] = self.busy.get(st.spec.role, 0) + 1
            batch.append(st.spec)
        return batch

    def start(self, tid: str) -> None:
        """Mark a task running that was dispatched before (a manager rebuilt from its log)."""
        st = self.status.get(tid)
        if st is None or st.state is TaskState.RUNNING:
            return
        heap = self._ready.get(st.spec.role, [])
        heap[:] = [item for item in heap if item[1] != tid]
        heapq.heapify(heap)
        st.state = TaskState.RUNNING
        st.attempts += 1
        self.busy[st.spec.role] = self.busy.get(st.spec.role, 0) + 1

    def inputs_for(self, spec: TaskSpec) -> dict[str, JsonValue]:
        """The values of a task's inputs."""
        return {name: self.values.get(name) for name in spec.inputs}

    def _release(self, st: TaskStatus) -> None:
        if st.state is TaskState.RUNNING:
            self.busy[st.spec.role] = max(0, self.busy.get(st.spec.role, 0) - 1)

    def complete(self, tid: str, outputs: dict[str, JsonValue]) -> list[str]:
        """Record a result; returns the ids of tasks that became ready."""
        st = self.status[tid]
        self._release(st)
        if st.state is not TaskState.DONE:
            self._done += 1
        st.state = TaskState.DONE
        st.outputs = dict(outputs)
        self.values.update(outputs)
        for alias, name in self.aliases.items():
            if name in outputs:
                self.values[alias] = outputs[name]
        newly = []
        for dep in self._dependants[tid]:
            ds = self.status[dep]
            ds.waiting_on -= 1
            if ds.waiting_on == 0 and ds.state is TaskState.PENDING:
                self._make_ready(dep)
                newly.append(dep)
        return newly

    def fail(self, tid: str, error: str) -> None:
        """Record a failure (the manager decides about retries and replans)."""
        st = self.status[tid]
        self._release(st)
        st.state = TaskState.FAILED
        st.error = error

    def retry(self, tid: str) -> None:
        """Put a failed or running task back in the ready queue."""
        st = self.status[tid]
        self._release(st)
        self._make_ready(tid)

    def running(self) -> list[str]:
        """Ids of the tasks in flight."""
        return [tid for tid, st in self.status.items() if st.state is TaskState.RUNNING]

    def counts(self) -> dict[TaskState, int]:
        """How many tasks are in each state."""
        result = dict.fromkeys(TaskState, 0)
        for st in self.status.values():
            result[st.state] += 1
        return result

    @property
    def finished(self) -> bool:
        """Every task is done."""
        return self._done == len(self.status)

    def completed_outputs(self) -> dict[str, dict[str, JsonValue]]:
        """Outputs of done tasks, by task id."""
        return {tid: st.outputs for tid, st in self.status.items() if st.state is TaskState.DONE}
