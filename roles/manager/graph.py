"""Validation of a planned task graph, near-duplicate merging, and task priorities.

A plan is refused, with one sentence per problem for the planner, when it has a cycle,
a task for an unknown role, a dependency on a task that does not exist, an output made
by two tasks, or an input that neither the goal nor an upstream task provides.
Near-duplicate tasks (same role, same inputs, descriptions at least ``threshold``
similar) are merged into the first one.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from graphlib import CycleError, TopologicalSorter

from rapidfuzz import fuzz, process

from bus.payloads import TaskSpec
from roles.manager.renames import (
    answer_reads_upstream,
    dead_ends_feed_answer,
    given_outputs,
    numbered_ids,
    read_dependencies,
    restated_outputs,
    reused_ids,
    upstream,
)

__all__ = ["PlanCheck", "longest_paths", "near_duplicates", "priority_key", "validate_plan"]

_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


@dataclass
class PlanCheck:
    """The outcome of validating a plan."""

    tasks: dict[str, TaskSpec] = field(default_factory=dict)
    """The tasks to run (after merging), by id, in plan order."""
    errors: list[str] = field(default_factory=list)
    merged: dict[str, str] = field(default_factory=dict)
    """Duplicate task id -> the id it was merged into."""
    kept: list[str] = field(default_factory=list)
    """Task ids of the plan that were already completed and keep their outputs."""
    aliases: dict[str, str] = field(default_factory=dict)
    """Output name of a merged duplicate -> the output of the kept task that stands for it."""
    repaired: dict[str, str] = field(default_factory=dict)
    """Unambiguous wiring mistakes the manager mended instead of refusing the plan, each
    ``"<task>.<field>[.<name>]" -> what it became`` (a role, an input's source, a
    dependency added or dropped)."""

    @property
    def ok(self) -> bool:
        """Whether the plan can run."""
        return not self.errors


_WORDS = re.compile(r"[a-z0-9]+")


def near_duplicates(a: TaskSpec, b: TaskSpec, threshold: float) -> bool:
    """Same role, same inputs, descriptions ``threshold`` similar and differing in at most
    one word in ten (never in a number), so "count to 100" and "count to 1000" stay apart."""
    if a.role != b.role or set(a.inputs) != set(b.inputs):
        return False
    if fuzz.token_sort_ratio(a.description, b.description) < threshold:
        return False
    wa, wb = set(_WORDS.findall(a.description.lower())), set(_WORDS.findall(b.description.lower()))
    differ = wa ^ wb
    if any(w.isdigit() for w in differ):
        return False
    return len(differ) <= max(1, len(wa | wb) // 10)


def _merge_duplicates(tasks: list[TaskSpec], threshold: float, check: PlanCheck) -> list[TaskSpec]:
    kept: list[TaskSpec] = []
    # Only tasks of one role with the same inputs and the same numbers in their descriptions
    # can be duplicates (`near_duplicates`): compare within such groups, the group's
    # descriptions at once (rapidfuzz, in C), then the few close ones in full. A plan of
    # numbered tasks ("answer question 17") is then linear, not quadratic.
    groups: dict[tuple[str, frozenset[str], frozenset[str]], tuple[list[int], list[str]]] = {}
    for task in tasks:
        numbers = frozenset(w for w in _WORDS.findall(task.description.lower()) if w.isdigit())
        at, texts = groups.setdefault((task.role, frozenset(task.inputs), numbers), ([], []))
        close = process.extract(
            task.description,
            texts,
            scorer=fuzz.token_sort_ratio,
            score_cutoff=threshold,
            limit=None,
        )
        twin_at = next(
            (
                at[n]
                for n in sorted(n for _, _, n in close)
                if near_duplicates(kept[at[n]], task, threshold)
            ),
            None,
        )
        if twin_at is None:
            at.append(len(kept))
            texts.append(task.description)
            kept.append(task)
            continue
        twin = kept[twin_at]
        check.merged[task.id] = twin.id
        if len(task.outputs) == 1 and len(twin.outputs) == 1:
            if task.outputs[0] != twin.outputs[0]:
                check.aliases[task.outputs[0]] = twin.outputs[0]
        else:
            extra = [o for o in task.outputs if o not in twin.outputs]
            kept[twin_at] = twin.model_copy(update={"outputs": [*twin.outputs, *extra]})
    if not check.merged:
        return kept
    result = []
    for task in kept:
        deps = []
        for d in task.depends_on:
            d = check.merged.get(d, d)
            if d != task.id and d not in deps:
                deps.append(d)
        inputs = [check.aliases.get(i, i) for i in task.inputs]
        result.append(task.model_copy(update={"depends_on": deps, "inputs": inputs}))
    return result


def validate_plan(
    tasks: list[TaskSpec],
    *,
    roles: set[str],
    available: set[str],
    completed: Mapping[str, Collection[str]] | None = None,
    threshold: float = 92.0,
    given: set[str] = frozenset(),  # type: ignore[assignment]
) -> PlanCheck:
    """Check a plan. ``available`` are value names given by the goal or completed tasks,
    ``completed`` the tasks done (their outputs), ``given`` the values the goal gives."""
    completed = completed or {}
    check = PlanCheck()
    if not tasks:
        check.errors.append("the plan has no tasks: give at least one task towards the goal")
        return check
    seen: set[str] = set()
    fresh: list[TaskSpec] = []
    tasks = reused_ids(tasks, completed, check.repaired)
    for task in numbered_ids(tasks, set(completed), check.repaired):
        if not _ID.match(task.id):
            check.errors.append(f"task id {task.id!r} must be 1-64 letters, digits, '_' or '-'")
        elif task.id in seen:
            twice = (
                f"task id {task.id!r} is used twice, once by a task already done: give each "
                "task an id of its own"
            )
            if twice not in check.errors:
                check.errors.append(twice)
        elif task.role not in roles:
            near = _closest(task.role, roles)
            if near is not None:
                check.repaired[f"{task.id}.role"] = near
                task = task.model_copy(update={"role": near})
            else:
                known = ", ".join(sorted(roles))
                check.errors.append(
                    f"task {task.id!r} names unknown role {task.role!r}: use one of {known}"
                )
        if task.id in completed:
            check.kept.append(task.id)
        elif task.id not in seen:
            fresh.append(task)
        seen.add(task.id)
    if check.errors:
        return check

    fresh = _merge_duplicates(fresh, threshold, check)
    ids = {t.id for t in fresh}
    fresh = [_known_dependencies(task, ids | set(completed), check) for task in fresh]
    fresh = _wire(given_outputs(fresh, given, check.repaired), available, check)

    sorter: TopologicalSorter[str] = TopologicalSorter()
    for task in fresh:
        sorter.add(task.id, *[d for d in task.depends_on if d in ids])
    try:
        order = list(sorter.static_order())
    except CycleError as exc:
        cycle = list(exc.args[1]) if len(exc.args) > 1 else []
        check.errors.append("the tasks form a cycle: " + " → ".join(map(str, cycle)))
        return check

    position = {tid: n for n, tid in enumerate(order)}
    fresh = restated_outputs(fresh, position, check.repaired)
    fresh = dead_ends_feed_answer(
        read_dependencies(fresh, check.repaired), position, check.repaired
    )
    fresh = answer_reads_upstream(fresh, check.repaired)
    producers: dict[str, str] = {}
    by_id = {t.id: t for t in fresh}
    for task in fresh:
        for out in task.outputs:
            if out in producers and producers[out] != task.id:
                check.errors.append(
                    f"output {out!r} is produced by both {producers[out]!r} and {task.id!r}"
                )
            producers.setdefault(out, task.id)

    for task in fresh:
        for name in task.inputs:
            if name in available:
                continue
            producer = producers.get(name)
            if producer is None:
                there = sorted(available | set(producers))[:12]
                offer = f"use one of {', '.join(there)}" if there else "remove it"
                check.errors.append(
                    f"input {name!r} of task {task.id!r} is provided by no upstream task "
                    f"and not by the goal: {offer}, or add the task that makes it"
                )
            elif producer == task.id:
                check.errors.append(f"task {task.id!r} needs its own output {name!r}")
            elif producer not in task.depends_on and not upstream(
                producer, task.id, by_id, position
            ):
                check.errors.append(
                    f"input {name!r} of task {task.id!r} comes from task {producer!r}, "
                    f"but {task.id!r} does not depend on {producer!r}"
                )
    if not check.errors:
        check.tasks = {tid: by_id[tid] for tid in (t.id for t in fresh)}
    return check


def _normal(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.lower())


def _candidates(name: str, known: set[str] | list[str]) -> list[str]:
    """The known names ``name`` may stand for: those equal once case and punctuation are
    ignored, else those at least 80% similar."""
    norm = _normal(name)
    same = [k for k in known if _normal(k) == norm]
    if same:
        return same
    return [
        k
        for k in known
        if fuzz.ratio(_normal(k), norm) >= 80
        or (len(norm) >= 3 and (norm in _normal(k) or _normal(k) in norm))
    ]


def _closest(name: str, known: set[str] | list[str]) -> str | None:
    """The one known name ``name`` unambiguously stands for (None: none, or several)."""
    found = _candidates(name, known)
    return found[0] if len(found) == 1 else None


def _known_dependencies(task: TaskSpec, known: set[str], check: PlanCheck) -> TaskSpec:
    """A dependency on a task that is not in the plan is mended to the one it stands for,
    or dropped (it can provide nothing; inputs it was to provide are checked after)."""
    if all(d in known for d in task.depends_on):
        return task
    deps: list[str] = []
    for dep in task.depends_on:
        if dep in known:
            deps.append(dep)
            continue
        near = _closest(dep, sorted(known - {task.id}))
        check.repaired[f"{task.id}.depends_on.{dep}"] = near or "(dropped: no such task)"
        if near is not None and near not in deps:
            deps.append(near)
    return task.model_copy(update={"depends_on": deps})


def _wire(tasks: list[TaskSpec], available: set[str], check: PlanCheck) -> list[TaskSpec]:
    """Inputs mended where the plan's meaning is unambiguous: a name that stands for exactly
    one value (the goal's, or another task's output) takes that value, and a task that reads
    another's output without depending on it gets that dependency — unless it would close a
    cycle (then validation says so)."""
    producers: dict[str, str] = {}
    for task in tasks:
        for out in task.outputs:
            producers.setdefault(out, task.id)
    by_id = {t.id: t for t in tasks}
    for n, task in enumerate(tasks):
        inputs: list[str] = []
        deps = list(task.depends_on)
        for name in task.inputs:
            if name not in available and producers.get(name) == task.id:
                # it reads what it makes: the model listed the output twice
                check.repaired[f"{task.id}.inputs.{name}"] = "(dropped: the task's own output)"
                continue
            if name not in available and name not in producers:
                others = {o for o, p in producers.items() if p != task.id}
                found = _candidates(name, sorted(available | others))
                if not found:
                    # nothing provides it, nor anything named like it: the task has the
                    # goal's values and its own description (a value in the goal's words)
                    check.repaired[f"{task.id}.inputs.{name}"] = "(dropped: nothing provides it)"
                    continue
                if len(found) == 1:
                    check.repaired[f"{task.id}.inputs.{name}"] = found[0]
                    name = found[0]
            producer = producers.get(name)
            if (
                name not in available
                and producer is not None
                and producer != task.id
                and producer not in deps
                and not _reaches(producer, producer_of=task.id, by_id=by_id)
                and not _reaches(task.id, producer_of=producer, by_id=by_id)
            ):
                deps.append(producer)
                check.repaired[f"{task.id}.depends_on.+{producer}"] = f"for input {name!r}"
            if name not in inputs:
                inputs.append(name)
        if inputs != task.inputs or deps != task.depends_on:
            task = task.model_copy(update={"inputs": inputs, "depends_on": deps})
            tasks[n] = by_id[task.id] = task
    return tasks


def _reaches(start: str, *, producer_of: str, by_id: dict[str, TaskSpec]) -> bool:
    """Whether ``start`` depends on ``producer_of``, directly or not."""
    seen = {start}
    stack = [start]
    while stack:
        task = by_id.get(stack.pop())
        for dep in task.depends_on if task else []:
            if dep == producer_of:
                return True
            if dep not in seen:
                seen.add(dep)
                stack.append(dep)
    return False


def longest_paths(tasks: dict[str, TaskSpec]) -> dict[str, float]:
    """For each task, the effort of the longest chain from it to the end of the graph."""
    dependants: dict[str, list[str]] = {tid: [] for tid in tasks}
    sorter: TopologicalSorter[str] = TopologicalSorter()
    for task in tasks.values():
        deps = [d for d in task.depends_on if d in tasks]
        sorter.add(task.id, *deps)
        for d in deps:
            dependants[d].append(task.id)
    result: dict[str, float] = {}
    for tid in reversed(list(sorter.static_order())):
        tail = max((result[d] for d in dependants[tid]), default=0.0)
        result[tid] = tasks[tid].effort + tail
    return result


def priority_key(task: TaskSpec, longest: float) -> tuple[float, float, str]:
    """Sort key: highest value/effort first, then the longest remaining path, then id."""
    return (-task.value / task.effort, -longest, task.id)
