"""The vote over a task's outputs, on fake programs (no Docker, no NATS, no model): a second
program that agrees confirms the first; one that repeats the first's code confirms nothing
and a third, written another way, is asked for; on a disagreement the third decides."""

from __future__ import annotations

from pydantic import JsonValue

from roles.coder.votes import ANOTHER_WAY, CHECK_NOTE, Solved, voted
from roles.errors import TaskFailed


def solved(value: JsonValue, code: str, exec_id: str) -> Solved:
    return Solved({"count": value}, {}, exec_id, 1, code)


FIRST = solved(25, "print(sum(1 for n in range(2, 100) if all(n % d for d in range(2, n))))", "e1")


class Programs:
    """The programs ``solve`` hands out in turn, and the notes it was told."""

    def __init__(self, *given: Solved) -> None:
        self.given = list(given)
        self.notes: list[str] = []

    async def __call__(self, note: str) -> Solved:
        self.notes.append(note)
        return self.given.pop(0)


async def test_a_second_program_that_agrees_confirms_the_first() -> None:
    other = solved(
        25,
        "c = 0\nfor n in range(2, 100):\n    c += all(n % d for d in range(2, n))\nprint(c)",
        "e2",
    )
    programs = Programs(other)
    vote = await voted(FIRST, programs, frozenset())
    assert vote.kept is FIRST and vote.checks and vote.evidence == ["e1", "e2"]
    assert programs.notes == [CHECK_NOTE]


async def test_the_same_code_again_confirms_nothing_and_another_way_is_asked() -> None:
    again = solved(25, "# again\n" + FIRST.code, "e2")
    third = solved(24, "print(24)", "e3")
    programs = Programs(again, third)
    vote = await voted(FIRST, programs, frozenset())
    assert not vote.checks  # no independent computation agreed
    assert ANOTHER_WAY in programs.notes[1]


async def test_on_a_disagreement_the_third_program_decides() -> None:
    second = solved(
        24, "print(len([n for n in range(3, 100) if all(n % d for d in range(2, n))]))", "e2"
    )
    third = solved(24, "import sympy\nprint(len(list(sympy.primerange(3, 100))))", "e3")
    programs = Programs(second, third)
    vote = await voted(FIRST, programs, frozenset())
    assert vote.kept.outputs == {"count": 24} and vote.checks
    assert "disagree" in programs.notes[1]
    # the verdict names what the outvoted program gave, not the kept values again
    assert vote.checks[0].endswith("(the other gave count 25)"), vote.checks


async def test_what_an_outvoted_program_gave_is_one_short_line() -> None:
    said = "There are 25 primes below 100,\nthe estimate is " + "very " * 40 + "low"
    first = Solved({"answer": said}, {}, "e1", 1, "print(25)")
    second = Solved({"answer": "24 primes"}, {}, "e2", 1, "print(24)")
    third = Solved({"answer": "there are 24"}, {}, "e3", 1, "print(len([2, 3]) + 22)")
    vote = await voted(first, Programs(second, third), frozenset())
    assert vote.kept is second and vote.checks
    gave = vote.checks[0].split("(the other gave ", 1)[1]
    assert gave.startswith("answer There are 25 primes below 100, the estimate is very")
    assert "\n" not in gave and len(gave) <= len("answer ") + 100 + 1 and gave.endswith("…)")
    assert "24 primes" not in gave  # the kept value is not repeated in it


ESTIMATE = solved(1085.0, "import math\nprint(10000 // math.log(10000))", "e1")
EXACT = solved(1085.74, "import math\nx = 10000\nprint(x / math.log(x))", "e2")


async def test_a_third_that_repeats_one_side_of_a_disagreement_asks_a_fourth_another_way() -> None:
    # live 1.5B quickstart (qs3): 1085.0, then 1085.74 twice by one program; the first was kept
    echo = solved(1085.74, "# check\n" + EXACT.code, "e3")
    fourth = solved(1085.74, "import numpy as np\nprint(10000 / np.log(10000))", "e4")
    programs = Programs(EXACT, echo, fourth)
    vote = await voted(ESTIMATE, programs, frozenset())
    assert vote.kept is EXACT and vote.evidence == ["e2", "e4"]
    assert "two of four programs" in vote.checks[0] and "1085.0" in vote.checks[0]
    assert "disagree" in programs.notes[2] and ANOTHER_WAY in programs.notes[2]


async def test_a_fourth_that_agrees_with_no_one_leaves_the_first_unconfirmed() -> None:
    echo = solved(1085.74, "# check\n" + EXACT.code, "e3")
    fourth = solved(1229, "print(1229)", "e4")
    programs = Programs(EXACT, echo, fourth)
    vote = await voted(ESTIMATE, programs, frozenset())
    assert vote.kept is ESTIMATE and not vote.checks and "disagree" in vote.note
    assert len(programs.notes) == 3


async def test_a_third_that_decides_nothing_without_echoing_asks_no_fourth() -> None:
    third = solved(1229, "print(1229)", "e3")
    programs = Programs(EXACT, third)
    vote = await voted(ESTIMATE, programs, frozenset())
    assert not vote.checks and len(programs.notes) == 2


async def test_programs_left_tied_are_named_with_the_one_kept() -> None:
    # live 1.5B quickstart (a494e22): the goal check kept 1085.0; its second program's 1085.74
    # was what the plan's right answer gave, and was lost with nothing to weigh it
    third = solved(1229, "print(1229)", "e3")
    vote = await voted(ESTIMATE, Programs(EXACT, third), frozenset())
    assert vote.kept is ESTIMATE and [t.exec_id for t in vote.tied] == ["e2", "e3"]
    echo = solved(1085.74, "# check\n" + EXACT.code, "e3")
    fourth = solved(1229, "print(1229)", "e4")
    vote = await voted(ESTIMATE, Programs(EXACT, echo, fourth), frozenset())
    assert [t.exec_id for t in vote.tied] == ["e2", "e4"]  # an echo is no program of its own


async def test_a_decided_vote_leaves_nothing_tied() -> None:
    second = solved(
        24, "print(len([n for n in range(3, 100) if all(n % d for d in range(2, n))]))", "e2"
    )
    third = solved(24, "import sympy\nprint(len(list(sympy.primerange(3, 100))))", "e3")
    vote = await voted(FIRST, Programs(second, third), frozenset())
    assert vote.checks and vote.tied == []


class Failing(Programs):
    """Programs whose first ``failures`` draws fail every fix."""

    def __init__(self, failures: int, *given: Solved) -> None:
        super().__init__(*given)
        self.failures = failures

    async def __call__(self, note: str) -> Solved:
        if self.failures:
            self.notes.append(note)
            self.failures -= 1
            raise TaskFailed("code still failing after 3 attempts: IndexError: list index")
        return await super().__call__(note)


async def test_a_check_program_that_failed_is_drawn_again_another_way() -> None:
    """A live 1.5B quickstart's check program failed three fixes; its answer went unchecked."""
    other = solved(25, "import sympy\nprint(len(list(sympy.primerange(2, 100))))", "e2")
    programs = Failing(1, other)
    vote = await voted(FIRST, programs, frozenset())
    assert vote.checks and vote.evidence == ["e1", "e2"]
    assert programs.notes[0] == CHECK_NOTE
    assert programs.notes[1].startswith(CHECK_NOTE) and "IndexError" in programs.notes[1]
    assert "another way" in programs.notes[1]


async def test_a_check_drawn_again_that_fails_too_leaves_the_first_unconfirmed() -> None:
    programs = Failing(2)
    vote = await voted(FIRST, programs, frozenset())
    assert vote.kept is FIRST and not vote.checks and vote.note == "its check programs failed"
    assert "IndexError" in vote.failure and len(programs.notes) == 2
