"""Candidates grouped by the values they give (`roles.coder.select` keeps one group): two
candidates are one group when their values agree (`roles.verifier.agreement`), a prose
answer or a quotation on the answer alone; the report's sentence holds many values, so
another view joins it only when its answer is a clause that stands in it
(`roles.reports.sentences.supports`). The sentence is a view that counts only when the goal
asks for a clause of the report's text (`roles.reports.questions.asks_for_text`); for any
other goal it settles the answer's words and is no evidence that the answer is right: on
TAT-QA (1.5B) a worked answer that echoed the sentence most like "What are the capital
expenditures … in 2018 and 2019?" agreed with BM25's pick, and both were wrong. A member in
doubt (`Solved.doubt`: the table's figures for a goal that says words no table says) is an
answer and counts as no evidence."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from bus.verdicts import Drawn
from roles.coder.program_checks import same_program
from roles.coder.votes import Solved
from roles.reports.sentences import supports
from roles.verifier.agreement import disagreements

__all__ = ["Check", "Group", "answer_of", "answers_only", "groups_of", "others_of"]

Check = Literal["passed", "failed", "none"]
"""What the verifier's check said of a group (``none``: no usable check)."""


@dataclass
class Group:
    """Candidates that gave the same values (the first is the one kept)."""

    members: list[Solved]
    text: bool = False
    """Whether the goal asks for a clause of the report's text (the sentence counts)."""

    @property
    def kept(self) -> Solved:
        """The first quotation among the members (the report's own words), else the first
        program (its outputs and files are whole), else the first member."""
        for view in ("quotation", "program"):
            found = next((m for m in self.members if m.view == view), None)
            if found is not None:
                return found
        return self.members[0]

    @property
    def views(self) -> list[str]:
        """The view of each member, in the order drawn."""
        return [m.view for m in self.members]

    def _view(self, m: Solved) -> str:
        """``m``'s view as evidence: a plain program that is the same computation as a
        program of the team's drawn before it is that program again, not a view of its own."""
        if m.view != "plain":
            return m.view
        before = self.members[: self.members.index(m)]
        if any(d.view == "program" and same_program(m.code, d.code) for d in before):
            return "program"
        return m.view

    @property
    def counted(self) -> list[str]:
        """The views that count as evidence, in the order drawn: all but the sentence's,
        unless the goal asks for text, and any member's in doubt (`Solved.doubt`)."""
        return [self._view(m) for m in self._counting()]

    @property
    def kinds(self) -> int:
        """How many different views that count agree."""
        return len(set(self.counted))

    @property
    def representations(self) -> int:
        """How many different representations that count agree: a program asked as a person
        asks it is a program still (a trivial value needs a program and a worked answer)."""
        return len({"program" if v == "plain" else v for v in self.counted})

    @property
    def answering(self) -> int:
        """How many different views give these values, a member in doubt among them: it is
        no evidence, but it is an answer (`roles.coder.select` ranks by it)."""
        return len({m.view for m in self.members if self.text or m.view != "sentence"})

    @property
    def doubts(self) -> list[str]:
        """Why members are in doubt."""
        return [m.doubt for m in self.members if m.doubt]

    def _counting(self) -> list[Solved]:
        return [m for m in self.members if (self.text or m.view != "sentence") and not m.doubt]

    @property
    def agreeing(self) -> int:
        """How many members that count are computations of their own (not one program
        twice)."""
        distinct: list[Solved] = []
        for m in self._counting():
            if not any(
                self._view(m) == self._view(d) and same_program(m.code, d.code) for d in distinct
            ):
                distinct.append(m)
        return len(distinct)


def answer_of(s: Solved, output: str) -> str:
    """A candidate's ``output`` as text."""
    value = s.outputs.get(output, "")
    return value if isinstance(value, str) else str(value)


def others_of(groups: list[Group], kept: Group, output: str, checks: list[Check]) -> list[Drawn]:
    """Every group but ``kept``, whole, with its views and the check's word on it (``checks``,
    by group): the alternatives a person is shown and an eval grades."""
    return [
        Drawn(value=answer_of(g.kept, output)[:1000], views=g.counted, check=checks[i])
        for i, g in enumerate(groups)
        if g is not kept
    ]


def groups_of(
    cands: Sequence[Solved], quoted: frozenset[float], output: str = "", text: bool = False
) -> list[Group]:
    """Candidates grouped by values (in the order their first member was drawn); a prose
    answer is compared on ``output`` alone (it gives no other). ``text``: the goal asks for
    a clause of the report's text."""
    groups: list[Group] = []
    for c in cands:
        home = next((g for g in groups if _same(g.kept, c, quoted, output)), None)
        if home is None:
            groups.append(Group([c], text))
        else:
            home.members.append(c)
    return groups


def answers_only(groups: list[Group]) -> list[Group]:
    """The groups that are answers: a sentence no other view stands in is evidence of
    nothing (it is kept only when nothing else was drawn), unless the goal asks for text."""
    return [g for g in groups if g.text or set(g.views) != {"sentence"}] or groups


def _same(a: Solved, b: Solved, quoted: frozenset[float], output: str) -> bool:
    if "sentence" in {a.view, b.view}:  # a sentence holds many values: the other must stand in it
        sentence, other = (a, b) if a.view == "sentence" else (b, a)
        if other.view == "sentence":
            return answer_of(a, output) == answer_of(b, output)
        return supports(answer_of(sentence, output), answer_of(other, output))
    x, y = a.outputs, b.outputs
    if output and ({"prose", "quotation", "table"} & {a.view, b.view}):
        x, y = {output: x.get(output)}, {output: y.get(output)}
    return not disagreements(x, y, quoted)
