"""Two campaign runs on one sheet: one plays, the other is refused; a stale writer is refused (issue 13)."""

from __future__ import annotations

import fcntl
import os
import re
import shutil
import subprocess
import sys

import pytest

from hexlore import campaign as campaign_module
from hexlore.runtime.engine.game import Game
from hexlore.runtime.scenarios.campaign_files import load_sheet

from bounded import ROOT, run_bounded

DOCS = (ROOT / "docs" / "diagnostics.md").read_text(encoding="utf-8")


def _documented(code: str) -> str:
    return re.search(rf"^\S+: error\[{code}\]: (.*)$", DOCS, re.M).group(1)


@pytest.fixture
def campaign(tmp_path):
    shutil.copytree(ROOT / "tests" / "fixtures" / "campaign", tmp_path / "c")
    return tmp_path / "c" / "two_fords.campaign.yaml"


def test_a_run_is_refused_while_the_sheet_is_locked(campaign):
    sheet = campaign.with_name("duellists.sheet.yaml")
    before = sheet.read_bytes()
    fd = os.open(campaign.with_name(".duellists.sheet.yaml.lock"), os.O_RDWR | os.O_CREAT)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)  # as a first run playing the campaign holds it
        outcome = run_bounded("campaign", str(campaign), cwd=campaign.parent)
    finally:
        os.close(fd)
    assert outcome.returncode == 1, outcome.describe()
    assert "error[S017]" in outcome.stdout and "Traceback" not in outcome.output
    headline = next(line for line in outcome.stdout.splitlines() if "[S017]" in line)
    assert headline.split("error[S017]: ")[1] == _documented("S017")
    assert sheet.read_bytes() == before  # nothing played, nothing written
    outcome = run_bounded("campaign", str(campaign), cwd=campaign.parent)  # the lock is free again
    assert outcome.returncode == 0, outcome.describe()


def test_two_runs_at_once_record_each_adventure_once(campaign):
    runs = [subprocess.Popen([sys.executable, "-m", "hexlore", "campaign", str(campaign)], cwd=campaign.parent,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             env={**os.environ, "PYTHONPATH": str(ROOT)}) for _ in range(2)]
    outputs = [r.communicate(timeout=120) for r in runs]
    codes = sorted(r.returncode for r in runs)
    for out, err in outputs:
        assert "Traceback" not in out + err
    refused = ["[S017]" in out for out, _ in outputs]
    # one played; the other was refused while it played, or found nothing left to play
    assert codes == [0, 1] and any(refused) or codes == [0, 0], (codes, outputs)
    sheet, diagnostics = load_sheet(campaign.with_name("duellists.sheet.yaml"))
    assert not diagnostics
    numbers = [h["number"] for h in sheet.history]
    assert numbers == [1, 2] and sheet.revision == 2


def test_a_sheet_changed_during_the_game_is_not_overwritten(campaign, monkeypatch):
    sheet_path = campaign.with_name("duellists.sheet.yaml")
    play = Game.play

    def play_while_someone_edits(game, *args, **kwargs):
        result = play(game, *args, **kwargs)
        text = sheet_path.read_text(encoding="utf-8")
        sheet_path.write_text(text.replace("history: []", "revision: 1\nhistory: []"), encoding="utf-8")
        return result

    monkeypatch.setattr(Game, "play", play_while_someone_edits)
    results, diagnostics, _ = campaign_module.play_campaign(campaign)
    assert results == [] and [d.code for d in diagnostics] == ["S018"]
    assert diagnostics[0].message == _documented("S018")
    sheet, _ = load_sheet(sheet_path)
    assert sheet.history == [] and sheet.revision == 1  # the edit survives; no result was written


def test_check_reports_an_adventure_recorded_twice(campaign):
    sheet = campaign.with_name("duellists.sheet.yaml")
    sheet.write_text(sheet.read_text(encoding="utf-8").replace(
        "history: []", "history:\n  - {number: 1, adventure: a, seed: 1, winner: north}\n"
                       "  - {number: 1, adventure: a, seed: 1, winner: south}"), encoding="utf-8")
    outcome = run_bounded("check", str(sheet))
    assert outcome.returncode == 1 and "error[S016]" in outcome.stdout, outcome.describe()
