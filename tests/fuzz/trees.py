"""Symlinked project trees for the fuzzing harness (issue 30, item 1).

A seed names a tree: folders, packs, scenarios, a ``look.yaml``, a campaign and its sheet, and
links among them, to a folder outside the project holding secrets, to ``/``, to themselves
(loops) and to nothing (dangling). Whatever the tree, ``hexlore check`` of it (and the
scenarios' packs) must end in diagnostics and print no byte of a secret: the confinement
(hexlore/dsl/confine.py) is what the harness tries to get round.
"""

from __future__ import annotations

import os
import random
from pathlib import Path

SECRET = "TREE-SECRET-5e1d"
SCENARIO = ("hexlore: 1\nname: tree\npacks: [{packs}]\nboard: {{shape: rectangle, width: 3, height: 3}}\n"
            "sides:\n  - {{name: north, edge: top}}\n  - {{name: south, edge: bottom}}\nunits: []\n")
NAMES = ("rules", "scenarios", "lib", "demo", "look.yaml", "sheet.yaml", "a.lore", "b.lore", "s.yaml",
         "campaign.yaml", "shared")


def secrets(outside: Path) -> None:
    """The files behind the links, each holding the secret where a diagnostic would quote it."""
    outside.mkdir(parents=True, exist_ok=True)
    (outside / "leak.lore").write_text(f"pack leak\n{SECRET} = {{\n", encoding="utf-8")
    (outside / "leak.yaml").write_text(f"hexlore: 1\nname: {SECRET}\n{SECRET}: [\n", encoding="utf-8")
    (outside / "look.yaml").write_text(f'terrain: {{plain: "{SECRET}"}}\n', encoding="utf-8")
    (outside / "sheet.yaml").write_text(f"hexlore_sheet: 1\n{SECRET}: [\n", encoding="utf-8")
    (outside / "rules").mkdir(exist_ok=True)
    (outside / "rules" / "leak.lore").write_text(f"pack leak\n{SECRET} = {{\n", encoding="utf-8")


def build(project: Path, outside: Path, rng: random.Random) -> list[Path]:
    """A random tree under ``project`` (which must not exist yet); the scenarios in it."""
    project.mkdir(parents=True)
    folders = [project]
    scenarios = []
    for _ in range(rng.randint(3, 12)):
        parent = rng.choice(folders)
        name = rng.choice(NAMES)
        path = parent / name
        if os.path.lexists(path):
            continue
        roll = rng.random()
        if roll < 0.2:
            path.mkdir()
            folders.append(path)
        elif roll < 0.55:
            target = rng.choice([outside, outside / "rules", outside / "leak.lore", outside / "leak.yaml",
                                 outside / "look.yaml", outside / "sheet.yaml", Path("/"), Path(".."),
                                 Path("../.."), path, Path("nowhere/at/all"), project])
            path.symlink_to(target)
        elif name.endswith(".lore"):
            path.write_text(f"pack {path.stem}\nuse {rng.choice(['leak', 'a', 'b', 'demo.a'])}\n", encoding="utf-8")
        elif name == "look.yaml":
            path.write_text("terrain: {plain: '#ffffff'}\n", encoding="utf-8")
        elif name == "campaign.yaml":
            path.write_text("hexlore_campaign: 1\nname: t\nsheet: sheet.yaml\nadventures:\n  - scenario: s.yaml\n",
                            encoding="utf-8")
        elif name.endswith(".yaml"):
            entry = rng.choice(["leak", "a.lore", "../leak.lore", "rules/leak.lore", "demo.a", "shared/leak.lore"])
            path.write_text(SCENARIO.format(packs=entry), encoding="utf-8")
            scenarios.append(path)
        else:
            path.mkdir()
            folders.append(path)
    return scenarios
