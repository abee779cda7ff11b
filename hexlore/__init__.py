"""hexlore: a rules compiler and scenario language for hex-grid tactical board games.

Rules are written in Lore (``.lore`` packs), compiled into an event-trigger graph and run
on YAML scenarios. The public API:

- :func:`compile_packs` — packs in, a checked :class:`~hexlore.compiler.RuleSet` out;
- :func:`open_scenario` — a scenario and its compiled packs, with every diagnostic;
- :func:`check`, :func:`run`, :func:`test` — what the ``hexlore`` command does;
- :class:`Game` — play a rule set on a scenario with seeded dice and policies;
- :func:`odds`, :func:`sweep` — exact odds of an action, balance sweeps (``docs/odds.md``).

These names are looked up in :mod:`hexlore.api` on first use (PEP 562): importing any part
of hexlore imports this package first, and ``hexlore --help`` or a sweep worker must not pay
for the compiler, the runtime and the schemas just because the package's front door names them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"
__all__ = ["Game", "check", "compile_packs", "open_scenario", "run", "test", "__version__", "odds", "sweep"]

if TYPE_CHECKING:  # for type checkers and editors; at run time __getattr__ below finds them
    from .api import Game, check, compile_packs, odds, open_scenario, run, sweep, test  # noqa: F401


def __getattr__(name: str) -> Any:
    if name in __all__:
        from . import api

        value = globals()[name] = getattr(api, name)  # later look-ups skip this function
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
