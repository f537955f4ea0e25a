"""The verdicts a kept group of candidates carries: whether views drawn apart, or
candidates of one view, agreed on its values; whether it is a value only two views may pass
(`roles.verifier.confidence.needs_views`); whether it passed the verifier's check, written
from the goal before any answer; and why a selection too unsure to pass fails. Each is one
typed `bus.verdicts.CheckVerdict`, with the note a run shows when the answer is not verified."""

from __future__ import annotations

from bus.verdicts import CheckVerdict, Confidence
from roles.coder.groups import Group, answer_of
from roles.verifier.checks import Judged
from roles.verifier.confidence import needs_views

__all__ = ["too_unsure", "verdicts_of"]


def too_unsure(best: Group, confidence: Confidence, least: float) -> CheckVerdict:
    """The failed verdict of a kept group whose views' agreement is below ``least``."""
    others = "; ".join(confidence.alternatives) or "none"
    return CheckVerdict(
        kind="agreement",
        what=(
            f"its views' agreement ({confidence.score:.2f}: {', '.join(confidence.views)}) is "
            f"below the {least:.2f} a pass needs; other answers: {others}"
        ),
        candidate=best.kept.exec_id,
        passed=False,
        independent=False,
        evidence=[m.exec_id for m in best.members if m.exec_id],
    )


_NAMES = {
    "program": "a program",
    "plain": "a program asked as a person asks it",
    "prose": "a worked answer in prose",
    "quotation": "the researcher's quotation",
    "sentence": "the report's sentence the goal matches best",
    "table": "the table's figures or arithmetic the goal's words ask, read or worked by code",
}
_PLURALS = {
    "program": "programs",
    "plain": "programs asked as a person asks",
    "prose": "worked answers in prose",
    "quotation": "quotations",
    "sentence": "sentences",
    "table": "tables' figures",
}


def _alone(best: Group) -> str:
    """Why a lone view's values stand unconfirmed: no other candidate gave them, or the one
    that did is in doubt (`roles.coder.votes.Solved.doubt`) or the same program again."""
    if best.doubts:
        return f"no other candidate that counts gave these values ({best.doubts[0]})"
    if len(best.counted) >= 2:  # the same program again (`Group.agreeing`)
        return "no other candidate gave these values: the one that did is the same program again"
    return "no other candidate gave these values"


def verdicts_of(
    best: Group,
    groups: list[Group],
    judged: Judged | None,
    output: str,
    quoted: frozenset[float],
) -> tuple[list[CheckVerdict], str]:
    """The verdicts of the kept group ``best`` among ``groups`` (its agreement, a value only
    two views may pass, the verifier's check ``judged``) and the note of why it is not
    verified ("" when nothing stands in the way)."""
    kept = best.kept
    others = len(groups) - 1
    besides = f" ({others} other group(s) of values)" if others else ""
    evidence = [m.exec_id for m in best.members if m.exec_id]
    if best.kinds >= 2:
        agreed = CheckVerdict(
            kind="views",
            what=f"{' and '.join(_NAMES.get(v, v) for v in dict.fromkeys(best.counted))}, "
            f"drawn apart, gave these values{besides}",
            candidate=kept.exec_id,
            passed=True,
            independent=True,
            evidence=evidence,
        )
    else:
        n = best.agreeing
        agreed = CheckVerdict(
            kind="agreement",
            what=(
                f"{n} candidate {_PLURALS[best.counted[0]]}, each drawn apart, gave these "
                f"values{besides}"
                if n >= 2
                else _alone(best)
            ),
            candidate=kept.exec_id,
            passed=n >= 2,
            independent=False,
            evidence=evidence,
        )
    verdicts = [agreed]
    trivial = needs_views(answer_of(kept, output), quoted)
    if trivial and best.representations < 2:
        verdicts.append(
            CheckVerdict(
                kind="views",
                what=f"{trivial}: it passes only when two views agree on it",
                candidate=kept.exec_id,
                passed=False,
                independent=True,
            )
        )
    if judged is None:
        return verdicts, "no check was written from the goal"
    if not judged.usable:
        return verdicts, f"the verifier's check counts for nothing: {judged.why_not}"
    outcome, message = judged.outcomes[groups.index(best)]
    passed = outcome == "pass"
    verdicts.append(
        CheckVerdict(
            kind="property",
            what=(
                "it passes the verifier's check, written from the goal before any answer"
                if passed
                else f"it fails the verifier's check, written from the goal: {message}"
            ),
            candidate=kept.exec_id,
            passed=passed,
            independent=True,
            evidence=[judged.exec_id],
        )
    )
    if not passed:
        return verdicts, f"it fails the verifier's check ({message})"
    if trivial and best.representations < 2:
        return verdicts, trivial
    return verdicts, "" if agreed.passed else "no second candidate agreed"
