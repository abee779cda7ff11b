"""hexlore serve (issue 31, items 5 and the unit named): "What are my odds?" over the protocol,
and the pending decision naming the unit it is about.

The odds a page is sent must be the engine's own (:func:`odds_of_option` on the same position,
worked out here on a game stepped independently), with the columns of cards left out; asking
must never move the game (its saved answers and its log bytes are the same after), and a
question is checked like an answer (stale, another side's, a spectator's, out of range).
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from hexlore.loading import open_scenario
from hexlore.runtime.analysis.odds_state import odds_of_option
from hexlore.runtime.engine.game import Game
from hexlore.serve.odds import ODDS_BUDGET, card_columns
from test_serve import FORD, app_on, new_game, receive_state

#: answers (the last option each time) that bring the ford, seed 3, to north's ranged_target
TO_RANGED = 5


def stepped(answers: int) -> Game:
    """The ford, seed 3, stepped outside the server with the last option at each decision."""
    loaded = open_scenario(FORD)
    game = Game(loaded.rules, loaded.scenario, seed=3, policies={"north": "first", "south": "first"})
    request = game.start()
    for _ in range(answers):
        request = game.apply(len(request.options) - 1)
    return game


def play_last_options(ws, count: int, state: dict | None = None) -> dict:
    state = state or receive_state(ws)
    for _ in range(count):
        ws.send_json({"v": 1, "type": "answer", "seq": state["seq"], "option": len(state["pending"]["options"]) - 1})
        state = receive_state(ws)
    return state


def expected_rows(game: Game, option: int) -> dict[tuple, str]:
    found = odds_of_option(game, option, budget=ODDS_BUDGET)
    assert found.result is not None
    hidden = card_columns(game)
    keep = [i for i, c in enumerate(found.result.columns) if c not in hidden]
    merged: dict[tuple, Fraction] = {}
    for row in found.result.rows:
        key = tuple(str(row.values[i]) for i in keep)
        merged[key] = merged.get(key, Fraction(0)) + row.probability
    return {k: f"{p.numerator}/{p.denominator}" for k, p in merged.items()}


def test_odds_are_the_engines_and_asking_changes_nothing(tmp_path):
    with app_on(tmp_path / "g.sqlite") as client:
        game, seats = new_game(client, "person", "person")
        with client.websocket_connect(f"/ws/{game}?token={seats['plays north, south']}") as ws:
            state = play_last_options(ws, TO_RANGED)
            assert state["pending"]["name"] == "ranged_target"
            log_before = client.get(f"/games/{game}/log?token={seats['spectator']}").text
            answers_before = client.app.state.hub.store.game(game).answers
            local = stepped(TO_RANGED)
            for option in range(len(state["pending"]["options"])):
                ws.send_json({"v": 1, "type": "odds", "seq": state["seq"], "option": option})
                table = ws.receive_json()
                assert table["type"] == "odds" and table["seq"] == state["seq"] and table["refused"] is None
                assert table["label"] == state["pending"]["options"][option]
                assert not any(c.endswith(".hand") for c in table["columns"])  # a draw is not shown
                got = {tuple(r["values"]): r["probability"] for r in table["rows"]}
                assert table["other"] is None and got == expected_rows(local, option)
                assert sum(Fraction(p) for p in got.values()) == 1 and len(got) > 1
            # the game did not move: the same answers saved, the same log bytes
            assert client.get(f"/games/{game}/log?token={seats['spectator']}").text == log_before
            assert client.app.state.hub.store.game(game).answers == answers_before
            ws.send_json({"v": 1, "type": "answer", "seq": state["seq"], "option": 0})
            assert receive_state(ws)["seq"] == state["seq"] + 1


def test_too_large_to_enumerate_is_said(tmp_path, monkeypatch):
    import hexlore.serve.odds as odds

    monkeypatch.setattr(odds, "ODDS_BUDGET", 3)
    monkeypatch.setattr(odds.odds_table, "__kwdefaults__", {"budget": 3, "max_seconds": 1.0})
    with app_on(tmp_path / "g.sqlite") as client:
        game, seats = new_game(client, "person", "person")
        with client.websocket_connect(f"/ws/{game}?token={seats['plays north, south']}") as ws:
            state = play_last_options(ws, TO_RANGED)
            ws.send_json({"v": 1, "type": "odds", "seq": state["seq"], "option": 0})
            table = ws.receive_json()
            assert table["type"] == "odds" and table["refused"].startswith("too large to enumerate")
            assert "rows" not in table


@pytest.mark.parametrize("who, message, expected", [
    ("plays south", {"seq": 0, "option": 0}, "it is north's decision"),
    ("plays north", {"seq": 3, "option": 0}, "this question is for an old position"),
    ("plays north", {"seq": 0, "option": 99}, "out of range"),
    ("plays north", {"seq": 0, "option": -1}, "'option' must be a whole number"),
    ("spectator", {"seq": 0, "option": 0}, "spectator"),
])
def test_odds_questions_are_checked_like_answers(tmp_path, who, message, expected):
    with app_on(tmp_path / "g.sqlite") as client:
        game, seats = new_game(client, "person", "person", mode="remote")
        with client.websocket_connect(f"/ws/{game}?token={seats[who]}") as ws:
            assert receive_state(ws)["seq"] == 0
            ws.send_json({"v": 1, "type": "odds", **message})
            refused = ws.receive_json()
            assert refused["type"] == "error" and expected in refused["message"], refused
        assert client.app.state.hub.store.game(game).answers == []


def test_the_pending_decision_names_the_unit_it_is_about(tmp_path):
    with app_on(tmp_path / "g.sqlite") as client:
        game, seats = new_game(client, "person", "person")
        with client.websocket_connect(f"/ws/{game}?token={seats['plays north, south']}") as ws:
            first = receive_state(ws)
            assert first["pending"]["name"] == "command_card" and first["pending"]["about"] == []
            state = play_last_options(ws, 3, first)  # order_unit twice, then the first move_to
            pending = state["pending"]
            local = stepped(3)
            unit = local.state.units["n_archers"]
            assert pending["name"] == "move_to"
            assert pending["about"] == [{"id": "n_archers", "type": unit.definition.name,
                                         "hex": local.state.board.label(unit.hex)}]


def test_terrain_placed_in_play_is_sent_to_the_page():
    """A command tent deployed during the game (set_terrain): the view sends the hex's new
    terrain and its fill, the hexes that did not change are not sent."""
    from hexlore.serve.session import GameSession
    from hexlore.serve.store import GameRecord

    scenario = "battlelore/ford_campaign/haunted_crossing"
    loaded = open_scenario(scenario)
    players = {s.name: "first" for s in loaded.scenario.sides}
    session = GameSession(GameRecord("t", scenario, 1, players, "hot-seat"), loaded)
    session.rebuild()
    assert session.base_view["terrain"] == {}
    for _ in range(2000):
        if session.pending is None or any(e.get("event") == "tent_deployed" for e in session.game.log):
            break
        assert session.think().error is None
    tents = [e["args"]["hex"] for e in session.game.log if e.get("event") == "tent_deployed"]
    assert tents, "the tent is deployed in play"
    terrain = session.base_view["terrain"]
    assert set(terrain) == set(tents) and all(t[0] == "command_tent" and t[1].startswith("#") for t in terrain.values())
