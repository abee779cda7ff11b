"""Replay pages from a game being played (``run --html``) or from a log played again (``replay``).

``hexlore replay`` needs the scenario, seed and policies the log was made with: the log does
not name them, and it stays as it is (a header line would change every recorded log). It plays
the game again and refuses a log the game does not write line for line, so the page never shows
positions of a different game. A log that stops early (an abandoned game) is a prefix of the
replayed game's and gets the steps it has. Games a person played (``human``) or a search on a
time budget (``mcts:0.5s``) decided cannot be played again the same way.

A replay is bounded like the game (hexlore/runtime/analysis/output_budget.py): the recorder
stops at its budget and :func:`recording_of` then raises ``OutputTooLarge``, which
:func:`play_recorded`, :func:`replay_log` and :func:`page_of` let through to the command.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import IO

from ..look import look_of
from ..runtime.analysis.output_budget import check_page
from .page import replay_html
from .record import Recorder, Recording, recording_of


class ReplayMismatch(Exception):
    """The log is not the one the scenario, seed and policies give (its first differing line)."""


@dataclass
class Replay:
    html: str
    recording: Recording


def title_of(loaded, seed: int | None) -> str:
    used = loaded.scenario.seed if seed is None else seed
    return f"{loaded.scenario.name} (seed {used})"


def play_recorded(loaded, seed: int | None = None, policies: dict | None = None, max_rounds: int | None = None,
                  log_file: IO[str] | None = None):
    """Play ``loaded`` (api.open_scenario) noting every position; returns (result, Recording,
    diagnostics, sources). ``result`` is None when a rule failed (the recording then ends there)."""
    from .. import api

    recorder = Recorder()
    result, diagnostics, sources = api.run(loaded, seed=seed, log_file=log_file, max_rounds=max_rounds,
                                           policies=policies, recorder=recorder)
    if recorder.state is None:  # refused before playing
        return result, None, diagnostics, sources
    return result, recording_of(recorder, title_of(loaded, seed)), diagnostics, sources


def rules_at(rules, origins: list) -> list:
    """For each entry's origin (file, line, column): [what made it, the file, the line] — the
    innermost procedure, trigger or function of ``rules`` whose declaration holds that line
    ("rules" when none does: a game block) — or None for an entry no rule made."""
    declared = [(f"{what} {spec.name}", spec.origin) for what, table in (
        ("procedure", rules.procedures.values()), ("function", rules.functions.values()),
        ("trigger", rules.triggers)) for spec in table]
    by_file: dict[str, list] = {}
    for label, origin in declared:
        by_file.setdefault(origin.file, []).append((origin.span.end_line - origin.span.line, origin.span, label))
    for spans in by_file.values():
        spans.sort(key=lambda item: item[0])  # innermost first
    out: list[list | None] = []
    for origin in origins:
        if origin is None:
            out.append(None)
            continue
        file, line, _ = origin
        label = next((label for _, span, label in by_file.get(file, ()) if span.line <= line <= span.end_line), "rules")
        out.append([label, file, line])
    return out


def page_of(loaded, recording: Recording) -> str:
    """The page, in the look of the scenario's packs (hexlore/look.py; LookError if it is bad),
    if it fits MAX_PAGE_BYTES (OutputTooLarge, S128, if not; a board too large to draw, S127)."""
    return check_page(replay_html(recording, look_of(loaded.rules), rules_at(loaded.rules, recording.origins)))


def replay_log(log_lines: list[str], loaded, seed: int | None = None, policies: dict | None = None,
               max_rounds: int | None = None) -> Replay:
    """The page of a recorded log, by playing its game again and checking every line."""
    result, recording, diagnostics, _ = play_recorded(loaded, seed, policies, max_rounds)
    if recording is None:
        raise ReplayMismatch("the scenario could not be played: " + "; ".join(d.headline() for d in diagnostics))
    played = recording.lines
    for number, line in enumerate(log_lines, 1):
        if number > len(played):
            raise ReplayMismatch(f"line {number}: the replayed game ended after {len(played)} entries; "
                                 "is this the log of this scenario, seed and policies?")
        if played[number - 1].rstrip("\n") != line.rstrip("\n"):
            raise ReplayMismatch(f"line {number} differs from the replayed game's: is this the log of this "
                                 "scenario, seed and policies?\n  log:      " + line.rstrip("\n")[:200] +
                                 "\n  replayed: " + played[number - 1].rstrip("\n")[:200])
    kept = len(log_lines)
    recording.lines = played[:kept]
    recording.frames = recording.frames[:kept + 1]
    recording.origins = recording.origins[:kept]
    recording.terrain_changes = {k: v for k, v in recording.terrain_changes.items() if k <= kept}
    recording.offered = {k: v for k, v in recording.offered.items() if k < kept}
    return Replay(page_of(loaded, recording), recording)
