"""Digests of the event logs of every bundled scenario, for seeds 0..199 (issue 14).

The engine is rewritten for speed; the rules must not change. Every playable bundled
scenario is played with the random players for each seed, and the sha256 of its log (as
``hexlore run --seed N`` writes it) is kept in ``tests/fixtures/golden_logs.json``. The file
was recorded on the revision before the engine work; ``tests/test_golden_logs.py`` replays
the seeds and compares. To record again (only when a rule changes on purpose)::

    python tests/golden_logs.py --record [--workers 2]

or, for a new scenario or one whose rules change on purpose, keeping every other digest::

    python tests/golden_logs.py --record --only scenarios/PACK/NAME.yaml
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = ROOT / "tests" / "fixtures" / "golden_logs.json"
SEEDS = 200
#: hex digits kept of each sha256: 48 bits, ample to tell a changed log from the recorded one
DIGITS = 12


def playable_scenarios() -> list[str]:
    """Bundled scenarios with a game to play, as paths relative to the repository."""
    from hexlore import api

    found = []
    for path in sorted((ROOT / "scenarios").rglob("*.yaml")):
        if "schema" in path.parts or path.name.endswith((".campaign.yaml", ".sheet.yaml")):
            continue
        loaded = api.open_scenario(str(path))
        if loaded.ok and loaded.rules.game is not None:
            found.append(path.relative_to(ROOT).as_posix())
    return found


def log_digests(scenario: str, seeds: range, resumable: bool = False) -> list[str]:
    """The digest of each seed's log, as ``hexlore run`` writes it (``resumable``: played by the
    resumable form of the rules, hexlore/runtime/engine/resume.py)."""
    from hexlore import api
    from hexlore.runtime.engine.game import Game, RuntimeRuleError

    loaded = api.open_scenario(str(ROOT / scenario))
    out = []
    for seed in seeds:
        log = io.StringIO()
        try:
            Game(loaded.rules, loaded.scenario, seed=seed, log_file=log).play(None, resumable=resumable)
        except RuntimeRuleError as exc:
            log.write(f"rule error: {exc.diagnostic.headline()}\n")
        out.append(hashlib.sha256(log.getvalue().encode("utf-8")).hexdigest()[:DIGITS])
    return out


def recorded() -> dict[str, list[str]]:
    """The recorded digests: scenario -> one digest per seed."""
    data = json.loads(FIXTURE.read_text(encoding="utf-8"))
    return {scenario: joined.split() for scenario, joined in data["logs"].items()}


def _one(scenario: str) -> tuple[str, list[str]]:
    return scenario, log_digests(scenario, range(SEEDS))


def record(workers: int, only: list[str] | None = None) -> dict[str, list[str]]:
    """The digests of every playable scenario; with ``only``, of those scenarios, the others
    kept as recorded (a new scenario, or one whose rules changed on purpose)."""
    scenarios = playable_scenarios()
    if only:
        unknown = sorted(set(only) - set(scenarios))
        if unknown:
            raise SystemExit(f"not playable bundled scenarios: {', '.join(unknown)}")
        scenarios = list(only)
    with ProcessPoolExecutor(workers) as pool:
        fresh = dict(pool.map(_one, scenarios))
    return {**recorded(), **fresh} if only else fresh


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--record", action="store_true", help="write tests/fixtures/golden_logs.json")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--only", nargs="+", metavar="SCENARIO",
                        help="record these scenarios only (paths as in the fixture), keeping the others")
    args = parser.parse_args()
    if not args.record:
        parser.print_help()
        return 2
    digests = record(args.workers, args.only)
    FIXTURE.write_text(json.dumps({"seeds": SEEDS, "digits": DIGITS,
                                   "logs": {k: " ".join(v) for k, v in sorted(digests.items())}},
                                  indent=1) + "\n", encoding="utf-8")
    print(f"recorded {len(digests)} scenarios x {SEEDS} seeds in {FIXTURE.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    sys.exit(main())
