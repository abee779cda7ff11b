"""The packs' own judgement of their options (`prefer`, read by the `greedy` player and by the
searching player's rollouts) plays better than chance on every bundled playable scenario:
the first rung of the strength ladder (random < greedy, issue 16). Seeded games, so the
counts are the same on every run; a pack whose `prefer` points the wrong way fails here (the
ruins did: characters moved as far as they could instead of onto the VP spaces, and greedy
won none of 200 games against random)."""

from __future__ import annotations

import pytest

import hexlore

GAMES = 12

#: (scenario, its sides); the village raid is checked apart (north cannot win it)
SCENARIOS = [
    ("battlelore/spider_ford", ("north", "south")),
    ("tickclock/ruins", ("dawn", "dusk")),
    ("westeros/skirmish", ("stark", "lannister")),
]


def results(scenario: str, policies: dict[str, str]) -> dict:
    report, diagnostics, _ = hexlore.sweep(scenario, GAMES, seed=5, policies=policies)
    assert report is not None, [d.headline() for d in diagnostics]
    return {side: entry["count"] for side, entry in report["wins"].items()}


@pytest.mark.parametrize("scenario,sides", SCENARIOS, ids=[s for s, _ in SCENARIOS])
@pytest.mark.parametrize("seat", [0, 1])
def test_greedy_beats_random_in_both_seatings(scenario, sides, seat):
    greedy, other = sides[seat], sides[1 - seat]
    wins = results(scenario, {greedy: "greedy", other: "random"})
    assert wins[greedy] >= GAMES * 3 // 4, wins
    assert wins[other] <= GAMES // 6, wins


def test_greedy_raids_the_village_and_a_greedy_village_is_not_destroyed():
    # the raid is one-sided (docs/players.md): south wins by destroying north, north at best
    # outlasts the five rounds
    assert results("skirmish/village_raid", {"north": "random", "south": "greedy"})["south"] == GAMES
    assert results("skirmish/village_raid", {"north": "greedy", "south": "random"})["south"] == 0
