"""TAT-QA as a suite: questions over a financial report's table and paragraphs (Zhu et al.,
ACL 2021; NExTplusplus/TAT-QA at 870accc, CC BY 4.0), read from ``evals/tatqa/``.

Each question is a case of its answer type (span, multi-span, count, arithmetic) graded by
TAT-QA's exact match with scale (`society.eval.tatqa_metric`). A report's table (as a
markdown table, its first row the header) and paragraphs are written once into a documents
folder, ``<folder>/<table uid>/table.md`` and ``paragraphs.md``, which is the suite's base
folder: the case's documents are those two files, as a suite file's documents would be.
"""

from __future__ import annotations

import gzip
import json
import os
import random
import tempfile
from pathlib import Path
from typing import Any, Literal

from roles.budget import BudgetSettings
from roles.settings import CriticSettings, PlannerSettings, VerifierSettings
from roles.verifier.confidence import TWO_VIEWS
from sandbox.settings import SandboxSettings
from society.errors import RunError
from society.eval.suite import Case, Defaults, Suite, TatQA
from society.eval.tatqa_metric import TYPES, gold_answers
from society.scenario import RolesSpec

__all__ = ["DATA", "SPLITS", "TATQA_GOAL", "draw", "questions", "table_markdown", "tatqa_suite"]

DATA = Path(__file__).resolve().parents[2] / "evals" / "tatqa"
"""The vendored data (see its README: source, commit, sha256, licence)."""
SPLITS = {"dev": "dev.json.gz", "test": "test_gold.json.gz"}
"""The splits and their files; ``test`` is the gold test set released in 2024."""
_ORIGINAL = {"dev": "tatqa_dataset_dev.json", "test": "tatqa_dataset_test_gold.json"}

TATQA_GOAL = (
    "{question}\n\n"
    "Answer from the financial report's table (table.md) and paragraphs (paragraphs.md). "
    "State a value with its scale or unit as the report gives it, e.g. "
    '"$1,234 thousand", "5.2 million" or "12.5%", and a change as a signed number (negative '
    "when it fell); quote a text answer in the report's own words, and name every item when "
    "several are asked."
)
"""The goal: the question, and how to state the answer so that its scale can be graded."""

Split = Literal["dev", "test"]

STALL_S = 600.0
"""The critic's stall: no task done for this long. A report's prompt takes ~45 s a call on
this machine and one model server answers one call at a time, so a reading task waiting
behind the goal check's program fixes passed the default 300 s and was replanned away."""


def reports(split: Split) -> list[dict[str, Any]]:
    """The split's reports (a table, paragraphs and questions each), in the file's order."""
    if split not in SPLITS:
        msg = f"TAT-QA's splits are {', '.join(SPLITS)}, not {split!r}"
        raise ValueError(msg)
    path = DATA / SPLITS[split]
    try:
        data: list[dict[str, Any]] = json.loads(gzip.decompress(path.read_bytes()))
    except (OSError, ValueError) as exc:
        msg = f"cannot read TAT-QA's {split} set from {path}: {exc}"
        raise RunError(msg) from None
    return data


def questions(split: Split) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """Every question of the split with its report, in the file's order."""
    return [(r, q) for r in reports(split) for q in r["questions"]]


def _cell(text: object) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def table_markdown(rows: list[list[str]]) -> str:
    """A table as markdown: its first row the header, every row as wide as the widest."""
    width = max((len(r) for r in rows), default=0)
    if width == 0:
        return "(an empty table)\n"
    lines = [[_cell(c) for c in r] + [""] * (width - len(r)) for r in rows]
    out = ["| " + " | ".join(line) + " |" for line in lines]
    out.insert(1, "|" + "---|" * width)
    return "\n".join(out) + "\n"


def _paragraphs(report: dict[str, Any]) -> str:
    ordered = sorted(report["paragraphs"], key=lambda p: p.get("order", 0))
    return "\n\n".join(" ".join(p["text"].split()) for p in ordered) + "\n"


def _write(path: Path, text: str) -> None:
    """Write ``text`` unless the file holds it already (atomically: evals may share it)."""
    if path.is_file() and path.read_text() == text:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
    with os.fdopen(fd, "w") as f:
        f.write(text)
    os.replace(tmp, path)


def _documents(report: dict[str, Any], folder: Path) -> list[str]:
    """The report's two documents, written under ``folder``; their paths relative to it."""
    uid = report["table"]["uid"]
    _write(folder / uid / "table.md", table_markdown(report["table"]["table"]))
    _write(folder / uid / "paragraphs.md", _paragraphs(report))
    return [f"{uid}/table.md", f"{uid}/paragraphs.md"]


def _quotas(counts: dict[str, int], limit: int) -> dict[str, int]:
    """``limit`` shared out in proportion to ``counts`` (largest remainders), at least one
    for each type and at most its count."""
    total = sum(counts.values())
    share = {t: limit * n / total for t, n in counts.items()}
    quota = {t: min(n, max(1, int(share[t]))) for t, n in counts.items()}
    while sum(quota.values()) > limit:
        over = [t for t in quota if quota[t] > 1]
        t = max(over, key=lambda t: (quota[t] - share[t], quota[t]))
        quota[t] -= 1
    while sum(quota.values()) < limit:
        open_ = [t for t in quota if quota[t] < counts[t]]
        t = max(open_, key=lambda t: share[t] - quota[t])
        quota[t] += 1
    return quota


def draw(
    items: list[tuple[dict[str, Any], dict[str, Any]]],
    limit: int | None,
    seed: int | None,
    types: list[str],
) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """The questions of ``types``: all, or ``limit`` of them in proportion to each type's
    share (at least one of each), drawn with ``seed`` (without one, each type's first);
    always in the file's order."""
    chosen = [(i, rq) for i, rq in enumerate(items) if rq[1]["answer_type"] in types]
    if limit is None or limit >= len(chosen):
        return [rq for _, rq in chosen]
    by_type = {t: [i for i, rq in chosen if rq[1]["answer_type"] == t] for t in types}
    by_type = {t: ids for t, ids in by_type.items() if ids}
    if limit < len(by_type):
        msg = f"--limit {limit} is fewer than the {len(by_type)} answer types asked for"
        raise ValueError(msg)
    rng = random.Random(seed)
    picked: list[int] = []
    for t, n in _quotas({t: len(ids) for t, ids in by_type.items()}, limit).items():
        ids = by_type[t]
        picked += ids[:n] if seed is None else rng.sample(ids, n)
    return [items[i] for i in sorted(picked)]


def tatqa_suite(
    split: Split,
    limit: int | None = None,
    seed: int | None = None,
    types: list[str] | None = None,
    docs_dir: Path | None = None,
    defaults: Defaults | None = None,
) -> Suite:
    """TAT-QA's ``split`` as a suite: the questions of ``types`` (default all four), all or
    ``limit`` drawn per type with ``seed``; the reports' documents go to ``docs_dir``
    (default: ``tatqa-docs`` in the system's temporary folder)."""
    wanted = list(dict.fromkeys(types or TYPES))
    unknown = [t for t in wanted if t not in TYPES]
    if unknown:
        msg = f"TAT-QA's answer types are {', '.join(TYPES)}, not {', '.join(unknown)}"
        raise ValueError(msg)
    folder = (docs_dir or Path(tempfile.gettempdir()) / "tatqa-docs").resolve()
    cases = []
    for report, q in draw(questions(split), limit, seed, wanted):
        kind = q["answer_type"]
        cases.append(
            Case(
                id=q["uid"],
                kind=kind,
                goal=TATQA_GOAL.format(question=q["question"].strip()),
                documents=_documents(report, folder),
                graders=[
                    TatQA(
                        answer=gold_answers(q["answer"], kind),
                        answer_type=kind,
                        scale=q["scale"],
                    )
                ],
                tags=[q["answer_from"]],
                source=(
                    f"NExTplusplus/TAT-QA@870accc dataset_raw/{_ORIGINAL[split]}: "
                    f"table {report['table']['uid']}, question {q['order']}"
                ),
            )
        )
    base = defaults or Defaults(
        roles=RolesSpec(
            critic=CriticSettings(stall_s=STALL_S),
            planner=PlannerSettings(read_first=True),
            # one view's drafts pass only when no other view disagrees: on the dev draw, two
            # worked answers against the quotation (0.48) were right 2 times of 3
            verifier=VerifierSettings(min_confidence=TWO_VIEWS),
        ),
        budgets=BudgetSettings(wall_s=600, calls=24, replans=1, sandbox_s=180),
        sandbox=SandboxSettings(timeout_s=30, pool_size=2),
    )
    return Suite(
        name=f"tatqa-{split}",
        description=f"TAT-QA {split}: questions over a financial report's table and text.",
        defaults=base,
        cases=cases,
        base_dir=folder,
    )
