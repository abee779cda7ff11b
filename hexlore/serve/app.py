"""The web application: Starlette routes over the :class:`~.hub.Hub`.

Starlette (on uvicorn) because it is small, well kept and gives WebSockets, routing and a test
client (``TestClient.websocket_connect``) without a framework's weight; the pages need no build
step, their script and style ship in the package. Routes::

    GET  /                      home: scenarios (a form each) and the saved games
    POST /games                 make a game; answers with its seat links
    GET  /play/{id}?token=T     a seat's (or a spectator's) play page
    WS   /ws/{id}?token=T       the page's socket (hexlore/serve/protocol.py)
    GET  /games/{id}/log?token=T     the game's log so far (JSON lines)
    GET  /games/{id}/replay?token=T  its HTML replay page
"""

from __future__ import annotations

import contextlib
import io
import random
from collections.abc import AsyncIterator
from dataclasses import replace
from urllib.parse import parse_qs

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, Response
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from . import protocol
from .hub import PLAYER_CHOICES, BOARD_SIZE, Catalogue, CreateError, Hub, Watcher
from .page import home_html, links_html, message_html, play_html
from .store import Store

#: the largest new-game form accepted
MAX_FORM = 8192


def create_app(store: Store, catalogue: Catalogue) -> Starlette:
    hub = Hub(store, catalogue)

    async def home(request: Request) -> Response:
        import anyio.to_thread

        from .session import engine
        scenarios = await anyio.to_thread.run_sync(engine, _scenarios, catalogue)
        return HTMLResponse(home_html(scenarios, _games(hub), PLAYER_CHOICES))

    async def new_game(request: Request) -> Response:
        body = await _bounded_body(request)
        if body is None:
            return HTMLResponse(message_html("Refused", f"the form is larger than {MAX_FORM} bytes"), 413)
        form = {k: v[0] for k, v in parse_qs(body.decode("utf-8", "replace"), max_num_fields=64).items()}
        players = {k.partition(".")[2]: v for k, v in form.items() if k.startswith("player.")}
        try:
            seed = int(form.get("seed") or random.randrange(1, 1_000_000))
            if not 0 <= seed < 2**31:
                raise ValueError
        except ValueError:
            return HTMLResponse(message_html("Refused", "the seed must be a whole number from 0"), 400)
        try:
            game_id, seats = hub.create(form.get("scenario", ""), seed, players, form.get("mode", "hot-seat"),
                                        designer=form.get("designer") == "on")
        except CreateError as exc:
            return HTMLResponse(message_html("Refused", str(exc)), 400)
        links = [(("plays " + ", ".join(sides)) if sides else "spectator", f"/play/{game_id}?token={token}")
                 for token, sides in sorted(seats.items(), key=lambda item: (not item[1], item[1]))]
        return HTMLResponse(links_html(game_id, form.get("scenario", ""), links))

    async def play(request: Request) -> Response:
        game_id = request.path_params["game_id"]
        session = await hub.session(game_id)
        if session is None:
            return HTMLResponse(message_html("No such game", f"no game '{game_id[:40]}' on this server"), 404)
        seat = hub.seat_of(game_id, request.query_params.get("token", ""))
        if seat is None:
            return HTMLResponse(message_html("Refused", "this link's token is not a seat of this game"), 403)
        data = {"game": game_id, "token": seat.token, "size": BOARD_SIZE, "strength": session.look.strength or [],
                "faces": dict(session.look.faces)}
        from ..render import centres
        data["centres"] = {k: list(v) for k, v in centres(session.game.state, BOARD_SIZE).items()} \
            if session.game is not None else {}
        import anyio.to_thread

        from .session import engine
        board = await anyio.to_thread.run_sync(engine, catalogue.board, session.record.scenario, session)
        title = session.loaded.scenario.name if session.loaded.scenario is not None else session.record.scenario
        return HTMLResponse(play_html(title, board, data))

    async def export(request: Request) -> Response:
        game_id = request.path_params["game_id"]
        session = await hub.session(game_id)
        if session is None or hub.seat_of(game_id, request.query_params.get("token", "")) is None:
            return PlainTextResponse("no such game, or not a token of it", 404)
        async with hub.locks[game_id]:
            if request.path_params["what"] == "log":
                return PlainTextResponse(session.log.getvalue(), media_type="application/x-ndjson")
            import anyio.to_thread
            from .session import engine
            page = await anyio.to_thread.run_sync(engine, _replay_page, session)
        return HTMLResponse(page)

    async def socket(websocket: WebSocket) -> None:
        game_id = websocket.path_params["game_id"]
        await websocket.accept()
        session = await hub.session(game_id)
        seat = hub.seat_of(game_id, websocket.query_params.get("token", "")) if session is not None else None
        if seat is None:
            await websocket.send_text(protocol.error("no such game, or this link's token is not a seat of it"))
            await websocket.close(code=1008)
            return
        watcher = Watcher(websocket, seat)
        if not hub.watch(game_id, watcher):
            await websocket.send_text(protocol.error("too many pages watch this game"))
            await websocket.close(code=1008)
            return
        try:
            await hub.send(game_id, watcher)
            while True:
                message = await websocket.receive()
                if message["type"] == "websocket.disconnect":
                    break
                await hub.handle(game_id, watcher, message.get("text") if message.get("text") is not None
                                 else None)
        except WebSocketDisconnect:
            pass
        finally:
            hub.leave(game_id, watcher)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        yield
        hub.close()  # the players' worker process goes with the server

    app = Starlette(lifespan=lifespan, routes=[
        Route("/", home), Route("/games", new_game, methods=["POST"]),
        Route("/play/{game_id}", play), Route("/games/{game_id}/{what:str}", export),
        WebSocketRoute("/ws/{game_id}", socket)])
    app.state.hub = hub
    return app


async def _bounded_body(request: Request) -> bytes | None:
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_FORM:
            return None
    return body


def _scenarios(catalogue: Catalogue) -> list[dict]:
    out = []
    for name in catalogue.names:
        loaded = catalogue.load(name)
        if not loaded.playable or loaded.scenario is None:
            continue
        out.append({"key": name, "title": loaded.scenario.name, "seed": loaded.scenario.seed,
                    "sides": [s.name for s in loaded.scenario.sides]})
    return out


def _games(hub: Hub) -> list[dict]:
    return [{"id": gid, "scenario": scenario, "answers": answers}
            for gid, scenario, _, answers in hub.store.games()[:200]]


def _replay_page(session) -> str:
    """The game so far as a replay page: rebuilt with a recorder watching, answer by answer."""
    from ..replay.make import page_of
    from ..replay.record import Recorder, recording_of
    from .session import GameSession

    recorder = Recorder(io.StringIO())
    scenario = session.loaded.scenario
    assert scenario is not None, "a game is made of a playable scenario only"
    record = replace(session.record, answers=list(session.record.answers))
    GameSession(record, session.loaded, recorder=recorder).rebuild()
    return page_of(session.loaded, recording_of(recorder, f"{scenario.name} (seed {session.record.seed})"))


__all__ = ["create_app"]
