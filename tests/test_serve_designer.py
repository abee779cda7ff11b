"""hexlore serve (issue 31, item 6): designer mode over the protocol.

A designer's edits (a unit's field, a unit moved, the next roll forced) are checked by the
engine (hexlore/runtime/engine/edits.py), saved with the game's answers and replayed when a
restarted server rebuilds it: the same position and the same log bytes. Designer mode is
refused between people on different machines and in a game not made for it; a bad edit is
refused and changes nothing; the position saved as a scenario test passes under ``hexlore test``.
"""

from __future__ import annotations

import pytest
import yaml

from hexlore import api
from test_serve import FORD, app_on, new_game, receive_state


def designer_game(client, north="person", south="person", mode="hot-seat") -> tuple[str, dict]:
    page = client.post("/games", data={"scenario": FORD, "player.north": north, "player.south": south,
                                       "seed": "3", "mode": mode, "designer": "on"})
    assert page.status_code == 200, page.text
    import re
    links = re.findall(r'href="/play/([^"?]+)\?token=([^"]+)" data-seat="([^"]+)"', page.text)
    return links[0][0], {label: token for _, token, label in links}


def edit(ws, seq: int, **change) -> dict:
    ws.send_json({"v": 1, "type": "edit", "seq": seq, "edit": change})
    return ws.receive_json()


def units(state: dict) -> dict:
    return {u["id"]: u for u in state["units"]}


def test_edits_show_persist_and_survive_a_restart(tmp_path):
    db = tmp_path / "g.sqlite"
    with app_on(db) as client:
        game, seats = designer_game(client)
        token = seats["plays north, south"]
        with client.websocket_connect(f"/ws/{game}?token={token}") as ws:
            state = receive_state(ws)
            assert state["designer"] is True
            state = edit(ws, 0, kind="field", unit="n_archers", field="figures", value=1)
            assert state["type"] == "state" and units(state)["n_archers"]["changed"] == {"figures": 1}
            state = edit(ws, 0, kind="move", unit="s_right", hex="A1")
            assert units(state)["s_right"]["hex"] == "A1"
            for _ in range(3):
                ws.send_json({"v": 1, "type": "answer", "seq": state["seq"], "option": 0})
                state = receive_state(ws)
            state = edit(ws, 3, kind="dice", faces=["flag", "lore"])
            assert state["type"] == "state" and state["seq"] == 3
            for _ in range(4):
                ws.send_json({"v": 1, "type": "answer", "seq": state["seq"], "option": 0})
                state = receive_state(ws)
        log = client.get(f"/games/{game}/log?token={token}").text
        forced = list(client.app.state.hub.sessions[game].game.roller.forced)
        record = client.app.state.hub.store.game(game)
        assert record.designer and [at for at, _ in record.edits] == [0, 0, 3]
    with app_on(db) as client:  # a restarted server: the edits replayed, the same log bytes
        assert client.get(f"/games/{game}/log?token={token}").text == log
        with client.websocket_connect(f"/ws/{game}?token={token}") as ws:
            again = receive_state(ws)
            assert again["seq"] == state["seq"] and units(again) == units(state)
            assert list(client.app.state.hub.sessions[game].game.roller.forced) == forced
    # the edits made a difference: the same answers without them give another position
    with app_on(tmp_path / "plain.sqlite") as client:
        plain, plain_seats = new_game(client, "person", "person")
        with client.websocket_connect(f"/ws/{plain}?token={plain_seats['plays north, south']}") as ws:
            s = receive_state(ws)
            for _ in range(7):
                ws.send_json({"v": 1, "type": "answer", "seq": s["seq"], "option": 0})
                s = receive_state(ws)
        assert units(s)["n_archers"]["changed"] != {"figures": 1} and units(s)["s_right"]["hex"] != "A1"


def test_designer_mode_is_refused_between_people_on_different_machines(tmp_path):
    with app_on(tmp_path / "g.sqlite") as client:
        page = client.post("/games", data={"scenario": FORD, "player.north": "person", "player.south": "person",
                                           "seed": "3", "mode": "remote", "designer": "on"})
        assert page.status_code == 400 and "designer mode is for a game on one screen" in page.text
        assert client.app.state.hub.store.games() == []
        game, seats = new_game(client, "person", "greedy")  # not a designer's game: edits refused
        with client.websocket_connect(f"/ws/{game}?token={seats['plays north']}") as ws:
            assert receive_state(ws)["designer"] is False
            refused = edit(ws, 0, kind="field", unit="n_archers", field="figures", value=1)
            assert refused["type"] == "error" and "not in designer mode" in refused["message"]


BAD_EDITS = [
    ({"kind": "field", "unit": "nobody", "field": "figures", "value": 1}, "no unit 'nobody'"),
    ({"kind": "field", "unit": "n_archers", "field": "wings", "value": 1}, "units have no field 'wings'"),
    ({"kind": "field", "unit": "n_archers", "field": "figures", "value": "many"}, "expected an integer"),
    ({"kind": "field", "unit": "n_archers", "field": "figures", "value": {"a": 1}}, "'value' of an edit"),
    ({"kind": "move", "unit": "n_archers", "hex": "Z99"}, "not a hex of this board"),
    ({"kind": "move", "unit": "n_archers", "hex": "F2"}, "F2 holds n_centre"),
    ({"kind": "dice", "faces": ["seven"]}, "no die's face"),
    ({"kind": "dice", "faces": []}, "list of 1 to"),
    ({"kind": "teleport", "unit": "n_archers"}, "'edit' must be an object"),
    ({"kind": "move", "unit": "n_archers", "hex": "A1", "extra": 1}, "has only"),
]


@pytest.mark.parametrize("bad, expected", BAD_EDITS)
def test_bad_edits_are_refused_and_change_nothing(tmp_path, bad, expected):
    with app_on(tmp_path / "g.sqlite") as client:
        game, seats = designer_game(client)
        with client.websocket_connect(f"/ws/{game}?token={seats['plays north, south']}") as ws:
            before = receive_state(ws)
            refused = edit(ws, 0, **bad)
            assert refused["type"] == "error" and expected in refused["message"], refused
            ws.send_json({"v": 1, "type": "edit", "seq": 5, "edit": {"kind": "dice", "faces": ["flag"]}})
            assert "old position" in ws.receive_json()["message"]
            ws.send_json({"v": 1, "type": "answer", "seq": 0, "option": 0})  # the game goes on
            assert receive_state(ws)["seq"] == 1
        assert client.app.state.hub.store.game(game).edits == []
        assert before["units"] == receive_units_at_start(client, game, seats)


def receive_units_at_start(client, game, seats) -> list:
    """The units as a fresh page of a new game shows them (what a refused edit left)."""
    other, other_seats = designer_game(client)
    with client.websocket_connect(f"/ws/{other}?token={other_seats['plays north, south']}") as ws:
        return receive_state(ws)["units"]


def test_the_position_saved_as_a_test_passes_under_hexlore_test(tmp_path):
    with app_on(tmp_path / "g.sqlite") as client:
        game, seats = designer_game(client)
        with client.websocket_connect(f"/ws/{game}?token={seats['plays north, south']}") as ws:
            receive_state(ws)
            edit(ws, 0, kind="field", unit="n_archers", field="figures", value=1)
            edit(ws, 0, kind="move", unit="s_right", hex="A1")
            ws.send_json({"v": 1, "type": "save_test", "seq": 0, "name": "weak archers"})
            saved = ws.receive_json()
            assert saved["type"] == "position_test" and saved["name"] == "weak archers", saved
            ws.send_json({"v": 1, "type": "save_test", "seq": 0, "name": "x" * 500})
            assert "'name' must be" in ws.receive_json()["message"]
    data = yaml.safe_load(saved["yaml"])
    test = data["tests"][0]
    assert test["given"]["n_archers"] == {"figures": 1} and test["given"]["s_right"] == {"hex": "A1"}
    scenario = api_root() / "scenarios" / f"{FORD}.yaml"  # kept next to the scenario, as the page says
    target = scenario.parent / f"_saved_position_{game}.yaml"
    target.write_text(saved["yaml"], encoding="utf-8")
    try:
        outcomes, problems, _ = api.test([str(target)])
        assert problems == [] and [(o.name, o.passed) for o in outcomes] == [("weak archers", True)]
    finally:
        target.unlink()


def api_root():
    return __import__("conftest").ROOT


def test_a_database_made_before_designer_mode_still_opens(tmp_path):
    """The games table of an older file gains its designer column (false) and its games play on."""
    import sqlite3

    from hexlore.serve.store import Store

    db = tmp_path / "old.sqlite"
    old = sqlite3.connect(db)
    old.executescript("""
        CREATE TABLE games (id TEXT PRIMARY KEY, scenario TEXT NOT NULL, seed INTEGER NOT NULL,
            players TEXT NOT NULL, mode TEXT NOT NULL, created REAL NOT NULL);
        CREATE TABLE seats (token TEXT PRIMARY KEY, game_id TEXT NOT NULL REFERENCES games(id), sides TEXT NOT NULL);
        CREATE TABLE answers (game_id TEXT NOT NULL REFERENCES games(id), seq INTEGER NOT NULL, side TEXT NOT NULL,
            option INTEGER NOT NULL, PRIMARY KEY (game_id, seq));
        INSERT INTO games VALUES ('old1', 'battlelore/spider_ford', 3, '{"north": "person", "south": "person"}',
            'hot-seat', 1.0);
        INSERT INTO seats VALUES ('tok', 'old1', '["north", "south"]');
        INSERT INTO answers VALUES ('old1', 0, 'north', 0);""")
    old.commit()
    old.close()
    record = Store(db).game("old1")
    assert record is not None and record.designer is False and record.edits == [] and len(record.answers) == 1
    with app_on(db) as client, client.websocket_connect("/ws/old1?token=tok") as ws:
        state = receive_state(ws)
        assert state["seq"] == 1 and state["designer"] is False and state["failure"] is None


def test_a_failed_game_has_no_position_to_save_or_edit():
    from hexlore.loading import open_scenario
    from hexlore.serve.session import GameSession
    from hexlore.serve.store import GameRecord

    session = GameSession(GameRecord("t", FORD, 3, {"north": "person", "south": "person"}, "hot-seat",
                                     designer=True), open_scenario(FORD))
    session.rebuild()
    session.fail("the player failed: gone")
    assert session.position_yaml("x") == {"refused": "the game failed: there is no position to save"}
    assert session.edit({"kind": "dice", "faces": ["flag"]}).startswith("edit the game at a decision")
    assert session.record.edits == []


def test_undo_keeps_the_edits_made_at_the_decision_it_returns_to_and_drops_later_ones(tmp_path):
    with app_on(tmp_path / "g.sqlite") as client:
        game, seats = designer_game(client)
        with client.websocket_connect(f"/ws/{game}?token={seats['plays north, south']}") as ws:
            state = receive_state(ws)
            for _ in range(2):
                ws.send_json({"v": 1, "type": "answer", "seq": state["seq"], "option": 0})
                state = receive_state(ws)
            assert edit(ws, 2, kind="field", unit="s_archers", field="figures", value=2)["type"] == "state"
            ws.send_json({"v": 1, "type": "answer", "seq": 2, "option": 0})
            assert receive_state(ws)["seq"] == 3
            ws.send_json({"v": 1, "type": "undo", "seq": 3})
            back = receive_state(ws)
            assert back["seq"] == 2 and units(back)["s_archers"]["changed"] == {"figures": 2}
            ws.send_json({"v": 1, "type": "undo", "seq": 2})
            before = receive_state(ws)
            assert before["seq"] == 1 and units(before)["s_archers"]["changed"] == {}
        assert client.app.state.hub.store.game(game).edits == []
