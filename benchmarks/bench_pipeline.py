"""Throughput of the pipeline, as ratios against baselines measured in the same run.

    python benchmarks/bench_pipeline.py

- compile: ``compile_packs(["rules"])``, i.e. read, parse, build the AST, compile and check
  every bundled pack (the parse cache cleared each time, so every file is parsed again),
  against ``lark_parser().parse(text)`` of the same files: the very Lark object hexlore
  parses with (LALR, contextual lexer, propagate_positions, placeholders), building Lark's
  own tree and nothing more. The two alternate round by round and the ratio is of the median
  rounds' throughputs (lines per second), so a load that comes and goes on a shared machine
  weighs on both sides; above 1 the whole front end outruns Lark alone. It can: a file without
  syntax errors is built into the AST while Lark parses it (``hexlore/dsl/direct.py``), so
  hexlore never makes the tree that Lark alone makes here;
- games: full seeded games of the bundled scenario per second, against the time to deep-copy
  the initial game state the same number of times (the floor of any simulation).
"""

from __future__ import annotations

import copy
import statistics
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


def alternating(first, second, rounds: int) -> tuple[float, float]:
    """Median seconds of one call of each, the two called in turn ``rounds`` times."""
    times: tuple[list[float], list[float]] = ([], [])
    for _ in range(rounds):
        for fn, out in ((first, times[0]), (second, times[1])):
            start = time.perf_counter()
            fn()
            out.append(time.perf_counter() - start)
    return statistics.median(times[0]), statistics.median(times[1])


def main() -> None:
    files = sorted((ROOT / "rules").rglob("*.lore"))
    lines = sum(f.read_text().count("\n") for f in files)
    texts = [f.read_text() for f in files]
    parser = lark_parser()

    def lark_alone():
        for text in texts:
            parser.parse(text)

    def compile_from_text():
        _parse_cached.cache_clear()  # a parse is cached by text: measure the whole front end
        compile_packs([str(ROOT / "rules")])

    bare, full = alternating(lark_alone, compile_from_text, 21)
    print(f"compile: read + parse + compile + check of the {len(files)} bundled pack files ({lines:,} lines) "
          f"{lines / full:,.0f} lines/s; Lark alone (same parser, its tree only) {lines / bare:,.0f} lines/s: "
          f"{bare / full:.2f}x the throughput of Lark alone (medians of 21 alternating rounds)")
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
