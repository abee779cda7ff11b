"""Speed of ``hexlore check`` on a large generated corpus, against baselines measured in the same run.

    python benchmarks/bench_check.py [--packs 200] [--definitions 50] [--scenarios 1000]

Generates, in a temporary folder, PACKS rules packs of DEFINITIONS definitions each (unit types,
functions, events, triggers, procedures, all using ``battlelore.core``) and SCENARIOS scenarios
(five per pack, each with a test), then reports:

- parse + compile: lines of Lore per second, compiling every pack in one go;
- scenarios checked per second (YAML, schema, meaning, compiling their packs, checks against
  the packs), against the time ``yaml.safe_load`` alone takes to read the same files: the
  ratio is the figure that matters, the absolute numbers depend on the machine;
- the same against libyaml's loader, which the checker itself uses when PyYAML has it;
- the same check with the compile cache turned off, for the first 100 scenarios.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import tempfile
import time
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from hexlore import api  # noqa: E402
from hexlore.compiler import compile_packs  # noqa: E402

COLOURS = ("green", "blue", "red")
COLUMNS = "ABCDEFGHIJKLM"


def pack_text(p: int, definitions: int) -> str:
    """One pack: unit types, and a few functions, events, triggers and procedures among them."""
    name = f"p{p:03d}"
    rules = max(definitions // 10, 1)  # each rule group below counts as 5 definitions
    units = max(definitions - 5 * rules, 1)
    lines = [f"# Generated pack {name} for benchmarks/bench_check.py", f"pack bench.{name}", "use battlelore.core", ""]
    for u in range(units):
        lines.append(f'unit {name}_u{u:02d} "Unit {u} of {name}" {{ banner: {COLOURS[u % 3]}, '
                     f"figures: {2 + u % 3}, move: {1 + u % 2} }}")
    lines.append("")
    for r in range(rules):
        lines += [
            f"event {name}_e{r}(unit: unit, amount: int)",
            f"function {name}_f{r}(u: unit) -> int = u.figures + {r}",
            f"function {name}_g{r}(u: unit, n: int) -> bool = {name}_f{r}(u) > n",
            f"procedure {name}_p{r}(u: unit) {{",
            f"  if {name}_g{r}(u, 1) {{ emit {name}_e{r}(unit: u, amount: {name}_f{r}(u)) }}",
            "}",
            f"trigger {name}_t{r} on {name}_e{r} if amount > 2 {{ unit.moved += 1 }}",
            "",
        ]
    return "\n".join(lines)


def scenario_text(s: int, p: int, units: int) -> str:
    name = f"p{p:03d}"
    placed = []
    for i in range(12):
        side = "north" if i < 6 else "south"
        row = 2 if side == "north" else 8
        placed.append(f"  - {{id: x{i}, type: {name}_u{(i * 7 + s) % units:02d}, side: {side}, "
                      f"hex: {COLUMNS[(i % 6) * 2]}{row}}}")
    return "\n".join([
        "hexlore: 1",
        f"name: Generated scenario {s} for {name}",
        f"packs: [bench.{name}]",
        f"seed: {s}",
        "board:",
        "  shape: battlelore",
        "  terrain:",
        "    forest: [C4, K6]",
        "    hill: [F3, H7]",
        "    river: [A5, B5, L5, M5]",
        "sides:",
        "  - {name: north, edge: top, policy: greedy}",
        "  - {name: south, edge: bottom, policy: greedy}",
        "units:",
        *placed,
        "options: {banners_to_win: 4}",
        "decks:",
        "  command_deck: {scout_left: 2, probe_centre: 3, attack_right: 2}",
        "tests:",
        "  - name: the first unit acts",
        "    given: {x0: {hex: F5}}",
        "    do:",
        f"      - call: {name}_p0",
        "        with: {u: x0}",
        "    expect:",
        "      events:",
        f"        - {{event: {name}_e0, unit: x0}}",
        "      units:",
        "        x0: {alive: true, hex: F5}",
        "",
    ])


def generate(root: Path, packs: int, definitions: int, scenarios: int) -> tuple[list[Path], list[Path]]:
    (root / "rules" / "bench").mkdir(parents=True)
    (root / "scenarios").mkdir()
    pack_files, scenario_files = [], []
    units = max(definitions - 5 * max(definitions // 10, 1), 1)
    for p in range(packs):
        f = root / "rules" / "bench" / f"p{p:03d}.lore"
        f.write_text(pack_text(p, definitions), encoding="utf-8")
        pack_files.append(f)
    per_pack = max(scenarios // packs, 1)
    for s in range(scenarios):
        f = root / "scenarios" / f"s{s:04d}.yaml"
        f.write_text(scenario_text(s, min(s // per_pack, packs - 1), units), encoding="utf-8")
        scenario_files.append(f)
    return pack_files, scenario_files


def best_of(repeat: int, fn) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def machine() -> str:
    model = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return (f"{os.cpu_count()} cores (nproc), {model}; Python {platform.python_version()} "
            f"({platform.python_implementation()}) on {platform.system()}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--packs", type=int, default=200)
    parser.add_argument("--definitions", type=int, default=50)
    parser.add_argument("--scenarios", type=int, default=1000)
    args = parser.parse_args()
    print("machine:", machine())
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        pack_files, scenario_files = generate(root, args.packs, args.definitions, args.scenarios)
        os.chdir(root)
        lines = sum(f.read_text(encoding="utf-8").count("\n") for f in pack_files)
        core = compile_packs(["battlelore.core"])
        core_lines = sum(s.text.count("\n") for s in core.sources.values())

        rules = None

        def compile_all():
            nonlocal rules
            rules = compile_packs([str(root / "rules" / "bench")])

        compile_time = best_of(3, compile_all)
        errors = [d for d in rules.diagnostics if d.is_error]
        assert not errors, errors[0].headline()
        total = lines + core_lines
        print(f"corpus: {len(pack_files)} packs of {args.definitions} definitions ({lines:,} lines, "
              f"{len(rules.definitions):,} definitions with battlelore.core), {len(scenario_files)} scenarios")
        print(f"parse + compile: {total / compile_time:,.0f} lines/s "
              f"({total:,} lines in {compile_time:.2f} s, all packs in one go)")

        paths = [str(f) for f in scenario_files]

        def load_only():
            for f in scenario_files:
                yaml.safe_load(f.read_text(encoding="utf-8"))

        def check_all():
            api.COMPILE_CACHE.clear()
            found, _ = api.check(paths)
            bad = [d for d in found if d.is_error]
            assert not bad, bad[0].headline()

        def load_libyaml():
            for f in scenario_files:
                yaml.load(f.read_text(encoding="utf-8"), Loader=yaml.CSafeLoader)

        floor = best_of(3, load_only)
        checked = best_of(3, check_all)
        n = len(scenario_files)
        print(f"yaml.safe_load alone: {n / floor:,.0f} scenarios/s ({floor:.2f} s)")
        print(f"check: {n / checked:,.0f} scenarios/s ({checked:.2f} s, {api.COMPILE_CACHE.compiled} compilations "
              f"in all runs); {checked / floor:.1f}x the time of yaml.safe_load alone")
        if getattr(yaml, "CSafeLoader", None) is not None:  # the checker composes with libyaml when it can
            fast = best_of(3, load_libyaml)
            print(f"yaml.load with libyaml (CSafeLoader): {n / fast:,.0f} scenarios/s; "
                  f"check takes {checked / fast:.1f}x that")

        sample = paths[:100]
        size = api.COMPILE_CACHE.size
        try:
            api.COMPILE_CACHE.size = 0
            uncached = best_of(1, lambda: api.check(sample))
        finally:
            api.COMPILE_CACHE.size = size
        api.COMPILE_CACHE.clear()
        cached = best_of(1, lambda: api.check(sample))
        print(f"compile cache: first {len(sample)} scenarios in {cached:.2f} s with it, {uncached:.2f} s without "
              f"({uncached / cached:.1f}x)")


if __name__ == "__main__":
    main()
