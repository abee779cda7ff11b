"""The ``hexlore`` command: check, run, replay, render, test, graph and campaign.

Exit codes: 0 clean, 1 findings (errors, failed tests, a rule failing at run time),
2 usage error (click's own code for bad options), the same for every command when a file,
scenario or pack named on the command line does not exist (``cli_output.USAGE``).

Each command imports what it needs when it runs (issue 19): ``hexlore --help`` loads click
and nothing of the compiler, ``check`` of a pack the compiler but no runtime, schemas or
rich, ``run`` the runtime but no tables, Ray or matplotlib. The names shown in ``--help``
come from light tables (formats: hexlore/output_formats.py; policies: the player registry),
and tests/test_startup.py checks the imports.
"""

from __future__ import annotations

import json
import os
import sys
from typing import TYPE_CHECKING, cast

import click

from .cli_analysis import _parse_policies, odds as _odds, sweep as _sweep
from .cli_serve import serve as _serve
from .output_formats import ANSWER_FORMATS, AUTO, REPORT_CHOICES, report_help

if TYPE_CHECKING:
    from rich.console import Console

    from .compiler.graph import EventTriggerGraph


def _console(**options) -> Console:
    from rich.console import Console

    return Console(highlight=False, **options)


class _Commands(click.Group):
    """The command group: an output that cannot be written (a full disk, a read-only folder)
    ends any command with its ``S130`` report and exit code 1, not a traceback; the file it
    would have replaced is left as it was (hexlore/dsl/output_files.py)."""

    def invoke(self, ctx: click.Context):
        from .dsl.output_files import OutputError

        try:
            return super().invoke(ctx)
        except OutputError as exc:
            from .cli_files import report_output_error

            report_output_error(exc)
            ctx.exit(1)


@click.group(cls=_Commands)
@click.version_option(package_name="hexlore")
@click.option("--packs-path", "packs_path", multiple=True, type=click.Path(file_okay=False),
              help="A folder searched for packs after the scenario's own (repeatable; added "
                   "before the folders of HEXLORE_PATH). Packs are read only from the scenario's "
                   "folder, these folders and the bundled rules.")
@click.option("--root", "root", type=click.Path(file_okay=False, exists=True), default=None,
              help="The project root: no file outside it is read, links followed (besides the bundled "
                   "rules and scenarios and the --packs-path folders). Default: the working directory "
                   "for the paths check is given, a scenario's own folder tree for its packs.")
def main(packs_path: tuple[str, ...] = (), root: str | None = None) -> None:
    """Compile, check, play and test hex-grid board game rules written in Lore."""
    if root:  # in the environment too, like --packs-path (hexlore/dsl/confine.py reads it)
        from .dsl.confine import ROOT_VARIABLE

        os.environ[ROOT_VARIABLE] = os.path.abspath(root)
    if packs_path:  # in the environment, so sweep workers and every API call see the same paths
        from .loading import PATH_VARIABLE

        declared = [os.path.abspath(p) for p in packs_path]
        os.environ[PATH_VARIABLE] = os.pathsep.join(
            declared + [p for p in os.environ.get(PATH_VARIABLE, "").split(os.pathsep) if p])


@main.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True))
@click.option("--format", "fmt", type=click.Choice(list(REPORT_CHOICES)), default=AUTO, help=report_help())
@click.option("--strict", is_flag=True, help="Warnings fail too (exit code 1).")
@click.option("-o", "--output", type=click.Path(dir_okay=False, allow_dash=True), default=None,
              help="Write the report to this file instead of standard output.")
def check(paths: tuple[str, ...], fmt: str, strict: bool, output: str | None) -> None:
    """Check rule packs (.lore), scenarios, campaigns and sheets (.yaml), reporting every problem.

    Exit code 0: nothing failed; 1: errors (or warnings, with --strict); 2: misuse.
    """
    from . import api, report
    from .cli_output import print_diagnostics
    from .collector import no_collection_at_exit

    no_collection_at_exit()  # what was checked stays alive to the end: the exit's collections skip it
    diagnostics, sources = api.check(list(paths))
    if output == "-":
        output = None
    if output is None:
        code = print_diagnostics(diagnostics, sources, fmt, strict)
    else:
        import io

        from .cli_files import refuse_outputs_over_inputs
        from .dsl.output_files import write_atomically

        refuse_outputs_over_inputs({"--output": output}, [*paths, *sources])
        text = io.StringIO()
        code = print_diagnostics(diagnostics, sources, fmt, strict, text)
        write_atomically(output, text.getvalue())
    if report.choose_format(fmt) == "text" and not diagnostics:
        click.echo("no problems found", err=True)
    sys.exit(code)


@main.command()
@click.argument("scenario")
@click.option("--seed", type=int, default=None, help="Seed for dice and random policies.")
@click.option("--log", "log_path", type=click.Path(dir_okay=False, writable=True, allow_dash=True), default=None,
              help="Write the event log (JSON lines) to this file; '-' writes it to standard output "
                   "(the summary then goes to standard error).")
@click.option("--max-rounds", type=int, default=None, help="Stop after this many rounds.")
@click.option("--policy", "policy_options", multiple=True, metavar="SIDE=POLICY", callback=_parse_policies,
              help="Who plays a side instead of the scenario's policy: random, greedy, first, scripted, "
                   "mcts (tree search; mcts:400 = 400 futures a decision, mcts:0.5s = half a second), "
                   "rollout (each option tried in futures played to the end as greedy plays; "
                   "rollout:600), or human (you, at the terminal). Repeat for each side.")
@click.option("--format", "fmt", type=click.Choice(list(ANSWER_FORMATS)), default="text")
@click.option("--html", "html_path", type=click.Path(dir_okay=False, writable=True), default=None,
              help="Write a replay of the game to this file: one HTML page, no network needed.")
def run(scenario: str, seed: int | None, log_path: str | None, max_rounds: int | None,
        policy_options: dict[str, str], fmt: str, html_path: str | None) -> None:
    """Play SCENARIO (a file or a bundled name) to the end and print a summary."""
    from . import api
    from .cli_output import STDOUT, LogFile, escape, exit_if_no_scenario, print_diagnostics
    from .play import Abandoned, GameWatch, HumanPolicy, terminal_reader

    exit_if_no_scenario(scenario)
    log_to_stdout = log_path == STDOUT
    if log_to_stdout and "human" in policy_options.values():
        raise click.BadParameter("the log cannot go to standard output while you play at the terminal "
                                 "(the board is shown there): give it a file name", param_hint="'--log'")
    console = _console(stderr=log_to_stdout)
    loaded = api.open_scenario(scenario)
    report_to = sys.stderr if log_to_stdout else None  # standard output holds only the log
    if not loaded.playable:  # refused before the log is opened: no empty log is left behind
        sys.exit(print_diagnostics(loaded.diagnostics, loaded.sources, "text", output=report_to) or 1)
    if html_path:  # a board too large to draw (S127): refused before playing, no log left behind
        _exit_if_not_drawable(loaded, report_to)
    warnings = loaded.play_warnings()
    if warnings:  # problems inside the tests: said, and the game is played without them
        print_diagnostics(warnings, loaded.sources, "text", output=sys.stderr)
    from .cli_files import refuse_outputs_over_inputs, scenario_inputs

    refuse_outputs_over_inputs({"--log": log_path, "--html": html_path}, scenario_inputs(loaded.sources))
    sides = [s.name for s in loaded.parts()[0].sides]
    for side in policy_options:
        if side not in sides:
            raise click.BadParameter(f"'{side}' is not a side of this scenario (its sides: "
                                     f"{', '.join(sides)})", param_hint="'--policy'")
    if html_path:
        _exit_if_bad_look(loaded, report_to)
    log_file = LogFile(log_path) if log_path else None
    policies: dict = dict(policy_options)
    watch = None
    if "human" in policies.values():
        watch = GameWatch(console)
        ask = terminal_reader(sys.stdin)
        for side, name in policy_options.items():
            if name == "human":
                policies[side] = HumanPolicy(side, console, ask, watch)
    recorder = None
    if html_path:
        from .replay.record import Recorder

        recorder = Recorder()
    try:
        result, diagnostics, sources = api.run(loaded, seed=seed, log_file=log_file, max_rounds=max_rounds,
                                               policies=policies, watch=watch, recorder=recorder,
                                               resumable=watch is not None)  # a person may ask the odds
    except Abandoned as stopped:
        console.print(f"game abandoned: {escape(str(stopped))}" + (f"; the log so far is in {log_file.shown}"
                                                                    if log_file else ""))
        sys.exit(1)
    finally:
        if log_file:
            log_file.close()
    if watch is not None:
        watch.flush()
    written = True
    if recorder is not None and html_path is not None and recorder.state is not None:  # a replay of what was played, even a failed game
        written = _write_replay(html_path, loaded, recorder, seed, console)
    if result is None:
        failures = [d for d in diagnostics if d not in warnings]
        sys.exit(print_diagnostics(failures, sources, "text", output=report_to) or 1)
    if fmt == "json":
        click.echo(json.dumps(result.summary(), indent=2, sort_keys=True), err=log_to_stdout)
        sys.exit(0 if written else 1)
    console.print(f"[bold]winner:[/bold] {escape(result.winner or 'none (draw)')}")
    console.print(f"[bold]rounds:[/bold] {result.rounds}   [bold]turns:[/bold] {result.turns}")
    for side, lost in result.eliminated.items():
        console.print(f"[bold]losses of {escape(side)}:[/bold] {len(lost)} unit(s)" + (f" ({escape(', '.join(lost))})" if lost else ""))
    for side, cost in result.search.items():
        console.print(f"[bold]search of {escape(side)}:[/bold] {cost['searches']} decision(s) searched, "
                      f"{cost['simulations']} futures, {cost['ms_per_decision']:.1f} ms a decision")
    if log_file:
        console.print(f"event log: {escape(log_file.shown)} ({len(result.log)} entries)")
    if not written:
        sys.exit(1)


def _exit_if_bad_look(loaded, report_to) -> None:
    """A page is drawn in the packs' look: a bad look file is refused, with its diagnostics,
    before the game is played (not after, with nothing written)."""
    from .cli_output import print_diagnostics
    from .look import LookError, look_of

    try:
        look_of(loaded.rules)
    except LookError as exc:
        sys.exit(print_diagnostics(exc.diagnostics, {**loaded.sources, **exc.sources}, "text", output=report_to)
                 or 1)


def _exit_if_not_drawable(loaded, report_to=None) -> None:
    """Exit 1 with S127 when the scenario's board is too large for a replay page to draw."""
    from .cli_output import print_diagnostics
    from .diagnostics import Severity
    from .runtime.analysis.output_budget import board_problem

    too_large = board_problem(loaded.scenario, Severity.ERROR)
    if too_large is not None:
        sys.exit(print_diagnostics([too_large], loaded.sources, "text", output=report_to) or 1)


def _write_replay(path: str, loaded, recorder, seed: int | None, console) -> bool:
    """Write the replay page; False (said, nothing written) when it is past its budget: the
    game's summary and failures are still printed, and the command exits 1."""
    from .cli_output import escape, print_diagnostics
    from .look import LookError
    from .replay.make import page_of, title_of
    from .replay.record import recording_of
    from .runtime.analysis.output_budget import OutputTooLarge, located

    try:
        recording = recording_of(recorder, title_of(loaded, seed))
        html = page_of(loaded, recording)
    except LookError as exc:
        console.print(f"no replay written: {escape(str(exc))}")
        sys.exit(1)
    except OutputTooLarge as refused:  # the recording or the page past its budget (S128)
        print_diagnostics([located(refused, loaded.scenario)], loaded.sources, "text", output=console.file)
        console.print("no replay written")
        return False
    from .dsl.output_files import write_atomically

    write_atomically(path, html)
    console.print(f"replay: {escape(path)} ({len(recording.lines)} entries)")
    return True


@main.command(name="replay")
@click.argument("log", type=click.Path(exists=True, dir_okay=False))
@click.option("--scenario", required=True, help="The scenario the log was played on (a file or a bundled name).")
@click.option("--seed", type=int, default=None, help="The seed it was played with (default: the scenario's).")
@click.option("--max-rounds", type=int, default=None, help="The round limit it was played with, if any.")
@click.option("--policy", "policy_options", multiple=True, metavar="SIDE=POLICY", callback=_parse_policies,
              help="Who played a side, if not the scenario's policy (repeat for each side).")
@click.option("-o", "--output", type=click.Path(dir_okay=False, writable=True), required=True,
              help="Write the replay page (one self-contained HTML file) here.")
def replay_command(log: str, scenario: str, seed: int | None, max_rounds: int | None, policy_options: dict[str, str],
           output: str) -> None:
    """Make a replay page of LOG (JSON lines from `run --log`), stepping through the game.

    The log names no scenario, seed or policies, so give the ones it was played with: the game
    is played again and must write the log line for line (exit code 1 if not).
    """
    from . import api
    from .cli_output import exit_if_no_scenario, print_diagnostics
    from .look import LookError
    from .replay.make import ReplayMismatch, replay_log
    from .runtime.analysis.output_budget import OutputTooLarge, located
    from .runtime.engine.core.bounds import MAX_LOG_BYTES

    exit_if_no_scenario(scenario)
    loaded = api.open_scenario(scenario)
    if not loaded.playable:
        sys.exit(print_diagnostics(loaded.diagnostics, loaded.sources, "text") or 1)
    if "human" in policy_options.values():
        raise click.BadParameter("a person's decisions cannot be played again", param_hint="'--policy'")
    _exit_if_bad_look(loaded, None)
    _exit_if_not_drawable(loaded)
    from .cli_files import read_log_lines, refuse_outputs_over_inputs, scenario_inputs

    refuse_outputs_over_inputs({"--output": output}, [log, *scenario_inputs(loaded.sources)])
    if os.path.isfile(log) and os.path.getsize(log) > MAX_LOG_BYTES:  # no game writes it: not read
        click.echo(f"no replay written: '{log}' holds {os.path.getsize(log):,} bytes, more than a game's log "
                   f"may ({MAX_LOG_BYTES:,}): is it the log of a game?", err=True)
        sys.exit(1)
    lines, unreadable = read_log_lines(log)
    if lines is None:
        sys.exit(print_diagnostics([unreadable] if unreadable else [], {}, "text") or 1)
    try:
        made = replay_log(lines, loaded, seed=seed, policies=dict(policy_options), max_rounds=max_rounds)
    except (ReplayMismatch, LookError) as exc:
        click.echo(f"no replay written: {exc}", err=True)
        sys.exit(1)
    except OutputTooLarge as refused:  # the recording or the page past its budget (S128)
        print_diagnostics([located(refused, loaded.scenario)], loaded.sources, "text", output=sys.stderr)
        click.echo("no replay written", err=True)
        sys.exit(1)
    from .dsl.output_files import write_atomically

    write_atomically(output, made.html)
    click.echo(f"replay: {output} ({len(made.recording.lines)} entries)")


@main.command()
@click.argument("scenario")
@click.option("-o", "--output", type=click.Path(dir_okay=False, allow_dash=True), default="-",
              help="Write the picture to this file (default: standard output).")
@click.option("--rounds", type=click.IntRange(min=0), default=0, show_default=True,
              help="Play this many rounds first (the game's setup included); 0 draws the scenario as set out.")
@click.option("--seed", type=int, default=None, help="Seed for dice and random policies (with --rounds).")
def render(scenario: str, output: str, rounds: int, seed: int | None) -> None:
    """Draw SCENARIO's board, terrain and units as SVG (deterministic: same position, same bytes)."""
    from . import api
    from .cli_output import exit_if_no_scenario, print_diagnostics

    exit_if_no_scenario(scenario)
    svg, diagnostics, sources = api.render(scenario, seed=seed, rounds=rounds)
    if svg is None:
        sys.exit(print_diagnostics(diagnostics, sources, "text") or 1)
    if diagnostics:  # problems inside the scenario's tests, which do not change the position
        print_diagnostics(diagnostics, sources, "text", output=sys.stderr)
    if output == "-":
        with click.open_file("-", "w", encoding="utf-8") as out:  # what click.File("w") gave: same bytes
            out.write(svg)
        return
    from .cli_files import refuse_outputs_over_inputs, scenario_inputs
    from .dsl.output_files import write_atomically

    refuse_outputs_over_inputs({"--output": output}, scenario_inputs(sources))
    write_atomically(output, svg)


@main.command(name="test")
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True))
@click.option("-k", "name", default=None, metavar="NAME",
              help="Run only the tests whose name contains NAME (in any case).")
@click.option("-v", "--verbose", is_flag=True, help="Print the event log of failing tests.")
def test_command(paths: tuple[str, ...], name: str | None, verbose: bool) -> None:
    """Run the tests written in scenario files.

    A test with a problem of its own fails with it, and the others run; a scenario with errors
    elsewhere runs none of its tests (each fails as not run) and its errors are printed.
    Exit code 0: every test passed; 1: a test failed, an error was found, or no test was run;
    2: misuse.
    """
    from . import api
    from .cli_output import print_diagnostics
    from .diagnostics import printable

    outcomes, diagnostics, sources = api.test(list(paths), name)
    if diagnostics:
        print_diagnostics(diagnostics, sources, "text")
    passed = failed = 0
    for o in outcomes:
        if o.passed:
            passed += 1
            click.echo(printable(f"PASS {o.scenario}:{o.span.line}: {o.name}"))
        else:
            failed += 1
            click.echo(printable(f"FAIL {o.scenario}:{o.span.line}: {o.name}"))
            for f in o.failures:
                click.echo(printable(f"     {f}"))
            if verbose:
                for entry in o.log:
                    click.echo("     | " + json.dumps(entry, sort_keys=True))
    errors = any(d.is_error for d in diagnostics)
    if not outcomes:
        if errors:
            click.echo("no test was run: fix the errors above first", err=True)
        elif name is not None:
            click.echo(printable(f"no test's name contains '{name}'"), err=True)
        else:
            click.echo("no scenario tests found (scenarios list them under 'tests:')", err=True)
    click.echo(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed or errors or not outcomes else 0)


@main.command()
@click.argument("packs", nargs=-1, required=True)
@click.option("--format", "fmt", type=click.Choice(["json", "dot", "mermaid"]), default="json")
def graph(packs: tuple[str, ...], fmt: str) -> None:
    """Print the event-trigger graph of PACKS."""
    from .diagnostics import codes
    from . import api
    from .cli_output import USAGE, print_diagnostics

    rules = api.compile_packs(list(packs))
    if not rules.ok:
        code = print_diagnostics(rules.diagnostics, rules.sources, "text")
        # a pack named on the command line that does not exist is misuse, as a missing file is for check
        sys.exit(USAGE if any(d.code == codes.PACK_NOT_FOUND and d.file == "<command line>" for d in rules.diagnostics)
                 else code)
    g = cast("EventTriggerGraph", rules.graph)  # compile_packs sets it on every rule set that compiled
    if fmt == "json":
        click.echo(g.dumps())
        return
    data = g.to_json()
    if fmt == "dot":
        click.echo("digraph lore {")
        shapes = {"event": "ellipse", "trigger": "box", "procedure": "component", "game": "house"}
        for n in data["nodes"]:
            click.echo(f'  "{n["id"]}" [label="{n["name"]}", shape={shapes[n["kind"]]}];')
        for e in data["edges"]:
            click.echo(f'  "{e["from"]}" -> "{e["to"]}" [label="{e["kind"]}"];')
        click.echo("}")
    else:
        click.echo("flowchart LR")
        ids = {n["id"]: f"n{i}" for i, n in enumerate(data["nodes"])}
        for n in data["nodes"]:
            shape = ("([", "])") if n["kind"] == "event" else ("[", "]")
            click.echo(f'  {ids[n["id"]]}{shape[0]}"{n["kind"]} {n["name"]}"{shape[1]}')
        for e in data["edges"]:
            if e["from"] in ids and e["to"] in ids:
                click.echo(f'  {ids[e["from"]]} -->|{e["kind"]}| {ids[e["to"]]}')


@main.command(name="lsp")
def lsp_command() -> None:
    """Serve the Lore language server on standard input and output (for editors: docs/editors.md).

    Needs the lsp extra: pip install 'hexlore[lsp]'.
    """
    try:
        from .lsp.server import serve
    except ImportError as missing:  # pygls is an optional dependency
        raise click.ClickException(f"the language server needs pygls ({missing}): "
                                   "pip install 'hexlore[lsp]'") from None
    serve()


@main.command(name="campaign")
@click.argument("campaign_file", metavar="CAMPAIGN", type=click.Path(exists=True, dir_okay=False))
@click.option("--seed", type=int, default=None, help="Seed for every adventure played (default: each its own).")
@click.option("--adventure", type=click.IntRange(min=1), default=None,
              help="Play only this adventure (1 = the first), even if the sheet's history lists it.")
@click.option("--log", "log_path", type=click.Path(dir_okay=False, writable=True, allow_dash=True), default=None,
              help="Write the event logs (JSON lines, one header line per adventure) to this file; '-' "
                   "writes them to standard output (the summaries then go to standard error).")
def campaign_command(campaign_file: str, seed: int | None, adventure: int | None, log_path: str | None) -> None:
    """Play the adventures of CAMPAIGN not yet in its sheet's history, saving the sheet after each.

    Exit code 0: played (or nothing left to play); 1: problems in the files or a rule failing
    (the adventures before it stay saved); 2: misuse.
    """
    from . import api
    from .campaign import CampaignUsageError
    from .cli_output import STDOUT, LogFile, escape, print_diagnostics
    from .diagnostics import json_safe

    console = _console(soft_wrap=True, stderr=log_path == STDOUT)  # one line per unit, however long

    def shown(value) -> str:
        return escape("none" if value is None else json_safe(json.dumps(value, ensure_ascii=False)).strip('"')
                      if not isinstance(value, list) else "[" + ", ".join(shown(v) for v in value) + "]")

    def summary(r) -> None:
        console.print(f"[bold]adventure {r.number}: {escape(r.name)}[/bold] (seed {r.seed}) "
                      f"[bold]winner:[/bold] {escape(r.winner or 'none (draw)')}")
        for uid, changed in r.changes.items():
            text = ", ".join(f"{escape(f)} {shown(a)} -> {shown(b)}" for f, (a, b) in changed.items())
            console.print(f"  {escape(uid)}: {text or 'no change'}")

    if log_path and log_path != STDOUT:
        from .campaign import open_campaign
        from .cli_files import refuse_outputs_over_inputs, scenario_inputs

        opened = open_campaign(campaign_file)
        sheet = [str(opened.campaign.sheet_path())] if opened.campaign is not None and opened.campaign.sheet else []
        refuse_outputs_over_inputs({"--log": log_path}, [campaign_file, *sheet, *scenario_inputs(opened.sources)])
    log_file = LogFile(log_path) if log_path else None
    try:
        results, diagnostics, sources = api.campaign(campaign_file, seed=seed, adventure=adventure,
                                                     log_file=log_file, on_result=summary)
    except CampaignUsageError as exc:
        raise click.BadParameter(str(exc), param_hint="'--adventure'") from exc
    finally:
        if log_file:
            log_file.close()
    if diagnostics:
        sys.exit(print_diagnostics(diagnostics, sources, "text",
                                   output=sys.stderr if log_path == STDOUT else None) or 1)
    if not results:
        console.print("every adventure is in the sheet's history: nothing left to play "
                      "(--adventure K plays one again)")
    elif log_file:
        console.print(f"event log: {escape(log_file.shown)}")



main.add_command(_odds)
main.add_command(_sweep)
main.add_command(_serve)
