"""The third pass of loading a scenario: build the :class:`Scenario` from the checked data,
checking as it goes what the schema cannot say (``S004``-``S010``): hexes on the board,
unique names, one unit a hex, known sides and names, one terrain a hex, an edge of each
side's own. The checks are made while building because each needs what building has
parsed: the board for hex labels, the side names for the units' sides.
"""

from __future__ import annotations

from typing import Any

from hexlore.dsl.limits import MAX_CARDS

from hexlore.diagnostics import Diagnostic, Source, Span, codes, did_you_mean, error
from hexlore.runtime.geometry.grid import Board, Hex
from hexlore.runtime.scenarios.located_yaml import JsonPath, SpanIndexer, nearest_span
from hexlore.runtime.scenarios.model import (Action, NameSet, Scenario, ScenarioTest,
                                            SideSpec, UnitPlacement, unknown_side_message)


class ScenarioBuilder:
    """Turns checked data into a :class:`Scenario`, collecting semantic errors.

    It also runs on data with schema errors (``bad`` holds their paths): every section,
    item or value that is sound is still checked, and the rest is left out.
    """

    def __init__(self, file: str, data: dict, idx: SpanIndexer, bad: frozenset[JsonPath] = frozenset()):
        self.file, self.data, self.idx, self.bad = file, data, idx, bad
        self.diagnostics: list[Diagnostic] = []
        self.usable = True

    def span(self, *path: Any) -> Span:
        return nearest_span(self.idx.spans, path)

    def fail(self, code: str, message: str, path: JsonPath, hint: str | None = None,
             key: bool = False) -> None:
        span = self.idx.key_spans.get(path) if key else None
        self.diagnostics.append(error(code, message, self.file, span or self.span(*path), hint))

    def clean(self, *path: Any) -> bool:
        """No schema error at, inside or above ``path``: the node reads as the schema says."""
        n = len(path)
        return not any(b[:n] == path or path[:len(b)] == b for b in self.bad)

    def intact(self, *path: Any) -> bool:
        """No schema error at or above ``path`` (its children may have some)."""
        return not any(path[:len(b)] == b for b in self.bad)

    def sound(self, section: str, i: int, required: tuple[str, ...]) -> bool:
        """An item whose required keys are clean can be used, whatever is wrong with the rest."""
        return self.intact(section, i) and all(self.clean(section, i, k) for k in required)

    def optional(self, item: dict, path: JsonPath, key: str, default: Any) -> Any:
        """An optional key's value, or its default when it is absent or has schema errors."""
        value = item.get(key)
        return value if value is not None and self.clean(*path, key) else default

    def entries(self, key: str) -> dict:
        """The sound entries of a top-level mapping (options, decks, decisions)."""
        raw = self.data.get(key)
        if not self.intact(key) or not isinstance(raw, dict):
            return {}
        return {k: v for k, v in raw.items() if self.clean(key, k)}

    def hex(self, board: Board | None, label: str, path: JsonPath) -> Hex | None:
        if board is None:
            return None
        try:
            return board.parse_label(label)
        except ValueError as exc:
            hint = ("hexagon boards use axial 'q,r' labels, e.g. '0,0'" if board.parity is None
                    else "labels are a column letter then a row number, e.g. 'F5'")
            self.fail(codes.HEX_NOT_ON_BOARD, str(exc), path, hint)
            return None

    def board(self) -> Board:
        spec = self.data["board"]
        try:
            if spec["shape"] == "rectangle":
                return Board.rectangle(spec["width"], spec["height"], spec.get("parity", "odd"))
            if spec["shape"] == "hexagon":
                return Board.hexagon(spec["radius"])
            if spec["shape"] == "mask":
                board = Board.from_mask(spec["rows"], spec.get("parity", "odd"))
                if len(board):
                    return board
                self.fail(codes.HEX_NOT_ON_BOARD, "the mask has no hex", ("board", "rows"),
                          "draw each hex with a character other than a space or '-', e.g. 'x'")
        except ValueError as exc:  # the schema should prevent this; report, don't crash
            self.fail(codes.HEX_NOT_ON_BOARD, str(exc), ("board",))
        return Board.battlelore()

    def board_is_sound(self) -> bool:
        """The board's shape and size are usable (errors in its terrain do not matter here)."""
        return isinstance(self.data.get("board"), dict) and not any(
            b[:1] == ("board",) and b[1:2] != ("terrain",) for b in self.bad)

    def build(self, source: Source) -> Scenario:
        d = self.data
        board = self.board() if self.board_is_sound() else None
        terrain = self.terrain(board)
        sides, side_names = self.sides(board)
        units, unit_ids = self.units(board, side_names)
        placed = {u.id: u.hex for u in units if u.hex is not None}
        # None: some starting hexes are unknown, so stacking after 'given' is not checkable
        starts = placed if len(placed) + sum(u.off_board for u in units) >= len(unit_ids.names) else None
        tests: list[ScenarioTest] = []
        raw_tests = d.get("tests")
        if self.intact("tests") and isinstance(raw_tests, list):
            tests = [self.test(board, t, i, unit_ids, side_names, starts)
                     for i, t in enumerate(raw_tests) if self.clean("tests", i)]
        self.usable = board is not None and self.clean("packs")
        return Scenario(
            path=self.file, name=d["name"] if self.clean("name") else "",
            description=d.get("description", "") if self.clean("description") else "",
            packs=list(d["packs"]) if self.clean("packs") else [],
            seed=d.get("seed", 0) if self.clean("seed") else 0,
            board=board or Board.battlelore(), terrain=terrain,
            sides=sides, units=units, options=self.entries("options"),
            decks=self.decks(),
            max_rounds=d.get("max_rounds") if self.clean("max_rounds") else None,
            decisions={k: list(v) for k, v in self.entries("decisions").items()},
            tests=tests, source=source, spans=dict(self.idx.spans),
            key_spans=dict(self.idx.key_spans), side_names=side_names, unit_ids=unit_ids,
        )

    def decks(self) -> dict[str, dict]:
        """The decks, unless they hold more cards in all than MAX_CARDS (S015): a deck is
        shuffled and dealt card by card, so its size is memory and time."""
        decks = {k: dict(v) for k, v in self.entries("decks").items()}
        total = sum(n for deck in decks.values() for n in deck.values() if isinstance(n, int))
        if total > MAX_CARDS:
            self.fail(codes.TOO_MANY_CARDS, f"the decks hold {total:,} cards in all, more than the {MAX_CARDS:,} "
                      "a scenario may hold", ("decks",), "a deck needs as many cards as a box holds, not more",
                      key=True)
            return {}
        return decks

    def terrain(self, board: Board | None) -> dict[Hex, str]:
        terrain: dict[Hex, str] = {}
        raw = self.data["board"].get("terrain") if board is not None else None
        if not self.intact("board", "terrain") or not isinstance(raw, dict):
            return terrain
        for name, labels in raw.items():
            if not self.clean("board", "terrain", name):
                continue
            for i, label in enumerate(labels):
                h = self.hex(board, label, ("board", "terrain", name, i))
                if h is None:
                    continue
                if h in terrain and terrain[h] != name:
                    self.fail(codes.TWO_TERRAINS, f"hex {label} is both {terrain[h]!r} and {name!r}",
                              ("board", "terrain", name, i), "a hex has one terrain; remove one")
                terrain[h] = name
        return terrain

    def declare(self, known: NameSet, item: Any, path: JsonPath, what: str) -> str | None:
        """Record the name of a side or unit (``S005`` if taken); a broken one makes ``known`` incomplete."""
        name = item.get(path[-1]) if isinstance(item, dict) else None
        if not isinstance(name, str) or not self.clean(*path):
            known.complete = False
            return None
        if name in known.names:
            self.fail(codes.DUPLICATE_NAME, f"duplicate {what} {name!r}", path, f"{what}s must be unique; rename one")
        known.names.add(name)
        return name

    def sides(self, board: Board | None) -> tuple[list[SideSpec], NameSet]:
        sides: list[SideSpec] = []
        known = NameSet()
        raw = self.data.get("sides")
        if not self.intact("sides") or not isinstance(raw, list):
            return sides, NameSet(complete=False)
        for i, s in enumerate(raw):
            self.declare(known, s, ("sides", i, "name"), "side name")
            if self.sound("sides", i, ("name", "edge")):
                sides.append(SideSpec(s["name"], s["edge"], self.optional(s, ("sides", i), "policy", "random"),
                                      dict(self.optional(s, ("sides", i), "fields", {})),
                                      self.span("sides", i), index=i))
        if board is not None:
            self.edges(board, sides)
        return sides, known

    def edges(self, board: Board, sides: list[SideSpec]) -> None:
        """Each side needs an edge of its own: rules such as 'retreat toward your edge' need it."""
        owners: dict[str, str] = {}
        for spec in sides:
            path = ("sides", spec.index, "edge")
            try:
                hexes = board.edge(spec.edge)
            except ValueError as exc:
                self.fail(codes.NO_OWN_EDGE, f"side {spec.name!r} has no own edge: {exc}", path)
                continue
            if spec.edge in owners:
                self.fail(codes.NO_OWN_EDGE, f"side {spec.name!r} has no own edge: {spec.edge!r} is already "
                          f"the edge of {owners[spec.edge]!r}", path,
                          "give each side a different edge (one 'top', one 'bottom')")
                continue
            for other_edge, other in owners.items():
                if board.edge(other_edge) & hexes:
                    self.fail(codes.NO_OWN_EDGE, f"side {spec.name!r} has no own edge: on this board, edge "
                              f"{spec.edge!r} is the same row as edge {other_edge!r} of side {other!r}", path,
                              "the board needs at least two rows")
                    break
            else:
                owners[spec.edge] = spec.name

    def units(self, board: Board | None, side_names: NameSet) -> tuple[list[UnitPlacement], NameSet]:
        units: list[UnitPlacement] = []
        known = NameSet()
        raw = self.data.get("units")
        if not self.intact("units") or not isinstance(raw, list):
            return units, NameSet(complete=False)
        occupied: dict[Hex, str] = {}
        for i, u in enumerate(raw):
            uid = self.declare(known, u, ("units", i, "id"), "unit id")
            if not self.sound("units", i, ("id", "type", "side", "hex")) or uid is None:  # sound: uid is set
                continue
            if side_names.lacks(u["side"]):
                self.fail(codes.UNKNOWN_SIDE, unknown_side_message(uid, u["side"]), ("units", i, "side"),
                          _guess_hint(u["side"], side_names.names, "sides are: "))
            off_board = u.get("hex") is None  # a reserve: alive, off the board until the rules place it
            h = None if off_board else self.hex(board, u["hex"], ("units", i, "hex"))
            if h is not None:
                if h in occupied:
                    self.fail(codes.STACKED, f"units {occupied[h]!r} and {uid!r} are both on {u['hex']}",
                              ("units", i, "hex"), "a hex holds at most one unit")
                else:
                    occupied[h] = uid
            units.append(UnitPlacement(uid, u["type"], u["side"], h,
                                       dict(self.optional(u, ("units", i), "fields", {})),
                                       self.span("units", i), index=i, off_board=off_board))
        return units, known

    def unknown(self, kind: str, name: str, known: NameSet, path: JsonPath) -> None:
        if known.lacks(name):
            self.fail(codes.UNKNOWN_IN_TEST, f"unknown {kind} {name!r}", path,
                      _guess_hint(name, known.names, f"known {kind}s: "), key=True)

    def test(self, board: Board | None, t: dict, i: int, unit_ids: NameSet, side_names: NameSet,
             starts: dict[str, Hex] | None) -> ScenarioTest:
        base = ("tests", i)
        given: dict = {}
        moved: dict[str, JsonPath] = {}
        for uid, overrides in (t.get("given") or {}).items():
            self.unknown("unit id", uid, unit_ids, base + ("given", uid))
            given[uid] = dict(overrides)
            if "hex" in overrides and overrides["hex"] is not None:  # hex: null sets the unit aside
                given[uid]["hex"] = self.hex(board, overrides["hex"], base + ("given", uid, "hex"))
                if given[uid]["hex"] is not None:
                    moved[uid] = base + ("given", uid, "hex")
        if starts is not None and moved and board is not None:  # moved: there is a board
            self.stacked_after_given(board, starts, given, moved)

        expect = dict(t["expect"])
        if "units" in expect:
            expect["units"] = {}
            for uid, fields in t["expect"]["units"].items():
                self.unknown("unit id", uid, unit_ids, base + ("expect", "units", uid))
                fields = dict(fields)
                if isinstance(fields.get("hex"), str):
                    fields["hex"] = self.hex(board, fields["hex"], base + ("expect", "units", uid, "hex"))
                expect["units"][uid] = fields
        for side in (expect.get("sides") or {}):
            self.unknown("side", side, side_names, base + ("expect", "sides", side))
        winner = expect.get("winner")
        if winner is not None and side_names.lacks(winner):
            self.fail(codes.UNKNOWN_IN_TEST, f"expected winner {winner!r} is not a side",
                      base + ("expect", "winner"), _guess_hint(winner, side_names.names, "sides are: "))

        actions = tuple(Action(a["call"], dict(a.get("with") or {}), self.span(*base, "do", j))
                        for j, a in enumerate(t.get("do") or []))  # no do: the position after given
        return ScenarioTest(
            name=t["name"], given=given, actions=actions,
            dice=tuple(tuple(roll) for roll in t.get("dice") or []),
            decisions={k: list(v) for k, v in (t.get("decisions") or {}).items()},
            expect=expect, span=self.span(*base), index=i,
        )

    def stacked_after_given(self, board: Board, starts: dict[str, Hex], given: dict,
                            moved: dict[str, JsonPath]) -> None:
        """Two units on one hex once a test's ``given`` has moved them: the test could never run."""
        positions = {uid: h for uid, h in starts.items()
                     if not ("hex" in given.get(uid, {}) and given[uid]["hex"] is None)}  # set aside
        for uid in moved:
            positions[uid] = given[uid]["hex"]
        here: dict[Hex, list[str]] = {}
        for uid, h in positions.items():
            here.setdefault(h, []).append(uid)
        for h, ids in here.items():
            movers = [uid for uid in moved if uid in ids]
            if len(ids) > 1 and movers:
                self.fail(codes.STACKED, f"after 'given', units {_and(ids)} are all on {board.label(h)}"
                          if len(ids) > 2 else
                          f"after 'given', units {_and(ids)} are both on {board.label(h)}",
                          moved[movers[-1]], "a hex holds at most one unit: move one of them too")


def _guess_hint(name: str, known: set[str], listing: str | None = None) -> str | None:
    guess = did_you_mean(name, known)
    if guess:
        return f"did you mean {guess!r}?"
    if listing is not None and known:
        return listing + ", ".join(sorted(known))
    return None


def _and(names: list[str]) -> str:
    quoted = [repr(n) for n in names]
    return quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " and " + quoted[-1]
