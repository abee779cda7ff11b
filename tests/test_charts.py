"""Charts of sweeps and odds (hexlore/charts.py): the same report draws the same SVG bytes
(golden files), every bar says what it shows, and the CLI writes them and HTML reports."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

import hexlore
from conftest import ROOT
from hexlore.charts import odds_chart, sweep_chart
from hexlore.cli import main

GOLDEN = ROOT / "tests" / "fixtures" / "charts"
VARIANT = str(ROOT / "scenarios" / "battlelore" / "spider_moves_three.lore")


@pytest.fixture(scope="module")
def report() -> dict:
    found, diagnostics, _ = hexlore.sweep("battlelore/spider_ford", 6, seed=3, vs=[VARIANT],
                                          policies={"all": "random"}, max_rounds=12)
    assert diagnostics == []
    return found


def _same_as_golden(name: str, svg: str) -> None:
    path = GOLDEN / name
    if not path.exists():  # a new or deliberately changed chart: write it, and fail once to say so
        path.write_text(svg, encoding="utf-8")
        pytest.fail(f"wrote the golden chart {path}; look at it, then run again")
    assert svg == path.read_text(encoding="utf-8")


def test_a_sweep_chart_is_the_same_bytes_for_the_same_report(report):
    svg = sweep_chart(report)
    assert svg == sweep_chart(report)
    _same_as_golden("sweep_spider_ford.svg", svg)


def test_every_bar_of_a_sweep_chart_shows_the_report_s_figure(report):
    svg = sweep_chart(report)
    bars = re.findall(r'data-series="(\w+)" data-label="([^"]+)" data-value="([\d.]+)"', svg)
    wins = {(series, label): float(v) for series, label, v in bars}
    for side, w in report["wins"].items():
        assert wins[("base", side)] == pytest.approx(w["rate"])
        assert wins[("variant", side)] == pytest.approx(report["variant"]["wins"][side]["rate"])
    assert wins[("base", "no winner")] == pytest.approx(report["draws"]["rate"])
    lengths = {label: float(v) for series, label, v in bars if series == "base" and label.isdigit()}
    assert sum(lengths.values()) == report["games"] - report["errors"]["count"]


def test_unwritable_names_neither_break_nor_stop_a_chart_or_report():
    """A lone surrogate (a YAML "\\ud800" escape) or a control character in a name made the
    chart and the report unwritable as UTF-8 (and the SVG invalid XML)."""
    from xml.etree import ElementTree

    from hexlore.charts import html_report

    svg = odds_chart(["bad \ud800\x01 <b>"], [{"x\udfff": 1.0}])
    assert "bad \ufffd\ufffd &lt;b&gt;" in svg and ElementTree.fromstring(svg.encode("utf-8")) is not None
    page = html_report("t\ud800", [("c\x00", ["h"], [["\ud800"]])], svg)
    assert "<title>t\ufffd</title>" in page and "<td>\ufffd</td>" in page
    page.encode("utf-8")


def test_an_odds_chart_shows_each_chance_and_escapes_labels():
    svg = odds_chart(["<spider>.alive"], [{"True": 0.25, "False": 0.75}])
    assert "<spider>" not in svg and "&lt;spider&gt;.alive" in svg
    assert re.findall(r'data-label="(\w+)" data-value="([\d.]+)"', svg) == [("True", "0.250000"), ("False", "0.750000")]
    _same_as_golden("odds_two_values.svg", svg)


def test_the_cli_writes_svg_charts_without_matplotlib_and_html_reports(tmp_path, monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "matplotlib", None)  # an .svg chart needs no plotting library
    chart, page = tmp_path / "sweep.svg", tmp_path / "sweep.html"
    result = CliRunner().invoke(main, ["sweep", "battlelore/spider_ford", "--games", "3", "--policy", "all=random",
                                       "--max-rounds", "3", "--plot", str(chart), "--html", str(page)])
    assert result.exit_code == 0, result.output
    assert chart.read_text(encoding="utf-8").startswith("<svg")
    html = page.read_text(encoding="utf-8")
    assert "<table>" in html and "<svg" in html and "ended by victory" in html and "http://" not in html.replace(
        'xmlns="http://www.w3.org/2000/svg"', "")
    odds_page = tmp_path / "odds.html"
    result = CliRunner().invoke(main, ["odds", "battlelore/spider_ford", "--given", "{spider: {hex: F5}, s_centre: {hex: F6}}",
                                       "--action", "melee_attack(attacker: s_centre, target: spider)",
                                       "--outcome", "spider.alive", "--plot", str(tmp_path / "odds.svg"),
                                       "--html", str(odds_page)])
    assert result.exit_code == 0, result.output
    assert "spider.alive" in odds_page.read_text(encoding="utf-8")
    assert Path(tmp_path / "odds.svg").read_text(encoding="utf-8").count("<rect") >= 3
