"""The BattleLore Heroes campaign (battlelore.campaign, seed 002 parts I, IV, V): two adventures
played end to end from a fresh copy of the example sheet.

``scenarios/battlelore/ford_campaign/`` holds the campaign: five heroes on a sheet, two
adventures. The tests play them with the scenarios' fixed seeds and check, from the games'
own event logs (never hard-coded results):

* the second adventure starts with exactly what the first wrote on the sheet (wounds,
  skills, artifacts, experience, treasure), and the first with what the sheet held before;
* the sheet after each adventure is what the logged events add up to (a ledger replayed from
  the sheet as read: tokens gained, paid and traded, cards kept, gained and returned, wounds);
* each after-adventure step did what part IV says for that game (who took part, who was
  wounded or withdrew, who won);
* a writer killed while saving the BattleLore sheet leaves the previous sheet intact.

Each step's rules are proven one by one, with forced dice, in
``scenarios/battlelore/heroes_campaign.yaml``; this file proves the pieces fit in a campaign.
"""

from __future__ import annotations

import shutil
import signal
from collections import Counter
from pathlib import Path

import pytest
import yaml

from conftest import ROOT
from midwrite import CHUNK, kill_mid_write
from hexlore import api
from hexlore.runtime.scenarios.campaign_files import load_sheet

FOLDER = ROOT / "scenarios" / "battlelore" / "ford_campaign"
CAMPAIGN = "heroes.campaign.yaml"
SHEET = "heroes.sheet.yaml"
SPECIAL = {"artifact_treasure", "artifact_experience", "artifact_physician"}
PRICE, PHYSICIAN_TREASURE, PHYSICIAN_EXPERIENCE, LEVEL_COST = 5, 1, 4, 5  # the packs' option defaults
TOKENS = ("treasure", "experience", "wounds")
CARDS = ("skills", "artifacts")


def sheet_units(folder: Path) -> dict[str, dict]:
    data = yaml.safe_load((folder / SHEET).read_text(encoding="utf-8"))
    return {u["id"]: u["fields"] for u in data["units"]}


def field(fields: dict, name: str):
    """A sheet field, with the default a field left out starts at."""
    return fields.get(name, [] if name in CARDS else False if name == "created" else 0)


def events(entries: list[dict], name: str | None = None) -> list[dict]:
    return [e for e in entries if e["type"] == "event" and (name is None or e["event"] == name)]


def split(log: list[dict]) -> tuple[list[dict], list[dict]]:
    """The game (setup and rounds) and the aftermath, which follows the game's ``end`` entry."""
    end = next(i for i, e in enumerate(log) if e["type"] == "end")
    return log[:end], log[end + 1:]


def steps(aftermath: list[dict]) -> dict[int, list[dict]]:
    """The aftermath's entries by after-adventure step (the rules mark each step's start)."""
    marks = [(i, e["args"]["step"]) for i, e in enumerate(aftermath)
             if e["type"] == "event" and e["event"] == "after_adventure_step"]
    assert [n for _, n in marks] == list(range(1, 9)), "the eight steps, in order"
    bounds = [i for i, _ in marks] + [len(aftermath)]
    return {n: aftermath[bounds[k] + 1:bounds[k + 1]] for k, (_, n) in enumerate(marks)}


class Ledger:
    """Each hero's sheet as the logged events change it, from the sheet the adventure read."""

    def __init__(self) -> None:
        self.heroes: dict[str, dict] = {}

    def snapshot(self) -> dict[str, dict]:
        return {h: {k: (list(v) if isinstance(v, list) else v) for k, v in s.items()} for h, s in self.heroes.items()}

    def apply(self, entries: list[dict]) -> "Ledger":
        for e in events(entries):
            self.event(e["event"], e["args"])
        return self

    def event(self, name: str, a: dict) -> None:
        if name == "hero_sheet_read":
            self.heroes[a["hero"]] = {k: (list(a[k]) if k in CARDS else a[k]) for k in TOKENS + CARDS}
            return
        who = a.get("hero")
        if name == "gift_given":
            self.heroes[who]["artifacts"].append(a["card"])
        if who not in self.heroes:
            return
        h = self.heroes[who]
        if name == "treasure_gained":
            h["treasure"] += a["count"]
        elif name == "experience_gained":
            h["experience"] += a["count"]
        elif name == "experience_traded":
            h["experience"] -= a["count"]
        elif name == "ransom_paid":
            h["treasure"] -= 1
        elif name in ("ransom_unpaid", "hero_wounded"):
            h["wounds"] += 1
        elif name == "wound_cured":
            h["wounds"] -= 1
            h["treasure"] -= PHYSICIAN_TREASURE
            h["experience"] -= PHYSICIAN_EXPERIENCE
        elif name == "artifact_bought":
            h["treasure"] -= PRICE
        elif name == "levelled_up":
            h["experience"] -= LEVEL_COST
        elif name == "hero_created":
            h["wounds"] = 0
        elif name == "skill_gained":
            h["skills"].append(a["skill"])
        elif name in ("artifact_kept", "artifact_gained"):
            h["artifacts"].append(a["card"])
        elif name in ("artifact_returned", "card_exchanged"):
            h["artifacts"].remove(a["card"])
        elif name == "council_joined":
            h.update(experience=0, treasure=0, skills=[])


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    """The two adventures played in order on a fresh copy; the sheet before and after each."""
    folder = tmp_path_factory.mktemp("campaign") / "ford_campaign"
    shutil.copytree(FOLDER, folder)
    sheets = [sheet_units(folder)]
    results = []
    for number in (1, 2):
        found, diagnostics, _ = api.campaign(str(folder / CAMPAIGN), adventure=number)
        assert not diagnostics, [d.headline() for d in diagnostics]
        results += found
        sheets.append(sheet_units(folder))
    campaign = yaml.safe_load((folder / CAMPAIGN).read_text(encoding="utf-8"))
    sides = [a["units"] for a in campaign["adventures"]]
    return results, sheets, sides, folder


def test_both_adventures_are_battles_with_a_winner_and_the_spider_fights_in_the_first(played):
    results, _, _, _ = played
    assert [r.number for r in results] == [1, 2]
    for r in results:
        assert r.winner in ("north", "south") and r.result.rounds >= 2
        game, _ = split(r.result.log)
        assert len(events(game, "hero_deployed")) == 2  # one hero each side took the field
    first, _ = split(results[0].result.log)
    assert any(e["args"]["attacker"] == "spider" or e["args"]["target"] == "spider" for e in events(first, "attack"))


def test_each_adventure_starts_with_what_the_sheet_holds_and_the_second_with_what_the_first_wrote(played):
    results, sheets, sides, _ = played
    for k, r in enumerate(results):
        read = {e["args"]["hero"]: e["args"] for e in events(r.result.log, "hero_sheet_read")}
        assert set(read) == set(sides[k]), "every hero the adventure brings in is read"
        for hero, args in read.items():
            sheet = sheets[k][hero]  # the sheet as the previous adventure wrote it (or the original)
            for name in TOKENS + CARDS + ("skulls", "created"):
                assert args[name] == field(sheet, name), (k + 1, hero, name)
            assert args["name"] == sheet["hero_name"] and args["class"] == sheet["hero_class"]
    # what adventure 1 wrote is what step 8 recorded, and heroes that sat it out are untouched
    final = {e["args"]["hero"]: e["args"] for e in events(results[0].result.log, "sheet_updated")}
    for hero in sides[0]:
        for name in TOKENS + CARDS + ("counsellor",):
            assert final[hero][name] == field(sheets[1][hero], name), (hero, name)
    for hero in set(sheets[0]) - set(sides[0]):
        assert sheets[1][hero] == sheets[0][hero]
    # the second adventure changed something the first wrote (so the check above is not idle)
    assert any(field(sheets[2][h], n) != field(sheets[1][h], n) for h in sides[0] for n in TOKENS + CARDS)


def test_the_sheet_after_each_adventure_is_what_its_logged_events_add_up_to(played):
    results, sheets, sides, _ = played
    for k, r in enumerate(results):
        ledger = Ledger().apply(r.result.log)
        for hero in sides[k]:
            for name in TOKENS:
                assert ledger.heroes[hero][name] == field(sheets[k + 1][hero], name), (k + 1, hero, name)
            for name in CARDS:
                assert Counter(ledger.heroes[hero][name]) == Counter(field(sheets[k + 1][hero], name)), \
                    (k + 1, hero, name)


def test_the_after_adventure_steps_follow_part_iv_for_each_game(played):
    results, sheets, sides, _ = played
    for k, r in enumerate(results):
        side_of = sides[k]
        game, aftermath = split(r.result.log)
        by_step = steps(aftermath)
        took_part = [e["args"]["hero"] for e in events(game, "hero_deployed")]
        gone = {e["args"].get("hero") or e["args"].get("unit") for e in events(game)
                if e["event"] in ("hero_wounded", "left_battlefield", "eliminated")}
        wounded = [e["args"]["hero"] for e in events(game, "hero_wounded")]
        ledger = Ledger().apply(game)
        before = ledger.snapshot()

        # 1. a hero on the victory board comes home: exchanged, or ransomed
        step1 = events(by_step[1])
        captive_sides = {side_of[h] for h in wounded}
        if len(captive_sides) == 2:
            assert sorted(e["args"]["hero"] for e in step1 if e["event"] == "hero_exchanged") == sorted(wounded)
        else:
            for h in wounded:
                paid = "ransom_paid" if before[h]["treasure"] >= 1 else "ransom_unpaid"
                assert any(e["event"] == paid and e["args"]["hero"] == h for e in step1), (k + 1, h)
        ledger.apply(by_step[1])

        # 2. spoils: one treasure for each hero still on the battlefield
        spoils = Counter({e["args"]["hero"]: e["args"]["count"] for e in events(by_step[2], "treasure_gained")})
        assert spoils == Counter({h: 1 for h in took_part if h not in gone})
        # 3. one experience for every hero who took part
        gained = Counter({e["args"]["hero"]: e["args"]["count"] for e in events(by_step[3], "experience_gained")})
        assert gained == Counter({h: 1 for h in took_part})
        ledger.apply(by_step[2]).apply(by_step[3])

        # 4. five treasure buy a card (the rules' default answer is to buy while the hero can pay)
        at_four = ledger.snapshot()
        bought = Counter(e["args"]["hero"] for e in events(by_step[4], "artifact_bought"))
        assert bought == Counter({h: at_four[h]["treasure"] // PRICE for h in took_part
                                  if at_four[h]["treasure"] >= PRICE})
        ledger.apply(by_step[4])

        # 5. draws: the winner's heroes first; one card per condition met; one card kept each
        draws = events(by_step[5], "artifact_draws")
        order = [d["args"]["hero"] for d in draws]
        assert sorted(order) == sorted(took_part)
        assert order == sorted(order, key=lambda h: side_of[h] != r.winner)
        drawn = {e["args"]["hero"]: e["args"]["count"] for e in events(by_step[5], "artifacts_drawn")}
        kept = Counter(e["args"]["hero"] for e in events(by_step[5], "artifact_kept"))
        for d in draws:
            h, a = d["args"]["hero"], d["args"]
            assert (a["took_part"], a["on_battlefield"], a["winner"]) == \
                (1, 0 if h in gone else 1, 1 if side_of[h] == r.winner else 0)
            trades = sum(1 for e in events(by_step[5]) if e["event"] in ("artifacts_traded", "experience_traded")
                         and e["args"]["hero"] == h)
            assert drawn[h] == a["took_part"] + a["on_battlefield"] + a["winner"] + trades
            assert kept[h] == 1
        for e in events(by_step[5], "card_exchanged"):  # a kept Trésor / Expérience / Médecin is exchanged
            assert e["args"]["card"] in SPECIAL
        ledger.apply(by_step[5])

        # 6. the cards drawn and not kept go back
        [returned] = events(by_step[6], "unchosen_returned")
        assert returned["args"]["count"] == sum(n - 1 for n in drawn.values() if n > 0)
        ledger.apply(by_step[6])

        # 7. five experience for a skill (winner first), three skills at most; the council's defeats
        at_seven = ledger.snapshot()
        levelled = [e["args"]["hero"] for e in events(by_step[7], "levelled_up")]
        assert sorted(levelled) == sorted(h for h in took_part if at_seven[h]["experience"] >= LEVEL_COST
                                          and len(at_seven[h]["skills"]) < 3)
        seated = {e["args"]["side"]: e["args"]["hero"] for e in events(game, "counsellor_seated")}
        defeats = {e["args"]["hero"]: e["args"]["defeats"] for e in events(by_step[7], "council_defeat")}
        assert defeats == {h: field(sheets[k][h], "council_defeats") + 1 for s, h in seated.items()
                           if r.winner is not None and s != r.winner}
        for h, n in defeats.items():
            assert sheets[k + 1][h]["retired"] == (n >= 5) and sheets[k + 1][h]["counsellor"] == (n < 5)

        # 8. the sheet notes every hero of the adventure
        assert sorted(e["args"]["hero"] for e in events(by_step[8], "sheet_updated")) == sorted(side_of)
        for hero in side_of:
            assert field(sheets[k + 1][hero], "adventures_seen") == field(sheets[k][hero], "adventures_seen") + 1


def test_creation_and_the_instructors_gift_as_the_campaign_plays_them(played):
    results, sheets, sides, _ = played
    for k, r in enumerate(results):
        game, _ = split(r.result.log)
        created = {e["args"]["hero"]: e["args"] for e in events(game, "hero_created")}
        # creation runs, before deployment, for exactly the heroes the sheet had not created
        assert set(created) == {h for h in sides[k] if not field(sheets[k][h], "created")}
        first_deploy = min(i for i, e in enumerate(game) if e.get("event") == "side_deploys")
        assert all(i < first_deploy for i, e in enumerate(game) if e.get("event") == "hero_created")
        for hero, a in created.items():
            sheet = sheets[k + 1][hero]
            assert sheet["created"] and sheet["skulls"] == a["skulls"] and sheet["weapon"] == a["weapon"]
            skills = [e["args"]["skill"] for e in events(game, "skill_gained") if e["args"]["hero"] == hero]
            assert len(skills) == 1  # I.6: one starting skill of the class
            [figure] = [e["args"] for e in events(game, "hero_figure") if e["args"]["hero"] == hero]
            assert figure["mode"] == ("mounted" if skills == ["cavalier"] else "foot")  # I.5
            [drawn] = [e["args"]["count"] for e in events(game, "artifacts_drawn") if e["args"]["hero"] == hero]
            assert drawn == 3  # I.7: three cards drawn, one kept
    # part V: ysolde, retired, gives esme (south's next new hero, same player) one of her listed cards
    game, _ = split(results[1].result.log)
    [gift] = [e["args"] for e in events(game, "gift_given")]
    assert gift["instructor"] == "ysolde" and gift["hero"] == "esme"
    assert gift["card"] in sheets[1]["ysolde"]["listed_artifacts"]
    assert sheets[2]["ysolde"]["removed_from_play"] and sheets[2]["esme"]["instructor"] == "ysolde"
    assert gift["card"] in sheets[2]["esme"]["artifacts"]
    stays = {e["args"]["hero"]: e["args"]["reason"] for e in events(game, "hero_stays_home")}
    assert stays["ysolde"] == "retired_from_council"
    assert stays["cador"] == ("retired_from_council" if sheets[1]["cador"]["retired"] else "in_council")


# ---------------------------------------------------------------------------
# saving the BattleLore sheet: a kill while writing leaves the previous sheet
# ---------------------------------------------------------------------------

@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs POSIX signals")
def test_a_campaign_killed_while_saving_the_battlelore_sheet_leaves_the_previous_sheet(played, tmp_path):
    _, sheets, _, done = played
    folder = tmp_path / "ford_campaign"
    shutil.copytree(FOLDER, folder)
    found, diagnostics, _ = api.campaign(str(folder / CAMPAIGN), adventure=1)
    assert not diagnostics and len(found) == 1
    previous = (folder / SHEET).read_bytes()
    size = kill_mid_write(tmp_path, f"""
        from hexlore import api
        api.campaign({str(folder / CAMPAIGN)!r})  # plays the adventure the history lacks, then saves
        """, folder, SHEET)
    assert size == CHUNK < len(previous)  # killed in the middle of the new sheet
    assert (folder / SHEET).read_bytes() == previous
    sheet, diagnostics = load_sheet(folder / SHEET)
    assert not diagnostics and [u.id for u in sheet.units] == ["aldric", "brenna", "cador", "ysolde", "esme"]
    assert [h["number"] for h in sheet.history] == [1]
    # the interrupted adventure is still to play; played now, it gives the sheet an unbroken run gives
    [again], diagnostics, _ = api.campaign(str(folder / CAMPAIGN))
    assert not diagnostics and again.number == 2
    assert (folder / SHEET).read_bytes() == (done / SHEET).read_bytes()
