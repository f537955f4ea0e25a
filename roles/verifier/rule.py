"""The rule that decides whether a run's answer is verified, for every plan shape: there is
an answer, no check of it failed, and at least one check written without seeing it passed.
A run ends `succeeded` only on a verified answer (`roles.manager.final`); the status is a
function of these typed verdicts, never of a sentence or a task id."""

from __future__ import annotations

from bus.verdicts import CheckVerdict, Verdict
from roles.verifier.goal_check import GoalCheck, judged

__all__ = ["unverified_reason", "verdict_of"]


def verdict_of(
    answer: str | None,
    sources: list[str],
    checked: dict[str, list[CheckVerdict]],
    goal_check: GoalCheck | None = None,
) -> Verdict:
    """Whether the answer is verified, by one rule for every plan shape: there is an answer,
    no check of it failed, and at least one check written without seeing it passed. The
    checks are the verdicts of the tasks it comes from and, for a plan given the goal check
    (``goal_check``), the goal check's agreement with it. A task's failed agreement (its own candidates gave other
    values) is answered when the goal check agrees: that is another candidate giving them."""
    if answer is None or not answer.strip():
        return Verdict(verified=False, checks=["no task produced an answer to the goal"])
    verdicts: list[CheckVerdict] = []
    agreed = False
    if goal_check is not None:
        agreed, said = judged(answer, goal_check)
        evidence = [e for v in goal_check.shown for e in v.evidence] if agreed else []
        verdicts.append(
            CheckVerdict(
                kind="goal_check",
                what=said,
                candidate="answer",
                passed=agreed,
                independent=True,
                evidence=evidence,
            )
        )
    for tid in sources:
        verdicts += [_answered(tid, v, agreed) for v in checked.get(tid, [])]
    failed = [v for v in verdicts if not v.passed]
    held = [v for v in verdicts if v.passed and v.independent]
    verified = not failed and bool(held)
    checks = [v.what for v in verdicts]
    if not held:
        checks.append("no check written without seeing the answer passed it")
    evidence = [e for v in verdicts if v.passed for e in v.evidence]
    return Verdict(verified=verified, checks=checks, evidence=evidence, verdicts=verdicts)


def _answered(tid: str, verdict: CheckVerdict, goal_check_agreed: bool) -> CheckVerdict:
    what = f"{tid}: {verdict.what}"
    if verdict.kind != "agreement" or verdict.passed or not goal_check_agreed:
        return verdict.model_copy(update={"what": what})
    what += "; the goal check's own program gives these values"
    return verdict.model_copy(update={"what": what, "passed": True})


def unverified_reason(verdict: Verdict) -> str:
    """Why an answer is not verified: its failed checks, or that no independent one passed."""
    failed = [v.what for v in verdict.verdicts if not v.passed]
    if failed:
        return "; ".join(failed)
    return verdict.checks[-1] if verdict.checks else "its answer was not checked"
