"""Who may act in a game: seats with secret tokens, and spectators.

Each game hands out links carrying a token (``secrets.token_urlsafe``): in a hot-seat game one
token plays every side a person plays (they share a screen); in a remote game each person side
has its own, so a player on another machine can answer only for their side. Every game also
has a spectator token, which only watches. Tokens are compared in constant time.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass

#: what a side may be played by on the new-game form, besides any registered player name
PERSON = "person"
MODES = ("hot-seat", "remote")


@dataclass(frozen=True)
class Seat:
    """What a token lets its holder do in one game."""

    token: str
    sides: tuple[str, ...]

    @property
    def spectator(self) -> bool:
        return not self.sides


def new_token() -> str:
    return secrets.token_urlsafe(18)


def new_game_id() -> str:
    return secrets.token_urlsafe(6).replace("-", "x").replace("_", "y")


def make_seats(players: dict[str, str], mode: str) -> dict[str, list[str]]:
    """The tokens of a new game -> the sides each plays (the spectator's: none)."""
    people = [side for side, player in players.items() if player == PERSON]
    seats: dict[str, list[str]] = {}
    if mode == "hot-seat" or len(people) <= 1:
        if people:
            seats[new_token()] = people
    else:
        for side in people:
            seats[new_token()] = [side]
    seats[new_token()] = []
    return seats


def find_seat(seats: dict[str, list[str]], token: str) -> Seat | None:
    """The seat of ``token`` among a game's, compared in constant time; None if none matches."""
    found = None
    for known, sides in seats.items():
        if secrets.compare_digest(known.encode(), token.encode()):
            found = Seat(known, tuple(sides))
    return found
