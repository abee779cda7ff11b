"""Throughput of the pipeline, as ratios against baselines measured in the same run.

    python benchmarks/bench_pipeline.py

- compile: parse + build the AST + compile and check every bundled pack from its text (the
  parse cache cleared each time), against Lark's bare parse of the same text with the same
  configuration (the floor any Lark-based front end pays), as a ratio of throughputs;
- games: full seeded games of the bundled scenario per second, against the time to deep-copy
  the initial game state the same number of times (the floor of any simulation).
"""

from __future__ import annotations

import copy
import time
from pathlib import Path

from hexlore.api import open_scenario
from hexlore.compiler import compile_packs
from hexlore.dsl.parser import _parse_cached, lark_parser
from hexlore.runtime.engine.game import Game

ROOT = Path(__file__).resolve().parent.parent


def timed(fn, repeat: int) -> float:
    start = time.perf_counter()
    for _ in range(repeat):
        fn()
    return (time.perf_counter() - start) / repeat


def main() -> None:
    files = sorted((ROOT / "rules").rglob("*.lore"))
    lines = sum(f.read_text().count("\n") for f in files)
    texts = [f.read_text() for f in files]
    bare = timed(lambda: [lark_parser().parse(t) for t in texts], 20)

    def compile_from_text():
        _parse_cached.cache_clear()  # a parse is cached by text: measure the whole front end
        compile_packs([str(ROOT / "rules")])

    full = timed(compile_from_text, 20)
    print(f"compile: parse + compile + check of every bundled pack {lines / full:,.0f} lines/s; bare Lark "
          f"parse {lines / bare:,.0f} lines/s: {bare / full:.2f}x the throughput of Lark alone")
    loaded = open_scenario(str(ROOT / "scenarios" / "battlelore" / "spider_ford.yaml"))
    games = 30
    seeds = iter(range(10**6))
    play = timed(lambda: Game(loaded.rules, loaded.scenario, seed=next(seeds)).play(), games)
    state = Game(loaded.rules, loaded.scenario).state
    floor = timed(lambda: copy.deepcopy(state), games)
    print(f"games: {1 / play:,.1f} games/s ({play * 1000:.1f} ms each); "
          f"a game costs {play / floor:.0f}x one deep copy of its initial state")


if __name__ == "__main__":
    main()
