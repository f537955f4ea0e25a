"""Long-term memory and document search on SQLite FTS5.

`Memory` keeps lessons and feedback across runs in a folder (one SQLite file); `Corpus`
indexes a local document collection in memory for the researcher. Both rank by BM25.
"""

from __future__ import annotations

import re
import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Corpus", "Hit", "Memory", "fts_query"]

_WORD = re.compile(r"[A-Za-z0-9]{3,}")
_STOP = frozenset(
    [
        "the",
        "and",
        "for",
        "with",
        "that",
        "this",
        "from",
        "into",
        "what",
        "which",
        "when",
        "where",
        "how",
        "are",
        "was",
        "were",
        "will",
        "have",
        "has",
        "had",
        "not",
        "but",
        "you",
        "your",
        "our",
        "its",
        "their",
        "them",
        "then",
        "than",
        "also",
        "task",
        "goal",
    ]
)


def fts_query(text: str, limit: int = 24) -> str:
    """An FTS5 OR-query of the distinct content words of ``text`` (safe to pass to MATCH)."""
    words: list[str] = []
    for w in _WORD.findall(text.lower()):
        if w not in _STOP and w not in words:
            words.append(w)
    return " OR ".join(f'"{w}"' for w in words[:limit])


@dataclass(frozen=True)
class Hit:
    """One search result."""

    text: str
    source: str
    kind: str = ""
    score: float = 0.0


class Memory:
    """Lessons and feedback that persist across runs (thread-safe, one SQLite file)."""

    def __init__(self, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.path = folder / "memory.sqlite3"
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, check_same_thread=False)
        with self._lock, self._db:
            self._db.execute(
                "CREATE VIRTUAL TABLE IF NOT EXISTS lessons USING fts5("
                "text, kind, task_kind, run_id UNINDEXED, source UNINDEXED, created UNINDEXED)"
            )

    def add(
        self, text: str, *, kind: str, task_kind: str = "", run_id: str = "", source: str = ""
    ) -> None:
        """Store one lesson (or feedback)."""
        with self._lock, self._db:
            self._db.execute(
                "INSERT INTO lessons(text, kind, task_kind, run_id, source, created) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (text, kind, task_kind, run_id, source, time.time()),
            )

    def search(
        self, query: str, k: int = 3, *, kind: str | None = None, before_run: str | None = None
    ) -> list[Hit]:
        """The ``k`` lessons most relevant to ``query``; with ``before_run``, only those of
        other runs (what a run learns reaches its own prompts through replans and retries,
        so that what it recalls never races with what it is learning, and replays exactly)."""
        q = fts_query(query)
        if not q or k <= 0:
            return []
        # The source shown is the lesson's task kind, not its run id: prompts must not carry
        # ids that differ from run to run (replay matches requests by their content).
        sql = "SELECT text, task_kind, kind, bm25(lessons) FROM lessons WHERE lessons MATCH ?"
        args: list[object] = [q]
        if kind is not None:
            sql += " AND kind = ?"
            args.append(kind)
        if before_run is not None:
            sql += " AND run_id != ?"
            args.append(before_run)
        sql += " ORDER BY bm25(lessons) LIMIT ?"
        args.append(k)
        with self._lock:
            rows = self._db.execute(sql, args).fetchall()
        return [
            Hit(text=r[0], source=r[1] or "memory", kind=r[2], score=-float(r[3])) for r in rows
        ]

    def count(self) -> int:
        """How many entries the memory holds."""
        with self._lock:
            return int(self._db.execute("SELECT count(*) FROM lessons").fetchone()[0])

    def close(self) -> None:
        """Close the database."""
        with self._lock:
            self._db.close()


class Corpus:
    """A local document collection (text files), indexed by paragraph."""

    SUFFIXES = frozenset({".txt", ".md", ".rst", ".csv", ".json", ".yaml", ".yml", ".html"})

    def __init__(self, paths: list[Path]) -> None:
        self._db = sqlite3.connect(":memory:", check_same_thread=False)
        self._lock = threading.Lock()
        self._db.execute("CREATE VIRTUAL TABLE docs USING fts5(text, source UNINDEXED)")
        self.files = 0
        for path in paths:
            for file in sorted(path.rglob("*")) if path.is_dir() else [path]:
                if file.is_file() and file.suffix.lower() in self.SUFFIXES:
                    self._index(file)

    def _index(self, file: Path) -> None:
        text = file.read_text(encoding="utf-8", errors="replace")
        chunks = [c.strip() for c in re.split(r"\n\s*\n", text) if c.strip()]
        self._db.executemany(
            "INSERT INTO docs(text, source) VALUES (?, ?)", [(c, file.name) for c in chunks]
        )
        self.files += 1

    def search(self, query: str, k: int = 5) -> list[Hit]:
        """The ``k`` paragraphs most relevant to ``query``."""
        q = fts_query(query)
        if not q:
            return []
        with self._lock:
            rows = self._db.execute(
                "SELECT text, source, bm25(docs) FROM docs WHERE docs MATCH ? "
                "ORDER BY bm25(docs) LIMIT ?",
                (q, k),
            ).fetchall()
        return [Hit(text=r[0], source=r[1], kind="document", score=-float(r[2])) for r in rows]
