"""The Game's API (issue 32, item 4): a game is changed through its methods only.

Search, exact odds, replayed actions, sweeps and a stepping client (a browser server) used to
assign a game's fields themselves — its dice, players, shuffle stream, watchers, log modes and
budget — and the step budget was one global that every new game refilled. Now each game owns
its budget, and ``Game`` offers what they need: ``fork``/``restore``, ``exploring`` (futures
the game never keeps), ``seat``/``use_dice``/``use_shuffler``, ``start``/``apply``/
``legal_options``/``chance_outcomes`` (OpenSpiel's shape, fitted to rules that ask). A scan of
``hexlore/`` fails when a module outside the game's own assigns a game's fields.
"""

from __future__ import annotations

import ast
import io
import random
from fractions import Fraction

import pytest

from conftest import ROOT
from hexlore.api import open_scenario
from hexlore.runtime.engine.core.bounds import MAX_STEPS
from hexlore.runtime.engine.game import Game, RuntimeRuleError, dump_log
from hexlore.runtime.engine.core.requests import Choice, Roll

PACKAGE = ROOT / "hexlore"

#: the modules that make up a game, with why each may assign its fields
GAME_MODULES = {
    "runtime/engine/game.py": "the Game class itself",
    "runtime/engine/setup.py": "fills the game's tables, options and state while Game.__init__ builds it",
    "runtime/engine/builtins/lists.py": "the game's list and dice primitives, made by Game.__init__: 'shuffle' "
                                        "notes the list it shuffled in game.shuffled",
    "runtime/engine/builtins/units.py": "the game's unit primitives, made by Game.__init__: a move notes the "
                                        "way it took in the log's paths",
    "runtime/engine/resume.py": "the driver of the game's resumable frames: a frame's result is handed "
                                "over in game.context.result, a call pushes its frame",
}
#: names a game goes by in the package (``x.game`` too: a player's, a context's)
GAME_NAMES = {"game"}
#: a game's parts whose fields are the game's as well
COMPONENTS = {"events", "context"}


class _Assignments(ast.NodeVisitor):
    """Stores into a game's fields (``game.f = …``, ``game.f += …``, ``game.f[k] = …``,
    ``setattr(game, …)``, ``del game.f``), its parts' (``game.events.f = …``), and the same
    through a local name bound to a game or a part (``events = game.events``)."""

    def __init__(self) -> None:
        self.found: list[tuple[int, str]] = []
        self.games: set[str] = set(GAME_NAMES)
        self.parts: set[str] = set()

    def _is_game(self, node: ast.expr) -> bool:
        return (isinstance(node, ast.Name) and node.id in self.games) or \
            (isinstance(node, ast.Attribute) and node.attr == "game")

    def _is_part(self, node: ast.expr) -> bool:
        return (isinstance(node, ast.Name) and node.id in self.parts) or \
            (isinstance(node, ast.Attribute) and node.attr in COMPONENTS and self._is_game(node.value))

    def _owned(self, target: ast.expr) -> bool:
        while isinstance(target, ast.Subscript):  # game.f[k] = …: the game's dict or list changed
            target = target.value
        return isinstance(target, ast.Attribute) and (self._is_game(target.value) or self._is_part(target.value))

    def _targets(self, targets: list[ast.expr], node: ast.stmt) -> None:
        for target in targets:
            for t in (target.elts if isinstance(target, (ast.Tuple, ast.List)) else [target]):
                if self._owned(t):
                    self.found.append((node.lineno, ast.unparse(t)))

    def visit_Assign(self, node: ast.Assign) -> None:
        self._targets(node.targets, node)
        for target in node.targets:  # aliases: g = self.game, state, events = game.state, game.events
            pairs = [(target, node.value)]
            if isinstance(target, ast.Tuple) and isinstance(node.value, ast.Tuple):
                pairs = list(zip(target.elts, node.value.elts))
            for name, value in pairs:
                if isinstance(name, ast.Name):
                    if self._is_game(value):
                        self.games.add(name.id)
                    elif self._is_part(value):
                        self.parts.add(name.id)
        self.generic_visit(node)

    def visit(self, node: ast.AST) -> None:
        if isinstance(node, (ast.AugAssign, ast.AnnAssign)):  # game.f += …, game.f: T = …
            self._targets([node.target], node)
        super().visit(node)

    def visit_Delete(self, node: ast.Delete) -> None:
        self._targets(node.targets, node)
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        if isinstance(node.func, ast.Name) and node.func.id in ("setattr", "delattr") and node.args and \
                (self._is_game(node.args[0]) or self._is_part(node.args[0])):
            self.found.append((node.lineno, ast.unparse(node)))
        self.generic_visit(node)


def assignments(source: str) -> list[tuple[int, str]]:
    visitor = _Assignments()
    visitor.visit(ast.parse(source))
    return visitor.found


@pytest.mark.parametrize("source, expected", [
    ("game.roller = r", ["game.roller"]),
    ("game.policies['north'] = p", ["game.policies['north']"]),
    ("self.game.paused_at = None", ["self.game.paused_at"]),
    ("game.events.file, game.events.rolls_only = None, True", ["game.events.file", "game.events.rolls_only"]),
    ("events = game.events\nevents.defer_labels = True", ["events.defer_labels"]),
    ("state, events = game.state, game.events\nevents.file = None", ["events.file"]),
    ("g = self.game\ng.shuffled = {}", ["g.shuffled"]),
    ("game.context.stack[:] = []", ["game.context.stack[:]"]),
    ("game.budget.left -= 1", []),  # the budget's own fields: its methods' business, not the game's
    ("game.seed: int = 1", ["game.seed"]),
    ("setattr(game, 'seed', 1)", ["setattr(game, 'seed', 1)"]),
    ("game.seat('north', p)\ngame.state.write(f, 'k', 1)\nself.roller = r", []),
])
def test_the_scan_finds_what_it_should(source, expected):
    assert [text for _, text in assignments(source)] == expected


def test_no_module_outside_the_game_assigns_its_fields():
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        module = path.relative_to(PACKAGE).as_posix()
        if module in GAME_MODULES:
            continue
        found += [f"hexlore/{module}:{line}: {text}" for line, text in assignments(path.read_text(encoding="utf-8"))]
    assert not found, "assign through the Game's methods (docs/architecture.md, 'Game API'):\n" + "\n".join(found)


def test_every_exception_is_a_module_that_exists():
    assert all((PACKAGE / module).is_file() for module in GAME_MODULES)


# ---------------------------------------------------------------- a budget per game
BURNER = '''pack burner
procedure burn() "spends 1.2 million of a game's 2 million steps" {
  let n = 0
  repeat 120 { repeat 10000 { n = n + 1 } }
}
'''

SCENARIO = '''hexlore: 1
name: burner
packs: [burner.lore]
board: {shape: rectangle, width: 4, height: 4}
sides:
  - {name: north, edge: top}
  - {name: south, edge: bottom}
units: []
'''


@pytest.fixture
def burner(tmp_path):
    (tmp_path / "burner.lore").write_text(BURNER, encoding="utf-8")
    (tmp_path / "burner.yaml").write_text(SCENARIO, encoding="utf-8")
    loaded = open_scenario(str(tmp_path / "burner.yaml"))
    assert loaded.ok, [d.headline() for d in loaded.diagnostics]
    return loaded


def _burn(game: Game) -> None:
    game.guarded(game.call_procedure, "burn", [])


def _refused(game: Game) -> str:
    with pytest.raises(RuntimeRuleError) as caught:
        _burn(game)
    diagnostic = caught.value.diagnostic
    assert diagnostic.code == "R001" and f"{MAX_STEPS:,} steps" in diagnostic.message
    return diagnostic.message


def test_building_another_game_does_not_refill_a_games_budget(burner):
    """On the global budget, every new game reset it: a game could spend its budget again and
    again while others were built (a sweep, a browser server holding several games)."""
    first = Game(burner.rules, burner.scenario)
    _burn(first)
    Game(burner.rules, burner.scenario)
    _refused(first)  # 2.4 million steps in one game


def test_another_game_playing_does_not_drain_a_games_budget(burner):
    """On the global budget, one game's steps counted against every other game's."""
    first, second = Game(burner.rules, burner.scenario), Game(burner.rules, burner.scenario)
    _burn(second)
    _burn(first)  # 1.2 million steps of its own
    assert first.budget.left == second.budget.left
    _refused(second)


def test_a_restored_fork_has_the_budget_left_at_the_fork(burner):
    game = Game(burner.rules, burner.scenario)
    point = game.fork()
    _burn(game)
    spent = game.budget.left_now()
    game.restore(point)
    assert game.budget.left_now() == (MAX_STEPS, *spent[1:]) and spent[0] < MAX_STEPS
    _burn(game)  # the steps spent after the fork are given back


# ---------------------------------------------------------------- stepping
from test_fork import GAMES, _loaded  # noqa: E402 (the four playable games, loaded)


@pytest.mark.parametrize("path, sides", GAMES)
def test_a_game_stepped_by_its_own_players_logs_what_play_logs(path, sides):
    loaded = _loaded(path)
    policies = {s: "random" for s in sides}
    straight = io.StringIO()
    Game(loaded.rules, loaded.scenario, seed=5, log_file=straight, policies=policies).play()
    stepped = io.StringIO()
    game = Game(loaded.rules, loaded.scenario, seed=5, log_file=stepped, policies=policies)
    request, steps = game.start(stop_at_rolls=True), 0
    while request is not None:
        assert request is game.pending and request.__class__ in (Roll, Choice)
        request, steps = game.apply(), steps + 1
    assert steps > 10 and game.over and game.pending is None
    assert stepped.getvalue() == straight.getvalue()
    assert game.result().winner == game.winner


@pytest.mark.parametrize("path, sides", GAMES[:2])
def test_a_client_answers_decisions_and_rolls_and_the_log_says_so(path, sides):
    loaded = _loaded(path)
    game = Game(loaded.rules, loaded.scenario, seed=7, policies={s: "random" for s in sides})
    rng = random.Random(1)
    request, answered = game.start(stop_at_rolls=True), {"decision": 0, "roll": 0}
    while request is not None and sum(answered.values()) < 60:
        before = len(game.log)
        if request.__class__ is Choice:
            labels = game.legal_options()
            assert len(labels) == len(request.options) > 1
            index = rng.randrange(len(labels))
            request = game.apply(index)
            entry = next(e for e in game.log[before:] if e["type"] == "decision")
            assert (entry["choice"], entry["options"], entry["by"]) == (labels[index], len(labels), entry["by"])
            answered["decision"] += 1
        else:
            outcomes = game.chance_outcomes()
            assert sum(chance for _, chance in outcomes) == Fraction(1)
            assert all(len(faces) == request.count for faces, _ in outcomes)
            faces = outcomes[rng.randrange(len(outcomes))][0]
            request = game.apply(faces)
            entry = next(e for e in game.log[before:] if e["type"] == "roll")
            assert entry["faces"] == [f.name for f in faces]
            answered["roll"] += 1
    assert answered["decision"] > 3 and answered["roll"] >= 1


def test_a_fork_of_a_stepped_game_plays_on_the_same_and_comes_back_to_its_request():
    loaded = _loaded("battlelore/spider_ford.yaml")
    game = Game(loaded.rules, loaded.scenario, seed=3, policies={"north": "random", "south": "random"})
    request = game.start()
    for _ in range(5):
        request = game.apply()
    point = game.fork(streams=True)
    played = []
    for _ in range(2):
        game.restore(point)
        assert game.pending is request
        while game.apply() is not None:
            pass
        played.append(dump_log(game.log))
    assert played[0] == played[1] and game.over


def test_wrong_answers_are_refused_with_what_to_give():
    loaded = _loaded("battlelore/spider_ford.yaml")
    game = Game(loaded.rules, loaded.scenario, seed=3, policies={"north": "random", "south": "random"})
    with pytest.raises(ValueError, match="nothing is pending"):
        game.apply(0)
    request = game.start()
    assert request.__class__ is Choice
    with pytest.raises(ValueError, match=f"has {len(request.options)} options"):
        game.apply(len(request.options))
    with pytest.raises(ValueError, match="no roll is pending"):
        game.chance_outcomes()
    with pytest.raises(ValueError, match="already under way"):
        game.start()
    assert game.pending is request  # a refused answer leaves the request pending


def test_seating_a_side_that_does_not_play_is_refused():
    loaded = _loaded("battlelore/spider_ford.yaml")
    game = Game(loaded.rules, loaded.scenario, seed=3)
    with pytest.raises(ValueError, match="no side named 'east'"):
        game.seat("east", game.policies["north"])
