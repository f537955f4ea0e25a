"""What an eval says as it goes, after each answer: per arm, how many of its answers so far
are right, and about how long the answers still wanted will take (an eval here runs for
hours: 120 TAT-QA questions with four baselines is some nine hours on two cores)."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

from society.eval.results import Record

__all__ = ["Tally", "duration"]


def duration(seconds: float) -> str:
    """A time left in words a person reads at a glance: "about 1 h 05 min", "about 12 min"."""
    minutes = int(seconds / 60 + 0.5)
    if minutes < 1:
        return "under a minute"
    if minutes < 60:
        return f"about {minutes} min"
    return f"about {minutes // 60} h {minutes % 60:02d} min"


@dataclass
class Tally:
    """The answers of an eval so far, per arm (those a resumed eval kept count too), and the
    time each answer took in this process, which the time left is estimated from (an arm
    not yet timed here is estimated from its kept answers' wall time, else from the others')."""

    wanted: Counter[str]
    """Per arm, the answers this process is still to give, at the start."""
    answered: Counter[str] = field(default_factory=Counter)
    right: Counter[str] = field(default_factory=Counter)
    timed: defaultdict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    kept: defaultdict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    order: list[str] = field(default_factory=list)

    @classmethod
    def of(cls, arms: Iterable[str], wanted: Iterable[str], kept: Iterable[Record]) -> Tally:
        """The tally before the first answer: ``wanted`` names each answer's arm."""
        tally = cls(Counter(wanted), order=list(dict.fromkeys(arms)))
        for record in kept:
            tally.answered[record.arm] += 1
            tally.right[record.arm] += record.passed
            tally.kept[record.arm].append(record.wall_s)
        return tally

    def add(self, record: Record, elapsed_s: float) -> None:
        """One answer given, graded, in ``elapsed_s`` seconds."""
        self.answered[record.arm] += 1
        self.right[record.arm] += record.passed
        self.timed[record.arm].append(elapsed_s)

    def left_s(self) -> float | None:
        """About how many seconds the answers still wanted take (None: nothing to go by)."""
        every = [t for times in self.timed.values() for t in times]
        total = 0.0
        for arm, count in self.wanted.items():
            still = count - len(self.timed[arm])
            if still <= 0:
                continue
            times = self.timed[arm] or self.kept[arm] or every
            if not times:
                return None
            total += still * sum(times) / len(times)
        return total

    def line(self) -> str:
        """Per arm right of answered, then the time left ("" before any answer)."""
        arms = [a for a in self.order if self.answered[a]]
        if not arms:
            return ""
        said = " · ".join(f"{a} {self.right[a]}/{self.answered[a]} right" for a in arms)
        left = self.left_s()
        if left is None or left <= 0:
            return said
        return f"{said} · {duration(left)} left"
