"""hexlore serve (issue 31): the protocol over Starlette's TestClient, the store, hostile messages.

A game is played decision by decision over the socket as a page would; its log must be the
bytes the same answers give when the game is rebuilt by a new app on the same database (a
restarted server), and every refused message must leave the game exactly as it was.
"""

from __future__ import annotations

import json
import re

import pytest

from starlette.testclient import TestClient  # the serve extra, in the test extra too

from hexlore.serve.app import create_app
from hexlore.serve.hub import Catalogue
from hexlore.serve.store import Store

FORD = "battlelore/spider_ford"


def app_on(path) -> TestClient:
    return TestClient(create_app(Store(path), Catalogue((FORD,))))


def new_game(client: TestClient, north: str, south: str, mode: str = "hot-seat", seed: int = 3) -> tuple[str, dict]:
    """Make a game through the home page's form; (game id, {seat label: token})."""
    page = client.post("/games", data={"scenario": FORD, "player.north": north, "player.south": south,
                                       "seed": str(seed), "mode": mode})
    assert page.status_code == 200, page.text
    links = re.findall(r'href="/play/([^"?]+)\?token=([^"]+)" data-seat="([^"]+)"', page.text)
    assert links
    return links[0][0], {label: token for _, token, label in links}


def receive_state(ws) -> dict:
    message = ws.receive_json()
    assert message["v"] == 1
    return message


def until_person(ws, seat_sides, first=None) -> dict:
    """States until one asks a side this seat plays, or the game ends."""
    state = first or receive_state(ws)
    while not state["over"] and not state["failure"] and not (
            state["pending"] and state["pending"]["side"] in seat_sides):
        state = receive_state(ws)
    return state


def test_person_against_greedy_to_the_end_and_restart(tmp_path):
    db = tmp_path / "games.sqlite"
    with app_on(db) as client:
        game, seats = new_game(client, "person", "greedy")
        token = seats["plays north"]
        with client.websocket_connect(f"/ws/{game}?token={token}") as ws:
            state = until_person(ws, ["north"])
            decisions = 0
            while not state["over"]:
                assert state["pending"]["side"] == "north" and state["you"] == ["north"]
                options = state["pending"]["options"]
                ws.send_json({"v": 1, "type": "answer", "seq": state["seq"], "option": len(options) - 1})
                state = until_person(ws, ["north"])
                decisions += 1
            assert decisions > 5 and state["winner"] in ("north", "south") and state["pending"] is None
        log = client.get(f"/games/{game}/log?token={token}").text
        assert log.count("\n") > 50 and '"type":"end"' in log.replace(" ", "")
        replay = client.get(f"/games/{game}/replay?token={token}")
        assert replay.status_code == 200 and "hexlore replay" in replay.text
    with app_on(db) as client:  # a new server on the same file: the same game, the same log bytes
        assert client.get(f"/games/{game}/log?token={token}").text == log


def test_two_people_on_different_machines_and_a_spectator(tmp_path):
    with app_on(tmp_path / "g.sqlite") as client:
        game, seats = new_game(client, "person", "person", mode="remote")
        north, south, spectator = seats["plays north"], seats["plays south"], seats["spectator"]
        with client.websocket_connect(f"/ws/{game}?token={north}") as wn, \
                client.websocket_connect(f"/ws/{game}?token={south}") as ws, \
                client.websocket_connect(f"/ws/{game}?token={spectator}") as watch:
            states = {"north": receive_state(wn), "south": receive_state(ws)}
            receive_state(watch)
            # the other side's hand is hidden from a remote seat, shown to its own
            north_view = {s["name"]: s for s in states["north"]["sides"]}
            assert isinstance(north_view["north"]["hands"]["hand"], list)
            assert north_view["south"]["hands"]["hand"] == {"hidden": 4}
            for _ in range(12):
                pending = states["north"]["pending"]
                side = pending["side"]
                sock, other = (wn, ws) if side == "north" else (ws, wn)
                other.send_json({"v": 1, "type": "answer", "seq": states[side]["seq"], "option": 0})
                refused = other.receive_json()
                assert refused["type"] == "error" and f"it is {side}'s decision" in refused["message"]
                sock.send_json({"v": 1, "type": "answer", "seq": states[side]["seq"], "option": 0})
                states = {"north": receive_state(wn), "south": receive_state(ws)}
                assert receive_state(watch)["seq"] == states["north"]["seq"]
            seq = states["north"]["seq"]
            assert seq == 12
            # undo between people on different machines needs both to agree
            wn.send_json({"v": 1, "type": "undo", "seq": seq})
            asked = receive_state(wn)
            assert asked["seq"] == seq and asked["undo_asked"] == ["north"]
            receive_state(ws)
            receive_state(watch)
            ws.send_json({"v": 1, "type": "undo", "seq": seq})
            undone = receive_state(wn)
            assert undone["seq"] == 11 and undone["undo_asked"] == []
            watch.send_json({"v": 1, "type": "answer", "seq": 11, "option": 0})
            receive_state(watch)
            assert "spectator" in watch.receive_json()["message"]


def test_a_person_sees_only_the_hands_of_the_sides_they_play(tmp_path):
    """Against a player, on one screen, the player's cards stay hidden, as do every hand from a
    spectator's link (which any player may open); a designer's game shows them all."""
    with app_on(tmp_path / "g.sqlite") as client:
        game, seats = new_game(client, "person", "greedy")
        with client.websocket_connect(f"/ws/{game}?token={seats['plays north']}") as ws, \
                client.websocket_connect(f"/ws/{game}?token={seats['spectator']}") as watch:
            mine = {s["name"]: s for s in until_person(ws, ["north"])["sides"]}
            watched = {s["name"]: s for s in receive_state(watch)["sides"]}
        assert isinstance(mine["north"]["hands"]["hand"], list) and mine["south"]["hands"]["hand"] == {"hidden": 4}
        assert watched["north"]["hands"]["hand"] == {"hidden": 4} == watched["south"]["hands"]["hand"]
        page = client.post("/games", data={"scenario": FORD, "player.north": "person", "player.south": "greedy",
                                           "seed": "3", "mode": "hot-seat", "designer": "on"})
        game, token = re.findall(r'href="/play/([^"?]+)\?token=([^"]+)"', page.text)[0]
        with client.websocket_connect(f"/ws/{game}?token={token}") as ws:
            shown = {s["name"]: s for s in until_person(ws, ["north"])["sides"]}
        assert isinstance(shown["south"]["hands"]["hand"], list)


def test_undo_against_a_player_goes_back_to_the_persons_decision(tmp_path):
    with app_on(tmp_path / "g.sqlite") as client:
        game, seats = new_game(client, "person", "greedy")
        token = seats["plays north"]
        with client.websocket_connect(f"/ws/{game}?token={token}") as ws:
            first = until_person(ws, ["north"])
            ws.send_json({"v": 1, "type": "answer", "seq": first["seq"], "option": 1})
            second = until_person(ws, ["north"])
            ws.send_json({"v": 1, "type": "answer", "seq": second["seq"], "option": 0})
            third = until_person(ws, ["north"])
            assert third["seq"] > second["seq"]
            ws.send_json({"v": 1, "type": "undo", "seq": third["seq"]})
            back = until_person(ws, ["north"])
            assert back["seq"] == second["seq"] and back["pending"] == second["pending"]
            assert back["log"] == second["log"]


HOSTILE = [
    ("not json", "not JSON"),
    ("[1, 2]", "JSON object"),
    ('{"v": 2, "type": "answer", "seq": 0, "option": 0}', "version"),
    ('{"v": 1, "type": "resign", "seq": 0}', "unknown message type"),
    ('{"v": 1, "type": "answer", "seq": "0", "option": 0}', "'seq' must be a whole number"),
    ('{"v": 1, "type": "answer", "seq": 0, "option": 1.5}', "'option' must be a whole number"),
    ('{"v": 1, "type": "answer", "seq": 0, "option": true}', "'option' must be a whole number"),
    ('{"v": 1, "type": "answer", "seq": 0, "option": 999}', "out of range"),
    ('{"v": 1, "type": "answer", "seq": 7, "option": 0}', "old position"),
    ('{"v": 1, "type": "undo", "seq": 0}', "no decision of a person"),
    ("[" * 5000, "too large"),
    ('{"v": 1, "type": "answer", "seq": 0, "option": 0, "pad": "' + "x" * 5000 + '"}', "too large"),
    ("[" * 3000 + "]" * 3000, "too large"),
]


@pytest.mark.parametrize("text, expected", HOSTILE)
def test_hostile_messages_are_refused_and_change_nothing(tmp_path, text, expected):
    with app_on(tmp_path / "g.sqlite") as client:
        game, seats = new_game(client, "person", "person")
        with client.websocket_connect(f"/ws/{game}?token={seats['plays north, south']}") as ws:
            before = receive_state(ws)
            ws.send_text(text)
            refused = ws.receive_json()
            assert refused["type"] == "error" and expected in refused["message"], refused
            ws.send_json({"v": 1, "type": "answer", "seq": 0, "option": 0})  # the game still answers
            after = receive_state(ws)
            assert after["seq"] == 1 and before["seq"] == 0
        assert client.app.state.hub.store.game(game).answers == [(before["pending"]["side"], 0)]


def test_tokens_game_ids_and_floods(tmp_path):
    with app_on(tmp_path / "g.sqlite") as client:
        game, seats = new_game(client, "person", "greedy")
        other, other_seats = new_game(client, "person", "greedy")
        for path in (f"/ws/nosuchgame?token={seats['plays north']}", f"/ws/{game}?token=forged",
                     f"/ws/{game}?token={other_seats['plays north']}", f"/ws/{game}"):
            with client.websocket_connect(path) as ws:
                assert ws.receive_json()["type"] == "error"
        assert client.get("/play/nosuchgame?token=x").status_code == 404
        assert client.get(f"/play/{game}?token=forged").status_code == 403
        assert client.get(f"/games/{game}/log?token=forged").status_code == 404
        with client.websocket_connect(f"/ws/{game}?token={seats['plays north']}") as ws:
            state = until_person(ws, ["north"])
            for _ in range(60):
                ws.send_text('{"v": 1, "type": "answer", "seq": 99, "option": 0}')
            messages = [ws.receive_json()["message"] for _ in range(60)]
            assert "too many messages" in messages[-1] and "old position" in messages[0]
            ws.send_json({"v": 1, "type": "answer", "seq": state["seq"], "option": 0})
            assert ws.receive_json()["message"].startswith("too many messages")  # until the game moves
        assert client.app.state.hub.store.game(game).answers == []


@pytest.mark.parametrize("form, expected", [
    ({"scenario": "../../etc/passwd", "player.north": "person", "player.south": "greedy"}, "no scenario"),
    ({"scenario": FORD, "player.north": "person"}, "a player for each side"),
    ({"scenario": FORD, "player.north": "mcts:1000000", "player.south": "greedy"}, "unknown player"),
    ({"scenario": FORD, "player.north": "person", "player.south": "greedy", "seed": "x"}, "seed"),
    ({"scenario": FORD, "player.north": "person", "player.south": "greedy", "mode": "lan"}, "unknown mode"),
])
def test_bad_new_game_forms_are_refused(tmp_path, form, expected):
    with app_on(tmp_path / "g.sqlite") as client:
        page = client.post("/games", data=form)
        assert page.status_code == 400 and expected in page.text
        assert client.app.state.hub.store.games() == []


def test_hostile_names_reach_the_page_as_text(tmp_path, monkeypatch):
    """A scenario named with markup: escaped in the page, data only as escaped JSON."""
    source = (__import__("conftest").ROOT / "scenarios" / FORD).with_suffix(".yaml").read_text()
    hostile = source.replace("name: The Spider at the Ford", 'name: "<script>alert(1)</script>{{ x }}"', 1)
    assert hostile != source
    path = tmp_path / "hostile.yaml"
    path.write_text(hostile.replace("packs: [", "packs: [", 1))
    monkeypatch.setenv("HEXLORE_PATH", str(__import__("conftest").ROOT / "rules"))
    with TestClient(create_app(Store(tmp_path / "g.sqlite"), Catalogue((str(path),)))) as client:
        home = client.get("/")
        assert "<script>alert(1)" not in home.text and "&lt;script&gt;alert(1)&lt;/script&gt;{{ x }}" in home.text
        page = client.post("/games", data={"scenario": str(path), "player.north": "person",
                                           "player.south": "greedy", "seed": "1"})
        game, token = re.search(r'href="/play/([^"?]+)\?token=([^"]+)"', page.text).groups()
        play = client.get(f"/play/{game}?token={token}").text
        assert "<script>alert(1)" not in play and "&lt;script&gt;alert(1)" in play
        assert "script-src 'sha256-" in play and "connect-src 'self'" in play
        with client.websocket_connect(f"/ws/{game}?token={token}") as ws:
            assert json.loads(json.dumps(ws.receive_json()))["scenario"] == "<script>alert(1)</script>{{ x }}"


def test_a_thinking_player_does_not_hold_up_other_games(tmp_path, monkeypatch):
    """A player's turn runs off the event loop and off the engine: while it is held thinking
    (deterministically, on an event), another game is opened, answered and shown, and the held
    game refuses an undo as busy; then the held one moves on. Both games are opened at once
    (their rebuilds race for the engine, which runs one at a time)."""
    import threading

    import anyio.to_thread

    from hexlore.serve.hub import Hub

    release, thinking = threading.Event(), threading.Event()
    think = Hub.think

    async def held(self, session):
        thinking.set()
        assert await anyio.to_thread.run_sync(release.wait, 60)
        return await think(self, session)

    monkeypatch.setattr(Hub, "think", held)
    with app_on(tmp_path / "g.sqlite") as client:
        slow, slow_seats = new_game(client, "greedy", "person")  # north, the player, moves first
        fast, fast_seats = new_game(client, "person", "person")
        with client.websocket_connect(f"/ws/{slow}?token={slow_seats['plays south']}") as held_ws, \
                client.websocket_connect(f"/ws/{fast}?token={fast_seats['plays north, south']}") as ws:
            first = receive_state(held_ws)
            assert first["pending"]["side"] == "north" and thinking.wait(60)
            state = receive_state(ws)
            assert state["pending"]["side"] == "north" and state["seq"] == 0
            ws.send_json({"v": 1, "type": "answer", "seq": 0, "option": 0})
            assert receive_state(ws)["seq"] == 1  # served while the other game's player thinks
            held_ws.send_json({"v": 1, "type": "undo", "seq": 0})
            assert "busy" in held_ws.receive_json()["message"]
            release.set()
            moved = receive_state(held_ws)
            assert moved["seq"] == 1 and moved["failure"] is None


@pytest.mark.parametrize("missing", ["uvicorn", "starlette"])
def test_serve_without_its_extra_says_how_to_install_it(monkeypatch, missing):
    import sys

    from click.testing import CliRunner

    from hexlore.cli import main

    for name in [m for m in sys.modules if m.startswith(("hexlore.serve", missing + "."))]:
        monkeypatch.delitem(sys.modules, name)  # imported afresh: a cached submodule would not fail
    monkeypatch.setitem(sys.modules, missing, None)  # import of it fails, as when not installed
    result = CliRunner().invoke(main, ["serve", "--database", ":memory:"])
    assert result.exit_code == 1 and "pip install 'hexlore[serve]'" in result.output
    assert "Traceback" not in result.output
