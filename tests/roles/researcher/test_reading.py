"""What the researcher reads: one report whole; a case built from several reports (more than
a small model's one prompt) searched, so the passages that answer are read and little else."""

from __future__ import annotations

from pathlib import Path

import pytest

from roles.memory import Corpus
from roles.researcher.reading import reading
from roles.settings import ResearcherSettings
from society.eval.tatqa import reports, table_markdown

pytestmark = pytest.mark.timeout(60)

REPORTS = 40


def _case_documents(tmp_path: Path) -> tuple[list[Path], dict[str, object]]:
    """Forty dev reports' documents in one folder, and a question on the tenth."""
    wanted = reports("dev")[:REPORTS]
    paths = []
    for r in wanted:
        folder = tmp_path / r["table"]["uid"]
        folder.mkdir()
        (folder / "table.md").write_text(table_markdown(r["table"]["table"]))
        (folder / "paragraphs.md").write_text("\n\n".join(p["text"] for p in r["paragraphs"]))
        paths += [folder / "table.md", folder / "paragraphs.md"]
    return paths, wanted[9]


def test_one_report_is_read_whole(tmp_path: Path) -> None:
    paths, _ = _case_documents(tmp_path)
    corpus = Corpus(paths[:2])
    hits = reading(corpus, "anything", ResearcherSettings())
    assert [h.source for h in hits] == ["table.md", "paragraphs.md"]
    assert hits[0].text == corpus.texts["table.md"].strip()


def test_several_reports_are_searched_and_only_what_answers_is_read(tmp_path: Path) -> None:
    paths, report = _case_documents(tmp_path)
    corpus = Corpus(paths)
    total = sum(len(t) for t in corpus.texts.values())
    settings = ResearcherSettings()
    assert total > 4 * 8_000  # more than 8k tokens: past one prompt of a small model
    assert len(set(corpus.names)) == len(paths)  # every report's table.md kept apart
    row = next(
        r for r in report["table"]["table"][1:] if r[0].strip() and any(c.strip() for c in r[1:])
    )
    label = row[0].strip()
    hits = reading(corpus, f"What is the {label} in {report['table']['table'][0][-1]}?", settings)
    read = sum(len(h.text) for h in hits)
    assert len(hits) == settings.max_hits and read < settings.read_chars / 2
    assert any(label in h.text and h.text.startswith("|") for h in hits)  # the row, with its header
    assert all(h.text.count("\n") < 5 for h in hits if h.text.startswith("|"))  # rows, not tables
