"""How well an arm knows when it is right: precision at a coverage (answer only the cases it
is most confident of) and the AUROC of its confidence against the graders' verdict.

Ties in confidence are not broken by order: a coverage that cuts through a tie takes the
tie's mean precision for its share of it (the expected precision of a random order), and
the AUROC counts a tie between a right and a wrong answer as half. An answer with no
confidence of its own is ranked by how it ended (`confidence_of`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from society.eval.results import Record

__all__ = [
    "COVERAGES",
    "RiskCoverage",
    "auroc",
    "confidence_of",
    "precision_at",
    "risk_coverage",
    "threshold_for",
]

COVERAGES = (0.25, 0.5, 0.75, 1.0)
"""The coverages `society eval` reports precision at."""

_BY_STATUS = {"succeeded": 1.0, "unverified": 0.5}


def confidence_of(record: Record) -> float:
    """The record's confidence, or for one without (older results, an arm that states
    none): 1 for ``succeeded``, 0.5 for ``unverified``, 0 for any other ending."""
    if record.confidence is not None:
        return record.confidence
    return _BY_STATUS.get(record.status, 0.0)


def precision_at(scored: Sequence[tuple[float, bool]], coverage: float) -> float | None:
    """The share right among the ``coverage`` fraction of answers with the highest confidence
    (``scored``: confidence and whether right; None when there is nothing to cover)."""
    n = len(scored)
    take = coverage * n
    if n == 0 or take <= 0:
        return None
    levels: dict[float, list[bool]] = {}
    for score, right in scored:
        levels.setdefault(score, []).append(right)
    got = right_sum = 0.0
    for score in sorted(levels, reverse=True):
        members = levels[score]
        part = min(float(len(members)), take - got)
        right_sum += part * sum(members) / len(members)
        got += part
        if got >= take - 1e-9:
            break
    return right_sum / got


def auroc(scored: Sequence[tuple[float, bool]]) -> float | None:
    """The chance that a right answer has a higher confidence than a wrong one (ties: half);
    None unless there are both."""
    right = [s for s, ok in scored if ok]
    wrong = [s for s, ok in scored if not ok]
    if not right or not wrong:
        return None
    wins = sum(1.0 if r > w else 0.5 if r == w else 0.0 for r in right for w in wrong)
    return wins / (len(right) * len(wrong))


@dataclass(frozen=True)
class RiskCoverage:
    """One arm: its precision at each of `COVERAGES`, and its AUROC."""

    arm: str
    answers: int
    precision: tuple[float | None, ...]
    auroc: float | None

    def at(self, coverage: float) -> float | None:
        """The precision at one of `COVERAGES`."""
        return self.precision[COVERAGES.index(coverage)]


def risk_coverage(records: Sequence[Record], arm: str) -> RiskCoverage:
    """``arm``'s risk–coverage figures over ``records``."""
    scored = [(confidence_of(r), r.passed) for r in records if r.arm == arm]
    return RiskCoverage(
        arm,
        len(scored),
        tuple(precision_at(scored, c) for c in COVERAGES),
        auroc(scored),
    )


def threshold_for(records: Sequence[Record], arm: str, precision: float) -> float | None:
    """The lowest confidence at which ``arm``'s answers at or above it are right at least
    ``precision`` of the time (None when no level reaches it): set on ``train``, used on
    ``val``."""
    scored = sorted(((confidence_of(r), r.passed) for r in records if r.arm == arm), reverse=True)
    best: float | None = None
    right = seen = 0
    for i, (score, ok) in enumerate(scored):
        right, seen = right + ok, seen + 1
        last_of_level = i + 1 == len(scored) or scored[i + 1][0] != score
        if last_of_level and right / seen >= precision - 1e-12:
            best = score
    return best
