"""A search's futures keep what the memo knew at the root (issue 32, item 5).

Each future of a search is played from one point and put back there (``Game.exploring``). The
memo keeps, from one future to the next, every table that reads nothing a future changed
(:meth:`Memo.mark`, :meth:`Memo.back`): the step costs of the ford are then worked out once a
search rather than once a future. What is kept must be what would be worked out again: the
same games, byte for byte, as futures that each start from an empty memo, and as no memo.
"""

from __future__ import annotations

import io
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import ROOT
from hexlore.api import open_scenario
from hexlore.runtime.engine.game import Game
from hexlore.runtime.engine.core.memo import POSITIONS, Memo
from hexlore.runtime.geometry.grid import Hex

PUZZLES = ROOT / "tests" / "fixtures" / "search"
SCENARIOS = ROOT / "scenarios"


@pytest.fixture(scope="module")
def ford():
    loaded = open_scenario(str(SCENARIOS / "battlelore" / "spider_ford.yaml"))
    assert loaded.ok
    return loaded


def test_back_forgets_what_reads_a_change_since_the_mark_and_keeps_the_rest(ford):
    memo = Game(ford.rules, ford.scenario).memo
    moved, still = tables_of(memo)
    moved["root"] = still["root"] = 1
    mark = memo.mark()
    memo.forgetter(POSITIONS)()  # a unit moved in a future...
    moved["future"] = still["future"] = 2  # ...and the future worked things out after it
    memo.back(mark)  # the unit is back where it stood at the mark
    assert moved == {} and still == {"root": 1, "future": 2}
    moved["again"] = 3
    memo.back(mark)  # nothing changed in this future: everything is kept
    assert moved == {"again": 3} and still == {"root": 1, "future": 2}


def test_back_forgets_everything_after_a_change_of_anything_or_from_an_old_mark(ford):
    memo = Game(ford.rules, ford.scenario).memo
    moved, still = tables_of(memo)
    mark = memo.mark()
    still["x"] = 1
    memo.clear()  # what a change of anything does
    still["y"] = 2
    memo.back(mark)
    assert still == {}
    old = memo.mark()
    memo.mark()  # another fork since: what changed since the first is not known
    still["z"] = moved["z"] = 3
    memo.back(old)
    assert still == {} and moved == {}


def test_a_deck_dealt_again_forgets_what_may_read_its_order(ford):
    """A search deals every shuffled list anew at the start of each future (Game.deal_again):
    what the memo knew of their order must not reach the next future."""
    game = Game(ford.rules, ford.scenario)
    memo = game.memo
    may_read_lists = memo.table("test: lists", ("a function whose reads are unknown",), positions=False)
    _, still = tables_of(memo)
    mark = memo.mark()
    may_read_lists["top"] = still["top"] = "ace"
    deck = ["ace", "king", "queen", "jack"]
    game.shuffled = {id(deck): deck}
    game.deal_again(random.Random(1))
    memo.back(mark)
    assert may_read_lists == {} and still == {"top": "ace"}


def tables_of(memo: Memo) -> tuple[dict, dict]:
    """A table that reads where the units stand, and one that reads nothing."""
    return memo.table("test: positions", ()), memo.table("test: nothing", (), positions=False)


def log_of(path, policies: dict, seed: int, how: str, monkeypatch, max_rounds: int | None = None) -> str:
    """The log of one game, its futures keeping the memo (``kept``), starting each from an empty
    one (``cleared``, as before), or with no memo at all (``none``)."""
    loaded = open_scenario(str(path))
    assert loaded.ok, [d.headline() for d in loaded.diagnostics]
    with monkeypatch.context() as patch:
        if how == "cleared":
            patch.setattr(Memo, "back", lambda memo, mark: memo.clear())
        out = io.StringIO()
        game = Game(loaded.rules, loaded.scenario, seed=seed, log_file=out, policies=dict(policies))
        game.memoise = how != "none"
        game.play(max_rounds)
    return out.getvalue()


@pytest.mark.parametrize("scenario, policies, seed", [
    ("battlelore/spider_ford.yaml", {"north": "mcts:12", "south": "greedy"}, 100),
    ("tickclock/ruins.yaml", {"dawn": "mcts:12", "dusk": "mcts:12"}, 100),
    ("skirmish/village_raid.yaml", {"north": "greedy", "south": "mcts:12"}, 4),
    ("westeros/skirmish.yaml", {"stark": "mcts:12", "lannister": "greedy"}, 7),
], ids=lambda v: v if isinstance(v, str) else None)
def test_futures_that_keep_the_memo_play_the_same_game_as_futures_that_do_not(scenario, policies, seed, monkeypatch):
    path = SCENARIOS / scenario
    kept = log_of(path, policies, seed, "kept", monkeypatch, max_rounds=2)
    assert '"by":' in kept
    assert kept == log_of(path, policies, seed, "cleared", monkeypatch, max_rounds=2)
    assert kept == log_of(path, policies, seed, "none", monkeypatch, max_rounds=2)


@pytest.mark.parametrize("seed", range(4))
def test_a_deck_dealt_again_in_each_future_is_not_answered_from_the_memo(seed, monkeypatch):
    """The guessing puzzle shuffles a deck that the searching side names the top card of: each
    future deals it anew, and what the memo knew of its order must be forgotten then."""
    policies = {"north": "mcts:40"}
    kept = log_of(PUZZLES / "guess.yaml", policies, seed, "kept", monkeypatch)
    assert kept == log_of(PUZZLES / "guess.yaml", policies, seed, "cleared", monkeypatch)
    assert kept == log_of(PUZZLES / "guess.yaml", policies, seed, "none", monkeypatch)


@pytest.fixture(scope="module")
def ruins_within():
    loaded = open_scenario(str(SCENARIOS / "tickclock" / "ruins.yaml"))
    assert loaded.ok
    game = Game(loaded.rules, loaded.scenario)
    return game.builtins["within"], game.state.board


@settings(max_examples=200, deadline=None)
@given(q=st.integers(-12, 12), r=st.integers(-12, 12), n=st.integers(-2, 9), times=st.integers(1, 3))
def test_the_within_kept_per_board_is_the_within_worked_out(ruins_within, q, r, n, times):
    """``within`` keeps its answers per board (a search's futures ask the same areas): each call
    answers what the board works out, in the same order, as a list the caller may change."""
    within, board = ruins_within
    expected = board.within(Hex(q, r), n)
    for _ in range(times):
        found = within(Hex(q, r), n)
        assert found == expected and found.__class__ is list
        found.append(None)  # the caller's own list: the next answer is not changed
