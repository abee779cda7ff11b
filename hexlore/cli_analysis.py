"""The ``hexlore odds`` and ``hexlore sweep`` commands: exact odds of an action, balance sweeps.

Both are thin layers over :func:`hexlore.api.odds` and :func:`hexlore.api.sweep`; they print a
table (rich), JSON (``--format json``) and optionally a bar chart (``--plot``, matplotlib from
the ``plot`` extra). Exit codes as elsewhere: 0 answered, 1 a problem (diagnostics printed),
2 a usage error (including ``--plot`` without matplotlib).

The ``hexlore`` group lists these commands in its help, so this module is imported by every
command: the API, rich's tables and progress bars and matplotlib are imported inside the
functions that use them (issue 19).
"""

from __future__ import annotations

import json
import os
import sys
from typing import TYPE_CHECKING

import click

from .cli_output import escape
from .output_formats import ANSWER_FORMATS

if TYPE_CHECKING:
    from fractions import Fraction

    from rich.console import Console


MAX_TABLE_ROWS = 60


SVG = "svg"  # what _need_matplotlib returns for an .svg chart, which hexlore draws itself


def _need_matplotlib(plot: str | None):
    """None (no chart), SVG (hexlore's own SVG, no dependency) or matplotlib's pyplot (PNG, PDF)."""
    if not plot:
        return None
    if not plot.lower().endswith((".png", ".svg", ".pdf")):
        raise click.UsageError("--plot writes a .png, .svg or .pdf file")
    if plot.lower().endswith(".svg"):
        return SVG
    try:
        import matplotlib
    except ImportError:
        raise click.UsageError("--plot needs matplotlib: pip install 'hexlore[plot]'") from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def _fail(diagnostics, sources) -> None:
    from .cli_output import print_diagnostics

    sys.exit(print_diagnostics(diagnostics, sources, "text") or 1)


def _pct(p: float) -> str:
    return f"{100 * p:.2f}%"


def _fraction(p: Fraction) -> str:
    return str(p.numerator) if p.denominator == 1 else f"{p.numerator}/{p.denominator}"


# ---------------------------------------------------------------- odds
@click.command()
@click.argument("scenario")
@click.option("--action", "action", default=None,
              help="The action, as a test's do: item: '{call: NAME, with: {…}}' or 'NAME(arg: value, …)'.")
@click.option("--given", default=None, help="Changes to the start, as a test's given: '{unit: {hex: F5}}'.")
@click.option("--test", "test_name", default=None,
              help="Take given and do from this scenario test (not its dice nor its scripted decisions).")
@click.option("--decisions", default=None, help="Scripted answers, as a test's decisions: '{name: [answer]}'.")
@click.option("--outcome", "outcomes", multiple=True,
              help="What to measure (repeatable): event:NAME, event:NAME(arg=value).ARG, UNIT.FIELD, "
                   "HEX.FIELD, SIDE.FIELD, game.FIELD, winner. Default: the named units' fields that change.")
@click.option("--policy", type=click.Choice(["first", "greedy", "random", "scenario"]), default="first",
              show_default=True, help="How decisions inside the action are taken (random: every option, "
                                      "equally likely).")
@click.option("--budget", type=click.IntRange(min=1), default=50_000, show_default=True,
              help="Most runs of the action to enumerate before giving up.")
@click.option("--samples", type=click.IntRange(min=1), default=None,
              help="Estimate by Monte Carlo with this many seeded runs instead of enumerating.")
@click.option("--seed", type=int, default=None, help="Seed of the Monte Carlo runs (0), or of the game --at "
                                                        "plays (the scenario's).")
@click.option("--at", "at", type=click.IntRange(min=1), default=None,
              help="Instead of an action: play the scenario (its players, --seed) to its Nth decision among "
                   "several options, and give the odds of --option there (docs/odds.md).")
@click.option("--option", "option", type=click.IntRange(min=1), default=None,
              help="With --at: the option (from 1) whose odds to give.")
@click.option("--horizon", type=click.Choice(["stop", "first", "greedy"]), default="stop", show_default=True,
              help="With --at: stop at the next decision, or answer decisions as first/greedy to the end "
                   "of the rule that asked.")
@click.option("--format", "fmt", type=click.Choice(list(ANSWER_FORMATS)), default="text")
@click.option("--plot", default=None, help="Also draw the distribution to this .svg (or, with matplotlib, "
                                         ".png or .pdf) file.")
@click.option("--html", "html_path", default=None, type=click.Path(dir_okay=False),
              help="Also write a self-contained HTML report (the table and the chart) to this file.")
def odds(scenario, action, given, test_name, decisions, outcomes, policy, budget, samples, seed, at, option, horizon,
         fmt, plot, html_path):
    """Exact odds of one ACTION on SCENARIO, from every distinct dice outcome of the rules
    (or of one option of a decision in a game under way: --at N --option K)."""
    plt = _need_matplotlib(plot)
    if (at is None) != (option is None):
        raise click.UsageError("--at and --option go together: the decision, and the option whose odds to give")
    if at is not None and (action or test_name or given or decisions or samples):
        raise click.UsageError("--at asks the odds of a decision in a game under way: no --action, --test, "
                               "--given, --decisions or --samples with it")
    if action is None and test_name is None and at is None:
        raise click.UsageError("say what to do: --action '…', --test NAME, or --at N --option K")
    from . import api
    from .cli_output import exit_if_no_scenario
    from .diagnostics import json_safe

    exit_if_no_scenario(scenario)
    if at is not None:
        result, data, sources, action = _odds_at(scenario, at, option, list(outcomes), horizon, budget, seed)
    else:
        result, diagnostics, sources = api.odds(scenario, action, list(outcomes), policy, budget, samples,
                                                seed or 0, given, decisions, test_name)
        if result is None:
            _fail(diagnostics, sources)
        data = result.to_json()
        data.update({"scenario": scenario, "action": action, "test": test_name})
    if fmt == "json":
        click.echo(json_safe(json.dumps(data, indent=2, ensure_ascii=False)))
    else:
        _print_odds(result, action or f"test {test_name!r}")
    _refuse_clashes(plot, html_path, sources)
    if plt is SVG:
        _write(plot, _odds_svg(result))
    elif plt is not None:
        _plot_odds(plt, result, plot)
    if html_path:
        from .charts import html_report

        rows = [[c, _show(v), f"{float(p):.4%}"] for c in result.columns for v, p in result.marginal(c).items()]
        _write(html_path, html_report(f"odds of {action or test_name}", [("chances", ["outcome", "value", "chance"], rows)],
                                      _odds_svg(result)))


def _odds_at(scenario: str, at: int, option: int, outcomes: list[str], horizon: str, budget: int,
             seed: int | None):
    """The odds of option ``option`` of the scenario's ``at``-th decision: the result, its JSON,
    the sources, and what it is (for the title); a refusal exits with its diagnostic."""
    from . import api
    from .diagnostics import codes
    from .runtime.analysis.odds import OddsError
    from .runtime.analysis.odds_state import game_at, odds_of_option, pending_choice
    from .runtime.engine.game import RuntimeRuleError, ScenarioError

    loaded = api.open_scenario(scenario)
    if not loaded.playable:
        _fail(loaded.diagnostics, loaded.sources)
    try:
        game = game_at(loaded.rules, loaded.scenario, at, seed)
        count = len(game.legal_options())
        if option > count:
            raise OddsError(codes.BAD_ACTION, f"decision #{at} ({pending_choice(game).name}) has {count} options, "
                            f"not {option}",
                            f"choose an --option from 1 to {count}", "--option")
        found = odds_of_option(game, option - 1, outcome=outcomes, decisions=horizon, budget=budget)
        if found.result is None:
            raise OddsError(codes.BUDGET_EXCEEDED, found.refused or "too large to enumerate", "raise --budget, or ask with fewer dice to come "
                            "(--horizon stop)")
    except OddsError as exc:
        _fail([exc.diagnostic], loaded.sources)
    except RuntimeRuleError as exc:
        _fail([exc.diagnostic], loaded.sources)
    except ScenarioError as exc:
        _fail(exc.diagnostics, loaded.sources)
    data = found.to_json()
    data.update({"scenario": scenario, "at": at, "options": game.legal_options()})
    what = f"{found.decision} = {_show(found.label)} by {found.side} (decision #{at}, option {option})"
    return found.result, data, loaded.sources, what


def _write(path: str, text: str | bytes) -> None:
    from .dsl.output_files import write_atomically

    write_atomically(path, text)


def _refuse_clashes(plot: str | None, html_path: str | None, sources) -> None:
    """Refuse --plot or --html naming the scenario, a pack or each other (S131), before writing."""
    from .cli_files import refuse_outputs_over_inputs, scenario_inputs

    refuse_outputs_over_inputs({"--plot": plot, "--html": html_path}, scenario_inputs(sources))


def _odds_svg(result) -> str:
    from .charts import odds_chart
    from .runtime.analysis.stats import wilson

    marginals = [{_show(v): p for v, p in result.marginal(c).items()} for c in result.columns]
    intervals = None
    if not result.exact:
        intervals = [{v: wilson(round(float(p) * result.enumerated), result.enumerated) for v, p in m.items()}
                     for m in marginals]
    return odds_chart(list(result.columns), marginals, intervals)


def _print_odds(result, action: str) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console(highlight=False)
    how = (f"exact, {result.enumerated} dice outcomes enumerated" if result.exact else
           f"Monte Carlo estimate, {result.enumerated} runs (seed {result.seed}), 95% Wilson intervals")
    console.print(f"[bold]odds of[/bold] {escape(action)}  [dim]({how}; decisions: {result.policy})[/dim]")
    table = Table(show_lines=False)
    for c in result.columns:
        table.add_column(escape(c))
    table.add_column("chance", justify="right")
    table.add_column("exact" if result.exact else "95% interval", justify="right")
    rows = sorted(result.rows, key=lambda r: -r.probability)
    for r in rows[:MAX_TABLE_ROWS]:
        extra = _fraction(r.probability) if result.exact else f"{_pct(r.low)} – {_pct(r.high)}"
        table.add_row(*[_show(v) for v in r.values], _pct(float(r.probability)), extra)
    console.print(table)
    if len(rows) > MAX_TABLE_ROWS:
        console.print(f"[dim]… {len(rows) - MAX_TABLE_ROWS} rarer outcomes not shown (--format json has all)[/dim]")
    if len(result.columns) > 1:
        for c in result.columns:
            marginal = result.marginal(c)
            parts = [f"{_show(v)}: {_pct(float(p))}" for v, p in marginal.items()]
            mean = result.mean(c)
            tail = f"   mean {float(mean):.4g}" if mean is not None else ""
            console.print(f"[bold]{escape(c)}[/bold]  " + ", ".join(parts) + tail)


def _show(v) -> str:
    return escape("none" if v is None else str(v).lower() if isinstance(v, bool) else str(v))


def _plot_odds(plt, result, path: str) -> None:
    n = len(result.columns)
    fig, axes = plt.subplots(1, max(1, n), figsize=(4 * max(1, n), 3.2), squeeze=False)
    for ax, c in zip(axes[0], result.columns):
        marginal = result.marginal(c)
        labels = [_show(v) for v in marginal]
        values = [float(p) for p in marginal.values()]
        errors = None
        if not result.exact:
            from .runtime.analysis.stats import wilson
            bounds = [wilson(round(p * result.enumerated), result.enumerated) for p in values]
            errors = [[v - lo for v, (lo, _) in zip(values, bounds)], [hi - v for v, (_, hi) in zip(values, bounds)]]
        ax.bar(labels, values, yerr=errors, color="#4c72b0", capsize=3)
        ax.set_title(c, fontsize=9)
        ax.set_ylabel("chance")
        ax.set_ylim(0, 1)
    fig.tight_layout()
    _save_figure(fig, path)
    plt.close(fig)


# ---------------------------------------------------------------- sweep


def _search_spec(name: str) -> bool:
    """Whether ``name`` is a searching player with its budget (``mcts:400``, ``mcts:0.5s``,
    ``rollout:600``)."""
    if not name.startswith(("mcts:", "rollout:")):
        return False
    from .runtime.engine.search import parse_search  # only when a budget is given: --help stays light

    return parse_search(name) is not None


def _parse_policies(ctx, param, values: tuple[str, ...]) -> dict[str, str]:
    """``--policy SIDE=POLICY`` options as a dict (``run`` and ``sweep``)."""
    from .diagnostics import did_you_mean
    from .runtime.engine.player_names import ALL_NAMES as choices  # the registry, read once options are given

    policies: dict[str, str] = {}
    for value in values:
        side, _, name = value.partition("=")
        if not side or not (name in choices or _search_spec(name)):
            guess = did_you_mean(name.partition(":")[0], choices) if side else None
            raise click.BadParameter((f"no player named '{name}': did you mean '{guess}'? " if guess else "")
                                     + f"'{value}': write SIDE=POLICY, POLICY one of {', '.join(choices)}, "
                                     "or mcts:N (N futures a decision) or mcts:Ts (T seconds), "
                                     "the same for rollout "
                                     "(for example north=human, south=mcts:200)", ctx, param)
        policies[side] = name
    return policies


@click.command()
@click.argument("scenario")
@click.option("--games", type=click.IntRange(min=1), required=True, help="How many games to play.")
@click.option("--workers", type=click.IntRange(min=1), default=1, show_default=True,
              help="Worker processes (local) or CPUs of a local Ray instance.")
@click.option("--backend", type=click.Choice(["local", "ray"]), default="local", show_default=True)
@click.option("--seed", type=int, default=0, show_default=True, help="Game i uses a seed derived from (seed, i).")
@click.option("--address", default=None, help="Ray cluster to join (default: start a local instance).")
@click.option("--vs", "variants", multiple=True,
              help="A variant played on the same seeds: .lore packs added to the scenario's (repeatable), "
                   "or another scenario file.")
@click.option("--max-rounds", type=int, default=None, help="Stop each game after this many rounds.")
@click.option("--policy", "policy_options", multiple=True, metavar="SIDE=POLICY", callback=_parse_policies,
              help="Who plays a side in every game instead of the scenario's policy: random, greedy, "
                   "first, mcts, mcts:N (N futures a decision), rollout, rollout:N; the side 'all' "
                   "stands for every side.")
@click.option("--format", "fmt", type=click.Choice(list(ANSWER_FORMATS)), default="text")
@click.option("--plot", default=None, help="Also draw win rates, game lengths and losses to this .svg (or, with "
                                         "matplotlib, .png or .pdf) file.")
@click.option("--html", "html_path", default=None, type=click.Path(dir_okay=False),
              help="Also write a self-contained HTML report (the tables and the chart) to this file.")
def sweep(scenario, games, workers, backend, seed, address, variants, max_rounds, policy_options, fmt, plot,
          html_path):
    """Play GAMES seeded games of SCENARIO and report win rates, game length and losses."""
    plt = _need_matplotlib(plot)
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    from . import api
    from .cli_output import exit_if_no_scenario
    from .diagnostics import json_safe

    exit_if_no_scenario(scenario)
    # a variant that does not exist is misuse too (exit 2): one scenario, or .lore packs
    if len(variants) == 1 and not variants[0].endswith(".lore"):
        exit_if_no_scenario(variants[0])
    else:
        for variant in variants:
            if not os.path.isfile(variant):
                raise click.BadParameter(f"no pack file '{variant}'", param_hint="'--vs'")
    err = Console(stderr=True)
    total = games * (2 if variants else 1)
    progress = None
    if err.is_terminal:
        progress = Progress(TextColumn("games"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                            console=err, auto_refresh=False, transient=True)
    vs = list(variants) or None
    if progress is None:
        report, diagnostics, sources = api.sweep(scenario, games, workers, backend, seed, address, vs, max_rounds,
                                                 policies=policy_options)
    else:
        with progress:
            task = progress.add_task("games", total=total)

            def advance(n: int) -> None:
                progress.advance(task, n)
                progress.refresh()

            report, diagnostics, sources = api.sweep(scenario, games, workers, backend, seed, address, vs,
                                                     max_rounds, advance, policies=policy_options)
    if report is None:
        _fail(diagnostics, sources)
    if fmt == "json":
        click.echo(json_safe(json.dumps(report, indent=2, ensure_ascii=False)))
    else:
        _print_sweep(report)
    _refuse_clashes(plot, html_path, [*sources, *variants])
    if plt is SVG:
        from .charts import sweep_chart

        _write(plot, sweep_chart(report))
    elif plt is not None:
        _plot_sweep(plt, report, plot)
    if html_path:
        from .charts import sweep_chart, sweep_html

        _write(html_path, sweep_html(report, sweep_chart(report)))
    if report["errors"]["count"]:
        sys.exit(1)


def _interval(d: dict, pct: bool = True) -> str:
    f = _pct if pct else (lambda x: f"{x:.2f}")
    return f"{f(d['low'])} – {f(d['high'])}"


def _print_sweep(report: dict) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console(highlight=False)
    console.print(f"[bold]{report['games']} games[/bold] of {escape(report['scenario'])}  [dim](seed {report['seed']}, "
                  f"{report['backend']} backend, {report['workers']} worker(s), digest {report['digest']})[/dim]")
    timing = report["timing"]
    played = report["games"] * (2 if "variant" in report else 1)
    line = f"played in {timing['sweep_seconds']:.1f} s ({played / max(timing['sweep_seconds'], 1e-9):.1f} games/s)"
    if report["backend"] == "ray":
        line += f"; Ray's own start-up and shutdown took {timing['backend_seconds']:.1f} s more"
    console.print(f"[dim]{line}[/dim]")
    _print_summary(console, report)
    if "comparison" in report:
        v = report["variant"]
        console.print(f"\n[bold]variant[/bold] {escape(str(v['name']))}  [dim](digest {v['digest']})[/dim]")
        _print_summary(console, v)
        cmp = report["comparison"]
        table = Table(title="paired comparison (same seeds)")
        for col in ("side", "base", "variant", "change", "95% interval", "won only in variant",
                    "won only in base", "McNemar p"):
            table.add_column(col, justify="right" if col != "side" else "left")
        for side, s in cmp["sides"].items():
            table.add_row(side, _pct(s["base"]), _pct(s["variant"]), f"{100 * s['change']:+.2f} pts",
                          f"{100 * s['low']:+.2f} – {100 * s['high']:+.2f}", str(s["won_only_in_variant"]),
                          str(s["won_only_in_base"]), f"{s['mcnemar_p']:.3g}")
        console.print(table)
        r = cmp["rounds_change"]
        console.print(f"rounds: {r['mean']:+.2f} per game (95% {r['low']:+.2f} – {r['high']:+.2f}); "
                      f"same winner in {cmp['same_outcome']} of {cmp['games']} games")


def _print_summary(console: Console, s: dict) -> None:
    from rich.table import Table

    table = Table(title="results")
    for col in ("result", "games", "rate", "95% interval"):
        table.add_column(col, justify="left" if col == "result" else "right")
    for side, w in s["wins"].items():
        table.add_row(f"{side} wins", str(w["count"]), _pct(w["rate"]), _interval(w))
    d = s["draws"]
    table.add_row("no winner", str(d["count"]), _pct(d["rate"]), _interval(d))
    console.print(table)
    decided = s["ended_by_victory"]
    console.print(f"ended by victory: {decided['count']} of {s['games'] - s['errors']['count']} games "
                  f"({_pct(decided['rate'])}, 95% {_interval(decided)})")
    first = s["first_player"]
    if first["games"]:
        openers = ", ".join(f"{escape(side)} {n}" for side, n in first["by_side"].items() if n)
        console.print(f"first player won {first['count']} of {first['games']} games ({_pct(first['rate'])}, "
                      f"95% {_interval(first)}; first to play: {openers})")
    lead = s["lead_changes"]
    console.print(f"lead changes: {lead['mean']:.2f} per game (95% {lead['low']:.2f} – {lead['high']:.2f}), "
                  f"in {lead['games_with_a_change']} game(s)")
    for warning in s["warnings"]:
        console.print(f"[yellow]warning:[/yellow] {escape(warning)}")
    ln = s["length"]
    console.print(f"game length: {ln['mean']:.2f} rounds (95% {ln['low']:.2f} – {ln['high']:.2f}), median "
                  f"{ln['median']}, {ln['min']}–{ln['max']}; {ln['turns_mean']:.2f} turns")
    losses = Table(title="losses per unit type")
    for col in ("side", "unit type", "fielded", "lost per game", "95% interval", "loss rate"):
        losses.add_column(col, justify="left" if col in ("side", "unit type") else "right")
    for side, per in s["losses"].items():
        for kind, x in per.items():
            losses.add_row(side, kind, str(x["fielded"]), f"{x['lost_mean']:.2f}", _interval(x, pct=False),
                           _pct(x["loss_rate"]))
    console.print(losses)
    if s["errors"]["count"]:
        console.print(f"[red]{s['errors']['count']} game(s) stopped on a rule error[/red]: "
                      + escape("; ".join(s["errors"]["first"])))


def _plot_sweep(plt, report: dict, path: str) -> None:
    fig, (left, right) = plt.subplots(1, 2, figsize=(9, 3.4))
    runs = [("base", report)] + ([("variant", report["variant"])] if "variant" in report else [])
    width = 0.8 / len(runs)
    for k, (name, s) in enumerate(runs):
        outcomes = list(s["wins"].items()) + [("no winner", s["draws"])]
        xs = [i + k * width for i in range(len(outcomes))]
        rates = [w["rate"] for _, w in outcomes]
        errors = [[r - w["low"] for r, (_, w) in zip(rates, outcomes)],
                  [w["high"] - r for r, (_, w) in zip(rates, outcomes)]]
        left.bar(xs, rates, width, yerr=errors, capsize=3, label=name)
        left.set_xticks([i + width * (len(runs) - 1) / 2 for i in range(len(outcomes))],
                        [o for o, _ in outcomes])
        length = s["length"]
        right.bar([k], [length["mean"]], 0.6, yerr=[[length["mean"] - length["low"]], [length["high"] - length["mean"]]],
                  capsize=3, label=name)
    left.set_ylim(0, 1)
    left.set_ylabel("win rate (95% Wilson)")
    right.set_xticks(range(len(runs)), [n for n, _ in runs])
    right.set_ylabel("rounds per game")
    if len(runs) > 1:
        left.legend()
    fig.tight_layout()
    _save_figure(fig, path)
    plt.close(fig)


def _save_figure(fig, path: str) -> None:
    """Draw a matplotlib figure into memory, then write it as every output is written."""
    import io

    drawn = io.BytesIO()
    fig.savefig(drawn, format=path.rsplit(".", 1)[-1].lower())
    _write(path, drawn.getvalue())
