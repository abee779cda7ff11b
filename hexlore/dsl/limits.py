"""The bounds every untrusted input is held to, in one place.

Rule files and scenarios come from pull requests and shared mods, so each bound below turns
an input that would exhaust time or memory into a located diagnostic (``docs/diagnostics.md``
names the code of each). They live at the bottom of the import graph (``dsl`` ← ``compiler``
← ``runtime``) so that the parser, the YAML reader and the runtime agree on the same figures.

Each bound is far above what the bundled packs and scenarios use (the largest file is 37 KB,
the longest identifier 34 characters, the longest string 134), and far below what hurts.
"""

from __future__ import annotations

#: Largest ``.lore``, scenario, campaign or sheet file read, in bytes.
MAX_FILE_BYTES = 1024 * 1024

#: Longest identifier, number or string literal in a ``.lore`` file, in characters.
MAX_TOKEN_CHARS = 1000

#: Largest magnitude of an integer anywhere: a Lore literal, a YAML value, or the result of
#: arithmetic at run time. 2**53 - 1 is the largest integer a JSON reader in any language
#: keeps exactly, so every logged number survives a round trip.
MAX_INT = 2**53 - 1

#: Deepest nesting of brackets (``{``, ``(``, ``[``) in a ``.lore`` file; the bundled packs
#: stay under 10, and syntax trees are bounded separately (P009, 100 levels).
MAX_NESTING = 100

#: Most faces a die may have (``faces 1..N`` is expanded face by face).
MAX_FACES = 1000

#: Deepest nesting of YAML collections, checked on the token stream before composing.
MAX_YAML_DEPTH = 64

#: Most values (scalars and collections) in one YAML document once its aliases (``*name``)
#: are expanded: anchors are legitimate, a "billion laughs" bomb is not. The largest bundled
#: scenario holds about 6,000.
MAX_YAML_NODES = 200_000


#: Most cards in all the decks of one scenario (each card name at most 1,000 copies, in the
#: schema), and most units (the schema's ``maxItems``).
MAX_CARDS = 10_000
MAX_UNITS = 10_000


def int_in_bounds(value: int) -> bool:
    """Whether ``value`` is an integer hexlore may hold (see :data:`MAX_INT`)."""
    return -MAX_INT <= value <= MAX_INT


# Outputs are bounded like inputs: a small file must not make a huge picture, page or sweep
# (issue 30). ``hexlore check`` warns in advance of a board too large to draw (S127); ``render``,
# ``run --html`` and ``replay`` refuse it, and refuse a replay past its budget (S128), before
# writing anything; ``sweep`` refuses more games than it may play (S129). The bundled scenarios
# use a hundredth of each at most: boards of 180 hexes, replays of 100,000 cells and 212 KB.

#: Most hexes a picture (``render``) or a replay page draws: each hex is about 250 bytes of SVG.
MAX_DRAWN_HEXES = 10_000

#: Most work a replay's recorder may do: before each log entry it compares every hex's terrain
#: and every unit with the last entry's, so a game of N entries costs N x (hexes + units) cells.
MAX_REPLAY_CELLS = 10_000_000

#: Largest replay page, in bytes: the log's entries and the recorded positions count as they
#: are recorded (so a recording stops growing at once), the whole page when it is made.
MAX_PAGE_BYTES = 16 * 1024 * 1024

#: Most games one sweep plays (each game's record is kept for the paired comparison and the
#: digest): a larger sweep is several sweeps with different ``--seed``.
MAX_SWEEP_GAMES = 100_000

#: Deepest nesting of events emitted by triggers at run time (a cycle of triggers that never
#: ends is an R001 there). Here, not in the runtime, because the compiler's backend writes it into the
#: generated code and the runtime reports it: both read this one bound.
MAX_EVENT_DEPTH = 64
