"""Snapshots of a game state, restored *in place* so one linked game can replay many times.

Building a :class:`~hexlore.runtime.engine.game.Game` links every rule into closures and sets up every
hex; the odds engine and Monte Carlo run one short action thousands of times, so they keep one
game and put its state back before each run. Restoring in place matters: the linked rules and
the built-in primitives hold references to the state's objects (units, sides, dicts), which
must stay the same objects. Values inside fields are copied where mutable (lists, dicts) and
shared where immutable or identities (units, sides, hexes, definitions, faces).
"""

from __future__ import annotations

from dataclasses import dataclass

from hexlore.runtime.engine.game import Game
from hexlore.runtime.engine.policies import Script
from hexlore.runtime.engine.core.state import GameState, Side


def copy_value(value):
    if isinstance(value, list):
        return [copy_value(v) for v in value]
    if isinstance(value, dict):
        return {k: copy_value(v) for k, v in value.items()}
    return value


def _refill(target: dict, saved: dict) -> None:
    if target != saved:  # most dicts are untouched by a short action: comparing is cheaper than copying
        target.clear()
        target.update({k: copy_value(v) for k, v in saved.items()})


@dataclass
class StateSnapshot:
    units: dict
    sides: list
    hex_fields: dict
    game: dict
    occupants: dict
    winner: Side | None
    over: bool

    @staticmethod
    def take(state: GameState) -> "StateSnapshot":
        return StateSnapshot(
            units={uid: (u.hex, u.alive, copy_value(u.f)) for uid, u in state.units.items()},
            sides=[copy_value(s.f) for s in state.sides],
            hex_fields={h: copy_value(f) for h, f in state.hex_fields.items()},
            game=copy_value(state.game),
            occupants={h: list(us) for h, us in state.occupants.items() if us},
            winner=state.winner, over=state.over)

    def restore(self, state: GameState) -> None:
        for uid, (h, alive, f) in self.units.items():
            u = state.units[uid]
            u.hex, u.alive = h, alive
            _refill(u.f, f)
        for side, f in zip(state.sides, self.sides):
            _refill(side.f, f)
        if state.hex_fields != self.hex_fields:  # one C-level comparison in the usual, untouched case
            for h, f in self.hex_fields.items():
                _refill(state.hex_fields[h], f)
        _refill(state.game, self.game)
        state.occupants.clear()
        state.occupants.update({h: list(us) for h, us in self.occupants.items()})
        state.winner, state.over = self.winner, self.over


class Replayer:
    """One game, reset to the same start before each run with fresh dice, policies and log.

    ``reset`` puts back everything a run changes (from the state's journal: only what the run
    changed), so a run on the replayer logs exactly what a run on a new ``Game`` with the same
    seed would (a test compares the two).
    """

    def __init__(self, game: Game, decisions: dict, policies: dict[str, str]):
        self.game = game
        self.decisions = decisions
        self.policy_names = policies
        self.start = game.state.mark()
        self.shuffled = dict(game.shuffled)
        game.keep_log(defer_labels=True)  # a run's entries are read through game.log, if at all

    def reset(self, roller, seed: int = 0) -> Game:
        """The game at the start again, as a new game of ``seed`` rolling ``roller`` would be
        (each run of the action may spend a game's whole budget)."""
        self.game.begin_again(self.start, self.shuffled, seed, roller, Script(copy_value(self.decisions)),
                              self.policy_names)
        return self.game
