"""hexlore: a rules compiler and scenario language for hex-grid tactical board games.

Rules are written in Lore (``.lore`` packs), compiled into an event-trigger graph and run
on YAML scenarios. The public API:

- :func:`compile_packs` — packs in, a checked :class:`~hexlore.compiler.RuleSet` out;
- :func:`open_scenario` — a scenario and its compiled packs, with every diagnostic;
- :func:`check`, :func:`run`, :func:`test` — what the ``hexlore`` command does;
- :class:`Game` — play a rule set on a scenario with seeded dice and policies;
- :func:`odds`, :func:`sweep` — exact odds of an action, balance sweeps (``docs/odds.md``).
"""

from .api import Game, check, compile_packs, open_scenario, run, test

__version__ = "0.1.0"
__all__ = ["Game", "check", "compile_packs", "open_scenario", "run", "test", "__version__"]

from .api import odds, sweep  # noqa: E402

__all__ += ["odds", "sweep"]
