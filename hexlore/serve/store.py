"""Saved games in SQLite: what a game is made of, never its state.

A game is its scenario (the server's name for it), seed, the player of each side ("person"
or a policy), its seats (secret tokens) and the list of answers given so far, one row per
answer, written as each is applied. The state is rebuilt by replaying the answers
(:mod:`.session`), so a process killed between two statements loses at most the answer being
written, and a restarted server shows every game where it was.

The stdlib driver is enough for this: one small schema, one writer (the server's event loop).
WAL mode lets the load benchmark and a second reader (an export) read while a game writes.
"""

from __future__ import annotations

import json
import sqlite3
import time
from dataclasses import dataclass, field
from pathlib import Path

SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id TEXT PRIMARY KEY, scenario TEXT NOT NULL, seed INTEGER NOT NULL,
    players TEXT NOT NULL, mode TEXT NOT NULL, created REAL NOT NULL);
CREATE TABLE IF NOT EXISTS seats (
    token TEXT PRIMARY KEY, game_id TEXT NOT NULL REFERENCES games(id), sides TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS answers (
    game_id TEXT NOT NULL REFERENCES games(id), seq INTEGER NOT NULL, side TEXT NOT NULL,
    option INTEGER NOT NULL, PRIMARY KEY (game_id, seq));
CREATE TABLE IF NOT EXISTS edits (
    game_id TEXT NOT NULL REFERENCES games(id), n INTEGER NOT NULL, at INTEGER NOT NULL, edit TEXT NOT NULL,
    PRIMARY KEY (game_id, n));
"""
#: columns added to a table since its first version (a database made before gets them, defaulted)
ADDED_COLUMNS = (("games", "designer", "INTEGER NOT NULL DEFAULT 0"),)


@dataclass
class GameRecord:
    """One saved game: enough to rebuild it exactly."""

    id: str
    scenario: str
    seed: int
    #: side -> "person" or a player's name (``greedy``, ``mcts:200``)
    players: dict[str, str]
    #: "hot-seat" (one seat plays every person side) or "remote" (a seat per person side)
    mode: str
    created: float = field(default_factory=time.time)
    #: (side, option index) of every decision answered, in order
    answers: list[tuple[str, int]] = field(default_factory=list)
    #: designer mode: the game may be edited (hexlore/runtime/engine/edits.py)
    designer: bool = False
    #: (answers given when it was made, the edit) of every designer's edit, in order
    edits: list[tuple[int, dict]] = field(default_factory=list)


class Store:
    """The games of one server, in one SQLite file (``:memory:`` for tests)."""

    def __init__(self, path: str | Path):
        self.db = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")  # WAL: a killed process loses nothing committed
        self.db.executescript(SCHEMA)
        for table, column, declaration in ADDED_COLUMNS:  # migration: an older file gains the new columns
            known = {row[1] for row in self.db.execute(f"PRAGMA table_info({table})")}
            if column not in known:
                self.db.execute(f"ALTER TABLE {table} ADD COLUMN {column} {declaration}")

    def close(self) -> None:
        self.db.close()

    def add_game(self, record: GameRecord, seats: dict[str, list[str]]) -> None:
        """Save a new game and its seats (token -> the sides it plays; [] for a spectator)."""
        with self.db:
            self.db.execute("BEGIN")
            self.db.execute("INSERT INTO games (id, scenario, seed, players, mode, created, designer) "
                            "VALUES (?, ?, ?, ?, ?, ?, ?)",
                            (record.id, record.scenario, record.seed, json.dumps(record.players), record.mode,
                             record.created, int(record.designer)))
            self.db.executemany("INSERT INTO seats VALUES (?, ?, ?)",
                                [(token, record.id, json.dumps(sides)) for token, sides in seats.items()])

    def add_answer(self, game_id: str, seq: int, side: str, option: int) -> None:
        self.db.execute("INSERT INTO answers VALUES (?, ?, ?, ?)", (game_id, seq, side, option))

    def add_edit(self, game_id: str, n: int, at: int, edit: dict) -> None:
        """Save a designer's edit, the ``n``-th, made after ``at`` answers."""
        self.db.execute("INSERT INTO edits VALUES (?, ?, ?, ?)", (game_id, n, at, json.dumps(edit)))

    def cut_answers(self, game_id: str, keep: int) -> None:
        """Forget every answer after the first ``keep`` (an undo), and the edits made after them."""
        with self.db:
            self.db.execute("BEGIN")
            self.db.execute("DELETE FROM answers WHERE game_id = ? AND seq >= ?", (game_id, keep))
            self.db.execute("DELETE FROM edits WHERE game_id = ? AND at > ?", (game_id, keep))

    def game(self, game_id: str) -> GameRecord | None:
        row = self.db.execute("SELECT id, scenario, seed, players, mode, created, designer FROM games WHERE id = ?",
                              (game_id,)).fetchone()
        if row is None:
            return None
        answers = self.db.execute("SELECT side, option FROM answers WHERE game_id = ? ORDER BY seq",
                                  (game_id,)).fetchall()
        edits = self.db.execute("SELECT at, edit FROM edits WHERE game_id = ? ORDER BY n", (game_id,)).fetchall()
        return GameRecord(row[0], row[1], row[2], json.loads(row[3]), row[4], row[5],
                          [(side, option) for side, option in answers], bool(row[6]),
                          [(at, json.loads(edit)) for at, edit in edits])

    def games(self) -> list[tuple[str, str, float, int]]:
        """(id, scenario, created, answers so far) of every game, newest first."""
        return self.db.execute(
            "SELECT g.id, g.scenario, g.created, (SELECT COUNT(*) FROM answers a WHERE a.game_id = g.id) "
            "FROM games g ORDER BY g.created DESC").fetchall()

    def seat(self, token: str) -> tuple[str, list[str]] | None:
        """(game id, sides) of a seat token, None for a token nobody was given."""
        row = self.db.execute("SELECT game_id, sides FROM seats WHERE token = ?", (token,)).fetchone()
        return None if row is None else (row[0], json.loads(row[1]))

    def seats(self, game_id: str) -> dict[str, list[str]]:
        rows = self.db.execute("SELECT token, sides FROM seats WHERE game_id = ?", (game_id,)).fetchall()
        return {token: json.loads(sides) for token, sides in rows}
