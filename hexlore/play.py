"""A human at the terminal plays a side: ``hexlore run SCENARIO --policy north=human``.

The runtime asks every decision of a policy (hexlore/runtime/engine/policies.py); this one asks the
person at the keyboard. It lives with the CLI, not the runtime, because it reads and writes
the terminal. Before each question it prints what happened since the last one, read from
the game's event log (:class:`GameWatch`), so the player sees the dice, moves and losses
that led to the choice, in the same words the log and scenario tests use.

Answers: an option's number, or its label as printed (``B4``, ``archers``), or nothing (Enter)
for the rules' default, else the option the rules prefer (the highest ``prefer`` score, as the
greedy player takes); ``?`` shows the position (:class:`PositionView`: every unit on the board,
with what changed in it since the game began; the board as text, each side's fields and hand,
hexlore/play_view.py); ``odds N`` the exact distribution of what option N leads to
(hexlore/runtime/analysis/odds_state.py); ``save FILE`` writes the position as a scenario test
(hexlore/runtime/analysis/position_test.py). Each question names the units it is about and each
option what it is (a card's text, a unit's type and hex). A wrong answer is explained and asked again;
the end of the input (or Ctrl-D) abandons the game cleanly (:class:`Abandoned`), with the
log written so far intact.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import IO, TYPE_CHECKING

from rich.console import Console

from .cli_output import escape
from .runtime.engine.policies import Decision, Policy

if TYPE_CHECKING:
    from .look import Look

# hexlore/play_view.py (the board, odds) is imported when a person plays, not by every ``run``
# (tests/test_startup.py): it draws on the renderer and the odds engine

#: the outcomes ``odds N`` may enumerate: a deterministic bound (docs/odds.md), about a second
ODDS_BUDGET = 20_000



class Abandoned(Exception):
    """The player stopped answering (end of input): the game ends here, unfinished."""


def describe_entry(entry: dict) -> str | None:
    """One log entry as a line for a player, or None for entries not worth showing."""
    kind = entry.get("type")
    if kind == "event":
        args = entry.get("args") or {}
        shown = " ".join(f"{k}={_value(v)}" for k, v in args.items())
        return f"{entry['event']} {shown}".rstrip()
    if kind == "roll":
        return f"roll of {entry.get('die', 'dice')}: {_value(entry.get('faces', []))}"
    if kind == "round":
        return f"round {entry.get('round')} begins"
    if kind == "decision":
        return f"{entry['by']} chose {_value(entry['choice'])} for {entry['decision']}"
    if kind == "end":
        return f"game over: winner {entry.get('winner') or 'none'}"
    return None


def _value(v) -> str:
    if isinstance(v, list):
        return "[" + ", ".join(_value(x) for x in v) + "]"
    return "none" if v is None else str(v).lower() if isinstance(v, bool) else str(v)


class GameWatch:
    """What the player at the terminal sees of a game: its log as it grows, and the position.

    Handed the game before it starts (``api.run(watch=…)``), it reads the game's own log
    entries, already in the log's words, so nothing is encoded or parsed twice and the log
    file is written exactly as when nobody watches.
    """

    def __init__(self, console: Console):
        self.console = console
        self.game = None
        self.shown = 0
        self.view: PositionView | None = None
        self.look: Look | None = None

    def __call__(self, game) -> None:
        from .look import Look, LookError, look_of

        self.game = game
        self.view = PositionView(game)
        try:
            self.look = look_of(game.rules)
        except LookError:  # a bad look: the board in plain letters (check reports the look)
            self.look = Look()

    def position(self, viewer: str | None = None) -> str:
        """What ``?`` shows: the units, the board as text, the game's and every side's fields,
        and ``viewer``'s hand (every hand when None)."""
        from .play_view import board_text, sides_text

        if self.game is None or self.view is None:
            return "no view of the position here"
        return "\n\n".join([self.view.text(), board_text(self.game.state, self.look), sides_text(self.game, viewer)])

    @property
    def log(self) -> list[dict]:
        return self.game.log if self.game is not None else []

    def flush(self) -> None:
        """Print the entries logged since the last flush."""
        for entry in self.log[self.shown:]:
            line = describe_entry(entry)
            if line is not None:
                self.console.print(f"[dim]r{entry.get('round', 0)} t{entry.get('turn', 0)}[/dim]  {escape(line)}")
        self.shown = len(self.log)


class PositionView:
    """The position as text for a player: each side's units on the board, by hex, with the
    fields that changed since the game began (``figures 4→3``) — what a player would see on
    the table, whatever the packs call their fields."""

    def __init__(self, game):
        self.state = game.state
        self.label = game.state.board.label
        self.shown = game.events.shown
        self.start = {uid: dict(u.f) for uid, u in game.state.units.items()}

    def text(self) -> str:
        lines = []
        for side in self.state.sides:
            units = [u for u in self.state.units.values() if u.side is side and u.alive and u.hex is not None]
            units.sort(key=lambda u: (u.hex.r, u.hex.q, u.id))
            lines.append(f"{side.name}: {len(units)} unit(s) on the board")
            for u in units:
                before = self.start.get(u.id, {})
                changed = [f"{name} {_value(self.shown(before.get(name)))}→{_value(self.shown(value))}"
                           for name, value in sorted(u.f.items()) if before.get(name) != value]
                lines.append(f"  {self.label(u.hex):>4}  {u.id} ({u.definition.name})"
                             + (f"  {', '.join(changed)}" if changed else ""))
        return "\n".join(lines)


class HumanPolicy(Policy):
    """Asks the player at the terminal; ``ask`` reads one answer (None at the end of input)."""

    name = "human"

    def __init__(self, side: str, console: Console, ask: Callable[[str], str | None],
                 watch: GameWatch | None = None):
        self.side = side
        self.console = console
        self.ask = ask
        self.watch = watch

    def choose(self, decision: Decision) -> int:
        if self.watch is not None:
            self.watch.flush()
        if len(decision.options) == 1:
            return 0  # nothing to choose: say nothing, the log records it
        from .play_view import option_note, subjects_text

        game = self.watch.game if self.watch is not None else None
        about = subjects_text(game) if game is not None else ""
        self.console.print(f"\n[bold]{escape(self.side)}[/bold] decides [bold]{escape(decision.name)}[/bold]"
                           + (f" about {escape(about)}" if about else "") + ":", highlight=False)
        enter = enter_choice(decision)
        for i, label in enumerate(decision.labels, 1):
            marks = []
            if i - 1 == decision.default:
                marks.append("default")
            if decision.scores and decision.scores[i - 1] == max(decision.scores) and len(set(decision.scores)) > 1:
                marks.append("preferred")
            note = f"  [dim]({', '.join(marks)})[/dim]" if marks else ""
            what = option_note(decision.options[i - 1], game) if game is not None else ""
            what = f"  {escape(what)}" if what else ""
            self.console.print(f"  {i:>2}. {escape(_value(label))}{note}{what}", highlight=False)
        if enter is None:
            self.console.print("  [dim](a number, an option, ? for the position)[/dim]")
        else:
            what = "the default" if enter == decision.default else "the preferred option"
            self.console.print(f"  [dim](a number, an option, Enter for {what} ({enter + 1}), "
                               "? for the position)[/dim]")
        self.console.print("  [dim](odds N: what option N leads to, exactly)[/dim]")
        while True:
            answer = self.ask(f"{self.side}> ")
            if answer is None:
                raise Abandoned(f"{self.side} stopped answering at decision '{decision.name}'")
            index = self.parse(answer.strip(), decision)
            if index is not None:
                return index

    def parse(self, answer: str, decision: Decision) -> int | None:
        """The option an answer picks, or None (having said why) to ask again."""
        count = len(decision.options)
        if answer == "?":
            shown = self.watch.position(self.side) if self.watch is not None else "no view of the position here"
            self.console.print(escape(shown), highlight=False)
            return None
        words = answer.split()
        if words and words[0].lower() == "odds":
            self.console.print(escape(self.odds(words[1:], count)), highlight=False)
            return None
        if words and words[0].lower() == "save":
            self.console.print(escape(self.save(answer.split(None, 1)[1:], decision)), highlight=False)
            return None
        if answer == "":
            enter = enter_choice(decision)
            if enter is not None:
                return enter
            self.console.print(f"  no option is the default or preferred here: type a number from 1 to {count}")
            return None
        if answer.isdigit():
            if 1 <= int(answer) <= count:
                return int(answer) - 1
            self.console.print(f"  {answer} is not on the list: type a number from 1 to {count}")
            return None
        labels = [_value(label).lower() for label in decision.labels]
        if labels.count(answer.lower()) == 1:
            return labels.index(answer.lower())
        self.console.print(f"  '{escape(answer)}' is not an option: type a number from 1 to {count}, an "
                           "option as listed, or ? to see the position")
        return None


    def odds(self, words: list[str], count: int) -> str:
        """``odds N``: what option N leads to, up to the next decision (docs/odds.md)."""
        from .play_view import odds_text
        from .runtime.analysis.odds import OddsError
        from .runtime.analysis.odds_state import odds_of_option
        from .runtime.engine.game import RuntimeRuleError

        if len(words) != 1 or not words[0].isdigit() or not 1 <= int(words[0]) <= count:
            return f"  odds of which option? type odds and a number from 1 to {count} (odds 1)"
        game = self.watch.game if self.watch is not None else None
        if game is None or game.paused_at is None:
            return "  no odds here: the game is not paused at this decision"
        try:
            return odds_text(odds_of_option(game, int(words[0]) - 1, budget=ODDS_BUDGET))
        except (ValueError, OddsError, RuntimeRuleError) as exc:
            return f"  no odds for this option: {exc}"


    def save(self, words: list[str], decision: Decision) -> str:
        """``save FILE``: the position as a scenario test in a new scenario file (never over the
        scenario or its packs), to keep and run with ``hexlore test``."""
        from .cli_files import clashes
        from .dsl.output_files import OutputError
        from .runtime.analysis.position_test import save_position_test

        game = self.watch.game if self.watch is not None else None
        if game is None or not words or not words[0].strip():
            return "  save where? type save and a file name (save kept.yaml)"
        target = words[0].strip()
        inputs = [game.scenario.path] + [str(s) for s in game.rules.sources]
        clash = clashes({"save": target}, inputs)
        if clash:
            return f"  not saved: {clash[0].message}"
        name = f"{self.side} to decide {decision.name}, round {game.state.game.get('round')}"
        try:
            found = save_position_test(game, target, name)
        except (OutputError, ValueError, OSError) as exc:
            return f"  not saved: {exc}"
        notes = "".join(f"\n  note: {n}" for n in found.notes)
        return (f"  saved the position as the test '{name}' in {target} ({len(found.test['given'])} unit(s) "
                f"given); run it with hexlore test {target}{notes}")


def enter_choice(decision: Decision) -> int | None:
    """The option an empty answer takes: the rules' default, else the one the rules prefer (the
    highest 'prefer' score, the first of equals, as the greedy player takes), else none."""
    if decision.default is not None:
        return decision.default
    scores = decision.scores
    if scores and len(set(scores)) > 1:
        return scores.index(max(scores))
    return None


def terminal_reader(stream: IO[str]) -> Callable[[str], str | None]:
    """Prompt on standard output and read a line from ``stream``; None at its end."""
    def ask(prompt: str) -> str | None:
        print(prompt, end="", flush=True)
        line = stream.readline()
        if not line:
            print()
            return None
        answer = line.rstrip("\n")
        if not stream.isatty():
            print(answer)  # answers piped in: a transcript shows them after their prompts
        return answer
    return ask
