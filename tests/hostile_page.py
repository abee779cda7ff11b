"""Hostile text for replay pages and pictures (issue 30, item 2), and what an inert page is.

Used by tests/test_page_markup.py (the page and the SVG as text, parsed by html5lib, which
follows the HTML standard's tokenizer, comment and script-escape states included),
tests/test_replay_browser.py (the same pages in Chromium) and the fuzz test of pages
(tests/test_hostile_fuzz.py, tests/fuzz/pages.py).

Each payload, if it ever ran, sets ``window.pwned`` or the document's title; the page's own
placeholders and Jinja2's syntax are there because the page was once filled by chained
``str.replace`` (a name holding ``@DATA@`` received the data).
"""

from __future__ import annotations

import json
from pathlib import Path

from conftest import ROOT

#: markup a scenario (or a pack) can carry and ``hexlore check`` accepts: plain ASCII
MARKUP = [
    '@DATA@<img src=x onerror="window.pwned=1">',
    "<script>window.pwned=1</script>",
    '<svg onload="window.pwned=1"><title>x</title></svg>',
    "<!--<script>",
    "</script><script>document.title='pwned'</script>",
    "@TITLE@ @DATA@ @SCRIPT@ @CSS@ @BOARD@",
    "{{ 7 * 7 }} {% if true %}jinja{% endif %} {# c #}",
    "\"' onmouseover=\"window.pwned=1\" x='",
    "&amp; &lt;b&gt; ]]> <![CDATA[x]]>",
]
#: text ``check`` should refuse (branch checks), which the builders must survive anyway
UNWRITABLE = [
    "lone \ud800 surrogate",
    "pair \ud83d\ude00 of escapes",
    "line\u2028separator\u2029paragraph",
    "nul\x00 bell\x07 c1\x85 del\x7f",
]
HOSTILE = MARKUP + UNWRITABLE
#: look marks: 1 to 4 characters
MARKS = ["<!--", "<b>", "{{x}", "@DA"]
#: the tags a replay page holds: the page's own, the board's, the viewer's (SVG ones lower case)
PAGE_TAGS = {"html", "head", "body", "meta", "title", "style", "header", "h1", "div", "button", "input", "span",
             "main", "section", "aside", "ol", "script", "svg", "polygon", "text", "g", "rect", "circle"}
VIEWER = (ROOT / "hexlore" / "replay" / "viewer.js").read_text(encoding="utf-8")

PACK = '''pack hostile_page
event said(text: text, who: unit) "a unit says something"
fields unit {
  motto: text = "none"
  hp: int = 3
}
@TYPES@
game talking "Talks" {
  max_rounds: 2
  round {
    for each u in units() {
      emit said(text: u.motto, who: u)
      u.hp = u.hp - 1
    }
  }
}
'''


def write_project(folder: Path, name: str = MARKUP[0], mottos: list[str] = MARKUP, marks: list[str] = MARKS) -> Path:
    """A pack whose units say ``mottos`` (event arguments), a look giving each unit type one of
    ``marks``, and a scenario called ``name``; returns the scenario's path."""
    types = "\n".join(f'unit t{k} "Type {k}" {{ }}' for k in range(len(marks)))
    (folder / "hostile.lore").write_text(PACK.replace("@TYPES@", types), encoding="utf-8")
    look = "marks:\n" + "".join(f"  t{k}: {json.dumps(m)}\n" for k, m in enumerate(marks))
    (folder / "look.yaml").write_text(look, encoding="utf-8")
    units = "".join(f"  - {{id: u{k}, type: t{k % len(marks)}, side: {('north', 'south')[k % 2]}, "
                    f"hex: {'ABCDEF'[k % 6]}{1 + k // 6}, fields: {{motto: {json.dumps(m)}}}}}\n"
                    for k, m in enumerate(mottos))
    scenario = folder / "s.yaml"
    scenario.write_text(f"hexlore: 1\nname: {json.dumps(name)}\npacks: [hostile.lore]\n"
                        "board: {shape: rectangle, width: 6, height: 4}\n"
                        "sides:\n  - {name: north, edge: top}\n  - {name: south, edge: bottom}\n"
                        f"units:\n{units}", encoding="utf-8")
    return scenario


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def inert_page(html: str) -> dict:
    """The page's data, after checking that the parsed page can run nothing but the viewer:
    exactly two scripts (the JSON data, then viewer.js whole), no event-handler attribute, no
    element but the page's own kinds, and a Content-Security-Policy admitting no inline code."""
    import html5lib

    html.encode("utf-8")  # writable as UTF-8 (raises on a lone surrogate)
    tree = html5lib.parse(html, namespaceHTMLElements=False)
    elements = list(tree.iter())
    tags = {_local(e.tag) for e in elements if isinstance(e.tag, str)}
    assert tags <= PAGE_TAGS, f"foreign elements: {tags - PAGE_TAGS}"
    handlers = [(e.tag, a) for e in elements for a in e.attrib if _local(a).lower().startswith("on")]
    assert handlers == [], handlers
    scripts = [e for e in elements if isinstance(e.tag, str) and _local(e.tag) == "script"]
    assert len(scripts) == 2, [s.attrib for s in scripts]
    data, viewer = scripts
    assert data.attrib == {"type": "application/json", "id": "replay-data"}
    assert viewer.attrib == {} and viewer.text == VIEWER
    policy = [m.get("content") for m in tree.iter("meta") if m.get("http-equiv") == "Content-Security-Policy"]
    assert len(policy) == 1 and "default-src 'none'" in policy[0] and "unsafe" not in policy[0]
    assert "script-src 'sha256-" in policy[0]
    return json.loads(data.text)


def heading(html: str) -> tuple[str, str]:
    """The page's <title> and <h1> texts, as a browser reads them."""
    import html5lib

    tree = html5lib.parse(html, namespaceHTMLElements=False)
    return tree.find(".//title").text, "".join(tree.find(".//h1").itertext())
