"""What the researcher reads for a task: every document whole when they all fit one reading
(`ResearcherSettings.read_chars`), else the passages BM25 ranks highest for the task (a
table's rows each with its header, a text's paragraphs; `roles.memory.Corpus`). A small
model's prompt holds about 8k tokens: a case built from several reports does not fit."""

from __future__ import annotations

from roles.memory import Corpus, Hit
from roles.settings import ResearcherSettings

__all__ = ["reading", "whole"]


def whole(corpus: Corpus, settings: ResearcherSettings) -> bool:
    """Whether the documents fit one reading, and are read whole."""
    return sum(len(t) for t in corpus.texts.values()) <= settings.read_chars


def reading(corpus: Corpus, query: str, settings: ResearcherSettings) -> list[Hit]:
    """The documents, or the passages of them, the researcher is shown for ``query``."""
    if whole(corpus, settings):
        return [
            Hit(text=text.strip(), source=name, kind="document")
            for name, text in corpus.texts.items()
        ]
    return corpus.search(query, settings.max_hits)
