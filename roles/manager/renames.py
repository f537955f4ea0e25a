"""How the manager mends a plan's names where their meaning is clear, each mend noted in
``repaired``: tasks sharing an id, an output named like a goal's value, an output stated
again downstream, a dependency whose outputs the task does not read, and work no task
takes."""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Mapping

from bus.payloads import TaskSpec

__all__ = [
    "answer_reads_upstream",
    "dead_ends_feed_answer",
    "given_outputs",
    "numbered_ids",
    "read_dependencies",
    "restated_outputs",
    "reused_ids",
    "upstream",
]


def reused_ids(
    tasks: list[TaskSpec], done: Mapping[str, Collection[str]], repaired: dict[str, str]
) -> list[TaskSpec]:
    """A task given the id of a task already done (``done``: its outputs) that asks for
    outputs that task never gave is new work, not that task again (a live 1.5B replan named
    its count ``compute``, the id of a finished reading, and the count was taken as done and
    never run): it is numbered ``<id>_<n>``, and a dependency on the id means the new task
    unless the dependent reads only the finished task's outputs (both, when it reads both)."""
    new = {
        t.id: t
        for t in tasks
        if t.id in done
        and not set(t.outputs) <= set(done[t.id])
        and sum(u.id == t.id for u in tasks) == 1
    }
    if not new:
        return tasks
    taken = {t.id for t in tasks} | set(done)
    renamed: dict[str, str] = {}
    for tid in new:
        n = 2
        while f"{tid}_{n}" in taken:
            n += 1
        renamed[tid] = f"{tid}_{n}"
        taken.add(renamed[tid])
        repaired[f"{tid}.id"] = f"{renamed[tid]} (new work: {tid} is done)"
    out = []
    for task in tasks:
        deps: list[str] = []
        for dep in task.depends_on:
            chosen = [dep]
            if dep in new:
                reads_new = set(task.inputs) & set(new[dep].outputs)
                reads_done = set(task.inputs) & set(done[dep])
                chosen = [dep] if reads_done and not reads_new else [renamed[dep]]
                chosen += [dep] if reads_done and reads_new else []
            deps += [d for d in chosen if d not in deps]
        tid = renamed.get(task.id, task.id)
        out.append(task.model_copy(update={"id": tid, "depends_on": deps}))
    return out


def numbered_ids(
    tasks: list[TaskSpec], completed: set[str], repaired: dict[str, str]
) -> list[TaskSpec]:
    """Tasks sharing an id (a live 1.5B plan named all five of its tasks ``compute``) are
    numbered in plan order: ``<id>``, ``<id>_2``, ... A dependency on the shared id means
    the earlier tasks of that id whose outputs the task reads, else all earlier ones; one
    that no earlier task holds is dropped (the wiring adds what the inputs need). An id a
    completed task holds is left for the refusal: which task is meant is unclear."""
    shared = {i for i, n in Counter(t.id for t in tasks).items() if n > 1} - completed
    if not shared:
        return tasks
    taken = {t.id for t in tasks}
    before: dict[str, list[TaskSpec]] = {i: [] for i in shared}
    out = []
    for task in tasks:
        tid = task.id
        if tid in shared and before[tid]:
            n = len(before[tid]) + 1
            while f"{task.id}_{n}" in taken:
                n += 1
            tid = f"{task.id}_{n}"
            taken.add(tid)
            repaired[f"{task.id}.id.{n}"] = tid
        deps: list[str] = []
        for dep in task.depends_on:
            if dep not in shared:
                chosen = [dep]
            else:
                reads = [t.id for t in before[dep] if set(t.outputs) & set(task.inputs)]
                chosen = reads or [t.id for t in before[dep]]
                repaired[f"{tid}.depends_on.{dep}"] = ", ".join(chosen) or "(dropped)"
            deps += [d for d in chosen if d not in deps]
        renamed = task.model_copy(update={"id": tid, "depends_on": deps})
        if task.id in shared:
            before[task.id].append(renamed)
        out.append(renamed)
    return out


def given_outputs(
    fresh: list[TaskSpec], given: set[str], repaired: dict[str, str]
) -> list[TaskSpec]:
    """An output named like a goal's value (a live 1.5B reading task's ``limit``) becomes
    ``<task>_<output>``: the tasks reading the name still get the goal's own value."""
    for tid, name in sorted({(t.id, o) for t in fresh for o in t.outputs if o in given}):
        repaired[f"{tid}.outputs.{name}"] = f"{tid}_{name}"
    return [
        t.model_copy(update={"outputs": [f"{t.id}_{o}" if o in given else o for o in t.outputs]})
        for t in fresh
    ]


def restated_outputs(
    fresh: list[TaskSpec], position: dict[str, int], repaired: dict[str, str]
) -> list[TaskSpec]:
    """An output made by a task and made again by one downstream of it (a value computed,
    then stated as the answer): the first one's becomes ``<task>_<output>``, and the tasks
    that read it and are not downstream of the second read that name. Two producers where
    neither follows the other are left for the refusal: which one is meant is unclear."""
    by_id = {t.id: t for t in fresh}
    makers: dict[str, list[str]] = {}
    for task in fresh:
        for out in task.outputs:
            makers.setdefault(out, []).append(task.id)
    outs: dict[str, dict[str, str]] = {}  # task id -> {output: new name}
    ins: dict[str, dict[str, str]] = {}  # task id -> {input: new name}
    for out, tids in makers.items():
        if len(tids) != 2:
            continue
        first, second = sorted(tids, key=position.__getitem__)
        new = f"{first}_{out}"
        if not upstream(first, second, by_id, position) or new in makers:
            continue
        repaired[f"{first}.outputs.{out}"] = new
        outs.setdefault(first, {})[out] = new
        for task in fresh:
            if out not in task.inputs or task.id == first:
                continue
            if task.id == second or not upstream(second, task.id, by_id, position):
                ins.setdefault(task.id, {})[out] = new
    if not outs:
        return fresh
    return [
        task.model_copy(
            update={
                "outputs": [outs.get(task.id, {}).get(o, o) for o in task.outputs],
                "inputs": [ins.get(task.id, {}).get(i, i) for i in task.inputs],
            }
        )
        for task in fresh
    ]


def upstream(producer: str, tid: str, by_id: dict[str, TaskSpec], position: dict[str, int]) -> bool:
    """Whether ``producer`` is among the tasks ``tid`` depends on, directly or not.

    A search up the dependencies from ``tid`` that never climbs past ``producer``'s place
    in the topological order: no task placed before it can depend on it. Plans mostly take
    inputs from direct dependencies, which never get here; ancestor sets for every task
    cost quadratic time (2.2 s for 10,000 tasks in 20 layers).
    """
    floor = position[producer]
    seen = {tid}
    stack = [tid]
    while stack:
        for dep in by_id[stack.pop()].depends_on:
            if dep == producer:
                return True
            if dep in position and position[dep] > floor and dep not in seen:
                seen.add(dep)
                stack.append(dep)
    return False


def read_dependencies(fresh: list[TaskSpec], repaired: dict[str, str]) -> list[TaskSpec]:
    """A task that depends on another of the plan and reads none of its outputs is given
    them: it waits for that work, so it needs it (a live 1.5B plan's reading fed nothing,
    and the critic cancelled it as drift)."""
    made = {t.id: t.outputs for t in fresh}
    out = []
    for task in fresh:
        unread = [
            o
            for dep in task.depends_on
            if not set(made.get(dep, [])) & set(task.inputs)
            for o in made.get(dep, [])
            if o not in task.inputs and o not in task.outputs
        ]
        for name in unread:
            repaired[f"{task.id}.inputs.+{name}"] = "from a task it depends on"
        out.append(task.model_copy(update={"inputs": [*task.inputs, *unread]}) if unread else task)
    return out


def dead_ends_feed_answer(
    fresh: list[TaskSpec], position: dict[str, int], repaired: dict[str, str]
) -> list[TaskSpec]:
    """A task whose outputs no task reads and on which none depends is made a dependency of
    the one task giving ``answer`` (which then reads its outputs): work nothing takes is lost
    (a live 1.5B plan's reading fed nothing). Not where the task follows the answer's."""
    answering = [t for t in fresh if "answer" in t.outputs]
    if len(answering) != 1:
        return fresh
    final = answering[0]
    by_id = {t.id: t for t in fresh}
    read = {i for t in fresh for i in t.inputs}
    needed = {d for t in fresh for d in t.depends_on}
    ends = [
        t.id
        for t in fresh
        if t.id != final.id
        and t.id not in needed
        and not set(t.outputs) & read
        and not upstream(final.id, t.id, by_id, position)
    ]
    for tid in ends:
        repaired[f"{final.id}.depends_on.+{tid}"] = "its outputs fed no task"
    if not ends:
        return fresh
    wired = final.model_copy(update={"depends_on": [*final.depends_on, *ends]})
    return [wired if t.id == final.id else t for t in fresh]


def answer_reads_upstream(fresh: list[TaskSpec], repaired: dict[str, str]) -> list[TaskSpec]:
    """The task giving ``answer`` reads every output computed upstream of it: it states the
    values the goal asks for (a live 1.5B report read the estimate and the difference but
    not the count two tasks up, and counted again, wrongly: 78,497)."""
    by_id = {t.id: t for t in fresh}
    out = []
    for task in fresh:
        if "answer" not in task.outputs:
            out.append(task)
            continue
        seen: list[str] = []
        todo = list(task.depends_on)
        while todo:
            tid = todo.pop(0)
            if tid in by_id and tid not in seen:
                seen.append(tid)
                todo += by_id[tid].depends_on
        unread = [
            o
            for tid in seen
            for o in by_id[tid].outputs
            if o not in task.inputs and o not in task.outputs
        ]
        unread = list(dict.fromkeys(unread))
        for name in unread:
            repaired[f"{task.id}.inputs.+{name}"] = "computed upstream of the answer"
        out.append(task.model_copy(update={"inputs": [*task.inputs, *unread]}) if unread else task)
    return out
