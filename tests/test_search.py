"""The searching player (``mcts``, hexlore/runtime/engine/search.py): it finds what only a
search can see, evaluates with the packs' ``evaluate``, never peeks at a hidden order, plays
the same game for the same seed, and leaves the game it searches exactly as it found it."""

from __future__ import annotations

import io
import json

import pytest
from click.testing import CliRunner

from conftest import ROOT
from hexlore.api import open_scenario
from hexlore.cli import main
from hexlore.runtime.engine.game import Game
from hexlore.runtime.engine.policies import RandomPolicy
from hexlore.runtime.engine.search import SearchPolicy, parse_search, rollout_settings

PUZZLES = ROOT / "tests" / "fixtures" / "search"
PLAYABLE = [("battlelore/spider_ford.yaml", ("north", "south")), ("tickclock/ruins.yaml", ("dawn", "dusk")),
            ("westeros/skirmish.yaml", ("stark", "lannister")), ("skirmish/village_raid.yaml", ("north", "south"))]


def play(path, seed: int = 0, policies=None, max_rounds=None, resumable=False) -> tuple[Game, str]:
    loaded = open_scenario(str(path))
    assert loaded.ok, [d.headline() for d in loaded.diagnostics]
    out = io.StringIO()
    game = Game(loaded.rules, loaded.scenario, seed=seed, log_file=out, policies=policies)
    game.play(max_rounds, resumable=resumable)
    return game, out.getvalue()


def choices(log: str, side: str) -> list:
    return [e["choice"] for e in map(json.loads, log.splitlines()) if e.get("by") == side]


@pytest.mark.parametrize("seed", range(3))
def test_the_search_finds_the_one_winning_number_that_the_rules_prefer_least(seed):
    game, log = play(PUZZLES / "lucky.yaml", seed)
    assert choices(log, "north") == [7] and game.state.winner.name == "north"
    _, greedy = play(PUZZLES / "lucky.yaml", seed, {"north": "greedy"})
    assert choices(greedy, "north") == [0]  # the rules' preference alone never finds it


@pytest.mark.parametrize("preferred, found", [(0.0, 7), (1.0, 0)])
def test_the_share_of_the_prior_on_what_the_rules_prefer_is_a_setting(preferred, found):
    # the whole prior on the preferred number: every future tries it, and seven is never seen;
    # none: the untried numbers are tried in turn, and seven wins
    search = SearchPolicy("0:north", simulations=20, preferred=preferred)
    game, log = play(PUZZLES / "lucky.yaml", 0, {"north": search})
    assert choices(log, "north") == [found]
    assert (game.state.winner is not None and game.state.winner.name == "north") == (found == 7)


def test_where_nobody_can_win_the_packs_evaluation_decides():
    game, log = play(PUZZLES / "points.yaml", 1)
    assert choices(log, "north") == [9, 9, 9]
    assert game.state.winner is None and game.result().search["north"]["searches"] == 3


def test_a_search_goes_on_with_its_tree_when_it_is_asked_the_very_next_decision():
    """North picks two numbers in a row each turn: the second search starts from the node the
    first one's choice led to; the first pick of a turn comes after south's, so it starts
    afresh. Without reuse every search starts afresh, and so does a search after a real die
    roll (a coin tossed between the two picks: the futures below the node tossed their own)."""
    game, log = play(PUZZLES / "pairs.yaml", 0, {"north": "mcts:60"})
    cost = game.policies["north"].cost
    assert (cost.searches, cost.reused) == (4, 2)
    again = play(PUZZLES / "pairs.yaml", 0, {"north": "mcts:60"})[1]
    assert again == log  # what it keeps is seeded like the rest
    fresh = SearchPolicy("0:north", simulations=60, reuse=False)
    play(PUZZLES / "pairs.yaml", 0, {"north": fresh})
    assert (fresh.cost.searches, fresh.cost.reused) == (4, 0)
    tossed = play(PUZZLES / "pairs_toss.yaml", 0, {"north": "mcts:60"})[0].policies["north"].cost
    assert (tossed.searches, tossed.reused) == (4, 0)


@pytest.mark.parametrize("turns, answered", [(0, 5 + 3 + 1), (1, 1 + 1 + 1), (2, 2 + 2 + 1), (3, 3 + 3 + 1)])
def test_a_future_stops_after_the_turns_it_may_begin(turns, answered):
    """Points, three rounds, north at turns 1, 3, 5 and south at 2, 4, 6: a future from north's
    turn answers the picks of the next ``turns`` turns and stops at the first decision of a turn
    past them (or at the end of the game); without a limit it plays to the end."""
    player = SearchPolicy("0:north", simulations=10, depth=100, turns=turns)
    play(PUZZLES / "points.yaml", 0, {"north": player})
    assert player.cost.searches == 3
    assert player.cost.decisions_played == 10 * answered


@pytest.mark.parametrize("turns, answered", [(1, (1 + 2) + 2 + (1 + 2) + 2 + (1 + 2) + 2),
                                             (2, (1 + 2 + 2) + 4 + (1 + 2 + 2) + 4 + (1 + 2) + 2)])
def test_the_turns_a_side_begins_in_a_row_count_as_one(turns, answered):
    """Each side takes two turns in a row (north 1-2, south 3-4, north 5-6, …), a pick in each:
    a future from north's first turn also answers its second, then south's two (turns=1), and
    north's next two (turns=2); from north's second turn, the rest of that run counts as this
    turn. Counted by turns (not by runs of a side's turns) north would never see south's reply."""
    player = SearchPolicy("0:north", simulations=10, depth=100, turns=turns)
    play(PUZZLES / "points_twice.yaml", 0, {"north": player})
    assert player.cost.searches == 6
    assert player.cost.decisions_played == 10 * answered


def test_a_future_answers_at_most_depth_decisions():
    player = SearchPolicy("0:north", simulations=10, depth=2)
    play(PUZZLES / "points.yaml", 0, {"north": player})
    assert player.cost.decisions_played == 10 * (2 + 2 + 1)


def test_the_search_never_sees_the_order_of_a_shuffled_deck():
    """Naming the top card wins: a player that could see the deck's order would win every game;
    one that deals it anew in each future wins about one game in four."""
    winners = [play(PUZZLES / "guess.yaml", seed, {"north": "mcts:40"})[0].state.winner for seed in range(16)]
    wins = sum(w is not None and w.name == "north" for w in winners)
    assert 0 < wins < 12


class _SearchThenRandom(SearchPolicy):
    """Searches at every decision, then answers as a random player would: the game must go on
    exactly as the random player's game."""

    def __init__(self, side: str):
        super().__init__(f"peek:{side}", simulations=3, depth=8)
        self.random = RandomPolicy(f"same:{side}")

    def choose(self, decision):
        super().choose(decision)
        return self.random.choose(decision)


@pytest.mark.parametrize("scenario, sides", PLAYABLE, ids=[p for p, _ in PLAYABLE])
def test_a_search_leaves_the_game_exactly_as_it_found_it(scenario, sides):
    path = ROOT / "scenarios" / scenario
    peeking = {s: _SearchThenRandom(s) for s in sides}
    game, searched = play(path, 3, peeking, max_rounds=2)
    _, plain = play(path, 3, {s: RandomPolicy(f"same:{s}") for s in sides}, max_rounds=2, resumable=True)
    assert sum(p.cost.searches for p in peeking.values()) > 0
    assert searched == plain
    assert game.state.journal is None  # the journal a search keeps is dropped after it


def test_the_same_seed_plays_the_same_game_byte_for_byte():
    path = ROOT / "scenarios" / "battlelore" / "spider_ford.yaml"
    policies = {"north": "mcts:6", "south": "random"}
    first, second = play(path, 5, policies, max_rounds=2)[1], play(path, 5, policies, max_rounds=2)[1]
    assert first == second and '"by":"north"' in first
    assert play(path, 6, policies, max_rounds=2)[1] != first


ROLLOUT = rollout_settings()


@pytest.mark.parametrize("spec, parsed", [("mcts", {}), ("mcts:400", {"simulations": 400}),
                                          ("mcts:0.5s", {"seconds": 0.5}), ("mcts:0", None), ("mcts:-3", None),
                                          ("mcts:lots", None), ("mcts:0s", None), ("greedy", None),
                                          ("mcts:2000000", None), ("mcts:7200s", None),
                                          ("rollout", ROLLOUT), ("rollout:600", {**ROLLOUT, "simulations": 600}),
                                          ("rollout:2s", {**ROLLOUT, "seconds": 2.0}), ("rollout:0", None),
                                          ("rollouts:5", None)])
def test_search_budgets(spec, parsed):
    assert parse_search(spec) == parsed


@pytest.mark.parametrize("seed", range(3))
def test_the_rollout_player_finds_what_the_rules_prefer_least_too(seed):
    game, log = play(PUZZLES / "lucky.yaml", seed, {"north": "rollout:50"})
    assert choices(log, "north") == [7] and game.state.winner.name == "north"
    assert game.result().search["north"]["simulations"] == 50


def test_a_rollout_future_plays_to_the_end_of_the_game_and_keeps_no_tree():
    """Points (three rounds, a pick each turn): a future from north's first turn answers every
    pick left (5 + 3 + 1 over the three searches, as a search without a turn limit); the
    pairs (north picks twice a turn) show no search going on with a tree: there is none
    below the root."""
    game = play(PUZZLES / "points.yaml", 0, {"north": "rollout:10"})[0]
    cost = game.policies["north"].cost
    assert (cost.searches, cost.decisions_played) == (3, 10 * (5 + 3 + 1))
    pairs = play(PUZZLES / "pairs.yaml", 0, {"north": "rollout:60"})[0].policies["north"]
    assert pairs.name == "rollout" and (pairs.cost.searches, pairs.cost.reused) == (4, 0)
    tree = play(PUZZLES / "pairs.yaml", 0, {"north": "mcts:60"})[0].policies["north"].cost
    assert tree.reused == 2


def test_the_rollout_player_plays_the_same_game_for_the_same_seed():
    path = ROOT / "scenarios" / "skirmish" / "village_raid.yaml"
    policies = {"north": "greedy", "south": "rollout:4"}
    first, second = play(path, 5, policies, max_rounds=1)[1], play(path, 5, policies, max_rounds=1)[1]
    assert first == second and '"by":"south"' in first


def test_a_scenario_may_name_the_rollout_player(tmp_path):
    text = (PUZZLES / "lucky.yaml").read_text().replace("policy: mcts}", "policy: rollout}")
    assert "policy: rollout}" in text
    (tmp_path / "games.lore").write_text((PUZZLES / "games.lore").read_text())
    (tmp_path / "lucky.yaml").write_text(text)
    game, log = play(tmp_path / "lucky.yaml", 1)
    assert game.policies["north"].name == "rollout"
    assert choices(log, "north") == [7] and game.state.winner.name == "north"


def test_a_sweep_of_rollout_players_is_the_same_on_one_worker_or_two():
    import hexlore

    one, diagnostics, _ = hexlore.sweep(str(PUZZLES / "lucky.yaml"), 4, workers=1, policies={"all": "rollout:30"})
    assert diagnostics == [] and one["wins"]["north"]["count"] == 4
    two, _, _ = hexlore.sweep(str(PUZZLES / "lucky.yaml"), 4, workers=2, policies={"all": "rollout:30"})
    assert one["digest"] == two["digest"]


@pytest.mark.parametrize("spec", ["rollout:0", "rollout:x"])
def test_a_bad_rollout_budget_is_refused_by_name(spec):
    bad = CliRunner().invoke(main, ["run", str(PUZZLES / "lucky.yaml"), "--policy", f"north={spec}"])
    assert bad.exit_code == 2 and "rollout" in bad.output and "Traceback" not in bad.output


def test_the_cli_plays_a_searching_side_and_reports_its_cost():
    result = CliRunner().invoke(main, ["run", str(PUZZLES / "lucky.yaml"), "--policy", "north=mcts:50"])
    assert result.exit_code == 0, result.output
    assert "winner: north" in result.output
    assert "search of north: 1 decision(s) searched, 50 futures" in result.output
    bad = CliRunner().invoke(main, ["run", str(PUZZLES / "lucky.yaml"), "--policy", "north=mcts:0"])
    assert bad.exit_code == 2 and "mcts:N" in bad.output


def test_a_searching_player_needs_a_game_it_can_fork():
    """Outside a played game (a scenario test calls a procedure directly) there is no point to
    fork from: the player says so instead of answering blindly."""
    loaded = open_scenario(str(PUZZLES / "lucky.yaml"))
    game = Game(loaded.rules, loaded.scenario, seed=0)
    player = game.policies["north"]
    assert isinstance(player, SearchPolicy)
    from hexlore.runtime.engine.core.bounds import RuleError
    from hexlore.runtime.engine.policies import Decision

    with pytest.raises(RuleError, match="searches only in a game played to the end"):
        player.choose(Decision("lucky", game.state.sides[0], [1, 2], [1, 2], None, None))


def test_a_sweep_of_searching_players_is_the_same_on_one_worker_or_two_and_reports_how_games_end():
    import hexlore

    one, diagnostics, _ = hexlore.sweep(str(PUZZLES / "lucky.yaml"), 6, workers=1, policies={"all": "mcts:30"})
    assert diagnostics == []
    two, _, _ = hexlore.sweep(str(PUZZLES / "lucky.yaml"), 6, workers=2, policies={"all": "mcts:30"})
    assert one["digest"] == two["digest"]
    assert one["wins"]["north"]["count"] == 6 and one["ended_by_victory"]["count"] == 6
    assert one["first_player"]["count"] == 6 and one["first_player"]["by_side"] == {"north": 6, "south": 0}
    assert one["warnings"] == []
    drawn, _, _ = hexlore.sweep(str(PUZZLES / "points.yaml"), 3, policies={"all": "greedy"})
    assert drawn["ended_by_victory"]["count"] == 0
    assert "only 0 of 3 games ended by victory" in drawn["warnings"][0]


def test_a_sweep_follows_who_leads_by_the_packs_evaluation():
    """In the points puzzle north (searching) takes 9 while south (greedy) takes 0, so north
    leads from the second round on and the lead never changes; with both greedy nobody ever
    leads (equal scores)."""
    import hexlore

    report, _, _ = hexlore.sweep(str(PUZZLES / "points.yaml"), 2, policies={"north": "mcts:60", "south": "greedy"})
    assert report["lead_changes"]["mean"] == 0.0
    flipped, _, _ = hexlore.sweep(str(PUZZLES / "points.yaml"), 2, policies={"north": "greedy", "south": "mcts:60"})
    assert flipped["lead_changes"]["mean"] == 0.0


def test_lead_changes_count_each_time_another_side_comes_out_ahead(monkeypatch):
    from hexlore.runtime.analysis import sweep

    standings = iter([{"n": 1, "s": 0}, {"n": 1, "s": 1}, {"n": 0, "s": 2}, {"n": 0, "s": 5}, {"n": 3, "s": 2}])
    monkeypatch.setattr(sweep, "standing", lambda game: next(standings))
    lead = sweep._Lead()
    for _ in range(5):
        lead(None)
    assert (lead.changes, lead.leader) == (2, "n")  # a tie leads nobody and changes nothing


@pytest.mark.slow
def test_a_sweep_of_searching_players_on_ray_is_the_same_as_on_the_process_pool():
    pytest.importorskip("ray", reason="Ray publishes no wheel for this platform (see the test extra's marker)")
    import hexlore

    players, ford = {"all": "mcts:5"}, "battlelore/spider_ford"
    local, _, _ = hexlore.sweep(ford, 4, workers=2, policies=players, max_rounds=3)
    on_ray, diagnostics, _ = hexlore.sweep(ford, 4, workers=2, backend="ray", policies=players, max_rounds=3)
    assert diagnostics == [] and on_ray["backend"] == "ray"
    assert on_ray["digest"] == local["digest"] and on_ray["wins"] == local["wins"]


def test_the_readme_balance_question_runs_as_written_on_a_shorter_sweep(monkeypatch):
    """The README's command, with one game of one round instead of forty whole games."""
    import re

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    command = re.search(r"^hexlore sweep .*--policy all=mcts.*$", readme, re.M).group(0)
    args = command.split()[1:]
    args[args.index("--games") + 1] = "1"
    monkeypatch.chdir(ROOT)
    result = CliRunner().invoke(main, [*args, "--max-rounds", "1", "--format", "json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["variant"]["name"] == ["scenarios/battlelore/spider_moves_three.lore"]
    assert report["ended_by_victory"]["count"] == 0 and report["warnings"]
