"""Golden tests of the movement primitives: one drawn board per variant.

Each fixture in ``tests/fixtures/geometry/movement/`` is a text file a reader can check by
eye: ``key: value`` settings, a ``board:`` drawing (see ``tests/hexart.py``) and an
``expected:`` drawing of the answer. The test computes the answer with
``hexlore.runtime.geometry.movement``, draws it the same way and compares the two drawings; on a
mismatch it prints the drawing it got.

Marks on ``board:`` drawings (one vocabulary for every fixture):

==== =====================================================================================
``S`` the moving unit's hex (open ground)
``.`` open ground: entering costs 1
``c`` cover or high ground (seed 003, 404.1a): entering costs 2
``x`` impassable
``o`` obstacle (seed 004, a forest): +1 to enter
``H`` hill (seed 004): crossing its slope (lower to higher or back) is an obstacle, +1
``W`` wooded hill: an obstacle *and* a slope, still only +1 (obstacles do not stack)
``w`` woods that end a move on entering (BattleLore)
``a`` a friendly unit; ``e`` an enemy unit; ``f`` an enemy familiar (seed 003)
``A`` the source of a forced move or the attacker of a retreat (a unit stands there)
``D`` open ground: the destination whose path ``path:`` draws
==== =====================================================================================

Settings: ``kind`` (``search``, ``teleport``, ``forced``), ``budget`` or ``reach`` or
``count``, ``passes`` (who the unit may move through: ``nobody``, ``friends`` — friends
and enemy familiars, 404.1b — or ``everyone``), ``zoc`` (a zone-of-control mode; enemies
``e`` control their neighbours), ``rank`` (``away``, ``edge``, ``directional``) and ``edge``.

Expected drawings: for searches a digit is the points spent to end the move there; for
teleports ``*`` is a landing hex; for forced moves a digit marks a hex where the move can
end, giving the count left unspent (0: the whole count), and ``+`` a hex a forced move
passes without ending there. ``S`` is the start; any other hex keeps its board mark.
``path:`` draws the cheapest path to ``D`` with step numbers; ``events:`` lists what
walking it emits.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pytest

from hexart import parse_art, render_art
from hexlore.runtime.geometry import movement as mv
from hexlore.runtime.geometry.grid import Board, Hex

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "geometry" / "movement"
ART_KEYS = ("board", "expected", "path")
SETTINGS = {"kind", "budget", "reach", "count", "passes", "zoc", "rank", "edge", "events", "paths"}


@dataclass
class Fixture:
    name: str
    settings: dict[str, str] = field(default_factory=dict)
    art: dict[str, str] = field(default_factory=dict)


def load_fixture(path: Path) -> Fixture:
    """Settings are ``key: value`` lines; ``board:``, ``expected:``, ``path:`` open drawings
    that run to the next blank line. ``#`` lines are comments."""
    fx = Fixture(path.stem)
    drawing: str | None = None
    for line in path.read_text(encoding="utf-8").splitlines():
        if drawing is not None:
            if line.strip():
                fx.art[drawing] += line.rstrip() + "\n"
                continue
            drawing = None
        if not line.strip() or line.startswith("#"):
            continue
        key, _, value = line.partition(":")
        key = key.strip()
        if key in ART_KEYS and not value.strip():
            drawing = key
            fx.art[key] = ""
        elif key in SETTINGS:
            fx.settings[key] = value.strip()
        else:
            raise ValueError(f"{path.name}: unknown setting or stray line {line!r}")
    return fx


@dataclass
class Scene:
    """The board of a fixture and what its marks mean for a moving unit."""

    board: Board
    marks: dict[str, set[Hex]]

    def at(self, h: Hex) -> str:
        for mark, hexes in self.marks.items():
            if h in hexes:
                return mark
        raise KeyError(h)

    def one(self, mark: str) -> Hex:
        (h,) = self.marks[mark]
        return h

    def units(self) -> set[Hex]:
        return set().union(*(self.marks.get(m, set()) for m in "aefA"))

    def passable(self, h: Hex, passes: str) -> bool:
        mark = self.at(h)
        if mark not in "aefA":
            return True
        if passes == "everyone":
            return True
        return passes == "friends" and mark in "af"

    def enter_cost(self, passes: str):
        def cost(_frm: Hex, to: Hex) -> int | None:
            mark = self.at(to)
            if mark == "x" or not self.passable(to, passes):
                return None
            return 2 if mark in "ch" else 1
        return cost

    def can_end(self, h: Hex) -> bool:
        return h not in self.units()

    def obstacle(self, frm: Hex, to: Hex) -> bool:
        height = {m: 1 for m in "HW"}
        return self.at(to) in "oW" or height.get(self.at(frm), 0) != height.get(self.at(to), 0)

    def controlled(self, h: Hex) -> bool:
        return any(n in self.marks.get("e", ()) for n in self.board.neighbours(h))


def solve(fx: Fixture) -> tuple[str, Scene, dict]:
    board, marks = parse_art(fx.art["board"])
    scene = Scene(board, marks)
    start = scene.one("S")
    kind = fx.settings["kind"]
    passes = fx.settings.get("passes", "nobody")
    extra: dict = {}
    if kind == "search":
        rules = mv.MoveRules(scene.enter_cost(passes), stops=lambda h: scene.at(h) == "w",
                             can_end=scene.can_end, obstacle=scene.obstacle,
                             controlled=scene.controlled, zoc=fx.settings.get("zoc", mv.ZOC_NONE))
        routes = mv.search(board, start, int(fx.settings["budget"]), rules)
        assert routes == mv.search_simple(board, start, int(fx.settings["budget"]), rules)

        def mark(h: Hex) -> str:
            if h == start:
                return "S"
            rt = routes.get(h)
            return str(rt.cost) if rt is not None and rt.can_end else scene.at(h)
        if "D" in marks:
            extra["path"] = routes[scene.one("D")].path
    elif kind == "teleport":
        landing = set(mv.teleport_options(board, start, int(fx.settings["reach"]),
                                          lambda h: scene.at(h) != "x" and scene.can_end(h)))

        def mark(h: Hex) -> str:
            return "S" if h == start else "*" if h in landing else scene.at(h)
    elif kind == "forced":
        rank_name = fx.settings["rank"]
        rank = {"away": lambda: mv.away_rank(board, scene.one("A")),
                "edge": lambda: mv.edge_rank(board, fx.settings["edge"]),
                "directional": lambda: mv.directional_rank(scene.one("A"))}[rank_name]()
        paths = mv.forced_paths(board, start, int(fx.settings["count"]), rank,
                                scene.enter_cost(passes), scene.can_end)
        ends = mv.forced_ends(start, paths)
        crossed = {h for p in paths for h in p.path}
        extra["paths"] = paths

        def mark(h: Hex) -> str:
            if h in ends:
                return str(ends[h])
            if h == start:
                return "S"
            return "+" if h in crossed else scene.at(h)
    else:
        raise ValueError(f"{fx.name}: unknown kind {kind!r}")
    return render_art(board, mark), scene, extra


def normalised(art: str) -> str:
    return "\n".join(line.rstrip() for line in art.strip("\n").splitlines())


FILES = sorted(FIXTURES.glob("*.txt"))


def test_there_is_a_fixture_per_variant() -> None:
    kinds = {}
    for f in FILES:
        fx = load_fixture(f)
        key = (fx.settings["kind"], fx.settings.get("zoc") or fx.settings.get("rank") or fx.name)
        kinds[key] = f.name
    for wanted in [("search", "stop"), ("search", "forbid"), ("search", "enter"),
                   ("forced", "away"), ("forced", "edge"), ("forced", "directional")]:
        assert wanted in kinds, f"no fixture for {wanted}"
    assert len(FILES) >= 12


@pytest.mark.parametrize("path", FILES, ids=[f.stem for f in FILES])
def test_golden(path: Path) -> None:
    fx = load_fixture(path)
    actual, scene, extra = solve(fx)
    expected = normalised(fx.art["expected"])
    assert normalised(actual) == expected, (
        f"{path.name}: the drawing differs; got\n{actual}\n\nexpected\n{expected}")
    if "path" in fx.art:
        steps = {h: i for i, h in enumerate(extra["path"], 1)}
        start = scene.one("S")
        drawn = render_art(scene.board, lambda h: "S" if h == start else str(steps.get(h, ".")))
        assert normalised(drawn) == normalised(fx.art["path"]), f"{path.name}: path drawn as\n{drawn}"
    if "events" in fx.settings:
        labels = [f"{kind} {scene.board.label(h)}" for kind, h in mv.move_events(extra["path"])]
        assert ", ".join(labels) == fx.settings["events"]
    if "paths" in fx.settings:
        assert len(extra["paths"]) == int(fx.settings["paths"])
