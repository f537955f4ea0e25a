"""Plan validation, duplicate merging and priorities (pure logic)."""

from __future__ import annotations

import pytest

from bus.payloads import TaskSpec
from roles.manager import graph
from roles.manager.graph import longest_paths, priority_key, validate_plan

ROLES = {"researcher", "coder"}


def t(id: str, role: str = "coder", desc: str | None = None, **kw: object) -> TaskSpec:
    return TaskSpec(id=id, role=role, description=desc or f"do {id} carefully", **kw)  # type: ignore[arg-type]


def test_valid_plan_passes() -> None:
    check = validate_plan(
        [t("a", outputs=["x"]), t("b", inputs=["x", "g"], depends_on=["a"], outputs=["answer"])],
        roles=ROLES,
        available={"g"},
    )
    assert check.ok, check.errors
    assert list(check.tasks) == ["a", "b"]


def test_a_plan_with_no_tasks_is_refused_never_done() -> None:
    check = validate_plan([], roles=ROLES, available={"g"})
    assert not check.ok
    assert check.errors == ["the plan has no tasks: give at least one task towards the goal"]
    # a revision whose tasks were all done before is still a plan (nothing left to do)
    kept = validate_plan([t("a")], roles=ROLES, available=set(), completed={"a": []})
    assert kept.ok and kept.kept == ["a"] and not kept.tasks


def test_cycle_is_named() -> None:
    check = validate_plan(
        [t("a", depends_on=["c"]), t("b", depends_on=["a"]), t("c", depends_on=["b"])],
        roles=ROLES,
        available=set(),
    )
    assert not check.ok
    assert check.errors[0].startswith("the tasks form a cycle")
    assert all(x in check.errors[0] for x in "abc")


def test_self_dependency_is_a_cycle() -> None:
    check = validate_plan([t("a", depends_on=["a"])], roles=ROLES, available=set())
    assert "cycle" in check.errors[0]


def test_unknown_role() -> None:
    check = validate_plan([t("a", role="astrologer")], roles=ROLES, available=set())
    assert check.errors == [
        "task 'a' names unknown role 'astrologer': use one of coder, researcher"
    ]


def test_a_role_named_like_exactly_one_known_role_is_repaired() -> None:
    check = validate_plan(
        [
            t("a", role="coded", outputs=["x"]),
            t("b", role="Researched", inputs=["x"], depends_on=["a"]),
        ],
        roles=ROLES,
        available=set(),
    )
    assert check.ok, check.errors
    assert check.repaired == {"a.role": "coder", "b.role": "researcher"}
    assert [task.role for task in check.tasks.values()] == ["coder", "researcher"]


def test_inputs_named_like_exactly_one_value_are_wired_to_it() -> None:
    check = validate_plan(
        [
            t("a", inputs=["Start-Date"], outputs=["num_days"]),
            t("b", inputs=["numDays", "end_date"], outputs=["answer"]),
        ],
        roles=ROLES,
        available={"start_date", "end_date"},
    )
    assert check.ok, check.errors
    assert check.repaired == {
        "a.inputs.Start-Date": "start_date",
        "b.inputs.numDays": "num_days",
        "b.depends_on.+a": "for input 'num_days'",
    }
    assert check.tasks["b"].inputs == ["num_days", "end_date"]
    assert check.tasks["b"].depends_on == ["a"]


def test_an_ambiguous_name_is_refused_with_what_to_change() -> None:
    check = validate_plan(
        [t("a", inputs=["date"])], roles=ROLES, available={"start_date", "end_date"}
    )
    assert check.errors == [
        "input 'date' of task 'a' is provided by no upstream task and not by the goal: use "
        "one of end_date, start_date, or add the task that makes it"
    ]


def test_an_input_nothing_provides_nor_is_named_like_is_dropped() -> None:
    # the task gets the goal's values and its description anyway ("the 40th number")
    check = validate_plan([t("a", inputs=["nowhere", "g"])], roles=ROLES, available={"g"})
    assert check.ok, check.errors
    assert check.tasks["a"].inputs == ["g"]
    assert check.repaired == {"a.inputs.nowhere": "(dropped: nothing provides it)"}


def test_input_from_a_task_that_is_not_upstream_gets_the_dependency() -> None:
    for tasks in ([t("a", outputs=["x"]), t("b", inputs=["x"])],
                  [t("b", inputs=["x"]), t("a", outputs=["x"])]):  # fmt: skip
        check = validate_plan(tasks, roles=ROLES, available=set())
        assert check.ok, check.errors
        assert check.repaired == {"b.depends_on.+a": "for input 'x'"}
        assert check.tasks["b"].depends_on == ["a"]


def test_a_dependency_that_would_close_a_cycle_is_refused() -> None:
    check = validate_plan(
        [
            t("a", inputs=["y"], outputs=["x"]),
            t("b", inputs=["x"], depends_on=["a"], outputs=["y"]),
        ],
        roles=ROLES,
        available=set(),
    )
    assert check.errors == [
        "input 'y' of task 'a' comes from task 'b', but 'a' does not depend on 'b'"
    ]


def test_transitive_upstream_input_is_fine() -> None:
    check = validate_plan(
        [t("a", outputs=["x"]), t("b", depends_on=["a"]), t("c", inputs=["x"], depends_on=["b"])],
        roles=ROLES,
        available=set(),
    )
    assert check.ok, check.errors


def test_upstream_inputs_through_long_chains_and_side_branches() -> None:
    # two chains from one root; the tips read the root's output (upstream through 40 tasks)
    # and the other chain's first output (not upstream: a side branch, placed earlier)
    tasks = [t("root", outputs=["r"])]
    for side in "lr":
        prev = "root"
        for n in range(40):
            tasks.append(t(f"{side}{n}", depends_on=[prev], outputs=[f"{side}{n}"]))
            prev = f"{side}{n}"
    tasks.append(t("tip", inputs=["r", "l0", "r39"], depends_on=["r39"], outputs=["answer"]))
    check = validate_plan(tasks, roles=ROLES, available=set())
    assert check.ok, check.errors
    added = {k: v for k, v in check.repaired.items() if ".depends_on." in k}
    assert added == {  # r is upstream already; the side chain's end fed nothing
        "tip.depends_on.+l0": "for input 'l0'",
        "tip.depends_on.+l39": "its outputs fed no task",
    }


def test_unknown_dependency_duplicate_id_and_bad_id() -> None:
    dropped = validate_plan(
        [t("a", depends_on=["z"]), t("b", depends_on=["A"])], roles=ROLES, available=set()
    )
    assert dropped.ok, dropped.errors
    assert dropped.repaired == {"a.depends_on.z": "(dropped: no such task)", "b.depends_on.A": "a"}
    twice = validate_plan(
        [t("a"), t("a"), t("b", depends_on=["a"])],
        roles=ROLES,
        available=set(),
        completed={"a": []},
    )
    assert twice.errors == [
        "task id 'a' is used twice, once by a task already done: give each task an id of its own"
    ]
    renamed = validate_plan(
        [t("a", desc="x"), t("a", desc="y"), t("a", desc="z")], roles=ROLES, available=set()
    )
    assert renamed.ok, renamed.errors
    assert list(renamed.tasks) == ["a", "a_2", "a_3"]
    assert renamed.repaired == {"a.id.2": "a_2", "a.id.3": "a_3"}
    assert "must be 1-64" in validate_plan([t("a b")], roles=ROLES, available=set()).errors[0]


def test_tasks_sharing_an_id_are_numbered_and_their_dependencies_read_by_inputs() -> None:
    """A live 1.5B plan named its five tasks ``compute``, each depending on ``compute``:
    numbered, each depends on the earlier ones whose outputs it reads."""
    plan = [
        t("compute", role="researcher", outputs=["statement"]),
        t(
            "compute",
            desc="count",
            inputs=["limit", "statement"],
            outputs=["prime_count"],
            depends_on=["compute"],
        ),
        t(
            "compute",
            desc="estimate",
            inputs=["limit", "statement"],
            outputs=["estimate"],
            depends_on=["compute", "compute"],
        ),
        t("compute", desc="divide", inputs=["prime_count", "estimate"], outputs=["ratio"]),
        t(
            "compute",
            desc="report",
            inputs=["prime_count", "estimate", "ratio"],
            outputs=["answer"],
            depends_on=["compute"],
        ),
    ]
    check = validate_plan(plan, roles=ROLES, available={"limit"}, given={"limit"})
    assert check.ok, check.errors
    deps = {tid: set(task.depends_on) for tid, task in check.tasks.items()}
    assert deps == {
        "compute": set(),
        "compute_2": {"compute"},
        "compute_3": {"compute"},
        "compute_4": {"compute_2", "compute_3"},
        "compute_5": {"compute_2", "compute_3", "compute_4"},
    }
    assert check.repaired["compute.id.5"] == "compute_5"
    # reading none of the earlier ones' outputs, it waits for all of them
    waits = validate_plan(
        [
            t("a", outputs=["x"]),
            t("a", desc="y", outputs=["y"]),
            t("b", depends_on=["a"], outputs=["z"]),
        ],
        roles=ROLES,
        available=set(),
    )
    assert waits.ok, waits.errors
    assert set(waits.tasks["b"].depends_on) == {"a", "a_2"}


def test_output_made_twice_is_refused() -> None:
    check = validate_plan(
        [t("a", desc="count primes", outputs=["x"]), t("b", desc="write a poem", outputs=["x"])],
        roles=ROLES,
        available=set(),
    )
    assert check.errors == ["output 'x' is produced by both 'a' and 'b'"]


def test_near_duplicates_are_merged_and_dependants_rewired() -> None:
    check = validate_plan(
        [
            t("a", desc="Count the prime numbers below the limit", inputs=["limit"], outputs=["n"]),
            t(
                "a2",
                desc="Count the prime numbers below the limit.",
                inputs=["limit"],
                outputs=["count"],
            ),
            t(
                "b",
                role="researcher",
                desc="explain the result",
                inputs=["count"],
                depends_on=["a2"],
            ),
        ],
        roles=ROLES,
        available={"limit"},
    )
    assert check.ok, check.errors
    assert check.merged == {"a2": "a"}
    assert list(check.tasks) == ["a", "b"]
    assert check.tasks["b"].depends_on == ["a"]
    assert check.tasks["b"].inputs == ["n"]
    assert check.aliases == {"count": "n"}


def test_different_roles_or_inputs_are_not_duplicates() -> None:
    same_desc = "Summarise the findings about primes"
    check = validate_plan(
        [
            t("a", desc=same_desc),
            t("b", role="researcher", desc=same_desc),
            t("c", desc=same_desc, inputs=["g"]),
        ],
        roles=ROLES,
        available={"g"},
    )
    assert check.merged == {}


def test_completed_tasks_are_kept_and_their_outputs_available() -> None:
    check = validate_plan(
        [t("a", outputs=["x"]), t("b", inputs=["x"], depends_on=["a"])],
        roles=ROLES,
        available={"x"},
        completed={"a": ["x"]},
    )
    assert check.ok, check.errors
    assert check.kept == ["a"]
    assert list(check.tasks) == ["b"]


def test_a_replanned_task_named_like_a_done_one_with_new_outputs_is_new_work() -> None:
    """A live 1.5B replan named its count ``compute``, the id of plan 1's finished reading:
    the count was taken as done and never run. It is numbered, and who reads it waits for it."""
    done = {"compute": ["statement", "definition"], "compute_3": ["estimate"]}
    plan = [
        t("compute", inputs=["limit"], outputs=["prime_count"]),
        t("ratio", inputs=["prime_count", "estimate"], outputs=["answer"], depends_on=["compute"]),
        t(
            "cite",
            role="researcher",
            inputs=["statement"],
            outputs=["quote"],
            depends_on=["compute"],
        ),
        t("both", inputs=["statement", "prime_count"], outputs=["b"], depends_on=["compute"]),
        t("compute_3", inputs=["limit"], outputs=["estimate"]),
    ]
    available = {"limit", "statement", "definition", "estimate"}
    check = validate_plan(plan, roles=ROLES, available=available, completed=done)
    assert check.ok, check.errors
    assert check.kept == ["compute_3"]  # the same outputs again: done work, kept
    assert check.tasks["compute_2"].outputs == ["prime_count"]
    assert check.repaired["compute.id"] == "compute_2 (new work: compute is done)"
    assert check.tasks["ratio"].depends_on[0] == "compute_2"
    assert check.tasks["cite"].depends_on == ["compute"]
    assert check.tasks["both"].depends_on == ["compute_2", "compute"]
    assert check.tasks["ratio"].depends_on == ["compute_2", "cite", "both"]  # fed nothing


def test_priority_value_per_effort_then_longest_path() -> None:
    tasks = {
        "cheap": t("cheap", effort=1, value=5),
        "long": t("long", effort=1, value=1),
        "tail": t("tail", effort=5, value=1, depends_on=["long"]),
        "short": t("short", effort=1, value=1),
    }
    longest = longest_paths(tasks)
    assert longest == {"cheap": 1, "long": 6, "tail": 5, "short": 1}
    order = sorted(["short", "long", "cheap"], key=lambda i: priority_key(tasks[i], longest[i]))
    assert order == ["cheap", "long", "short"]


def test_numbers_and_distinct_words_keep_tasks_apart() -> None:
    from roles.manager.graph import near_duplicates

    a = t("a", desc="Count the primes below 100 with a sieve")
    b = t("b", desc="Count the primes below 1000 with a sieve")
    c = t("c", desc="Count the primes below 100 with a sieve.")
    assert not near_duplicates(a, b, 90)
    assert near_duplicates(a, c, 90)
    assert not near_duplicates(t("x", desc="do a carefully"), t("y", desc="do b carefully"), 90)


def test_numbered_tasks_are_never_compared_in_full(monkeypatch: pytest.MonkeyPatch) -> None:
    # Tasks that differ in a number are never duplicates: a plan of 2,000 numbered tasks of
    # one role and the same inputs must not compare them pairwise (that was quadratic).
    compared: list[tuple[str, str]] = []
    real = graph.near_duplicates

    def counted(a: TaskSpec, b: TaskSpec, threshold: float) -> bool:
        compared.append((a.id, b.id))
        return real(a, b, threshold)

    monkeypatch.setattr(graph, "near_duplicates", counted)
    tasks = [
        t(f"q{i}", "researcher", f"Answer question {i}.", outputs=[f"o{i}"]) for i in range(2000)
    ]
    tasks.append(t("again", "researcher", "answer question 7.", outputs=["o_again"]))
    check = validate_plan(tasks, roles=ROLES, available=set())
    assert check.ok, check.errors
    assert check.merged == {"again": "q7"}  # a real duplicate is still found
    assert compared == [("q7", "again")]


def test_an_output_stated_again_downstream_is_renamed_where_it_is_made_first() -> None:
    check = validate_plan(
        [
            t("compute", desc="count the days", outputs=["answer"]),
            t(
                "log",
                desc="log the count",
                inputs=["answer"],
                depends_on=["compute"],
                outputs=["log"],
            ),
            t(
                "state",
                desc="state it",
                inputs=["answer"],
                depends_on=["compute"],
                outputs=["answer"],
            ),
            t(
                "show",
                desc="show the answer",
                inputs=["answer"],
                depends_on=["state"],
                outputs=["shown"],
            ),
        ],
        roles=ROLES,
        available=set(),
    )
    assert check.errors == []
    assert check.repaired == {
        "compute.outputs.answer": "compute_answer",
        "state.depends_on.+log": "its outputs fed no task",  # the log fed nothing
        "state.inputs.+log": "computed upstream of the answer",
    }
    tasks = check.tasks
    assert tasks["compute"].outputs == ["compute_answer"]
    assert tasks["log"].inputs == ["compute_answer"]  # not downstream of the restatement
    assert tasks["state"].inputs == ["compute_answer", "log"] and tasks["state"].outputs == [
        "answer"
    ]
    assert tasks["show"].inputs == ["answer"]  # reads the restated answer


def test_a_task_that_reads_its_own_output_has_that_input_dropped() -> None:
    # gcd-and-lcm (1.5B): "task 'compute_gcd' needs its own output 'gcd'", three plans refused
    check = validate_plan(
        [
            t("compute_gcd", inputs=["a", "gcd"], outputs=["gcd"]),
            t("answer", inputs=["gcd"], outputs=["answer"], depends_on=["compute_gcd"]),
        ],
        roles=ROLES,
        available={"a"},
    )
    assert check.ok, check.errors
    assert check.tasks["compute_gcd"].inputs == ["a"]
    assert check.repaired == {"compute_gcd.inputs.gcd": "(dropped: the task's own output)"}


def test_an_output_named_like_a_goal_value_is_renamed_and_the_goal_value_kept() -> None:
    plan = [
        t("read", role="researcher", outputs=["limit"]),
        t("count", inputs=["limit"], depends_on=["read"], outputs=["answer"]),
    ]
    check = validate_plan(plan, roles=ROLES, available={"limit"}, given={"limit"})
    assert check.ok, check.errors
    assert check.tasks["read"].outputs == ["read_limit"]
    assert check.tasks["count"].inputs == ["limit", "read_limit"]  # the goal's, and the reading's
    assert check.repaired["read.outputs.limit"] == "read_limit"
    # a completed task's output of that name (no goal value) is not renamed
    kept = validate_plan(plan, roles=ROLES, available={"limit"})
    assert kept.tasks["read"].outputs == ["limit"]


def test_a_task_that_waits_for_another_and_reads_none_of_its_outputs_is_given_them() -> None:
    plan = [
        t("read", role="researcher", outputs=["statement"]),
        t("count", inputs=["limit"], depends_on=["read"], outputs=["answer"]),
        t("other", inputs=["statement"], depends_on=["read"], outputs=["note"]),
    ]
    check = validate_plan(plan, roles=ROLES, available={"limit"}, given={"limit"})
    assert check.ok, check.errors
    assert check.tasks["count"].inputs[:2] == ["limit", "statement"]
    assert check.repaired["count.inputs.+statement"] == "from a task it depends on"
    assert check.tasks["other"].inputs == ["statement"]  # it reads it already


def test_the_answer_reads_every_output_computed_upstream_of_it() -> None:
    """A live 1.5B report read the estimate and the difference but not the count two tasks
    up, and counted again, wrongly."""
    plan = [
        t("count", inputs=["limit"], outputs=["count"]),
        t("estimate", inputs=["limit"], outputs=["estimate"]),
        t(
            "diff",
            inputs=["estimate", "count"],
            outputs=["difference"],
            depends_on=["count", "estimate"],
        ),
        t("report", inputs=["estimate", "difference"], outputs=["answer"], depends_on=["diff"]),
    ]
    check = validate_plan(plan, roles=ROLES, available={"limit"}, given={"limit"})
    assert check.ok, check.errors
    assert check.tasks["report"].inputs == ["estimate", "difference", "count"]
    assert check.repaired["report.inputs.+count"] == "computed upstream of the answer"
    assert check.tasks["diff"].inputs == ["estimate", "count"]  # not the answer: as planned


def test_work_no_task_takes_feeds_the_answer() -> None:
    """A live 1.5B plan's reading fed no task: its statement was lost to the answer."""
    plan = [
        t("read", role="researcher", outputs=["statement"]),
        t("count", inputs=["limit"], outputs=["count"]),
        t("report", inputs=["count"], outputs=["answer"], depends_on=["count"]),
        t("after", inputs=["answer"], outputs=["note"], depends_on=["report"]),
    ]
    check = validate_plan(plan, roles=ROLES, available={"limit"}, given={"limit"})
    assert check.ok, check.errors
    assert check.tasks["report"].depends_on == ["count", "read"]
    assert check.tasks["report"].inputs == ["count", "statement"]
    assert check.repaired["report.depends_on.+read"] == "its outputs fed no task"
    # a task after the answer's is not made its dependency (that would be a cycle)
    assert check.tasks["after"].depends_on == ["report"]
    assert "report.depends_on.+after" not in check.repaired
    # read by some task: left as planned
    used = [*plan[:2], t("report", inputs=["count", "statement"], outputs=["answer"])]
    kept = validate_plan(used, roles=ROLES, available={"limit"}, given={"limit"})
    assert kept.ok, kept.errors
    assert kept.tasks["report"].depends_on == ["count", "read"]  # wired by its inputs
    assert "its outputs fed no task" not in kept.repaired.values()
