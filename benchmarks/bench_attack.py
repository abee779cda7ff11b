"""One BattleLore melee attack through the runtime, against the same attack written by hand.

    python benchmarks/bench_attack.py [--attacks 3000]

A blue foot unit attacks a red one on the BattleLore board under the real ``battlelore.core``
pack: the battle dice (helmets of the target's colour and bonus strikes hit, lore symbols go
to the pool), figures lost, elimination and its victory banner, flags and the retreat toward
the own edge (a blocked hex costs a figure), and the battle back of a target that held its
hex. Both sides take the first option of every decision, as the ``first`` policy does.

- runtime: one linked game reset to the start (``Replayer``, as the odds engine does) and
  ``melee_attack`` called with a fresh seeded roller;
- state reset alone: the same reset with no attack, the floor of the runtime's way;
- hand-written: a plain Python function of the same attack on plain objects, rolling the
  same seeded dice the same way (``random.Random("hexlore-dice:SEED")``, canonical order).

Before timing, every seed's outcome (figures, hexes, lore, banners of both units and sides)
is compared between the two: the benchmark stops if they ever disagree. Times are medians of
five rounds of ``--attacks`` attacks; the ratios are the figures to quote.

``--instructions`` counts CPU instructions instead (valgrind's callgrind, which a shared
machine's load does not change): each way runs in its own process for 0 and for ``--attacks``
attacks, and the difference divided by the attacks is its cost per attack.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from hexlore.api import open_scenario
from hexlore.runtime.engine.dice import Roller
from hexlore.runtime.engine.game import Game
from hexlore.runtime.engine.snapshot import Replayer
from hexlore.runtime.geometry.grid import Board

SCENARIO = """hexlore: 1
name: one melee attack
packs: [battlelore.core]
board: {shape: battlelore}
sides:
  - {name: north, edge: top, policy: first}
  - {name: south, edge: bottom, policy: first}
units:
  - {id: attacker, type: foot_blue, side: north, hex: F5}
  - {id: target, type: foot_red, side: south, hex: F6}
"""

# ---------------------------------------------------------------- the attack by hand
COLOUR_OF_FACE = ("green", "blue", "red")  # faces 0-2 are helmets; 3 flag, 4 bonus strike, 5 lore
FLAG, BONUS, LORE = 3, 4, 5
STANDARD_DICE = {"green": 2, "blue": 3, "red": 4}


@dataclass
class Side:
    edge: str
    lore: int = 0
    banners: int = 0


@dataclass
class Unit:
    side: Side
    banner: str
    counts_bonus_strike: bool
    hex: object
    figures: int = 4
    alive: bool = True


def _lose(u: Unit, n: int, by: Unit, occupied: dict) -> None:
    u.figures -= min(n, u.figures)
    if u.figures <= 0:
        u.alive = False
        del occupied[u.hex]
        u.hex = None
        by.side.banners += 1


def _retreat(u: Unit, hexes: int, by: Unit, board: Board, occupied: dict) -> None:
    moved = 0
    for _ in range(hexes):
        open_hexes = [h for h in board.toward_edge(u.hex, u.side.edge) if h not in occupied]
        if not open_hexes:
            break
        del occupied[u.hex]
        u.hex = open_hexes[0]
        occupied[u.hex] = u
        moved += 1
    if moved < hexes:
        _lose(u, hexes - moved, by, occupied)


def _strike(attacker: Unit, target: Unit, rng: random.Random, board: Board, occupied: dict) -> bool:
    """Roll and resolve one strike; True if the target was forced to retreat."""
    faces = sorted(rng.randrange(6) for _ in range(STANDARD_DICE[attacker.banner]))
    attacker.side.lore += faces.count(LORE)
    hits = sum(1 for f in faces if f < FLAG and COLOUR_OF_FACE[f] == target.banner)
    if attacker.counts_bonus_strike:
        hits += faces.count(BONUS)
    if hits:
        _lose(target, hits, attacker, occupied)
    flags = faces.count(FLAG)
    if target.alive and flags:
        _retreat(target, flags, attacker, board, occupied)
        return True
    return False


def melee_by_hand(attacker: Unit, target: Unit, seed: int, board: Board, occupied: dict) -> None:
    rng = random.Random(f"hexlore-dice:{seed}")
    start = target.hex
    forced = _strike(attacker, target, rng, board, occupied)
    if target.alive and attacker.alive and target.hex == start and not forced:
        _strike(target, attacker, rng, board, occupied)


def fresh_by_hand(board: Board) -> tuple[Unit, Unit, dict]:
    north, south = Side("top"), Side("bottom")
    attacker = Unit(north, "blue", True, board.parse_label("F5"))
    target = Unit(south, "red", True, board.parse_label("F6"))
    return attacker, target, {attacker.hex: attacker, target.hex: target}


def outcome_by_hand(attacker: Unit, target: Unit, board: Board) -> tuple:
    return tuple((u.figures, u.alive, board.label(u.hex) if u.hex else None, u.side.lore, u.side.banners)
                 for u in (attacker, target))


# ---------------------------------------------------------------- the attack through the runtime
class RuntimeAttack:
    def __init__(self, folder: Path):
        path = folder / "attack.yaml"
        path.write_text(SCENARIO, encoding="utf-8")
        loaded = open_scenario(str(path))
        assert loaded.ok, [d.headline() for d in loaded.diagnostics]
        game = Game(loaded.rules, loaded.scenario, seed=0)
        self.replayer = Replayer(game, {}, {"north": "first", "south": "first"})
        self.attacker, self.target = game.state.units["attacker"], game.state.units["target"]

    def reset(self, seed: int) -> Game:
        return self.replayer.reset(Roller(seed), seed)

    def attack(self, seed: int) -> Game:
        game = self.reset(seed)
        game.guarded(game.call_procedure, "melee_attack", [self.attacker, self.target])
        return game

    def outcome(self, game: Game) -> tuple:
        board = game.state.board
        return tuple((u.f["figures"], u.alive, board.label(u.hex) if u.hex else None, u.side.f["lore"],
                      u.side.f["banners"]) for u in (self.attacker, self.target))


def _median_seconds(run, attacks: int) -> float:
    rounds = []
    for _ in range(5):
        start = time.perf_counter()
        run(attacks)
        rounds.append((time.perf_counter() - start) / attacks)
    return statistics.median(rounds)


def _only(way: str, attacks: int) -> None:
    """Play ``attacks`` attacks one way only (a child process measured by callgrind)."""
    board = Board.battlelore()
    with tempfile.TemporaryDirectory() as folder:
        runtime = RuntimeAttack(Path(folder))
        runtime.attack(10**6)  # anything done once (memo plans, labels) is done before counting
        for seed in range(attacks):
            if way == "hand-written":
                attacker, target, occupied = fresh_by_hand(board)
                melee_by_hand(attacker, target, seed, board, occupied)
            elif way == "runtime":
                runtime.attack(seed)
            else:
                runtime.reset(seed)


def _instructions(way: str, attacks: int) -> int:
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "callgrind.out"
        # one hash seed for every process: string hashing and set order then cost the same each time
        subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", sys.executable, __file__,
                        "--only", way, "--attacks", str(attacks)], check=True, capture_output=True,
                       env={**os.environ, "PYTHONHASHSEED": "0"})
        total = re.search(r"^totals:\s+(\d+)", out.read_text(), re.M) or re.search(r"^summary:\s+(\d+)",
                                                                                   out.read_text(), re.M)
        return int(total.group(1))


def instructions(attacks: int) -> None:
    print(f"instructions per attack (callgrind; {attacks:,} attacks less none, each way in its own process)")
    per = {}
    for way in ("hand-written", "runtime", "state reset alone"):
        per[way] = (_instructions(way, attacks) - _instructions(way, 0)) / attacks
    for way, n in per.items():
        print(f"{way:20} {n:12,.0f}  {n / per['hand-written']:6.1f}x hand-written")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--attacks", type=int, default=3000)
    parser.add_argument("--instructions", action="store_true", help="count instructions with valgrind instead")
    parser.add_argument("--only", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.only:
        return _only(args.only, args.attacks)
    if args.instructions:
        return instructions(args.attacks)
    board = Board.battlelore()
    with tempfile.TemporaryDirectory() as folder:
        runtime = RuntimeAttack(Path(folder))
        for seed in range(args.attacks):
            by_hand = fresh_by_hand(board)
            melee_by_hand(*by_hand[:2], seed, board, by_hand[2])
            expected = outcome_by_hand(by_hand[0], by_hand[1], board)
            actual = runtime.outcome(runtime.attack(seed))
            assert actual == expected, f"seed {seed}: runtime {actual} != by hand {expected}"

        def run_runtime(n):
            for seed in range(n):
                runtime.attack(seed)

        def run_reset(n):
            for seed in range(n):
                runtime.reset(seed)

        def run_by_hand(n):
            for seed in range(n):
                attacker, target, occupied = fresh_by_hand(board)
                melee_by_hand(attacker, target, seed, board, occupied)

        timed = {"hand-written": _median_seconds(run_by_hand, args.attacks),
                 "runtime": _median_seconds(run_runtime, args.attacks),
                 "state reset alone": _median_seconds(run_reset, args.attacks)}
    hand = timed["hand-written"]
    print(f"{args.attacks:,} attacks, outcomes equal for every seed")
    for name, seconds in timed.items():
        print(f"{name:20} {seconds * 1e6:8.1f} us  {seconds / hand:6.1f}x hand-written")
    print(f"{'runtime - reset':20} {(timed['runtime'] - timed['state reset alone']) * 1e6:8.1f} us  "
          f"{(timed['runtime'] - timed['state reset alone']) / hand:6.1f}x hand-written")


if __name__ == "__main__":
    main()
