"""The compiler's analyses stay near-linear on hostile shapes (issue 30, item 3).

Each reproducer runs ``hexlore check`` in a child process the kernel holds to a CPU and memory
bound (tests/bounded.py): on the old code the trigger-cycle search was exponential in paths
(a ladder of triggers), "never fires" was quadratic (a chain of triggers declared in reverse
order), and printing N diagnostics looked each line up from the top of the file.

The new cycle check is also compared, on generated trigger graphs, with the old definition
(every elementary cycle, one by one: latched, counted, or unproven), written out below as the
oracle: the two must agree on which components get a W002.
"""

from __future__ import annotations

import re
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bounded import assert_refused, run_bounded
from conftest import compile_text
from hexlore.compiler import ir
from hexlore.compiler.cycles import CycleCheck, _binds, _closing, _decrease, _lower_bound, _opening, _reopens, _walk
from hexlore.compiler.graph import build_graph
from hexlore.compiler.model import Timing

from fuzz.mutators import trigger_graph_pack


# ---------------------------------------------------------------- the shapes that hung
def ladder(rungs: int) -> str:
    """Two guarded triggers per rung, each emitting the next rung's event: 2^rungs paths."""
    lines = ["pack hostile.ladder", "fields unit { done: bool = false }"]
    lines += [f"event e{i}(u: unit)" for i in range(rungs)]
    for i in range(rungs):
        nxt = (i + 1) % rungs
        lines.append(f"trigger a{i} on e{i} if u.done {{ emit e{nxt}(u: u) }}")
        lines.append(f"trigger b{i} on e{i} if u.done {{ emit e{nxt}(u: u) }}")
    lines.append("procedure go(u: unit) { emit e0(u: u) }")
    return "\n".join(lines) + "\n"


def reversed_chain(length: int) -> str:
    """Triggers each emitting the next one's event, declared last first."""
    lines = ["pack hostile.chain"] + [f'event e{i}(k: int) "step {i}"' for i in range(length + 1)]
    lines += [f"trigger t{i} on e{i} {{ emit e{i + 1}(k: k) }}" for i in reversed(range(length))]
    lines.append("procedure go() { emit e0(k: 1) }")
    return "\n".join(lines) + "\n"


def test_a_ladder_of_triggers_is_checked_within_bounds(tmp_path):
    """2.6 KB: over 154 s before (every path of the ladder was followed)."""
    pack = tmp_path / "ladder.lore"
    pack.write_text(ladder(30), encoding="utf-8")
    outcome = run_bounded("check", str(pack))
    assert outcome.returncode == 0 and "warning[W002]" in outcome.output, outcome.describe()
    assert "(30 triggers in all) → 'a0'" in outcome.output


def test_a_long_chain_of_triggers_is_checked_within_bounds(tmp_path):
    """'never fires' went round every trigger once per trigger of the chain (180 KB: 15 s)."""
    pack = tmp_path / "chain.lore"
    pack.write_text(reversed_chain(2500), encoding="utf-8")
    outcome = run_bounded("check", str(pack))
    assert outcome.returncode == 0, outcome.describe()
    assert "no problems found" in outcome.output


def latched_chain(length: int) -> str:
    """Triggers each in a cycle of its own that a latch bounds, each leading to the next."""
    lines = ["pack hostile.latches", "fields unit { done: bool = false }"]
    lines += [f'event e{i}(u: unit) "step {i}"' for i in range(length + 1)]
    lines += [f"trigger t{i} on e{i} if not u.done {{\n  u.done = true\n  emit e{i}(u: u)\n  emit e{i + 1}(u: u)\n}}"
              for i in range(length)]
    lines.append("procedure go(u: unit) { emit e0(u: u) }")
    return "\n".join(lines) + "\n"


def test_a_chain_of_latched_cycles_is_checked_within_bounds(tmp_path):
    """Each cycle's latch was checked against every assignment its cascade reaches, collected
    anew for each cycle: quadratic in the chain (175 KB: about 10 s)."""
    pack = tmp_path / "latches.lore"
    pack.write_text(latched_chain(1500), encoding="utf-8")
    outcome = run_bounded("check", str(pack), cpu_seconds=6)
    assert outcome.returncode == 0 and "no problems found" in outcome.output, outcome.describe()


def test_thousands_of_diagnostics_are_printed_within_bounds(tmp_path):
    """6,000 units off the board: each diagnostic found its line from the top of the file."""
    lines = ["hexlore: 1", "name: Off board", "packs: [battlelore.core]", "board: {shape: battlelore}",
             "sides:", "  - {name: north, edge: top, policy: first}", "  - {name: south, edge: bottom, policy: first}",
             "units:"]
    lines += [f"  - {{id: u{i}, type: foot_green, side: north, hex: Z{i + 100}}}" for i in range(6000)]
    scenario = tmp_path / "off.yaml"
    scenario.write_text("\n".join(lines) + "\n", encoding="utf-8")
    outcome = run_bounded("check", str(scenario), cpu_seconds=8)
    assert_refused(outcome)
    assert "6000 error(s)" in outcome.output
    # the last one still quotes its own line
    assert "6008 |   - {id: u5999, type: foot_green, side: north, hex: Z6099}" in outcome.output


# ---------------------------------------------------------------- the old definition, as an oracle
def _elementary_cycles(comp: list[str], succ) -> list[list[str]]:
    members, rank = set(comp), {n: i for i, n in enumerate(comp)}
    out = []
    for start in comp:
        stack = [(start, [start])]
        while stack:
            node, path = stack.pop()
            for nxt in succ[node]:
                if nxt not in members or rank[nxt] < rank[start]:
                    continue
                if nxt == start:
                    out.append(path)
                elif nxt not in path:
                    stack.append((nxt, path + [nxt]))
    return out


def _old_latched(check: CycleCheck, cycle: list[str], comp: list[str]) -> bool:
    triggers, procedures = check.reachable(comp)
    bodies = [check.spec[t].body for t in triggers] + \
        [check.rules.procedures[p].body for p in procedures if p in check.rules.procedures]
    sets = [n for body in bodies for s in body for n in _walk(s) if isinstance(n, ir.SetField)]
    for t, u in zip(cycle, cycle[1:] + cycle[:1]):
        sites, body = check.step_sites(t, u), check.spec[t].body

        def holds(site) -> bool:
            for cond in site.conditions:
                key = _opening(cond)
                if key and key in site.closed and (key[0] == "game" or not _binds(body, key[0])) \
                        and not any(_reopens(s, key) for s in sets if _closing(s) != key):
                    return True
            return False

        if sites and all(holds(s) for s in sites):
            return True
    return False


def _old_counted(check: CycleCheck, cycle: list[str]) -> bool:
    steps = list(zip(cycle, cycle[1:] + cycle[:1]))
    if any(s.emit is None for t, u in steps for s in check.step_sites(t, u)):
        return False
    first = check.rules.events.get(check.spec[cycle[0]].event)

    def count_from(i: int, start: str, param: str, drop: int, bounded: bool) -> bool:
        if i == len(steps):
            return param == start and drop >= 1 and bounded
        t, u = steps[i]
        spec = check.spec[t]
        if _binds(spec.body, param) or any(
                isinstance(n, ir.SetLocal) and n.name == param for b in check.by_event.get(spec.event, ())
                if b.timing is Timing.BEFORE for s in b.body for n in _walk(s)):
            return False
        sites = check.step_sites(t, u)
        here = all(any(_lower_bound(c, param) for c in s.conditions) for s in sites)
        target = check.rules.events.get(check.spec[u].event)
        for q in (target.params if target else ()):
            if q.type.name != "int":
                continue
            drops = [_decrease(dict(s.emit.args).get(q.name), param) for s in sites]
            if all(d is not None for d in drops) and count_from(i + 1, start, q.name, drop + min(drops),
                                                                bounded or here):
                return True
        return False

    return any(p.type.name == "int" and count_from(0, p.name, p.name, 0, False) for p in first.params)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**32 - 1))
def test_generated_trigger_graphs_get_the_warnings_the_old_definition_gives(tmp_path, seed):
    rules = compile_text(tmp_path, trigger_graph_pack(seed, triggers=7))
    assert not [d for d in rules.diagnostics if d.is_error and d.code != "C016"], \
        [d.headline() for d in rules.diagnostics]
    graph, _ = build_graph(rules)
    check = CycleCheck(rules, graph.emitted_by, graph.called_by)
    endless = {n for comp in check.components(check.certain_step) for n in comp}
    reported = {re.search(r"'(\w+)' emits", d.message).group(1) for d in rules.diagnostics if d.code == "W002"}
    for comp in check.components():
        if endless & set(comp):
            continue
        unproven = [c for c in _elementary_cycles(comp, check.next)
                    if not (_old_latched(check, c, comp) or _old_counted(check, c))]
        assert bool(unproven) == bool(reported & set(comp)), (trigger_graph_pack(seed, triggers=7), unproven)
        if unproven:  # the cycle named is one the old definition finds unproven
            [d] = [d for d in rules.diagnostics if d.code == "W002" and
                   re.search(r"'(\w+)' emits", d.message).group(1) in comp]
            named = re.findall(r"'(\w+)' emits", d.message)
            assert named in unproven, (d.message, unproven)


def test_the_oracle_sees_bounded_and_unbounded_cycles(tmp_path):
    """The generator makes both kinds, or the comparison above would prove little."""
    kinds = set()
    for seed in range(40):
        rules = compile_text(tmp_path, trigger_graph_pack(seed, triggers=7))
        graph, _ = build_graph(rules)
        check = CycleCheck(rules, graph.emitted_by, graph.called_by)
        for comp in check.components():
            for c in _elementary_cycles(comp, check.next):
                kinds.add("latched" if _old_latched(check, c, comp) else
                          "counted" if _old_counted(check, c) else "unproven")
    assert kinds == {"latched", "counted", "unproven"}


def test_the_fixture_that_reaches_the_cap_is_bounded():
    """W005's fixture: 2^16 cycles, each bounded, none proven by one counter; the capped search
    stops and says so, within the bounds."""
    fixture = Path(__file__).parent / "fixtures" / "errors" / "cycle_check_cut_short.lore"
    outcome = run_bounded("check", str(fixture))
    assert outcome.returncode == 0 and "warning[W005]" in outcome.output, outcome.describe()
