"""Setting a game up from its scenario: constants, sides, terrain, units, decks, and the
conversion of scenario values (YAML scalars and lists) to runtime values.

Kept out of :class:`~hexlore.runtime.engine.game.Game`, which holds the state and the play loop:
setting up runs once per game, reports every problem of the scenario against the packs (each
located at its YAML node), and is what campaigns (``cast``) and scenario tests (``given``) use
to convert values of their own files.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from hexlore.compiler import ir
from hexlore.compiler.builtins import ENUMS as BUILTIN_ENUMS, enum_value
from hexlore.compiler.model import DefinitionSpec, RuleSet
from hexlore.compiler.types import Type
from hexlore.diagnostics import codes, Span, did_you_mean, error
from hexlore.runtime.engine.cast import Cast, SettingUp, add_campaign_units
from hexlore.runtime.engine.core.state import GameState, Side, Unit
from hexlore.runtime.scenarios.model import unknown_side_message


class SetUpTarget(SettingUp, Protocol):
    """What :func:`set_up` fills: a :class:`~hexlore.runtime.engine.game.Game` or a
    :class:`CheckedSetUp`. A view rather than ``Game`` itself, since game.py sets itself up
    with this module and a module needing game.py back, even for its type only, is an import
    cycle (tests/test_import_cycles.py)."""

    scenario: Any
    tables: dict
    options: dict

    def const(self, node: ir.X) -> Any: ...


class ScenarioValues:
    """Scenario values as runtime values for one game, and the default values of fields.

    Constant expressions of the rules are evaluated by ``evaluate`` (the game's compiled
    rules); definitions' values are computed once per game and kept in ``def_values``, which
    compiled code reads directly.
    """

    def __init__(self, rules: RuleSet, scenario, state: GameState, evaluate):
        self.rules = rules
        self.scenario = scenario
        self.state = state
        # it reaches the game only weakly, so a dropped game is freed at once with no cycle for
        # the collector (tests/test_linking.py)
        self._evaluate = evaluate
        self.def_values: dict[str, dict] = {}
        #: ids of the lists definitions hold (nested ones too): a list changed in place that
        #: is one of them makes what reads definitions' lists forget (memo.DEFINITION_LISTS)
        self.definition_lists: set[int] = set()
        self._default_makers: dict[str, list] = {}

    def const(self, node: ir.X):
        return self._evaluate(node)

    def report_problem(self, problems, message, *path, hint=None, code=codes.WRONG_VALUE, key=False, doc=None):
        """A problem at a YAML node of the scenario (at its key, for names that are keys).

        ``doc``: another loaded file the value comes from (a campaign sheet), else the scenario.
        """
        sc = self.scenario if doc is None else doc
        if key and hasattr(sc, "key_span_of"):
            span = sc.key_span_of(*path)
        else:
            span = sc.span_of(*path) if hasattr(sc, "span_of") else Span()
        problems.append(error(code, message, sc.path, span, hint))

    def field_defaults(self, kind: str) -> dict:
        """Fresh default values of a kind's fields (new lists each time: instances never share)."""
        makers = self._default_makers.get(kind)
        if makers is None:
            makers = self._default_makers[kind] = [
                (name, _literal_maker(spec.default) if spec.default is not None else
                 (list if spec.type.name == "list" else _none))
                for name, spec in self.rules.kinds[kind].fields.items()]
        # a maker is a callable (a literal, list, _none) or an expression to evaluate each time
        return {name: make() if callable(make) else self.const(make) for name, make in makers}

    def definition_values(self, d: DefinitionSpec) -> dict:
        values = self.def_values.get(d.name)
        if values is None:
            d = self.rules.definitions.get(d.name, d)  # the final spec (a table may hold the first)
            values = self.field_defaults(d.kind)
            for fname, x in d.values:
                values[fname] = self.const(x)
            self.def_values[d.name] = values
            lists = [v for v in values.values() if v.__class__ is list]
            while lists:
                items = lists.pop()
                self.definition_lists.add(id(items))
                lists += [v for v in items if v.__class__ is list]
        return values

    def convert(self, value, t: Type, problems, path, key: bool = False, doc=None):
        """A scenario value (YAML scalar or list) as a runtime value of type ``t``.

        ``key``: the value is a mapping key (a card of a deck), so problems point at the key.
        ``doc``: the file the value was written in, when it is not the scenario (a sheet).
        """
        rules = self.rules
        if value is None:
            return None
        name = t.name
        if name == "list":
            if not isinstance(value, list):
                value = [value]
            return [self.convert(v, t.item or Type("any"), problems, path, key, doc) for v in value]

        def problem(message, **kw):
            self.report_problem(problems, message, *path, key=key, doc=doc, **kw)

        if name in ("int",):
            if isinstance(value, bool) or not isinstance(value, int):
                problem(f"expected an integer, got {value!r}")
            return value
        if name == "bool":
            if not isinstance(value, bool):
                problem(f"expected true or false, got {value!r}")
            return value
        if name in ("text", "any"):
            return value
        if name == "tag":
            sym = rules.symbols.get(rules.find(rules.symbols, str(value)) or "")
            if sym is None:
                guess = did_you_mean(str(value), rules.symbols)
                problem(f"no tag or enum value named '{value}' in the packs",
                        hint=rules.name_hint(rules.symbols, str(value))
                        or (f"did you mean '{guess}'?" if guess else None))
            return sym
        if name.startswith("enum:") and name[5:] in BUILTIN_ENUMS and name[5:] not in rules.enums:
            values = BUILTIN_ENUMS[name[5:]]
            if str(value) not in values:
                problem(f"'{value}' is not a value of the built-in enum {name[5:]}",
                        hint=f"one of: {', '.join(values)}")
                return None
            return enum_value(name[5:], str(value))
        if name.startswith("enum:"):
            sym = rules.symbols.get(rules.find(rules.symbols, str(value)) or "")
            if sym is None or sym.group != name[5:]:
                options = [s.name for s in rules.enums.get(name[5:], ())]
                problem(f"'{value}' is not a value of {name[5:]}",
                        hint=f"one of: {', '.join(options)}")
            return sym
        if name == "hex":
            try:
                return self.state.board.parse_label(str(value))
            except ValueError as exc:
                problem(str(exc), code=codes.HEX_NOT_ON_BOARD)
                return None
        if name == "side":
            side = self.state.side(str(value))
            if side is None:
                problem(f"no side named '{value}'", code=codes.UNKNOWN_IN_TEST,
                        hint=_guess(str(value), [s.name for s in self.state.sides]))
            return side
        if name == "unit":
            unit = self.state.units.get(str(value))
            if unit is None:
                guess = did_you_mean(str(value), self.state.units)
                problem(f"no unit with id '{value}'", code=codes.UNKNOWN_IN_TEST,
                        hint=f"did you mean '{guess}'?" if guess else None)
            return unit
        kind = "unit" if name == "unit_type" else name
        d = rules.definitions.get(rules.find(rules.definitions, str(value)) or "")
        if d is None or d.kind != kind:
            names = [x.name for x in rules.definitions_of(kind)]
            guess = did_you_mean(str(value), names)
            problem(f"no {kind} named '{value}' in the packs", code=codes.UNKNOWN_DEFINITION,
                    hint=rules.name_hint(rules.definitions, str(value))
                    or (f"did you mean '{guess}'?" if guess else f"known: {', '.join(names[:12])}"))
        return d


@dataclass
class CheckedSetUp:
    """A scenario set up against its rules to find its problems, with no game to play it.

    Checking a scenario (``hexlore check``, and every command that opens one) needs the sides,
    units and values the scenario names converted against the packs, not the rules' executable
    form: building a :class:`~hexlore.runtime.engine.game.Game` generates and compiles the
    rules' Python, which was most of the time of ``hexlore check`` (issue 32). This runs the
    very set-up a game runs (:func:`set_up`), so its problems are the same, but a constant
    expression of the rules is evaluated only when it is a literal: field defaults, tables and
    option defaults that call the rules' functions stay ``None``. No check reads them.
    """

    rules: RuleSet
    scenario: object
    state: GameState
    problems: list = field(default_factory=list)
    #: the problems of a campaign's units (the last of ``problems``; the others are the scenario's own)
    cast_problems: list = field(default_factory=list)
    tables: dict = field(default_factory=dict)
    options: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.values = ScenarioValues(self.rules, self.scenario, self.state, self.const)

    @staticmethod
    def const(node: ir.X):
        """A literal's value; None for an expression that would need the rules to run."""
        return node.value if node.__class__ is ir.Const else None


def check_set_up(rules: RuleSet, scenario, cast: Cast | None = None) -> CheckedSetUp:
    """The scenario set up as a game would set it up, without one: its problems against the
    packs in ``problems``, its state (sides, units on their hexes) for the checks that follow.
    ``cast``: a campaign's units from its sheet, added as ``Game`` adds them."""
    checked = CheckedSetUp(rules, scenario, GameState(scenario.board))
    set_up(checked, checked.problems)
    if cast is not None:
        add_campaign_units(checked, cast, checked.cast_problems)
        checked.problems += checked.cast_problems
    return checked


def set_up(game: SetUpTarget, problems: list) -> None:
    """Fill the game's tables, options and state from its rules and scenario; every problem of
    the scenario against the packs goes to ``problems``. Part of building the game (called by
    ``Game.__init__`` and :func:`check_set_up` only): it fills the game's own dicts and state."""
    _constants(game, game.values, problems)
    _state(game, game.values, problems)


def _constants(game, values: ScenarioValues, problems: list) -> None:
    rules = game.rules
    for name, table in rules.tables.items():
        game.tables[name] = {k: game.const(v) for k, v in table.entries}
    for name, option in rules.options.items():
        game.options[name] = game.const(option.default)
    for name, value in (game.scenario.options or {}).items():
        key = rules.find(rules.options, name)
        if key is None:
            guess = did_you_mean(name, rules.options)
            values.report_problem(problems, f"the packs have no option '{name}'", "options", name,
                          hint=rules.name_hint(rules.options, name) or (f"did you mean '{guess}'?" if guess else
                          f"options: {', '.join(sorted(rules.options)) or 'none'}"), code=codes.UNKNOWN_OPTION,
                          key=True)
            continue
        converted = values.convert(value, rules.options[key].type, problems, ("options", name))
        game.options[key] = converted


def _state(game, values: ScenarioValues, problems: list) -> None:
    rules, sc, st = game.rules, game.scenario, game.state
    game_spec = rules.game
    st.game.update({"round": 0, "turn": 0, "active": None})
    st.game.update(values.field_defaults("game"))
    for i, spec in enumerate(sc.sides):
        st.sides.append(Side(spec.name, spec.edge, i, values.field_defaults("side")))
    for n, spec in enumerate(sc.sides):
        side, i = st.sides[n], _index(spec, n)
        for fname, value in (spec.fields or {}).items():
            fspec = rules.kinds["side"].fields.get(fname)
            if fspec is None:
                values.report_problem(problems, f"sides have no field '{fname}'", "sides", i, "fields", fname,
                              hint=_guess(fname, rules.kinds["side"].fields, "side fields: "),
                              code=codes.UNKNOWN_SCENARIO_FIELD, key=True)
                continue
            side.f[fname] = values.convert(value, fspec.type, problems, ("sides", i, "fields", fname))
    default_terrain = None
    if game_spec and "default_terrain" in game_spec.settings:
        default_terrain = game.const(game_spec.settings["default_terrain"])
    elif rules.definitions_of("terrain"):
        default_terrain = rules.definitions_of("terrain")[0]
    for h in st.board:
        st.hex_fields[h] = {"terrain": default_terrain, **values.field_defaults("hex")}
    unknown_terrains: set[str] = set()
    for h, tname in sc.terrain.items():
        d = rules.definitions.get(rules.find(rules.definitions, tname) or "")
        if d is None or d.kind != "terrain":
            if tname in unknown_terrains:
                continue
            unknown_terrains.add(tname)
            names = [x.name for x in rules.definitions_of("terrain")]
            guess = did_you_mean(tname, names)
            values.report_problem(problems, f"no terrain named '{tname}' in the packs", "board", "terrain", tname,
                          hint=rules.name_hint(rules.definitions, tname) or
                          (f"did you mean '{guess}'?" if guess else f"terrains: {', '.join(names)}"),
                          code=codes.UNKNOWN_TERRAIN, key=True)
            continue
        st.hex_fields[h]["terrain"] = d
    unit_kind = rules.kinds["unit"]
    for n, placement in enumerate(sc.units):
        i = _index(placement, n)
        d = rules.definitions.get(rules.find(rules.definitions, placement.type) or "")
        if d is None or d.kind != "unit":
            names = [x.name for x in rules.definitions_of("unit")]
            guess = did_you_mean(placement.type, names)
            values.report_problem(problems, f"no unit type '{placement.type}' in the packs", "units", i, "type",
                          hint=rules.name_hint(rules.definitions, placement.type) or
                          (f"did you mean '{guess}'?" if guess else f"unit types: {', '.join(names)}"),
                          code=codes.UNKNOWN_UNIT_TYPE)
            continue
        side = st.side(placement.side)
        if side is None:
            lacks = getattr(sc, "lacks_side", None)
            # a side with errors of its own is not reported again; nor is a side the loader
            # found unknown (a scenario it built has side_names): it said so, with a hint
            if getattr(sc, "side_names", None) is None and (lacks is None or lacks(placement.side)):
                values.report_problem(problems, unknown_side_message(placement.id, placement.side), "units", i,
                              "side", code=codes.UNKNOWN_SIDE)
            continue
        if placement.id in st.units:  # a duplicate id (reported by the loader): keep the first
            continue
        fields = {k: (list(v) if isinstance(v, list) else v) for k, v in values.definition_values(d).items()}
        unit = Unit(placement.id, d, side, None, fields)
        st.units[placement.id] = unit
        st.place(unit, placement.hex)
    for n, placement in enumerate(sc.units):
        i = _index(placement, n)
        unit = st.units.get(placement.id)
        if unit is None or unit.hex != placement.hex:
            continue
        for fname, value in (placement.fields or {}).items():
            fspec = unit_kind.fields.get(fname)
            if fspec is None:
                values.report_problem(problems, f"units have no field '{fname}'", "units", i, "fields", fname,
                              hint=_guess(fname, unit_kind.fields, "unit fields: "), code=codes.UNKNOWN_SCENARIO_FIELD,
                              key=True)
                continue
            unit.f[fname] = values.convert(value, fspec.type, problems, ("units", i, "fields", fname))
    for fname, cards in (sc.decks or {}).items():
        fspec = rules.kinds["game"].fields.get(fname)
        if fspec is None or fspec.type.name != "list":
            decks = [n for n, f in rules.kinds["game"].fields.items() if f.type.name == "list"]
            guess = did_you_mean(fname, decks)
            values.report_problem(problems, f"the game has no list field '{fname}' to hold a deck", "decks", fname,
                          hint=f"did you mean '{guess}'?" if guess else
                          "declare it with 'fields game { NAME: list of card = [] }'", code=codes.NO_DECK_FIELD,
                          key=True)
            continue
        pile = []
        for cname, n in cards.items():
            d = values.convert(cname, fspec.type.item or Type("card"), problems, ("decks", fname, cname), key=True)
            pile.extend([d] * int(n))
        st.game[fname] = pile


class _Literal:
    """A field default written as a literal (a constant, or a list of literals), made without
    linking it again for every instance: the same constant object, or a new list of them,
    exactly what evaluating the expression gives each time."""

    __slots__ = ("value", "items")

    def __init__(self, value, items=None):
        self.value = value
        self.items = items

    def __call__(self):
        if self.items is None:
            return self.value
        return [make() for make in self.items]


def _literal_maker(node: ir.X):
    """A _Literal for a constant or a list of literals, else the node itself (evaluated each
    time, as it may call functions)."""
    if node.__class__ is ir.Const:
        return _Literal(node.value)
    if node.__class__ is ir.MakeList:
        items = [_literal_maker(i) for i in node.items]
        if all(i.__class__ is _Literal for i in items):
            return _Literal(None, items)
    return node


def _none():
    return None


def _index(spec, position: int) -> int:
    """Where a side or unit sits in the YAML list (a partial scenario may have left items out)."""
    index = getattr(spec, "index", -1)
    return position if index < 0 else index


def _guess(name, pool, listing: str | None = None) -> str | None:
    """A did-you-mean, else (with ``listing``) the names there are."""
    g = did_you_mean(name, list(pool))
    if g:
        return f"did you mean '{g}'?"
    return listing + ", ".join(sorted(pool)) if listing and pool else None
