"""hexlore serve under load: 50 games at once between scripted web clients on one server.

Starts ``hexlore serve`` as a real process on a free port (a fresh database), makes GAMES
hot-seat games of the bundled ford between two people through the new-game form, then runs
one scripted client per game over a WebSocket (the ``websockets`` library), all at once: each
answers the first option of every decision until its game has had MOVES answers, after a pause
(``--pause``, seconds, jittered ±50% from a seeded stream: a quick person's click; 0 saturates
the server, every client answering the instant it is asked). Measured:
the time from an answer sent to the next decision received (no player thinks: both sides are
people, so this is the server's own work: checking, applying, saving, sending), p50 and p95
over every answer of every game; and the server's memory (VmRSS) before the games are opened
and after, per game.

    python benchmarks/bench_serve.py [--games 50] [--moves 30] [--pause 0.5]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def new_game(port: int) -> tuple[str, str]:
    form = urllib.parse.urlencode({"scenario": "battlelore/spider_ford", "player.north": "person",
                                   "player.south": "person", "seed": "3", "mode": "hot-seat"}).encode()
    page = urllib.request.urlopen(f"http://127.0.0.1:{port}/games", data=form).read().decode()
    return re.search(r'href="/play/([^"?]+)\?token=([^"]+)" data-seat="plays', page).groups()


async def client(port: int, game: str, token: str, moves: int, latencies: list[float], pause: float,
                 rng: random.Random) -> None:
    import websockets

    async with websockets.connect(f"ws://127.0.0.1:{port}/ws/{game}?token={token}") as ws:
        state = json.loads(await ws.recv())
        for _ in range(moves):
            if state.get("pending") is None:
                return
            if pause:
                await asyncio.sleep(pause * rng.uniform(0.5, 1.5))
            sent = time.perf_counter()
            await ws.send(json.dumps({"v": 1, "type": "answer", "seq": state["seq"], "option": 0}))
            state = json.loads(await ws.recv())
            assert state["type"] == "state", state
            latencies.append(time.perf_counter() - sent)


async def run_clients(port: int, games: list[tuple[str, str]], moves: int, pause: float) -> list[float]:
    latencies: list[float] = []
    rng = random.Random(1)
    await asyncio.gather(*(client(port, g, t, moves, latencies, pause, rng) for g, t in games))
    return latencies


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=50)
    parser.add_argument("--moves", type=int, default=30)
    parser.add_argument("--pause", type=float, default=0.5)
    args = parser.parse_args()
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    folder = tempfile.mkdtemp(prefix="hexlore-bench-serve-")
    server = subprocess.Popen([sys.executable, "-m", "hexlore", "serve", "battlelore/spider_ford", "--port", str(port),
                               "--database", os.path.join(folder, "games.sqlite")], cwd=ROOT,
                              env={**os.environ, "PYTHONPATH": str(ROOT)}, stdout=subprocess.DEVNULL)
    try:
        for _ in range(600):
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5).read()
                break
            except OSError:
                time.sleep(0.1)
        games = [new_game(port) for _ in range(args.games)]
        urllib.request.urlopen(f"http://127.0.0.1:{port}/play/{games[0][0]}?token={games[0][1]}").read()
        before = rss_kib(server.pid)  # one game open: the packs compiled, the page's board drawn
        for game, token in games[1:]:  # every game in memory before the clock starts (a page opened)
            urllib.request.urlopen(f"http://127.0.0.1:{port}/play/{game}?token={token}").read()
        started = time.perf_counter()
        latencies = asyncio.run(run_clients(port, games, args.moves, args.pause))
        elapsed = time.perf_counter() - started
        after = rss_kib(server.pid)
    finally:
        server.kill()
        server.wait()
    latencies.sort()
    p50 = statistics.median(latencies) * 1000
    p95 = latencies[int(len(latencies) * 0.95) - 1] * 1000
    print(f"{args.games} games x {args.moves} answers at once, pause {args.pause} s: {len(latencies)} answers in {elapsed:.1f} s")
    print(f"answer -> next decision: p50 {p50:.1f} ms, p95 {p95:.1f} ms, max {latencies[-1] * 1000:.1f} ms")
    print(f"server memory: {before / 1024:.0f} MiB with one game open, {after / 1024:.0f} MiB with {args.games}: "
          f"{(after - before) / max(args.games - 1, 1):.0f} KiB per game")


if __name__ == "__main__":
    main()
