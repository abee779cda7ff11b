"""The players a side may be given, by name: the one registry of them (issue 32).

The engine (:func:`~hexlore.runtime.engine.players.make_policy`), the CLI's ``--policy`` and its
``--help``, the API's checks of a sweep's players and the scenario schema's ``policy`` enum all
read this table, so a player is added in one place (and its implementation), and a name that is
not here is an error with a did-you-mean wherever it is written, never a silent ``random``.

It imports nothing of the engine: ``hexlore --help`` lists the players without loading a game.
"""

from __future__ import annotations

from dataclasses import dataclass

from hexlore.diagnostics import did_you_mean


@dataclass(frozen=True)
class Player:
    """One kind of player, as ``--policy SIDE=NAME`` and a scenario's ``policy:`` name it."""

    name: str
    summary: str
    #: takes a budget: ``NAME:N`` futures a decision, ``NAME:Ts`` seconds a decision
    searches: bool = False
    #: a scenario file may name it (a person at the terminal is chosen on the command line only)
    in_scenarios: bool = True
    #: it can play games nobody watches (a sweep's)
    unattended: bool = True


PLAYERS: tuple[Player, ...] = (
    Player("random", "picks among the options at random (seeded)"),
    Player("greedy", "takes the option the rules prefer (their `default`, else their `prefer` scores)"),
    Player("first", "takes the first option offered"),
    Player("scripted", "plays the scenario's script, then as `first`"),
    Player("mcts", "Monte Carlo tree search over the compiled rules (docs/players.md)", searches=True),
    Player("rollout", "tries each option in futures played to the end (docs/players.md)", searches=True),
    Player("human", "a person at the terminal", in_scenarios=False, unattended=False),
)
BY_NAME = {player.name: player for player in PLAYERS}
#: every name ``--policy`` accepts
ALL_NAMES = tuple(player.name for player in PLAYERS)
#: the names a scenario's ``policy:`` accepts (the schema's enum)
SCENARIO_NAMES = tuple(player.name for player in PLAYERS if player.in_scenarios)
#: the players that search and take a budget
SEARCH_NAMES = tuple(player.name for player in PLAYERS if player.searches)


def unknown_player(name: str) -> str:
    """The message for a player name no registry entry has, with the likeliest meant one."""
    base = name.partition(":")[0]
    guess = did_you_mean(base, ALL_NAMES)
    suggestion = f"did you mean '{guess}'? " if guess else ""
    return f"no player named '{name}': {suggestion}the players are {', '.join(ALL_NAMES)}"


__all__ = ["ALL_NAMES", "BY_NAME", "PLAYERS", "Player", "SCENARIO_NAMES", "SEARCH_NAMES", "unknown_player"]
