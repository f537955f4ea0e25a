"""Long-term memory and document search on SQLite FTS5.

`Memory` keeps lessons and feedback across runs in a folder (one SQLite file), each with
the goal, run and message it came from; a lesson nearly equal to one already kept (of the
same kind) is not stored twice. `Corpus` indexes a local document collection in memory for
the researcher. Both rank by BM25.
"""

from __future__ import annotations

import re
import sqlite3
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from rapidfuzz import fuzz

__all__ = [
    "MEMORY_FILE",
    "SOLUTION_KIND",
    "STOP_WORDS",
    "Corpus",
    "Hit",
    "Memory",
    "StoredLesson",
    "fts_query",
]

MEMORY_FILE = "memory.sqlite3"
"""The one file of a memory folder."""
SOLUTION_KIND = "solution"
"""The kind of a verified solution (`roles.solutions`): recalled only when asked for."""
SAME_LESSON = 90.0
"""rapidfuzz token-set ratio at or above which two lessons of one kind are the same."""
_COLUMNS = ("text", "kind", "task_kind", "run_id", "source", "created", "goal")

_WORD = re.compile(r"[A-Za-z0-9]{3,}")
STOP_WORDS = frozenset(
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
        if w not in STOP_WORDS and w not in words:
            words.append(w)
    return " OR ".join(f'"{w}"' for w in words[:limit])


@dataclass(frozen=True)
class Hit:
    """One search result (``id``: the lesson's, for memory hits)."""

    text: str
    source: str
    kind: str = ""
    score: float = 0.0
    id: int = 0


@dataclass(frozen=True)
class StoredLesson:
    """One entry of long-term memory, with where it came from."""

    id: int
    text: str
    kind: str
    task_kind: str
    run_id: str
    source: str
    """The id of the message it was learned from."""
    created: float
    goal: str


class Memory:
    """Lessons and feedback that persist across runs (thread-safe, one SQLite file)."""

    def __init__(self, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.path = folder / MEMORY_FILE
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, check_same_thread=False)
        with self._lock, self._db:
            self._db.execute(
                "CREATE VIRTUAL TABLE IF NOT EXISTS lessons USING fts5(text, kind, task_kind, "
                "run_id UNINDEXED, source UNINDEXED, created UNINDEXED, goal UNINDEXED)"
            )
            columns = [r[1] for r in self._db.execute("PRAGMA table_info(lessons)")]
            if "goal" not in columns:  # a memory from before lessons named their goal
                self._db.execute("ALTER TABLE lessons RENAME TO lessons_old")
                self._db.execute(
                    "CREATE VIRTUAL TABLE lessons USING fts5(text, kind, task_kind, "
                    "run_id UNINDEXED, source UNINDEXED, created UNINDEXED, goal UNINDEXED)"
                )
                self._db.execute(
                    "INSERT INTO lessons(rowid, text, kind, task_kind, run_id, source, created, "
                    "goal) SELECT rowid, text, kind, task_kind, run_id, source, created, '' "
                    "FROM lessons_old"
                )
                self._db.execute("DROP TABLE lessons_old")

    def add(
        self,
        text: str,
        *,
        kind: str,
        task_kind: str = "",
        run_id: str = "",
        source: str = "",
        goal: str = "",
    ) -> int | None:
        """Store one lesson (or feedback); returns its id, or None when an equal one of the
        same kind is already kept."""
        with self._lock, self._db:
            kept = self._db.execute(
                "SELECT text FROM lessons WHERE kind = ? AND task_kind = ? "
                "ORDER BY rowid DESC LIMIT 1000",
                (kind, task_kind),
            ).fetchall()
            if any(fuzz.token_set_ratio(text, row[0]) >= SAME_LESSON for row in kept):
                return None
            cursor = self._db.execute(
                "INSERT INTO lessons(text, kind, task_kind, run_id, source, created, goal) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                (text, kind, task_kind, run_id, source, time.time(), goal),
            )
            return cursor.lastrowid

    def entries(self, *, kind: str | None = None, limit: int | None = None) -> list[StoredLesson]:
        """Every entry (newest first), or those of one ``kind``."""
        sql = f"SELECT rowid, {', '.join(_COLUMNS)} FROM lessons"
        args: list[object] = []
        if kind is not None:
            sql += " WHERE kind = ?"
            args.append(kind)
        sql += " ORDER BY rowid DESC"
        if limit is not None:
            sql += " LIMIT ?"
            args.append(limit)
        with self._lock:
            rows = self._db.execute(sql, args).fetchall()
        return [_stored(row) for row in rows]

    def get(self, lesson_id: int) -> StoredLesson | None:
        """One entry by id."""
        with self._lock:
            row = self._db.execute(
                f"SELECT rowid, {', '.join(_COLUMNS)} FROM lessons WHERE rowid = ?", (lesson_id,)
            ).fetchone()
        return None if row is None else _stored(row)

    def forget(self, lesson_id: int) -> bool:
        """Delete one entry; False when there is none with that id."""
        with self._lock, self._db:
            cursor = self._db.execute("DELETE FROM lessons WHERE rowid = ?", (lesson_id,))
            return cursor.rowcount > 0

    def search(
        self,
        query: str,
        k: int = 3,
        *,
        kind: str | None = None,
        before_run: str | None = None,
        near: Callable[[str], bool] | None = None,
    ) -> list[Hit]:
        """The ``k`` entries most relevant to ``query``: of ``kind``, or without one every
        lesson and feedback (verified solutions come only when asked for by their kind).
        With ``before_run``, only those of other runs (what a run learns reaches its own
        prompts through replans and retries, so that what it recalls never races with what
        it is learning, and replays exactly); with ``near``, only those whose goal it
        accepts (a relevance threshold: an unrelated goal recalls nothing)."""
        q = fts_query(query)
        if not q or k <= 0:
            return []
        # The source shown is the lesson's task kind, not its run id: prompts must not carry
        # ids that differ from run to run (replay matches requests by their content).
        sql = (
            "SELECT text, task_kind, kind, bm25(lessons), rowid, goal FROM lessons "
            "WHERE lessons MATCH ?"
        )
        args: list[object] = [q]
        if kind is not None:
            sql += " AND kind = ?"
            args.append(kind)
        else:
            sql += " AND kind != ?"
            args.append(SOLUTION_KIND)
        if before_run is not None:
            sql += " AND run_id != ?"
            args.append(before_run)
        sql += " ORDER BY bm25(lessons), rowid LIMIT ?"
        args.append(k if near is None else max(4 * k, 20))
        with self._lock:
            rows = self._db.execute(sql, args).fetchall()
        hits = [
            Hit(text=r[0], source=r[1] or "memory", kind=r[2], score=-float(r[3]), id=int(r[4]))
            for r in rows
            if near is None or near(str(r[5] or ""))
        ]
        return hits[:k]

    def count(self) -> int:
        """How many entries the memory holds."""
        with self._lock:
            return int(self._db.execute("SELECT count(*) FROM lessons").fetchone()[0])

    def close(self) -> None:
        """Close the database."""
        with self._lock:
            self._db.close()


def _stored(row: tuple[object, ...]) -> StoredLesson:
    rowid, text, kind, task_kind, run_id, source, created, goal = row
    return StoredLesson(
        id=int(str(rowid)),
        text=str(text),
        kind=str(kind),
        task_kind=str(task_kind or ""),
        run_id=str(run_id or ""),
        source=str(source or ""),
        created=float(str(created or 0)),
        goal=str(goal or ""),
    )


def _passages(chunk: str) -> list[str]:
    """A paragraph as one passage; a markdown table as one passage per row, each under
    the table's header, so a search finds the row without the whole table."""
    lines = chunk.strip().splitlines()
    if len(lines) < 4 or not all(line.lstrip().startswith("|") for line in lines):
        return [chunk.strip()]
    head = lines[:2] if set(lines[1].replace("|", "").strip()) <= set("-: ") else lines[:1]
    return ["\n".join([*head, row]) for row in lines[len(head) :]]


class Corpus:
    """A local document collection (text files), indexed by paragraph."""

    SUFFIXES = frozenset({".txt", ".md", ".rst", ".csv", ".json", ".yaml", ".yml", ".html"})

    def __init__(self, paths: list[Path]) -> None:
        self._db = sqlite3.connect(":memory:", check_same_thread=False)
        self._lock = threading.Lock()
        self._db.execute("CREATE VIRTUAL TABLE docs USING fts5(text, source UNINDEXED)")
        self.files = 0
        self.names: list[str] = []
        """The names of the files indexed, in order."""
        self.texts: dict[str, str] = {}
        """Each file's whole text by name (the coder's program reads them as files)."""
        for path in paths:
            for file in sorted(path.rglob("*")) if path.is_dir() else [path]:
                if file.is_file() and file.suffix.lower() in self.SUFFIXES:
                    self._index(file)

    def _index(self, file: Path) -> None:
        text = file.read_text(encoding="utf-8", errors="replace")
        chunks = [p for c in re.split(r"\n\s*\n", text) if c.strip() for p in _passages(c)]
        name = file.name if file.name not in self.texts else f"{file.parent.name}-{file.name}"
        self._db.executemany(
            "INSERT INTO docs(text, source) VALUES (?, ?)", [(c, name) for c in chunks]
        )
        self.files += 1
        self.names.append(name)
        self.texts.setdefault(name, text)

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
