"""Units a campaign brings into a scenario from its sheet, and their campaign fields.

A campaign keeps some units from one game to the next (docs/campaigns.md). Before a game, each
sheet unit an adventure names joins the scenario as a unit of the side the adventure gives it,
*off the board* (the rules deploy it, in ``setup`` for instance), with the values of its
campaign fields read from the sheet and the defaults of its type for every other field. After
the game the runner reads those fields back (:func:`stored`) and writes them into the sheet.

Every problem is located where it was written: the unit's type and fields in the sheet, its
side and the id it is brought in under in the campaign file.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from hexlore.compiler.model import RuleSet
from hexlore.diagnostics import codes, did_you_mean
from hexlore.runtime.geometry.grid import Hex
from hexlore.runtime.scenarios.model import unknown_side_message
from hexlore.runtime.engine.core.state import GameState, Unit, label


class SettingUp(Protocol):
    """What adding a campaign's units needs: a :class:`~hexlore.runtime.engine.game.Game`, or a
    scenario set up only to be checked (:class:`~hexlore.runtime.engine.setup.CheckedSetUp`)."""

    rules: RuleSet
    state: GameState
    values: Any  # setup.ScenarioValues (setup imports this module)



@dataclass(frozen=True)
class CampaignUnit:
    """One sheet unit fighting for ``side`` in a game.

    ``sheet``/``path``: the file and YAML path of the unit on the sheet (its type is at
    ``path + ("type",)``, a field at ``path + ("fields", name)``). ``campaign``/``side_path``:
    the file and YAML path where the side is given (``None`` when no file gives it).
    ``check_only``: a unit no adventure brings in, set up only to check its sheet entry; it
    is left out quietly if its id is a scenario unit's.
    """

    id: str
    type: str
    side: str
    fields: dict
    sheet: Any
    path: tuple
    campaign: Any = None
    side_path: tuple = ()
    check_only: bool = False


@dataclass(frozen=True)
class Cast:
    """The campaign units of one game, and the ids of every unit on the sheet.

    A unit-typed campaign field holds the id of another sheet unit; one that sits this game
    out reads as none during the game (and keeps its value on the sheet unless the rules change it).
    """

    units: tuple[CampaignUnit, ...]
    sheet_ids: frozenset[str]


def add_campaign_units(game: SettingUp, cast: Cast, problems: list) -> None:
    """Create the cast's units (off the board, after the scenario's) and set their campaign fields."""
    rules, st = game.rules, game.state
    created: list[tuple[CampaignUnit, Unit]] = []
    for cu in cast.units:
        d = rules.definitions.get(rules.find(rules.definitions, cu.type) or "")
        if d is None or d.kind != "unit":
            names = [x.name for x in rules.definitions_of("unit")]
            guess = did_you_mean(cu.type, names)
            game.values.report_problem(problems, f"no unit type '{cu.type}' in the packs", *cu.path, "type", doc=cu.sheet,
                          hint=f"did you mean '{guess}'?" if guess else f"unit types: {', '.join(names)}",
                          code=codes.UNKNOWN_UNIT_TYPE)
        side = st.side(cu.side)
        if side is None and cu.campaign is not None:
            game.values.report_problem(problems, unknown_side_message(cu.id, cu.side), *cu.side_path, doc=cu.campaign,
                          code=codes.UNKNOWN_SIDE, hint=_guess(cu.side, [s.name for s in st.sides], "sides are: "))
        if side is None or d is None or d.kind != "unit":
            continue
        if cu.id in st.units:
            if not cu.check_only:
                game.values.report_problem(problems, f"the scenario already has a unit '{cu.id}'", *cu.side_path,
                              doc=cu.campaign, code=codes.ID_TAKEN, key=True,
                              hint="a campaign unit keeps its sheet id in every game: rename the scenario's unit")
            continue
        fields = {k: (list(v) if isinstance(v, list) else v) for k, v in game.values.definition_values(d).items()}
        unit = Unit(cu.id, d, side, None, fields)
        st.units[cu.id] = unit
        created.append((cu, unit))
    here = {cu.id for cu, _ in created}
    unit_fields = rules.kinds["unit"].fields
    for cu, unit in created:
        for fname, value in cu.fields.items():
            path = (*cu.path, "fields", fname)
            spec = unit_fields.get(fname)
            if spec is None:
                game.values.report_problem(problems, f"units have no field '{fname}'", *path, doc=cu.sheet, code=codes.UNKNOWN_SCENARIO_FIELD,
                              key=True, hint=_guess(fname, [n for n, f in unit_fields.items() if f.campaign],
                                                    "campaign fields: "))
            elif not spec.campaign:
                campaign_fields = sorted(n for n, f in unit_fields.items() if f.campaign)
                game.values.report_problem(problems, f"'{fname}' is not a campaign field", *path, doc=cu.sheet,
                              code=codes.NOT_A_CAMPAIGN_FIELD, key=True,
                              hint="a sheet keeps campaign fields only (declared with 'campaign fields unit "
                                   "{ … }')" + (f"; campaign fields: {', '.join(campaign_fields)}"
                                                if campaign_fields else "; the packs declare none"))
            else:
                unit.f[fname] = _value(game, cast, here, value, spec.type, problems, path, cu.sheet)


def _value(game: SettingUp, cast: Cast, here: set[str], value, t, problems, path, sheet):
    """A sheet value as a runtime value; unit ids name units of the sheet, not of the scenario."""
    if t.name == "list" and t.item is not None and t.item.name == "unit":
        items = value if isinstance(value, list) else [value]
        units = (_sheet_unit(game, cast, here, v, problems, path, sheet) for v in items)
        return [u for u in units if u is not None]
    if t.name == "unit":
        return _sheet_unit(game, cast, here, value, problems, path, sheet)
    return game.values.convert(value, t, problems, path, doc=sheet)


def _sheet_unit(game: SettingUp, cast: Cast, here: set[str], value, problems, path, sheet):
    if value is None:
        return None
    uid = str(value)
    if uid in here:
        return game.state.units[uid]
    if uid not in cast.sheet_ids:
        game.values.report_problem(problems, f"no unit with id '{uid}' on the sheet", *path, doc=sheet, code=codes.UNKNOWN_IN_TEST,
                      hint=_guess(uid, cast.sheet_ids, "a unit-typed field names another unit of the sheet; "
                                                        "units of the sheet: "))
    return None  # a unit of the sheet that sits this game out


def stored(value, sheet_ids: frozenset[str], board) -> Any:
    """A runtime value as the sheet keeps it: names and scalars; units as their sheet ids.

    A unit that is not on the sheet (a scenario's) cannot be named in another game: it is
    kept as none (left out of a list).
    """
    if isinstance(value, Unit):
        return value.id if value.id in sheet_ids else None
    if isinstance(value, (list, tuple)) and not isinstance(value, Hex):  # a hex is a pair: its label
        return [stored(v, sheet_ids, board) for v in value
                if not (isinstance(v, Unit) and v.id not in sheet_ids)]
    return label(value, board)


def _guess(name: str, pool, listing: str | None = None) -> str | None:
    g = did_you_mean(name, list(pool))
    if g:
        return f"did you mean '{g}'?"
    return listing + ", ".join(sorted(pool)) if listing and pool else None
