"""People's feedback as training data: a rated run becomes a case of a feedback suite — its
goal, values and documents, the person's expected value or check as its grader, and their
remark (with their score and name) as the feedback `society train` shows the reflection
model. The rater is whoever holds a credential of that run; the name recorded is the
credential's."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import yaml

from society.credentials import Credential, RunCredentials
from society.errors import RunNotFound
from society.eval.suite import load_suite

__all__ = ["FeedbackError", "add_case", "grader_for", "rated_case", "rater"]

_ID = re.compile(r"[^A-Za-z0-9_-]+")


class FeedbackError(ValueError):
    """A rating that cannot be kept (what is wrong, said plainly)."""


def rater(run_dir: Path, run_id: str, credential: Credential) -> str:
    """The person's name a credential gives, when it is one this run issued to a person."""
    if credential.run_id != run_id:
        msg = f"the credential is for run {credential.run_id}, not {run_id}"
        raise FeedbackError(msg)
    issued = {(c.sender, c.user, c.password) for c in RunCredentials(run_dir, run_id).all()}
    if (credential.sender, credential.user, credential.password) not in issued:
        msg = f"run {run_id} did not issue this credential (or it was replaced)"
        raise FeedbackError(msg)
    role, _, name = credential.sender.partition("/")
    if role != "human" or not name:
        msg = f"{credential.sender} is not a person's credential"
        raise FeedbackError(msg)
    return name


def grader_for(expect: str | None, check: str | None) -> dict[str, Any]:
    """The grader a person's expectation makes: a number within a millionth of it, a text the
    answer must contain, or a regular expression it must match."""
    if (expect is None) == (check is None):
        msg = "say what a right answer is: give --expect VALUE or --check REGEX (one of them)"
        raise FeedbackError(msg)
    if check is not None:
        try:
            re.compile(check)
        except re.error as exc:
            msg = f"--check {check!r} is not a regular expression: {exc}"
            raise FeedbackError(msg) from None
        return {"kind": "regex", "pattern": check}
    assert expect is not None
    try:
        value = float(expect.replace(",", ""))
    except ValueError:
        return {"kind": "contains", "text": expect}
    return {"kind": "number", "value": value, "tolerance": max(1e-6, abs(value) * 1e-6)}


def rated_case(
    run_dir: Path,
    run_id: str,
    *,
    by: str,
    score: int,
    remark: str,
    expect: str | None,
    check: str | None,
) -> dict[str, Any]:
    """The feedback case a rating of the run in ``run_dir`` makes."""
    path = run_dir / "scenario.json"
    try:
        scenario = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        msg = f"{path}: cannot read the run's scenario ({exc})"
        raise RunNotFound(msg) from None
    goal = scenario.get("goal") or {}
    base = Path(str(scenario.get("base_dir") or run_dir))
    corpus = ((scenario.get("roles") or {}).get("researcher") or {}).get("corpus") or []
    said = f"{by} rated the run {score}/5" + (f": {remark}" if remark else "")
    return {
        "id": _ID.sub("-", run_id)[:64],
        "goal": goal.get("text", ""),
        "inputs": goal.get("inputs") or {},
        "documents": [str((base / str(p)).resolve()) for p in corpus],
        "graders": [grader_for(expect, check)],
        "remark": said,
        "tags": [f"rated-by:{by}", f"score:{score}"],
        "source": f"run {run_id}",
    }


def add_case(suite_path: Path, case: dict[str, Any]) -> bool:
    """Add ``case`` to the feedback suite (made if absent); a case of the same run is
    replaced (the latest rating stands). Returns whether it replaced one. The suite is
    checked by loading it before it is written, so a bad case never lands in the file."""
    doc: dict[str, Any] = {"name": "feedback", "description": "Runs people rated.", "cases": []}
    if suite_path.is_file():
        try:
            loaded = yaml.safe_load(suite_path.read_text(encoding="utf-8"))
        except yaml.YAMLError as exc:
            msg = f"{suite_path}: not a suite file, left as it is ({exc})"
            raise FeedbackError(msg) from None
        if not isinstance(loaded, dict) or not isinstance(loaded.get("cases", []), list):
            msg = f"{suite_path}: not a suite file (no list of cases), left as it is"
            raise FeedbackError(msg)
        doc = loaded
    cases = [c for c in doc.get("cases") or [] if c.get("id") != case["id"]]
    replaced = len(cases) != len(doc.get("cases") or [])
    doc["cases"] = [*cases, case]
    text = yaml.safe_dump(doc, sort_keys=False, allow_unicode=True)
    suite_path.parent.mkdir(parents=True, exist_ok=True)
    tmp = suite_path.with_suffix(suite_path.suffix + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    try:
        load_suite(tmp)
    except Exception:
        tmp.unlink(missing_ok=True)
        raise
    tmp.replace(suite_path)
    return replaced
