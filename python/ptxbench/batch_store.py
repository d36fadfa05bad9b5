"""The submissions of a batch run (JSON Lines) and the SQLite store of their verdicts, for the Ray
runner (ray_cluster.py). No Ray here: reading, checking and storing are plain Python.

Input, one JSON object per line: {"id": str, "task": str, "code": str, "tier": "full"|"quick"}
("tier" optional, the run's default otherwise). Every line is checked before anything runs; a
bad file is refused whole with every problem named (InputError), so nothing is half-done.

Store: one row per submission id in `evaluations`, written once by the driver (the only writer);
a rerun skips the ids already there unless their outcome is `unavailable` and the caller asks to
retry those. An id stored with other task, tier or code is refused (InputError): ids name code.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

TIERS = ("full", "quick")
SCHEMA = """
CREATE TABLE IF NOT EXISTS evaluations (
  id TEXT PRIMARY KEY,
  task TEXT NOT NULL,
  tier TEXT NOT NULL,
  source_sha256 TEXT NOT NULL,
  outcome TEXT NOT NULL,
  reason TEXT NOT NULL,
  stage TEXT NOT NULL,        -- 'static' (final after the CPU stage), 'gpu', or 'error'
  node TEXT NOT NULL,         -- the Ray node that gave the verdict ('' for 'error')
  seconds REAL NOT NULL,      -- wall time of the stage that gave the verdict
  verdict TEXT NOT NULL,      -- the full verdict JSON (names hidden shapes: operator only)
  feedback TEXT NOT NULL,     -- what a model may be shown (hidden shapes redacted)
  finished REAL NOT NULL      -- Unix time
);
CREATE TABLE IF NOT EXISTS batch_runs (
  started REAL NOT NULL,
  finished REAL,
  submissions INTEGER NOT NULL,
  judged INTEGER,
  cluster TEXT NOT NULL       -- JSON: Ray nodes and resources, the ptxbench executable
);
"""


class InputError(ValueError):
    """A submissions file or a store that cannot be used as given; the message names why."""


@dataclass(frozen=True)
class Submission:
    id: str
    task: str
    code: str
    tier: str

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.code.encode()).hexdigest()

    def as_dict(self) -> dict[str, str]:
        return {"id": self.id, "task": self.task, "code": self.code, "tier": self.tier}


def read_submissions(path: str | Path, *, default_tier: str = "full",
                     known_tasks: set[str] | None = None) -> list[Submission]:
    """Every submission of a JSON Lines file; InputError listing each bad line (at most 20)."""
    if default_tier not in TIERS:
        raise InputError(f"unknown tier {default_tier!r}: 'full' or 'quick'")
    problems: list[str] = []
    out: list[Submission] = []
    seen: set[str] = set()
    try:
        lines = Path(path).read_text().splitlines()
    except (OSError, UnicodeDecodeError) as e:
        raise InputError(f"{path}: cannot read: {e}") from None
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        where = f"{path}:{number}"
        try:
            row = json.loads(line)
        except json.JSONDecodeError as e:
            problems.append(f"{where}: not JSON ({e.msg})")
            continue
        if not isinstance(row, dict):
            problems.append(f"{where}: not a JSON object")
            continue
        missing = [k for k in ("id", "task", "code") if not isinstance(row.get(k), str)]
        if missing:
            problems.append(f"{where}: missing or non-string {', '.join(missing)}")
            continue
        tier = row.get("tier", default_tier)
        if tier not in TIERS:
            problems.append(f"{where}: unknown tier {tier!r}")
        elif known_tasks is not None and row["task"] not in known_tasks:
            problems.append(f"{where}: unknown task {row['task']!r}")
        elif not row["id"]:
            problems.append(f"{where}: empty id")
        elif row["id"] in seen:
            problems.append(f"{where}: id {row['id']!r} repeated")
        else:
            seen.add(row["id"])
            out.append(Submission(row["id"], row["task"], row["code"], tier))
    if problems:
        shown = problems[:20] + ([f"... and {len(problems) - 20} more"] if len(problems) > 20
                                 else [])
        raise InputError("bad submissions file:\n  " + "\n  ".join(shown))
    return out


class BatchStore:
    """The SQLite store of a batch run (WAL, synchronous FULL: a verdict stored survives a
    crash)."""

    def __init__(self, path: str | Path):
        self.db = sqlite3.connect(str(path))
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=FULL")
        self.db.executescript(SCHEMA)

    def close(self) -> None:
        self.db.close()

    def to_judge(self, submissions: list[Submission], *, retry_unavailable: bool
                 ) -> list[Submission]:
        """The submissions without a stored verdict (or with `unavailable`, when retried);
        InputError when a stored id has other task, tier or code."""
        todo: list[Submission] = []
        clashes: list[str] = []
        for s in submissions:
            row = self.db.execute(
                "SELECT task, tier, source_sha256, outcome FROM evaluations WHERE id = ?",
                (s.id,)).fetchone()
            if row is None:
                todo.append(s)
            elif tuple(row[:3]) != (s.task, s.tier, s.sha256):
                clashes.append(s.id)
            elif retry_unavailable and row[3] == "unavailable":
                todo.append(s)
        if clashes:
            raise InputError(f"{len(clashes)} id(s) stored earlier with other task, tier or code "
                             f"(e.g. {clashes[0]!r}): use new ids or another store")
        return todo

    def put(self, s: Submission, *, verdict: dict[str, Any], feedback: str, stage: str,
            node: str, seconds: float) -> None:
        self.db.execute(
            "INSERT OR REPLACE INTO evaluations VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
            (s.id, s.task, s.tier, s.sha256, str(verdict.get("outcome", "unavailable")),
             str(verdict.get("reason", "")), stage, node, float(seconds), json.dumps(verdict),
             feedback, time.time()))
        self.db.commit()

    def begin_run(self, submissions: int, cluster: dict[str, Any]) -> int:
        cur = self.db.execute("INSERT INTO batch_runs (started, submissions, cluster) "
                              "VALUES (?,?,?)", (time.time(), submissions, json.dumps(cluster)))
        self.db.commit()
        return int(cur.lastrowid)

    def end_run(self, run: int, judged: int) -> None:
        self.db.execute("UPDATE batch_runs SET finished = ?, judged = ? WHERE rowid = ?",
                        (time.time(), judged, run))
        self.db.commit()

    def outcomes(self) -> dict[str, int]:
        return dict(self.db.execute(
            "SELECT outcome, COUNT(*) FROM evaluations GROUP BY outcome").fetchall())
