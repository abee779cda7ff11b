"""The server's games: loaded on first use, stepped one at a time each, watched by sockets.

The hub owns the store, the scenarios offered (:class:`Catalogue`), the sessions in memory
and the sockets watching each. Everything that runs a game's rules (a rebuild, a person's
answer, a player thinking) runs in a worker thread under the game's lock, so one game's
search never stops the event loop that serves the others; pages are sent the view each step
made, never the game while it runs. Games share their rule set's compiled code, which two
threads may not run at once, so the engine runs one call at a time (``session.engine``), and a
player thinks in a worker process on a copy of the game rebuilt from its answers.
"""

from __future__ import annotations

import asyncio
import multiprocessing
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import anyio.to_thread

from ..loading import Loaded, open_scenario, resolve_scenario
from ..render import board_svg
from ..runtime.engine.game import Game
from . import protocol
from .seats import MODES, PERSON, Seat, find_seat, make_seats, new_game_id
from .session import GameSession, Step, engine, think_elsewhere
from .store import GameRecord, Store

#: the bundled scenarios offered when the command names none
BUNDLED = ("battlelore/spider_ford", "skirmish/village_raid", "westeros/skirmish", "tickclock/ruins")
#: the players a side may be given from the page (a search's budget is the server's, not the page's)
PLAYER_CHOICES = (PERSON, "greedy", "random", "first", "rollout:20", "mcts:200")
#: bounds on what pages can make the server hold
MAX_GAMES = 5000
MAX_WATCHERS = 64
BOARD_SIZE = 26.0


class CreateError(Exception):
    """A new-game request the server refuses (its text says why)."""


@dataclass
class Catalogue:
    """The scenarios a server offers, by the name pages use; pages never send a path."""

    names: tuple[str, ...]
    loaded: dict[str, Loaded] = field(default_factory=dict)
    boards: dict[str, str] = field(default_factory=dict)

    def load(self, name: str) -> Loaded:
        if name not in self.names:
            raise CreateError(f"no scenario '{name[:80]}' on this server")
        if name not in self.loaded:
            self.loaded[name] = open_scenario(name)
        return self.loaded[name]

    def board(self, name: str, session: GameSession) -> str:
        """The board's picture as the scenario begins, in the packs' look (units drawn by the page)."""
        if name not in self.boards:
            loaded = self.load(name)
            assert loaded.rules is not None and loaded.scenario is not None, "only playable scenarios are shown"
            state = Game(loaded.rules, loaded.scenario).state
            self.boards[name] = board_svg(state, "", BOARD_SIZE, session.look, units=False, svg_id="board",
                                          layers=("units",))
        return self.boards[name]


def catalogue_of(scenarios: list[str] | tuple[str, ...]) -> Catalogue:
    """The scenarios named on the command line (checked to exist), else the bundled ones."""
    names = tuple(scenarios) or tuple(n for n in BUNDLED if resolve_scenario(n) is not None)
    return Catalogue(names)


@dataclass
class Watcher:
    """A page watching a game: its socket (Starlette's WebSocket), its seat, and how many messages
    it sent since the game last moved (a flood is refused)."""

    socket: Any
    seat: Seat
    seq: int = -1
    sent: int = 0


class Hub:
    def __init__(self, store: Store, catalogue: Catalogue):
        self.store = store
        self.catalogue = catalogue
        self.sessions: dict[str, GameSession] = {}
        self.locks: dict[str, asyncio.Lock] = {}
        self.watchers: dict[str, list[Watcher]] = {}
        self.undo_votes: dict[str, set[str]] = {}
        self.seats: dict[str, dict[str, list[str]]] = {}
        #: the process players think in (made at the first player's turn)
        self.pool: ProcessPoolExecutor | None = None

    # ------------------------------------------------------------ games
    def create(self, scenario: str, seed: int, players: dict[str, str], mode: str,
               designer: bool = False) -> tuple[str, dict]:
        """A new game saved; returns its id and seats (token -> sides). Designer mode is for one
        screen: refused when people play on different machines (an edit would be one person's)."""
        if len(self.store.games()) >= MAX_GAMES:
            raise CreateError(f"this server holds {MAX_GAMES} games already")
        loaded = self.catalogue.load(scenario)
        if not loaded.playable or loaded.scenario is None:
            raise CreateError(f"scenario '{scenario}' cannot be played: " +
                              "; ".join(d.headline() for d in loaded.diagnostics[:3]))
        sides = [s.name for s in loaded.scenario.sides]
        if set(players) != set(sides):
            raise CreateError(f"give a player for each side: {', '.join(sides)}")
        bad = [p for p in players.values() if p not in PLAYER_CHOICES]
        if bad:
            raise CreateError(f"unknown player '{bad[0][:40]}': choose one of {', '.join(PLAYER_CHOICES)}")
        if mode not in MODES:
            raise CreateError(f"unknown mode '{mode[:40]}': choose one of {', '.join(MODES)}")
        if designer and mode == "remote" and sum(p == PERSON for p in players.values()) > 1:
            raise CreateError("designer mode is for a game on one screen: not between people on different machines")
        record = GameRecord(new_game_id(), scenario, seed, {s: players[s] for s in sides}, mode, designer=designer)
        seats = make_seats(record.players, mode)
        self.store.add_game(record, seats)
        return record.id, seats

    async def session(self, game_id: str) -> GameSession | None:
        """The game in memory, rebuilt from the store on first use; None for an unknown id."""
        if game_id in self.sessions:
            return self.sessions[game_id]
        record = self.store.game(game_id)
        if record is None or record.scenario not in self.catalogue.names:
            return None
        lock = self.locks.setdefault(game_id, asyncio.Lock())
        async with lock:
            if game_id not in self.sessions:
                loaded = await anyio.to_thread.run_sync(engine, self.catalogue.load, record.scenario)
                session = GameSession(record, loaded)
                await anyio.to_thread.run_sync(engine, session.rebuild)
                self.seats[game_id] = self.store.seats(game_id)
                self.sessions[game_id] = session
        asyncio.get_running_loop().create_task(self.drive(game_id))
        return self.sessions[game_id]

    def seat_of(self, game_id: str, token: str) -> Seat | None:
        seats = self.seats.get(game_id) or self.store.seats(game_id)
        return find_seat(seats, token or "")

    async def drive(self, game_id: str) -> None:
        """Let the players answer while it is a player's turn, saving and showing each step."""
        session = self.sessions[game_id]
        lock = self.locks[game_id]
        while True:
            async with lock:
                if session.player_to_answer() is None:
                    return
                seq = session.seq
                try:
                    option = await self.think(session)
                except Exception as exc:  # the worker failed or died: the game says so and waits
                    await anyio.to_thread.run_sync(engine, session.fail, f"the player failed: {exc}")
                    step = Step(error=str(exc))
                else:
                    step = await anyio.to_thread.run_sync(engine, session.answer, option)
                self._save(game_id, seq, step)
            await self.broadcast(game_id)
            if step.error is not None:
                return

    async def think(self, session: GameSession) -> int:
        """The pending side's player's choice, worked out in the pool's process."""
        if self.pool is None:
            self.pool = ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"))
        record = session.record
        return await asyncio.get_running_loop().run_in_executor(
            self.pool, think_elsewhere, record.scenario, record.seed, dict(record.players), list(record.answers),
            list(record.edits))

    def close(self) -> None:
        if self.pool is not None:
            self.pool.shutdown(wait=False, cancel_futures=True)

    def _save(self, game_id: str, seq: int, step) -> None:
        """Save an applied answer as soon as it is applied (a kill after this loses nothing)."""
        if step.error is None and step.side is not None and step.option is not None:
            self.store.add_answer(game_id, seq, step.side, step.option)

    # ------------------------------------------------------------ messages
    async def handle(self, game_id: str, watcher: Watcher, text: str | bytes | None) -> None:
        """Act on one message from a page, or send it why not; a refused message changes nothing."""
        session = self.sessions[game_id]
        try:
            if watcher.seq != session.seq:
                watcher.seq, watcher.sent = session.seq, 0
            watcher.sent += 1
            if watcher.sent > protocol.MAX_MESSAGES_PER_STEP:
                raise protocol.Refused("too many messages without a move: slow down")
            message = protocol.parse(text)
            if watcher.seat.spectator:
                raise protocol.Refused("this is a spectator's link: it cannot play")
            if message.kind == "answer":
                await self._answer(game_id, session, watcher, message)
            elif message.kind == "odds":
                await self._odds(game_id, session, watcher, message)
            elif message.kind in ("edit", "save_test"):
                await self._design(game_id, session, watcher, message)
            else:
                await self._undo(game_id, session, watcher, message)
        except protocol.Refused as refused:
            await watcher.socket.send_text(protocol.error(str(refused)))

    async def _answer(self, game_id: str, session: GameSession, watcher: Watcher, message) -> None:
        lock = self.locks[game_id]
        if lock.locked():
            raise protocol.Refused("the game is busy (a player is thinking): wait for the next decision")
        async with lock:
            _check_against_pending(session, watcher, message)
            seq = session.seq
            step = await anyio.to_thread.run_sync(engine, session.answer, message.option)
            self._save(game_id, seq, step)
            self.undo_votes.pop(game_id, None)
        await self.broadcast(game_id)
        asyncio.get_running_loop().create_task(self.drive(game_id))

    async def _odds(self, game_id: str, session: GameSession, watcher: Watcher, message) -> None:
        """The odds of an option, checked like an answer (this seat's decision, now, in range),
        sent to the asking page only; the game does not move."""
        lock = self.locks[game_id]
        if lock.locked():
            raise protocol.Refused("the game is busy (a player is thinking): ask again at your decision")
        async with lock:
            _check_against_pending(session, watcher, message)
            seq = session.seq
            table = await anyio.to_thread.run_sync(engine, session.odds, message.option)
        await watcher.socket.send_text(protocol.odds(seq, table))

    async def _design(self, game_id: str, session: GameSession, watcher: Watcher, message) -> None:
        """A designer's edit (saved, then shown to every page) or the position saved as a scenario
        test (its YAML sent to the asking page, to download: the server writes no file)."""
        if not session.record.designer:
            raise protocol.Refused("this game is not in designer mode (chosen when a game is made)")
        lock = self.locks[game_id]
        if lock.locked():
            raise protocol.Refused("the game is busy (a player is thinking): edit at your decision")
        if message.seq != session.seq:
            raise protocol.Refused("this edit is for an old position: the page shows the current one now")
        async with lock:
            if message.kind == "save_test":
                saved = await anyio.to_thread.run_sync(engine, session.position_yaml, message.name)
                await watcher.socket.send_text(protocol.position_test(message.seq, saved))
                return
            if len(session.record.edits) >= protocol.MAX_EDITS:
                raise protocol.Refused(f"this game has {protocol.MAX_EDITS} edits already")
            refused = await anyio.to_thread.run_sync(engine, session.edit, message.edit)
            if refused is not None:
                raise protocol.Refused(refused)
            self.store.add_edit(game_id, len(session.record.edits) - 1, session.seq, session.record.edits[-1][1])
            watcher.sent = 0  # a designer's edits are work, not a flood
        await self.broadcast(game_id)

    async def _undo(self, game_id: str, session: GameSession, watcher: Watcher, message) -> None:
        lock = self.locks[game_id]
        if lock.locked():
            raise protocol.Refused("the game is busy (a player is thinking): undo after it moves")
        if message.seq != session.seq:
            raise protocol.Refused("this undo is for an old position: the page shows the current one now")
        keep = session.undo_point()
        if keep is None:
            raise protocol.Refused("no decision of a person to go back to")
        players = [t for t, sides in self.seats[game_id].items() if sides]
        if len(players) > 1:  # people on different machines: every one must agree
            votes = self.undo_votes.setdefault(game_id, set())
            votes.add(watcher.seat.token)
            if not votes.issuperset(players):
                await self.broadcast(game_id)
                return
        self.undo_votes.pop(game_id, None)
        async with lock:
            self.store.cut_answers(game_id, keep)
            await anyio.to_thread.run_sync(engine, session.rebuild, session.record.answers[:keep])
        await self.broadcast(game_id)
        asyncio.get_running_loop().create_task(self.drive(game_id))

    # ------------------------------------------------------------ watching
    def watch(self, game_id: str, watcher: Watcher) -> bool:
        watching = self.watchers.setdefault(game_id, [])
        if len(watching) >= MAX_WATCHERS:
            return False
        watching.append(watcher)
        return True

    def leave(self, game_id: str, watcher: Watcher) -> None:
        watching = self.watchers.get(game_id, [])
        if watcher in watching:
            watching.remove(watcher)

    def view(self, game_id: str, seat: Seat) -> dict:
        session = self.sessions[game_id]
        view = session.view_for(seat, session.record.mode)
        votes = self.undo_votes.get(game_id, set())
        view["undo_asked"] = sorted(side for t in votes for side in self.seats[game_id].get(t, []))
        view["can_undo"] = session.undo_point() is not None and not session.failure
        view["designer"] = session.record.designer and not seat.spectator
        return view

    async def send(self, game_id: str, watcher: Watcher) -> None:
        await watcher.socket.send_text(protocol.state(self.view(game_id, watcher.seat)))

    async def broadcast(self, game_id: str) -> None:
        for watcher in list(self.watchers.get(game_id, [])):
            try:
                await self.send(game_id, watcher)
            except Exception:  # a page gone mid-send: it is dropped, the game goes on
                self.leave(game_id, watcher)


def _check_against_pending(session: GameSession, watcher: Watcher, message) -> None:
    """An answer or an odds question names the decision pending now, of a side this seat plays,
    and an option in range (protocol.Refused otherwise)."""
    pending = session.pending
    protocol.check_answer(message, session.seq, session.person_to_answer(), watcher.seat.sides,
                          len(pending.options) if pending is not None else 0, False)
