"""The server's pages, built like the replay page (hexlore/markup.py): Jinja2 with autoescaping,
the data as escaped JSON, a Content-Security-Policy admitting only the page's own script and
style by hash. The play page's script, ``play.js``, puts every text from a pack or a scenario in
with DOM calls (``textContent``, ``setAttribute``), never as HTML; its socket is the one thing
the policy lets it reach (``connect-src 'self'``). Home and links pages need no script at all
beyond a one-line placeholder (the policy wants a hash).
"""

from __future__ import annotations

from importlib import resources

from markupsafe import Markup

from ..markup import Page, build_page

NO_SCRIPT = "/* no script on this page */"


def _asset(name: str, package: str = __package__) -> str:
    """The pages' own script and style, shipped in the package (the replay's style too)."""
    return resources.files(package).joinpath(name).read_text(encoding="utf-8")


def home_html(scenarios: list[dict], games: list[dict], players: tuple[str, ...], message: str = "") -> str:
    """The home page: each scenario with a form to start a game of it, and the games saved."""
    return build_page(Page(title="hexlore serve", body=HOME, css=_asset("play.css"), script=NO_SCRIPT, data={},
                           context={"scenarios": scenarios, "games": games, "players": players,
                                    "message": message},
                           allow="form-action 'self'"))


def links_html(game_id: str, scenario: str, links: list[tuple[str, str]]) -> str:
    """The page after a game is made: a link per seat (a secret: give each to its player)."""
    return build_page(Page(title="hexlore: new game", body=LINKS, css=_asset("play.css"), script=NO_SCRIPT,
                           data={}, context={"game": game_id, "scenario": scenario, "links": links}))


def message_html(title: str, text: str) -> str:
    return build_page(Page(title=title, body=MESSAGE, css=_asset("play.css"), script=NO_SCRIPT, data={},
                           context={"heading": title, "text": text}))


def play_html(title: str, board: str, data: dict) -> str:
    """The play page of one seat: the board (terrain; the script draws units), panels, the socket."""
    return build_page(Page(title=f"{title} - hexlore", body=PLAY, css=_asset("viewer.css", "hexlore.replay") + _asset("play.css"),
                           script=_asset("play.js"), data=data, data_id="play-data",
                           context={"heading": title, "board": Markup(board)},
                           allow="connect-src 'self'; form-action 'none'"))


HOME = """<header><h1>hexlore serve</h1></header>
<main class="home">
{% if message %}<p class="notice">{{ message }}</p>{% endif %}
<section><h2>New game</h2>
{% for s in scenarios %}
<form method="post" action="/games" class="new-game">
<h3>{{ s.title }} <small>{{ s.key }}</small></h3>
<input type="hidden" name="scenario" value="{{ s.key }}">
{% for side in s.sides %}{% set chosen = 'person' if loop.first else 'greedy' %}
<label>{{ side }} <select name="player.{{ side }}">
{% for p in players %}<option value="{{ p }}"{% if p == chosen %} selected{% endif %}>{{ p }}</option>{% endfor %}
</select></label>
{% endfor %}
<label>seed <input name="seed" value="{{ s.seed }}" size="6" inputmode="numeric"></label>
<label>people <select name="mode"><option value="hot-seat">on this screen (hot-seat)</option>
<option value="remote">on different machines (a link each)</option></select></label>
<label><input type="checkbox" name="designer" value="on"> designer mode</label>
<button type="submit">Start</button>
</form>
{% endfor %}
</section>
<section><h2>Games</h2>
{% if not games %}<p>No games yet.</p>{% endif %}
<ul class="games">
{% for g in games %}<li>{{ g.scenario }} &middot; {{ g.answers }} decisions &middot; game {{ g.id }}</li>{% endfor %}
</ul>
<p class="hint">Each game's seat links were shown when it was made; a game goes on from where it was
whenever its page is opened again, even after the server restarts.</p>
</section>
</main>"""

LINKS = """<header><h1>New game: {{ scenario }}</h1></header>
<main class="home">
<p>Game <code>{{ game }}</code>. Each link is a seat: give it only to the person who plays it.</p>
<ul class="links">
{% for label, href in links %}<li><a href="{{ href }}" data-seat="{{ label }}">{{ label }}</a></li>{% endfor %}
</ul>
<p><a href="/">home</a></p>
</main>"""

MESSAGE = """<header><h1>{{ heading }}</h1></header>
<main class="home"><p>{{ text }}</p><p><a href="/">home</a></p></main>"""

PLAY = """<header><h1>{{ heading }}</h1>
<div id="status" aria-live="polite"></div></header>
<main>
<section id="board-pane">
{{ board }}</section>
<aside>
<div id="decision" aria-live="polite"></div>
<div id="odds" aria-live="polite"></div>
<form id="designer" hidden><fieldset><legend>Designer</legend>
<label>unit <input name="unit" size="10"></label>
<label>field <input name="field" size="10"></label> <label>value <input name="value" size="6"></label>
<button type="button" data-edit="field">set</button><br>
<label>to hex <input name="hex" size="4"></label> <button type="button" data-edit="move">move</button><br>
<label>next roll <input name="faces" size="20" placeholder="face, face"></label>
<button type="button" data-edit="dice">force</button><br>
<label>test name <input name="name" size="16" value="position"></label>
<button type="button" data-edit="save">save as scenario test</button>
<a id="saved-test" hidden download="position_test.yaml">download</a></fieldset></form>
<div id="notice" class="notice" aria-live="assertive"></div>
<div id="controls"><button id="undo" type="button">Undo</button>
<a id="export-log" href="#">log</a> <a id="export-replay" href="#">replay</a></div>
<div id="sides"></div>
<ol id="log"></ol>
</aside>
</main>"""
