"""Making a side's player from its name: ``random``, ``greedy``, ``first``, ``scripted``, or a
searching player ``mcts`` or ``rollout`` with its budget (``mcts:400`` futures a decision,
``mcts:0.5s``, ``rollout:600``)."""

from __future__ import annotations

from hexlore.runtime.engine.policies import _FIRST, _GREEDY, Policy, RandomPolicy
from hexlore.runtime.engine.player_names import unknown_player
from hexlore.runtime.engine.search import SEARCH_NAMES, SearchedGame, SearchPolicy, parse_search


def make_policy(name: str | Policy, seed: int, side_name: str, game: SearchedGame | None = None) -> Policy:
    """The policy called ``name``, or ``name`` itself when a caller brings its own (a human).
    A searching player is attached to ``game``, whose rules it forks."""
    if isinstance(name, Policy):
        policy = name
    elif name == "greedy":
        return _GREEDY
    elif name == "first" or name == "scripted":
        return _FIRST
    else:
        search = parse_search(name)
        if search is None:
            player = name.partition(":")[0]
            if player in SEARCH_NAMES:
                raise ValueError(f"'{name}': write {player}, {player}:N (N futures a decision, 1 to "
                                 f"1,000,000) or {player}:Ts (T seconds a decision, at most 3600)")
            if name != "random":  # a misspelt player is an error, never a silent random one
                raise ValueError(unknown_player(name))
            return RandomPolicy(f"hexlore-policy:{seed}:{side_name}")
        policy = SearchPolicy(f"{seed}:{side_name}", **search)
    if game is not None and isinstance(policy, SearchPolicy):
        policy.attach(game)
    return policy
