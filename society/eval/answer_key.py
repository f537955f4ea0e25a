"""A suite's answer key, checked: every case's solution program recomputes its expected
answer, which must pass the case's graders; each of its plausible wrong answers must fail
one; and so must an answer that lists many numbers (the right ones among them).

``python -m society.eval.answer_key SUITE.yaml`` prints a line per case and exits 1 when a
case fails its key. Solutions are the suite author's own standard-library programs and run
on this machine (in a temporary folder, with ``inputs`` defined and the documents beside
them); graders that are programs run in the sandbox, as in an eval.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from roles.execution import CodeRunner
from society.eval.graders import Submission, grade_all, numbers_in
from society.eval.suite import Case, Number, PythonCheck, Suite

__all__ = ["KeyCheck", "check_key", "run_solution", "shotgun"]

PRELUDE = "import json as _json\ninputs = _json.load(open('inputs.json'))\ndel _json\n"


@dataclass
class KeyCheck:
    """What the key of one case showed."""

    case: str
    output: str = ""
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """The key holds: no problem found."""
        return not self.problems


def run_solution(suite: Suite, case: Case, timeout_s: float = 60.0) -> tuple[bool, str]:
    """Run the case's solution; (it exited 0, its stdout or the tail of its error)."""
    assert case.key is not None
    with tempfile.TemporaryDirectory(prefix="society-key-") as tmp:
        folder = Path(tmp)
        (folder / "inputs.json").write_text(json.dumps(case.inputs))
        for doc in case.documents:
            (folder / Path(doc).name).write_bytes((suite.base_dir / doc).read_bytes())
        (folder / "solution.py").write_text(PRELUDE + case.key.solution)
        try:
            done = subprocess.run(
                [sys.executable, "-I", "solution.py"],
                cwd=folder,
                capture_output=True,
                text=True,
                timeout=timeout_s,
                check=False,
            )
        except subprocess.TimeoutExpired:
            return False, f"the solution ran longer than {timeout_s:g}s"
    if done.returncode != 0:
        tail = [ln for ln in done.stderr.strip().splitlines() if ln.strip()][-1:]
        return False, f"the solution failed: {tail[0] if tail else done.returncode}"
    return True, done.stdout.strip()


def shotgun(case: Case, right: str) -> str:
    """An answer that merely lists many numbers: 0 to 120, and every number of the right
    answer and of the graders among them."""
    wanted = [g.value for g in case.graders if isinstance(g, Number)] + numbers_in(right)
    listed = [str(i) for i in range(121)] + [_written(x) for x in wanted]
    return "The answer is one of: " + ", ".join(listed)


def _written(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else repr(float(x))


async def check_key(suite: Suite, case: Case, code: CodeRunner | None) -> KeyCheck:
    """The key of ``case`` checked (``code`` runs the graders that are programs)."""
    result = KeyCheck(case.id)
    if case.key is None:
        result.problems.append("no key (solution and wrong answers)")
        return result
    ran, output = await asyncio.to_thread(run_solution, suite, case)
    result.output = output
    if not ran:
        result.problems.append(output)
        return result
    right = await grade_all(case.graders, Submission(output), case.inputs, code)
    for g in right:
        if not g.passed:
            result.problems.append(f"the solution's answer {output[:80]!r} fails: {g.detail}")
    for wrong in case.key.wrong:
        grades = await grade_all(case.graders, Submission(wrong), case.inputs, code)
        if all(g.passed for g in grades):
            result.problems.append(f"the wrong answer {wrong[:80]!r} passes every grader")
    if case.answer == "text":
        grades = await grade_all(case.graders, Submission(shotgun(case, output)), case.inputs, code)
        if all(g.passed for g in grades):
            result.problems.append("an answer listing many numbers passes every grader")
    return result


async def _main(path: Path) -> int:
    from sandbox import Sandbox
    from society.eval.suite import load_suite

    suite = load_suite(path)
    needs = any(isinstance(g, PythonCheck) for c in suite.cases for g in c.graders)
    checks: list[KeyCheck] = []
    if needs:
        async with Sandbox(suite.defaults.sandbox, label="answer-key") as sandbox:
            for case in suite.cases:
                checks.append(await check_key(suite, case, sandbox))
                _show(checks[-1])
    else:
        for case in suite.cases:
            checks.append(await check_key(suite, case, None))
            _show(checks[-1])
    bad = [c for c in checks if not c.ok]
    print(f"{len(checks)} cases: {len(checks) - len(bad)} keys hold, {len(bad)} do not")
    return 1 if bad else 0


def _show(check: KeyCheck) -> None:
    if check.ok:
        print(f"ok    {check.case}: {check.output[:70]}")
    else:
        print(f"FAIL  {check.case}: " + "; ".join(check.problems))


if __name__ == "__main__":
    from society.errors import ScenarioError

    if len(sys.argv) != 2:
        sys.exit("usage: python -m society.eval.answer_key SUITE.yaml")
    try:
        sys.exit(asyncio.run(_main(Path(sys.argv[1]))))
    except ScenarioError as exc:
        sys.exit(str(exc))
