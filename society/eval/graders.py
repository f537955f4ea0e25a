"""Grading an answer: text graders here, check programs in the sandbox (never on the host).

What every arm hands in is a `Submission`: the answer text, the named outputs and the
artifacts. A case passes when every one of its graders passes; each grade says why.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import assert_never

from pydantic import BaseModel, ConfigDict, JsonValue

from roles.execution import CodeRunner
from roles.verifier.values import numbers as numbers_in
from sandbox.errors import SandboxError
from society.eval.suite import (
    Choice,
    Contains,
    Equals,
    Grader,
    Number,
    PythonCheck,
    Regex,
    TatQA,
)
from society.eval.tatqa_metric import grade_sentence

__all__ = ["Grade", "Submission", "grade", "grade_all", "numbers_in"]


@dataclass(frozen=True)
class Submission:
    """What an arm produced for a case."""

    answer: str
    outputs: Mapping[str, JsonValue] = field(default_factory=dict)
    artifacts: Mapping[str, bytes] = field(default_factory=dict)
    """Files the arm produced, by name."""


class Grade(BaseModel):
    """One grader's verdict: what every grader returns, and what the results record."""

    model_config = ConfigDict(frozen=True)

    kind: str
    passed: bool
    detail: str

    @classmethod
    def of(cls, kind: str, passed: bool, detail: str) -> Grade:
        """A verdict, positionally."""
        return cls(kind=kind, passed=passed, detail=detail)


def _subject(grader: Grader, sub: Submission) -> tuple[str | None, JsonValue]:
    """The text a grader reads and the raw value (an output, or the answer); None text when
    the output is missing."""
    if grader.kind == "python" or grader.output is None:
        return sub.answer, sub.answer
    if grader.output not in sub.outputs:
        return None, None
    value = sub.outputs[grader.output]
    return (value if isinstance(value, str) else json.dumps(value)), value


def _num(x: float) -> str:
    """A number as written: integers whole, others to ten significant digits."""
    return str(int(x)) if x.is_integer() and abs(x) < 1e18 else f"{x:.10g}"


def _norm(text: str, case_sensitive: bool) -> str:
    text = " ".join(text.split())
    return text if case_sensitive else text.casefold()


def _short(text: str, n: int = 120) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 1] + "…"


def _text_grade(
    grader: Contains | Regex | Number | Equals | Choice | TatQA, sub: Submission
) -> Grade:
    text, raw = _subject(grader, sub)
    if text is None:
        have = ", ".join(sorted(sub.outputs)) or "none"
        return Grade.of(grader.kind, False, f"no output {grader.output!r} (outputs: {have})")
    match grader:
        case Contains():
            wanted = [grader.text] if isinstance(grader.text, str) else grader.text
            hay = _norm(text, grader.case_sensitive)
            missing = [w for w in wanted if _norm(w, grader.case_sensitive) not in hay]
            if missing:
                return Grade.of("contains", False, f"missing {', '.join(map(repr, missing))}")
            return Grade.of("contains", True, f"contains {', '.join(map(repr, wanted))}")
        case Regex():
            flags = re.IGNORECASE if grader.ignore_case else 0
            m = re.search(grader.pattern, text, flags)
            if m is None:
                return Grade.of(
                    "regex", False, f"no match for /{grader.pattern}/ in {_short(text)!r}"
                )
            return Grade.of("regex", True, f"matched {m.group(0)!r}")
        case Number():
            bound = max(grader.tolerance, abs(grader.value) * grader.relative)
            found = numbers_in(text)
            if len(found) > grader.max_numbers:
                return Grade.of(
                    "number",
                    False,
                    f"the answer states {len(found)} numbers (at most {grader.max_numbers}): "
                    "a list of numbers is no answer",
                )
            hit = next((x for x in found if abs(x - grader.value) <= bound), None)
            want = f"{_num(grader.value)} ± {bound:g}"
            if hit is None:
                seen = ", ".join(_num(x) for x in found[:8]) or "no number"
                return Grade.of("number", False, f"want {want}; saw {seen}")
            return Grade.of("number", True, f"{_num(hit)} is {want}")
        case Equals():
            return _equals(grader, text, raw)
        case Choice():
            return _choice(grader, text)
        case TatQA():
            passed, why = grade_sentence(
                text,
                grader.answer,
                grader.answer_type,
                grader.scale,
                grader.max_numbers,
                grader.max_words,
            )
            return Grade.of("tatqa", passed, why)
        case _:
            assert_never(grader)


def _equals(grader: Equals, text: str, raw: JsonValue) -> Grade:
    want = grader.value
    if isinstance(want, int | float) and not isinstance(want, bool):
        got = raw if isinstance(raw, int | float) and not isinstance(raw, bool) else None
        if got is None:  # a text that is exactly one number
            try:
                got = float(text.strip().replace(",", ""))
            except ValueError:
                got = None
        ok = got is not None and math.isclose(float(got), float(want), abs_tol=1e-9)
    elif isinstance(want, str):
        ok = _norm(text, grader.case_sensitive) == _norm(want, grader.case_sensitive)
    else:
        ok = raw == want
    return Grade.of("equals", ok, f"{'equals' if ok else 'is not'} {json.dumps(want)[:80]}")


def _choice(grader: Choice, text: str) -> Grade:
    named = [
        o
        for o in grader.options
        if re.search(rf"(?<!\w){re.escape(o)}(?!\w)", text, re.IGNORECASE) is not None
    ]
    want = grader.value.casefold()
    if want not in {o.casefold() for o in named}:
        return Grade.of("choice", False, f"does not name {grader.value!r}")
    others = [o for o in named if o.casefold() != want]
    if others:
        return Grade.of("choice", False, f"names {', '.join(map(repr, others))} as well")
    return Grade.of("choice", True, f"names {grader.value!r} and no other option")


CHECK_PRELUDE = """\
import json as _json, pathlib as _pathlib
answer = _pathlib.Path("answer.txt").read_text()
outputs = _json.loads(_pathlib.Path("outputs.json").read_text())
inputs = _json.loads(_pathlib.Path("inputs.json").read_text())
artifacts = {p.name: p.read_bytes() for p in sorted(_pathlib.Path("artifacts").glob("*"))
             if p.is_file()} if _pathlib.Path("artifacts").is_dir() else {}
del _json, _pathlib
"""
"""What a check program sees before its first line (its own line numbers follow)."""


def check_files(sub: Submission, inputs: Mapping[str, JsonValue]) -> dict[str, bytes]:
    """The files a check program finds in its work folder."""
    files = {
        "answer.txt": sub.answer.encode(),
        "outputs.json": json.dumps(dict(sub.outputs)).encode(),
        "inputs.json": json.dumps(dict(inputs)).encode(),
    }
    for name, data in sub.artifacts.items():
        safe = re.sub(r"[^A-Za-z0-9_.-]", "_", name.rsplit("/", 1)[-1]) or "artifact"
        files[f"artifacts/{safe}"] = data
    return files


async def _python_grade(
    grader: PythonCheck, sub: Submission, inputs: Mapping[str, JsonValue], code: CodeRunner
) -> Grade:
    try:
        run = await code.execute(
            CHECK_PRELUDE + grader.code, check_files(sub, inputs), timeout_s=grader.timeout_s
        )
    except SandboxError as exc:  # inputs over the sandbox's limits, a closed sandbox
        return Grade.of("python", False, f"the check could not run: {exc}")
    if run.error is not None:
        return Grade.of("python", False, f"the check could not run: {run.error}")
    if run.timed_out:
        return Grade.of("python", False, f"the check timed out after {grader.timeout_s:g}s")
    if run.exit_code == 0:
        said = _short(run.stdout.strip().splitlines()[-1]) if run.stdout.strip() else ""
        return Grade.of("python", True, said or "the check passed")
    lines = [ln for ln in run.stderr.strip().splitlines() if ln.strip()]
    last = _short(lines[-1], 200) if lines else f"exit code {run.exit_code}"
    return Grade.of("python", False, last)


async def grade(
    grader: Grader, sub: Submission, inputs: Mapping[str, JsonValue], code: CodeRunner | None
) -> Grade:
    """One grader's verdict on ``sub`` (``code`` runs check programs)."""
    if isinstance(grader, PythonCheck):
        if code is None:
            return Grade.of("python", False, "no sandbox to run the check in")
        return await _python_grade(grader, sub, inputs, code)
    return _text_grade(grader, sub)


async def grade_all(
    graders: list[Grader],
    sub: Submission,
    inputs: Mapping[str, JsonValue],
    code: CodeRunner | None,
) -> list[Grade]:
    """Every grader's verdict, in order."""
    return [await grade(g, sub, inputs, code) for g in graders]
