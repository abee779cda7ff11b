"""Balance sweeps: many seeded games of one scenario, summarised with intervals.

This module plays games and does the statistics; :mod:`hexlore.sweep_backends` spreads the games over
worker processes or a Ray cluster. Game ``i`` of a sweep seeded ``S`` always uses the seed
``derive_seed(S, i)``, and summaries are computed from the records sorted by index, so the
result does not depend on how many workers played which games, nor on the backend.
"""

from __future__ import annotations

import hashlib
import json
import statistics
from dataclasses import asdict, dataclass, field

from hexlore.compiler.model import RuleSet
from hexlore.runtime.engine.game import Game, RuntimeRuleError
from hexlore.runtime.engine.search import standing
from hexlore.runtime.analysis.stats import derive_seed, mcnemar_p, mean_interval, wilson


@dataclass(frozen=True)
class GameRecord:
    """What one game of a sweep produced (small, so workers send little back)."""

    index: int
    seed: int
    winner: str | None
    rounds: int
    turns: int
    lost: dict[str, dict[str, int]] = field(default_factory=dict)  # side -> unit type -> units lost
    error: str | None = None  # a rule failure stops that game only
    #: how the game ended: "victory" (a side won), "draw" (the rules ended it without a
    #: winner), "round limit" (nobody won before the last round)
    ending: str = "round limit"
    first: str | None = None  # the side whose turn came first
    lead_changes: int = 0  # how often the side ahead (engine/search.py's standing) changed


class _Lead:
    """Follows who stands best at the start of each round (ties lead nobody)."""

    def __init__(self):
        self.leader: str | None = None
        self.changes = 0

    def __call__(self, game: Game) -> None:
        scores = standing(game)
        best = max(scores.values(), default=0.0)
        ahead = [side for side, score in scores.items() if score == best]
        if len(ahead) != 1:
            return
        if self.leader is not None and ahead[0] != self.leader:
            self.changes += 1
        self.leader = ahead[0]


def play_game(rules: RuleSet, scenario, base_seed: int, index: int, max_rounds: int | None = None,
              policies: dict[str, str] | None = None) -> GameRecord:
    seed = derive_seed(base_seed, index)
    lead = _Lead()
    try:
        game = Game(rules, scenario, seed=seed, policies=policies)
        game.watch_rounds(lead)
        result = game.play(max_rounds)
    except RuntimeRuleError as exc:
        return GameRecord(index, seed, None, 0, 0, {}, exc.diagnostic.headline())
    end: dict = next((e for e in reversed(result.log) if e.get("type") == "end"), {})
    ending = "victory" if result.winner else "round limit" if end.get("reason") == "round limit" else "draw"
    if result.winner:  # the last change of lead: the winner, if it was not ahead
        lead.changes += lead.leader is not None and lead.leader != result.winner
    lost: dict[str, dict[str, int]] = {}
    for side, ids in result.eliminated.items():
        per_type: dict[str, int] = {}
        for uid in ids:
            kind = game.state.units[uid].definition.name
            per_type[kind] = per_type.get(kind, 0) + 1
        lost[side] = dict(sorted(per_type.items()))
    first = game.state.opener.name if game.state.opener is not None else None
    return GameRecord(index, seed, result.winner, result.rounds, result.turns, lost, None, ending, first,
                      lead.changes)


def play_games(rules: RuleSet, scenario, base_seed: int, indices, max_rounds: int | None = None,
               policies: dict[str, str] | None = None) -> list[GameRecord]:
    return [play_game(rules, scenario, base_seed, i, max_rounds, policies) for i in indices]


def fielded(scenario) -> dict[str, dict[str, int]]:
    """Units each side fields at the start, by unit type."""
    out: dict[str, dict[str, int]] = {s.name: {} for s in scenario.sides}
    for u in scenario.units:
        out.setdefault(u.side, {})
        out[u.side][u.type] = out[u.side].get(u.type, 0) + 1
    return out


def digest(records: list[GameRecord]) -> str:
    """A short fingerprint of every game's record: equal digests mean identical sweeps."""
    data = json.dumps([asdict(r) for r in sorted(records, key=lambda r: r.index)], sort_keys=True)
    return hashlib.sha256(data.encode()).hexdigest()[:16]


#: below this share of games ended by victory, a sweep warns that its win rates say little
DECIDED_ENOUGH = 0.8


def _rate(k: int, n: int) -> dict:
    lo, hi = wilson(k, n)
    return {"count": k, "rate": k / n if n else 0.0, "low": lo, "high": hi}


def summarize(records: list[GameRecord], sides: list[str], start: dict[str, dict[str, int]]) -> dict:
    """Win rates (95% Wilson), draws, game length and losses per unit type, as plain data."""
    records = sorted(records, key=lambda r: r.index)
    n = len(records)
    played = [r for r in records if r.error is None]
    wins = {s: _rate(sum(r.winner == s for r in records), n) for s in sides}
    draws = _rate(sum(r.winner is None and r.error is None for r in records), n)
    rounds = [r.rounds for r in played]
    mean, lo, hi = mean_interval([float(x) for x in rounds])
    length = {"mean": mean, "low": lo, "high": hi,
              "median": statistics.median(rounds) if rounds else 0, "min": min(rounds, default=0),
              "max": max(rounds, default=0),
              "turns_mean": sum(r.turns for r in played) / len(played) if played else 0.0,
              "histogram": {str(k): rounds.count(k) for k in sorted(set(rounds))}}
    losses: dict[str, dict[str, dict]] = {}
    for side in sides:
        per: dict[str, dict] = {}
        for kind, count in sorted(start.get(side, {}).items()):
            lost = [r.lost.get(side, {}).get(kind, 0) for r in played]
            m, l, h = mean_interval([float(x) for x in lost])
            per[kind] = {"fielded": count, "lost_mean": m, "low": max(0.0, l), "high": min(float(count), h),
                         "loss_rate": (sum(lost) / (count * len(played))) if played and count else 0.0}
        losses[side] = per
    errors = [r for r in records if r.error]
    decided = _rate(sum(r.ending == "victory" for r in played), len(played))
    openers = [r for r in played if r.first is not None]
    first = {"games": len(openers), **_rate(sum(r.winner == r.first for r in openers), len(openers)),
             "by_side": {s: sum(r.first == s for r in openers) for s in sides}}
    changes = [float(r.lead_changes) for r in played]
    m, lo, hi = mean_interval(changes)
    lead = {"mean": m, "low": max(0.0, lo), "high": hi,
            "games_with_a_change": sum(c > 0 for c in changes)}
    warnings = []
    if played and decided["rate"] < DECIDED_ENOUGH:
        warnings.append(f"only {decided['count']} of {len(played)} games ended by victory "
                        f"({100 * decided['rate']:.0f}% < {100 * DECIDED_ENOUGH:.0f}%): win rates of players "
                        "who rarely finish say little about balance; try stronger players "
                        "(--policy all=mcts:200) or more rounds (--max-rounds)")
    return {"games": n, "wins": wins, "draws": draws, "length": length, "losses": losses,
            "ended_by_victory": decided, "first_player": first, "lead_changes": lead, "warnings": warnings,
            "errors": {"count": len(errors), "first": [f"game {r.index}: {r.error}" for r in errors[:3]]},
            "digest": digest(records)}


def compare(base: list[GameRecord], variant: list[GameRecord], sides: list[str]) -> dict:
    """Paired comparison over the same seeds: win-rate change with a 95% interval and McNemar."""
    pairs = list(zip(sorted(base, key=lambda r: r.index), sorted(variant, key=lambda r: r.index)))
    n = len(pairs)
    out: dict = {"games": n, "sides": {}}
    for side in sides:
        diffs = [float((v.winner == side) - (b.winner == side)) for b, v in pairs]
        m, lo, hi = mean_interval(diffs)
        lost_only = sum(b.winner == side and v.winner != side for b, v in pairs)
        won_only = sum(v.winner == side and b.winner != side for b, v in pairs)
        out["sides"][side] = {"base": sum(b.winner == side for b, _ in pairs) / n if n else 0.0,
                              "variant": sum(v.winner == side for _, v in pairs) / n if n else 0.0,
                              "change": m, "low": lo, "high": hi,
                              "won_only_in_variant": won_only, "won_only_in_base": lost_only,
                              "mcnemar_p": mcnemar_p(lost_only, won_only)}
    m, lo, hi = mean_interval([float(v.rounds - b.rounds) for b, v in pairs])
    out["rounds_change"] = {"mean": m, "low": lo, "high": hi}
    out["same_outcome"] = sum(b.winner == v.winner for b, v in pairs)
    return out
