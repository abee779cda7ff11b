"""Campaigns: scenarios played in order, with units kept on a sheet from one game to the next.

A campaign file names a sheet and its adventures (docs/campaigns.md). Playing an adventure:
load the sheet; bring each sheet unit the adventure names into its scenario, off the board, on
the side the adventure gives it, with its campaign fields from the sheet; play the game; run
the game's ``aftermath`` block; write the campaign fields of those units back into the sheet
(atomically) and add the adventure to the sheet's history.

``hexlore check`` checks campaign files here too: the campaign and its sheet against their
schemas, every adventure's scenario against its packs, and every sheet unit against the packs
of the adventures that bring it in — each problem at its YAML line and column.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from .loading import Loaded, bundled_scenarios_root, declared_search_paths, open_scenario, unique_diagnostics
from .compiler.packs import inside, resolved
from .dsl.confine import command_line_root, read_confined
from .dsl.files import is_file
from .diagnostics import Diagnostic, Source, codes, did_you_mean, error
from .dsl.output_files import OutputError, remove_stale_temporaries
from .runtime.scenarios.campaign_files import (Adventure, Campaign, Sheet, dump_sheet, load_campaign, load_sheet,
                                               next_revision, write_atomically)
from .runtime.engine.cast import CampaignUnit, Cast, stored
from .runtime.engine.setup import check_set_up

if TYPE_CHECKING:  # the engine is imported by what plays, not by `hexlore check` (start-up)
    from .runtime.engine.game import Game, GameResult

__all__ = ["AdventureResult", "CampaignUsageError", "OpenedCampaign", "check_campaign", "check_sheet",
           "open_campaign", "play_campaign"]


class CampaignUsageError(ValueError):
    """The caller asked for something the campaign does not have (an adventure number)."""


@dataclass
class OpenedCampaign:
    """A campaign, its sheet and each adventure's scenario with its packs, and every problem found."""

    campaign: Campaign | None
    sheet: Sheet | None = None
    #: adventure index (its position in the file) -> its scenario and packs, None if it has no file
    adventures: dict[int, Loaded | None] = field(default_factory=dict)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    sources: dict[str, Source] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.campaign is not None and self.sheet is not None and \
            not any(d.is_error for d in self.diagnostics)


@dataclass
class AdventureResult:
    """One adventure played: who won, and how each campaign unit's campaign fields changed."""

    number: int
    name: str
    seed: int
    winner: str | None
    result: GameResult
    #: every campaign unit of the adventure -> field -> (before, after), changed fields only
    changes: dict[str, dict[str, tuple[Any, Any]]]


# ---------------------------------------------------------------------------
# Opening and checking
# ---------------------------------------------------------------------------


def project_folders(path: str | Path) -> list[Path]:
    """The folders a campaign may name files in: its own folder, the repository it lies in
    (the nearest folder above it with a ``.git``), the declared search paths and the bundled
    scenarios. A campaign from a pull request cannot make hexlore read a file elsewhere
    (``/etc/passwd`` as its sheet, or a link to it), whose lines a YAML error would print."""
    folder = Path(path).resolve().parent
    folders = [folder]
    for parent in (folder, *folder.parents):
        if (parent / ".git").exists():
            folders.append(parent)
            break
    return resolved(folders + declared_search_paths() + [bundled_scenarios_root()])


def _scenario_path(campaign: Campaign, adventure: Adventure) -> Path | None:
    """The adventure's scenario: relative to the campaign file, else a bundled scenario."""
    allowed = project_folders(campaign.path)
    local = Path(campaign.path).parent / adventure.scenario
    if is_file(local) and inside(local, allowed):
        return local
    root = bundled_scenarios_root()  # not the working directory: a campaign means the same anywhere
    name = adventure.scenario
    return next((c for c in (root / name, root / f"{name}.yaml", root / f"{name}.yml")
                 if is_file(c) and inside(c, allowed)), None)


def _cast(campaign: Campaign, sheet: Sheet, adventure: Adventure, problems: list[Diagnostic],
          unnamed_side: str | None = None) -> Cast:
    """The sheet units the adventure brings in; ids the sheet lacks are ``S117`` problems.

    ``unnamed_side``: also set up, to check them, the sheet units no adventure names.
    """
    base = ("adventures", adventure.index, "units")
    for uid in adventure.units:
        if sheet.unit(uid) is None:
            guess = did_you_mean(uid, [u.id for u in sheet.units])
            problems.append(error(codes.NOT_ON_SHEET, f"the sheet has no unit '{uid}'", campaign.path,
                                  campaign.key_span_of(*base, uid),
                                  f"did you mean '{guess}'?" if guess else
                                  f"units of the sheet ({sheet.path}): "
                                  + (", ".join(u.id for u in sheet.units) or "none")))
    units = [CampaignUnit(u.id, u.type, adventure.units[u.id], u.fields, sheet, ("units", u.index),
                          campaign, (*base, u.id))
             for u in sheet.units if u.id in adventure.units]
    if unnamed_side is not None:
        named = {uid for a in campaign.adventures for uid in a.units}
        units += [CampaignUnit(u.id, u.type, unnamed_side, u.fields, sheet, ("units", u.index), check_only=True)
                  for u in sheet.units if u.id not in named]
    return Cast(tuple(units), frozenset(u.id for u in sheet.units))


def open_campaign(path: str | Path) -> OpenedCampaign:
    """Load a campaign, its sheet and its adventures, and check them all, reporting every problem."""
    campaign, diags = load_campaign(path, partial=True)
    opened = OpenedCampaign(campaign, diagnostics=list(diags))
    if campaign is None:
        text, _ = read_confined(path, command_line_root(path))  # for quoting: inside the project only
        if text is not None:
            opened.sources[str(path)] = Source(str(path), text)
        return opened
    opened.sources[campaign.path] = campaign.source
    sheet_path = campaign.sheet_path()
    if not campaign.sheet:
        pass  # the schema error says what is wrong with 'sheet:'
    elif os.path.lexists(sheet_path) and not inside(sheet_path, project_folders(campaign.path)):
        opened.diagnostics.append(error(codes.OUTSIDE_PROJECT, f"the sheet '{campaign.sheet}' leads outside the project; "
                                        "it is not read", campaign.path, campaign.span_of("sheet"),
                                        "keep the sheet in the campaign's project instead of linking it"))
    elif not is_file(sheet_path):
        opened.diagnostics.append(error(codes.MISSING_FILE, f"no sheet file '{campaign.sheet}'", campaign.path,
                                        campaign.span_of("sheet"), f"looked for {sheet_path}: the sheet "
                                        "is relative to the campaign file (docs/campaigns.md shows one)"))
    else:
        sheet, sheet_diags = load_sheet(sheet_path, partial=True)
        opened.sheet = sheet
        opened.diagnostics += sheet_diags
        if sheet is not None:
            opened.sources[sheet.path] = sheet.source
    unnamed_checked = False
    for adventure in campaign.adventures:
        scenario_path = _scenario_path(campaign, adventure)
        if scenario_path is None:
            opened.adventures[adventure.index] = None
            opened.diagnostics.append(error(
                codes.MISSING_FILE, f"no scenario file '{adventure.scenario}'", campaign.path,
                campaign.span_of("adventures", adventure.index, "scenario"),
                "an adventure's scenario is relative to the campaign file, or a bundled name (battlelore/x)"))
            continue
        loaded = open_scenario(str(scenario_path))
        opened.adventures[adventure.index] = loaded
        opened.sources.update(loaded.sources)
        opened.diagnostics += loaded.diagnostics
        if opened.sheet is None or loaded.rules is None or not loaded.rules.ok or loaded.scenario is None:
            continue
        sides = [s.name for s in loaded.scenario.sides]
        problems: list[Diagnostic] = []
        cast = _cast(campaign, opened.sheet, adventure, problems,
                     unnamed_side=sides[0] if sides and not unnamed_checked else None)
        unnamed_checked = True
        checked = check_set_up(loaded.rules, loaded.scenario, cast)  # as a game sets it up; no game needed
        opened.diagnostics += problems + checked.cast_problems  # the scenario's own: in loaded.diagnostics
    opened.diagnostics = unique_diagnostics(opened.diagnostics)
    return opened


def check_campaign(path: str | Path) -> tuple[list[Diagnostic], dict[str, Source]]:
    """Every problem of a campaign file, its sheet and its adventures."""
    opened = open_campaign(path)
    return opened.diagnostics, opened.sources


def check_sheet(path: str | Path) -> tuple[list[Diagnostic], dict[str, Source]]:
    """The problems of a sheet on its own (its schema, ids given twice).

    Which packs a sheet's units belong to is known only from a campaign that uses the sheet:
    checking the campaign checks the sheet against the packs of its adventures.
    """
    sheet, diags = load_sheet(path, partial=True)
    sources = {sheet.path: sheet.source} if sheet is not None else {}
    if sheet is None:
        text, _ = read_confined(path, command_line_root(path))
        if text is not None:
            sources[str(path)] = Source(str(path), text)
    return diags, sources


# ---------------------------------------------------------------------------
# Playing
# ---------------------------------------------------------------------------


def _values(game: Game, names: list[str], ids: frozenset[str]) -> dict[str, dict[str, Any]]:
    """The campaign fields of the game's campaign units, as the sheet keeps them."""
    st = game.state
    units = game.cast.units if game.cast is not None else []
    return {cu.id: {n: stored(st.units[cu.id].f.get(n), ids, st.board) for n in names}
            for cu in units if cu.id in st.units}


def _name(adventure: Adventure, loaded: Loaded | None) -> str:
    """The adventure's name: its own, else its scenario's, else its scenario file's."""
    scenario = loaded.scenario if loaded is not None else None
    return adventure.name or (scenario.name if scenario is not None else "") or adventure.scenario


def play_adventure(opened: OpenedCampaign, adventure: Adventure, seed: int | None = None,
                   log_file: IO[str] | None = None) -> tuple[AdventureResult | None, list[Diagnostic]]:
    """Play one adventure with the sheet as it is on disk now, then save the sheet.

    The sheet is read again (an earlier adventure may have just rewritten it) and checked;
    nothing is written when the game cannot be set up or a rule fails.
    """
    campaign = opened.campaign
    loaded = opened.adventures[adventure.index]
    if campaign is None or loaded is None:
        raise ValueError("play_adventure needs a campaign opened without errors (OpenedCampaign.ok)")
    scenario, rules = loaded.parts()
    sheet, diags = load_sheet(campaign.sheet_path())
    if sheet is None:
        return None, diags
    opened.sources[sheet.path] = sheet.source
    problems: list[Diagnostic] = []
    cast = _cast(campaign, sheet, adventure, problems)
    if problems:
        return None, problems
    from .runtime.engine.game import Game, RuntimeRuleError, ScenarioError

    seed = seed if seed is not None else adventure.seed if adventure.seed is not None else scenario.seed
    name = _name(adventure, loaded)
    try:
        game = Game(rules, scenario, seed=seed, log_file=log_file, cast=cast)
    except ScenarioError as exc:
        return None, exc.diagnostics
    fields = [n for n, f in rules.kinds["unit"].fields.items() if f.campaign]
    before = _values(game, fields, cast.sheet_ids)
    if log_file is not None:
        log_file.write(json.dumps({"type": "adventure", "number": adventure.number, "adventure": name,
                                   "seed": seed}, sort_keys=True, separators=(",", ":"), ensure_ascii=False) + "\n")
    try:
        result = game.play()
        game.aftermath()
    except RuntimeRuleError as exc:
        return None, [exc.diagnostic]
    after = _values(game, fields, cast.sheet_ids)
    units = []
    for u in sheet.units:
        values = dict(u.fields)
        if u.id in after:
            # a value the game left as it was is written back as written (a unit that sat this game out stays named)
            values = {n: (u.fields[n] if n in u.fields and after[u.id][n] == before[u.id][n] else after[u.id][n])
                      for n in fields}
        units.append({"id": u.id, "type": u.type, "fields": values})
    history = sheet.history + [{"number": adventure.number, "adventure": name, "seed": seed,
                                "winner": result.winner}]
    on_disk, _ = load_sheet(campaign.sheet_path())
    if on_disk is None or on_disk.revision != sheet.revision:  # written by someone else meanwhile
        return None, [error(codes.SHEET_CHANGED, f"the sheet '{campaign.sheet}' changed on disk while adventure "
                            f"{adventure.number} was played (revision {sheet.revision}, now "
                            f"{on_disk.revision if on_disk else 'unreadable'}); this result is not written",
                            campaign.path, campaign.span_of("sheet"),
                            "someone edited the sheet during the game: play the adventure again "
                            "('hexlore campaign CAMPAIGN --adventure K')")]
    try:  # through a link to the sheet's target; a full disk leaves the sheet as it was (S130)
        if log_file is not None and hasattr(log_file, "flush"):
            log_file.flush()  # the adventure's log is written before the sheet records it
        write_atomically(campaign.sheet_path(), dump_sheet(units, history, next_revision(sheet.revision)))
    except OutputError as exc:
        return None, [exc.diagnostic()]
    changes = {uid: {n: (before[uid][n], after[uid][n]) for n in fields if before[uid][n] != after[uid][n]}
               for uid in after}
    return AdventureResult(adventure.number, name, seed, result.winner, result, changes), []


def play_campaign(path: str | Path, seed: int | None = None, adventure: int | None = None,
                  log_file: IO[str] | None = None, on_result=None
                  ) -> tuple[list[AdventureResult] | None, list[Diagnostic], dict[str, Source]]:
    """Play the adventures the sheet's history does not list yet, in order (or only the
    ``adventure``-th, from 1), saving the sheet after each.

    Returns the results (None when the campaign has problems and nothing was played), the
    diagnostics (a rule failing stops the campaign: the adventures before it stay saved) and
    the sources. ``on_result`` is called with each result as soon as its sheet is saved.
    Raises :class:`CampaignUsageError` for an adventure number the campaign does not have.
    """
    campaign, _ = load_campaign(path)
    if campaign is None or not campaign.sheet or not _sheet_exists(campaign):
        opened = open_campaign(path)  # reports why (no lock file is left beside a missing sheet)
        return None, opened.diagnostics, opened.sources
    with _sheet_lock(campaign) as busy:
        if busy is not None:
            return None, [busy], {}
        return _play_locked(path, seed, adventure, log_file, on_result)


def _sheet_exists(campaign: Campaign) -> bool:
    try:
        return campaign.sheet_path().is_file()
    except (OSError, ValueError):  # a path the checks below report
        return False


@contextlib.contextmanager
def _sheet_lock(campaign: Campaign):
    """Hold an exclusive lock on the sheet while a campaign plays (a hidden ``.NAME.lock`` file
    beside it): a second run on the same sheet is refused at once instead of playing the same
    adventure and recording it twice. Yields None when locked, else the diagnostic to report.

    The lock is taken beside the sheet's target, links followed: two campaigns that reach one
    sheet through different links (or one through a link, one directly) share one lock. Under
    it, the temporary files a killed save left beside the sheet are removed."""
    sheet = Path(os.path.realpath(campaign.sheet_path()))
    lock = sheet.with_name(f".{sheet.name}.lock")
    try:
        fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as exc:
        yield error(codes.SHEET_BUSY, f"cannot lock the sheet '{campaign.sheet}': {exc.strerror}", campaign.path,
                    campaign.span_of("sheet"), f"check that {sheet.parent} can be written")
        return
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            yield error(codes.SHEET_BUSY, f"the sheet '{campaign.sheet}' is busy: another 'hexlore campaign' is "
                        "playing it", campaign.path, campaign.span_of("sheet"),
                        "wait for it to finish, then run again: it plays what is left")
            return
        remove_stale_temporaries(sheet)
        yield None
    finally:
        os.close(fd)  # closing releases the lock


def _play_locked(path, seed, adventure, log_file, on_result):
    opened = open_campaign(path)  # under the lock: the history read now is the one to extend
    campaign, sheet = opened.campaign, opened.sheet
    if not opened.ok or campaign is None or sheet is None:  # ok: both are there
        return None, opened.diagnostics, opened.sources
    adventures = campaign.adventures
    if adventure is not None:
        if not 1 <= adventure <= len(adventures):
            raise CampaignUsageError(f"the campaign has {len(adventures)} adventure(s); "
                                     f"there is no adventure {adventure}")
        todo = [adventures[adventure - 1]]
    else:
        played = sheet.played({a.number: _name(a, opened.adventures[a.index]) for a in adventures})
        todo = [a for a in adventures if a.number not in played]
    results: list[AdventureResult] = []
    for a in todo:
        result, diags = play_adventure(opened, a, seed, log_file)
        if result is None:
            return results, diags, opened.sources
        results.append(result)
        if on_result is not None:
            on_result(result)
    return results, [], opened.sources
