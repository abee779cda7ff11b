"""Pages and pictures built, not concatenated (issue 30, item 2): hexlore/markup.py, the replay
page (hexlore/replay/page.py) and the SVG (hexlore/render.py) with hostile names in them.

Pages are parsed by html5lib (the HTML standard's parser, comment and script-escape states
included) and checked by tests/hostile_page.py's ``inert_page``: the viewer's script and the
JSON data are the only scripts, no element or handler came from a name, and the data reads
back exactly what was put in. tests/test_replay_browser.py opens the same pages in Chromium.
"""

from __future__ import annotations

import json
import re
from dataclasses import replace
from xml.etree import ElementTree

import pytest
from click.testing import CliRunner

from hexlore import api
from hexlore.cli import main
from hexlore.markup import Page, build_page, clean_text, json_for_html, xml_attr, xml_text
from hexlore.render import unit_svg
from hexlore.replay.make import page_of, play_recorded, rules_at
from hexlore.replay.page import page_data, replay_html
from hostile_page import HOSTILE, MARKS, MARKUP, UNWRITABLE, heading, inert_page, write_project


@pytest.fixture(scope="module")
def hostile_game(tmp_path_factory):
    """A game whose scenario name, event arguments and look marks are hostile (check passes)."""
    scenario = write_project(tmp_path_factory.mktemp("hostile"))
    loaded = api.open_scenario(str(scenario))
    assert loaded.playable, [d.headline() for d in loaded.diagnostics]
    _, recording, diagnostics, _ = play_recorded(loaded)
    assert recording is not None, diagnostics
    return scenario, loaded, recording


def test_a_hostile_scenario_passes_check_and_its_page_shows_every_name_as_text(hostile_game, tmp_path):
    """The reproducer: a scenario called '@DATA@<img src=x onerror=...>' passed check, and the
    page's title received the data (and the handler); event arguments '<!--<script>' blanked the
    viewer and '@SCRIPT@' broke its JSON."""
    scenario, loaded, recording = hostile_game
    assert CliRunner().invoke(main, ["check", str(scenario)]).exit_code == 0
    page = tmp_path / "replay.html"
    done = CliRunner().invoke(main, ["run", str(scenario), "--html", str(page)])
    assert done.exit_code == 0, done.output
    html = page.read_text(encoding="utf-8")
    data = inert_page(html)
    expected = page_data(recording, _look(loaded), rules_at(loaded.rules, recording.origins))
    assert data == json.loads(json.dumps(expected))  # read back whole
    title = f"{MARKUP[0]} (seed 0)"
    assert heading(html) == (f"{title} - hexlore replay", title)
    said = [e["args"]["text"] for e in data["entries"] if e.get("event") == "said"]
    assert said == MARKUP * 2  # every argument, as it was, in both rounds
    assert [u["mark"] for u in data["units"]] == [MARKS[k % len(MARKS)] for k in range(len(MARKUP))]


def _as_js(data):
    """``data`` as JSON.parse reads it back: a pair of surrogate escapes is one character."""
    return json.loads(json.dumps(data))


def _look(loaded):
    from hexlore.look import look_of

    return look_of(loaded.rules)


def test_names_the_scenario_cannot_hold_are_inert_too(hostile_game):
    """Unit ids, types and sides are identifiers once check has passed; the builder does not
    rely on it: every name of the data, every argument and the title hostile at once."""
    _, loaded, played = hostile_game
    k = len(HOSTILE)
    units = [{**unit, "id": HOSTILE[i % k], "type": HOSTILE[(i + 1) % k], "side": HOSTILE[(i + 2) % k]}
             for i, unit in enumerate(played.units)]
    recording = replace(played, title=" ".join(HOSTILE), units=units)
    recording.lines = [json.dumps({"args": {"text": HOSTILE[i % k], HOSTILE[(i + 3) % k]: [HOSTILE[(i + 4) % k]]},
                                   "event": HOSTILE[(i + 5) % k], "round": 1, "seq": i + 1, "turn": 0,
                                   "type": "event"}, ensure_ascii=False) + "\n" for i in range(len(recording.lines))]
    look = _look(loaded)
    look.marks.update({f"t{i}": HOSTILE[i] for i in range(len(MARKS))})
    where = [[HOSTILE[i % k], HOSTILE[(i + 1) % k], i] for i in range(len(recording.lines))]
    html = replay_html(recording, look, where)
    data = inert_page(html)
    # surrogates kept as escapes, read back as JavaScript reads them (a pair of escapes is one character)
    assert data["entries"] == _as_js([json.loads(line) for line in recording.lines])
    assert [u["id"] for u in data["units"]] == [u["id"] for u in _as_js(recording.units)]
    assert data["where"] == _as_js(where)
    assert heading(html)[1] == clean_text(recording.title)
    assert replay_html(recording, look, where) == html  # the same bytes again


@pytest.mark.parametrize("text", HOSTILE)
def test_json_in_html_escapes_what_html_reads_and_reads_back_the_same(text):
    written = json_for_html({"k": text, text: [text]})
    assert not re.search("[<>&\u2028\u2029\ud800-\udfff\x7f-\x9f]", written)
    written.encode("utf-8")
    assert json.loads(written) == _as_js({"k": text, text: [text]})


def test_unwritable_text_becomes_the_replacement_character():
    assert clean_text("a\ud800b") == "a\ufffdb" and clean_text("\ud83d\ude00") == "\U0001f600"
    assert clean_text("tab\tnew\nline") == "tab\tnew\nline" and clean_text("\x00\x85\ufffe") == "\ufffd" * 3
    assert xml_text("<a&b>") == "&lt;a&amp;b&gt;" and xml_attr('"x"\n') == '"&quot;x&quot;&#10;"'


def test_the_page_builder_refuses_its_own_script_closing_early():
    page = Page(title="t", body="<p>{{ x }}</p>", css="p {}", script="var a = '</script>';", data={},
                context={"x": 1})
    with pytest.raises(ValueError, match="would end it early"):
        build_page(page)
    fine = build_page(Page(title="{{ 7 * 7 }}", body="<p>{{ x }}</p>", css="p {}", script="var a = 1;",
                           data={"x": "</script>"}, context={"x": "{{ 7 * 7 }}<b>"}))
    assert "<p>{{ 7 * 7 }}&lt;b&gt;</p>" in fine and "<title>{{ 7 * 7 }}</title>" in fine  # data, not template


def test_lone_surrogates_neither_crash_render_and_run_html_nor_leave_an_empty_file(tmp_path):
    """The reproducer: a YAML "\\ud800" escape in the scenario's name crashed ``render`` and
    ``run --html`` and left a 0-byte page. Now the files are whole (U+FFFD for what UTF-8
    cannot hold), or, where ``check`` refuses such text (branch checks), no file at all."""
    scenario = write_project(tmp_path, name="bad \ud800 name <b>", mottos=["plain"])
    runner = CliRunner()
    for command, out in (("render", "board.svg"), ("run", "replay.html")):
        args = [command, str(scenario)] + (["-o"] if command == "render" else ["--html"]) + [str(tmp_path / out)]
        done = runner.invoke(main, args)
        assert done.exception is None or isinstance(done.exception, SystemExit), done.exception
        if done.exit_code == 0:
            text = (tmp_path / out).read_text(encoding="utf-8")
            assert "bad \ufffd name &lt;b&gt;" in text
        else:
            assert "error[" in done.output and not (tmp_path / out).exists()
    if (tmp_path / "board.svg").exists():
        assert ElementTree.fromstring((tmp_path / "board.svg").read_text(encoding="utf-8")).tag.endswith("svg")
    if (tmp_path / "replay.html").exists():
        assert heading((tmp_path / "replay.html").read_text(encoding="utf-8"))[1] == "bad \ufffd name <b> (seed 0)"


def test_the_svg_holds_hostile_names_as_text(hostile_game):
    """Every text and attribute of the picture escaped: it parses as XML, names read back as
    they were (cleaned), and no element came from a name."""
    scenario, _, _ = hostile_game
    svg, diagnostics, _ = api.render(str(scenario))
    assert svg is not None, diagnostics
    tree = ElementTree.fromstring(svg)
    texts = [t.text for t in tree.iter("{http://www.w3.org/2000/svg}text")]
    assert texts[0] == MARKUP[0] and set(MARKS) <= set(texts)
    pieces = []
    for k, name in enumerate(HOSTILE):
        pieces += unit_svg(name, HOSTILE[k - 1], HOSTILE[k - 2], name, [(name, 3)], "#123456", name[:4], 1.0, 2.0, 26.0)
    group = ElementTree.fromstring('<svg xmlns="http://www.w3.org/2000/svg">' + "".join(pieces) + "</svg>")
    units = group.findall("{http://www.w3.org/2000/svg}g")
    assert [g.get("data-unit") for g in units] == [clean_text(n) for n in HOSTILE]
    assert [g.get("data-side") for g in units] == [clean_text(HOSTILE[k - 2]) for k in range(len(HOSTILE))]
    tags = {e.tag.split("}")[1] for e in group.iter()}
    assert tags == {"svg", "g", "circle", "text", "title"}
    assert not [a for e in group.iter() for a in e.attrib if a.lower().startswith("on")]


def test_the_page_is_the_same_bytes_for_the_same_game():
    loaded = api.open_scenario("battlelore/spider_ford")
    pages = []
    for _ in range(2):
        _, recording, _, _ = play_recorded(loaded, seed=3, max_rounds=3)
        pages.append(page_of(loaded, recording))
    assert pages[0] == pages[1]
    inert_page(pages[0])


def test_unwritable_corpus_is_what_it_says():
    """The corpus really holds what UTF-8 or XML cannot take (else the tests above prove less)."""
    for text in (UNWRITABLE[0], UNWRITABLE[1], UNWRITABLE[3]):
        assert clean_text(text) != text
