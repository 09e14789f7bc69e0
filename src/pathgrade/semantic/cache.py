"""A content-addressed embedding cache on disk, shared by later runs.

One SQLite file; the key of a string is ``sha256(model id + NUL + text)``, the value its
float32 unit vector. :meth:`EmbeddingCache.embed_all` embeds only the strings it does not
hold, each distinct string once, in batches, and counts what it computed
(``computed``) and what it found (``hits``).
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
from collections.abc import Iterable
from pathlib import Path

import numpy as np

from pathgrade.semantic.backends import Embedder, FloatMatrix, unit_rows

DEFAULT_DIR = Path("~/.cache/pathgrade/embeddings")


def default_cache_dir() -> Path:
    """``$XDG_CACHE_HOME/pathgrade/embeddings``, else ``~/.cache/pathgrade/embeddings``."""
    root = os.environ.get("XDG_CACHE_HOME")
    return Path(root) / "pathgrade" / "embeddings" if root else DEFAULT_DIR.expanduser()


def text_key(model_id: str, text: str) -> str:
    """The content address of ``text`` embedded by ``model_id``."""
    return hashlib.sha256(f"{model_id}\0{text}".encode()).hexdigest()


class EmbeddingCache:
    """Embeddings by content address in ``directory/embeddings.sqlite3``."""

    def __init__(self, directory: str | Path | None = None) -> None:
        self.directory = Path(directory) if directory is not None else default_cache_dir()
        self.directory.mkdir(parents=True, exist_ok=True)
        self.path = self.directory / "embeddings.sqlite3"
        self.computed = 0
        self.hits = 0
        with sqlite3.connect(self.path) as db:
            db.execute("CREATE TABLE IF NOT EXISTS vectors (key TEXT PRIMARY KEY, vec BLOB)")

    def __repr__(self) -> str:
        return f"EmbeddingCache({str(self.path)!r}, computed={self.computed}, hits={self.hits})"

    def embed_all(
        self, texts: Iterable[str], embedder: Embedder, batch: int = 4096
    ) -> tuple[dict[str, int], FloatMatrix]:
        """``(index, vectors)`` of every distinct string of ``texts`` (cached or computed)."""
        distinct = list(dict.fromkeys(texts))
        index = {text: i for i, text in enumerate(distinct)}
        keys = [text_key(embedder.id, text) for text in distinct]
        found: dict[str, bytes] = {}
        with sqlite3.connect(self.path) as db:
            for start in range(0, len(keys), 900):  # SQLite's bound-parameter limit
                chunk = keys[start : start + 900]
                marks = ",".join("?" * len(chunk))
                query = f"SELECT key, vec FROM vectors WHERE key IN ({marks})"
                found.update(db.execute(query, chunk).fetchall())
        missing = [i for i, key in enumerate(keys) if key not in found]
        self.hits += len(distinct) - len(missing)
        rows: dict[int, FloatMatrix] = {}
        for start in range(0, len(missing), batch):
            part = missing[start : start + batch]
            vectors = unit_rows(embedder.embed([distinct[i] for i in part]))
            self.computed += len(part)
            with sqlite3.connect(self.path) as db:
                db.executemany(
                    "INSERT OR REPLACE INTO vectors VALUES (?, ?)",
                    [
                        (keys[i], vectors[k].astype(np.float32).tobytes())
                        for k, i in enumerate(part)
                    ],
                )
            rows.update(zip(part, vectors, strict=True))
        if not distinct:
            return index, np.zeros((0, 1), np.float32)
        dim = next(iter(rows.values())).shape[0] if rows else len(next(iter(found.values()))) // 4
        matrix = np.empty((len(distinct), dim), np.float32)
        for i, key in enumerate(keys):
            row = rows.get(i)
            matrix[i] = row if row is not None else np.frombuffer(found[key], np.float32)
        return index, matrix
