"""The ``table`` arm: TAT-QA questions answered from the report's tables by code alone. An
eval of it needs no model server (a real CLI process, the real sandbox for grading); it
answers the figures and arithmetic the question's words ask, says how in ``worked.txt``,
fails where code finds nothing, and is ``unverified`` where the question says words no
table says."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from society.eval.arms import MODEL_FREE, arm_names
from society.eval.context import CaseContext, EvalContext
from society.eval.suite import Case, Suite
from society.eval.table_arm import NOTHING, table

SOCIETY = Path(sys.executable).parent / "society"
TABLE = """\
| | 2019 | 2018 |
|---|---|---|
| Revenue ($ in thousands) | 1,250 | 1,000 |
| Cost of sales | 700 | 640 |
"""


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
    return port


@pytest.mark.docker
@pytest.mark.timeout(400)
def test_an_eval_of_the_table_arm_runs_with_no_model_server_and_grades_it(tmp_path: Path) -> None:
    out = tmp_path / "t.json"
    done = subprocess.run(
        [
            str(SOCIETY),
            *("eval", "--tatqa", "dev", "--types", "arithmetic,span", "--limit", "6"),
            *("--draw-seed", "3", "--no-society", "--baseline", "table"),
            *("--model", "nothing", "--base-url", f"http://127.0.0.1:{closed_port()}/v1"),
            *("--runs-dir", str(tmp_path / "runs"), "--out", str(out)),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "COLUMNS": "160"},
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    results: dict[str, Any] = json.loads(out.read_text())
    records = results["records"]
    assert len(records) == 6 and {r["arm"] for r in records} == {"table"}
    assert all(r["calls"] == 0 and r["tokens_in"] == 0 for r in records)
    right = [r for r in records if r["passed"]]
    assert right and all(r["status"] == "succeeded" for r in right)
    failed = [r for r in records if r["status"] == "failed"]
    assert failed and all(r["reason"] == NOTHING for r in failed)
    folder = Path(results["folder"]) / "baselines"
    worked = [(folder / f"{r['case']}-table-r0" / "worked.txt") for r in right]
    assert all(w.is_file() and w.read_text().strip() for w in worked)
    assert "tokens per solved" in done.stdout


def context(tmp_path: Path, documents: dict[str, str]) -> tuple[Case, CaseContext]:
    for name, text in documents.items():
        (tmp_path / name).write_text(text)
    case = Case(
        id="q",
        goal="What was the percentage change in revenue between 2018 and 2019?\n\nAnswer it.",
        documents=list(documents),
        graders=[{"kind": "contains", "text": ["25"]}],  # type: ignore[list-item]
    )
    suite = Suite(name="t", cases=[case], base_dir=tmp_path)
    eval_cx = EvalContext(tmp_path, code=None)  # type: ignore[arg-type]  # no code runs
    return case, CaseContext(eval_cx, suite, 0, "table")


async def test_the_arithmetic_is_worked_from_the_table_and_shown(tmp_path: Path) -> None:
    case, cx = context(tmp_path, {"table.md": TABLE, "paragraphs.md": "Revenue grew.\n"})
    answered = await table(case, cx)
    assert answered.status == "succeeded" and answered.calls == 0
    assert answered.submission.answer == "25.00%"
    assert answered.folder is not None
    assert "(1,250 - 1,000) / 1,000" in (answered.folder / "worked.txt").read_text()


async def test_words_no_table_says_leave_it_unverified(tmp_path: Path) -> None:
    case, cx = context(tmp_path, {"table.md": TABLE})
    case = case.model_copy(
        update={"goal": "What was the percentage change in Prozone revenue between 2018 and 2019?"}
    )
    answered = await table(case, cx)
    assert answered.status == "unverified" and "'prozone'" in answered.reason


async def test_documents_without_a_table_are_no_answer(tmp_path: Path) -> None:
    case, cx = context(
        tmp_path, {"paragraphs.md": "Revenue was 1,250 in 2019 and 1,000 in 2018.\n"}
    )
    answered = await table(case, cx)
    assert answered.status == "failed" and answered.reason == NOTHING
    assert answered.submission.answer == ""


def test_the_table_arm_is_a_built_in_that_calls_no_model() -> None:
    assert "table" in arm_names() and MODEL_FREE.issubset(arm_names())
