"""The engine's lowest layer: what the built-ins, the compiled rules and the game all use.

A game's state (with its journal), the budget and its errors, what resumable rules ask (rolls
and choices), the per-game memo and undecided dice faces. Nothing here imports the rest of the
engine, so ``builtins/`` and ``compiled/`` stand on it and ``game.py`` on them, one way
(tests/test_import_cycles.py).
"""
