"""Untrusted text into pages and pictures, built, never concatenated.

Scenario names, unit ids, event arguments and look marks come from files anyone may send (a
pull request, a shared replay). Whatever they hold must reach an HTML page or an SVG picture as
text, never as markup or script, and must never stop the file being written. So:

* text that cannot be written as UTF-8 (a lone surrogate, from a YAML ``"\\ud800"`` escape) or
  that XML forbids (C0 controls, U+FFFE/U+FFFF) becomes U+FFFD in markup (:func:`clean_text`);
  ``hexlore check`` refuses such text in advance, the builders survive it anyway;
* SVG text and attribute values are escaped here (:func:`xml_text`, :func:`xml_attr`);
* a page is one Jinja2 template with autoescaping (:func:`build_page`): values are data, never
  template source, so a name such as ``{{ x }}`` or ``@DATA@`` stays the text it is;
* a page's data is JSON in a ``<script type="application/json">`` element with ``<``, ``>``,
  ``&``, U+2028/U+2029 and surrogates escaped (:func:`json_for_html`): no text can close the
  element, open a comment in it, or change how it parses;
* a Content-Security-Policy admits the page's own script and style only (by their SHA-256), so
  even markup that got in could run no handler and load nothing.

The replay page (hexlore/replay/page.py) is built this way; a later page (the browser play page)
should call :func:`build_page` the same way rather than assembling HTML itself.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
from dataclasses import dataclass, field
from functools import cache

#: characters no XML document may hold (and lone surrogates, which UTF-8 cannot encode);
#: C1 controls and DEL are allowed by XML 1.0 but shown as nothing useful, so they go too
_UNWRITABLE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff]")
#: what JSON inside HTML must not hold raw (surrogates: see json_for_html)
_JSON_UNSAFE = re.compile("[<>&\u2028\u2029\x7f-\x9f\ud800-\udfff\ufffe\uffff]")


def clean_text(text: str) -> str:
    """``text`` as it can be written in a UTF-8 HTML or XML file: surrogate pairs (two escapes
    in YAML) joined into their character, anything unwritable replaced by U+FFFD."""
    if not _UNWRITABLE.search(text):
        return text
    joined = text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    return _UNWRITABLE.sub("\ufffd", joined)


def xml_text(text: object) -> str:
    """Text content for SVG/XML: cleaned and escaped (``&``, ``<``, ``>``)."""
    cleaned = clean_text(str(text))
    return cleaned.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def xml_attr(text: object) -> str:
    """An attribute value for SVG/XML, with its double quotes: cleaned and escaped, so a value
    cannot end the attribute or the element (newlines and tabs kept as character references)."""
    value = xml_text(text).replace('"', "&quot;").replace("\n", "&#10;").replace("\r", "&#13;")
    return '"' + value.replace("\t", "&#9;") + '"'


def json_for_html(data: object) -> str:
    """JSON (keys sorted, compact: the same data gives the same bytes) that can sit inside any
    HTML element: ``<``, ``>``, ``&``, U+2028/U+2029, C1 controls and every surrogate written as
    ``\\uXXXX`` escapes, which JSON.parse reads back as the very same string."""
    text = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return _JSON_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def _sha256(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii") + "'"


@cache
def _environment():
    """Jinja2 with autoescaping, imported when a page is built (pictures, charts and the
    commands that make no page never load it). Every ``{{ value }}`` passes ``finalize`` before
    escaping: unwritable text replaced (a Markup value stays Markup, cleaned as such)."""
    from jinja2 import Environment, StrictUndefined
    from markupsafe import Markup

    def finalize(value: object) -> object:
        if isinstance(value, Markup):
            return Markup(clean_text(str(value)))
        return clean_text(value) if isinstance(value, str) else value

    return Environment(autoescape=True, undefined=StrictUndefined, finalize=finalize, keep_trailing_newline=True)

SKELETON = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{{ csp }}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{ title }}</title>
<style>{{ css }}</style>
</head>
<body>
{{ body }}
<script type="application/json" id="{{ data_id }}">{{ data }}</script>
<script>{{ script }}</script>
</body>
</html>
"""


@dataclass(frozen=True)
class Page:
    """What a self-contained page is made of.

    ``body``: a Jinja2 template (our own text, never a file's) filled with ``context``, where
    every value is escaped unless it is ``markupsafe.Markup`` (only for markup a builder
    made by escaping, such as render.board_svg's picture). ``css`` and ``script``: the page's
    own style and script, admitted by hash. ``data``: what the script reads, as JSON in the
    element ``data_id``."""

    title: str
    body: str
    css: str
    script: str
    data: object
    data_id: str = "page-data"
    context: dict = field(default_factory=dict)
    #: more of the policy for a served page: ``connect-src`` for its socket, ``form-action``
    #: for its forms (a page opened from disk needs neither)
    allow: str = ""


def content_security_policy(css: str, script: str, allow: str = "") -> str:
    """Nothing but the page's own style and script; no network, no plug-ins, no forms, no base.
    Hashes rather than 'unsafe-inline', so an injected element or handler would not run.
    (Its text is quotes, letters and base64, nothing HTML could read otherwise.)"""
    if allow:
        return (f"default-src 'none'; script-src {_sha256(script)}; style-src {_sha256(css)}; "
                f"base-uri 'none'; {allow}")
    return (f"default-src 'none'; script-src {_sha256(script)}; style-src {_sha256(css)}; "
            "base-uri 'none'; form-action 'none'")


def build_page(page: Page) -> str:
    """The whole page (text, writable as UTF-8): the same Page gives the same bytes."""
    for name, text, closer in (("css", page.css, "</style"), ("script", page.script, "</script")):
        if closer in text.lower() or "<!--" in text:
            raise ValueError(f"the page's {name} holds '{closer}' or '<!--', which would end it early")
    from markupsafe import Markup

    css, script = clean_text(page.css), clean_text(page.script)  # hashed as written
    body = _environment().from_string(page.body).render(**page.context)
    return _environment().from_string(SKELETON).render(
        csp=Markup(content_security_policy(css, script, page.allow)), title=page.title, css=Markup(css), body=Markup(body),
        data_id=page.data_id, data=Markup(json_for_html(page.data)), script=Markup(script))
