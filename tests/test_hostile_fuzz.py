"""Mutated packs and scenarios end in diagnostics, never an exception (issue 13, item 8).

Hypothesis draws the seed of each input; tests/fuzz/mutators.py turns a seed into a mutated
copy of one of the bundled files (huge numbers, deep nesting, aliases, invalid UTF-8, control
characters, lines and tokens moved…), written over its own name in a copy of its folder.
Derandomised with a fixed budget, so CI tries the same inputs each run. The long run of the
same mutations is ``python tests/fuzz/run.py --inputs 100000`` (figures in docs/security.md).

Replay pages have a corpus of their own (issue 30, item 2; tests/fuzz/pages.py): a seed makes
every text of a real game's recording hostile (title, unit names, look marks, events, rolls,
decisions, rule origins), and the page built from it must parse (html5lib) to no script but
the viewer's, no handler, no foreign element, with its data read back exactly. So do
symlinked project trees (issue 30, item 1; tests/fuzz/trees.py): links out of the project, to
``/``, loops and dangling links, through which no byte of a secret may reach a diagnostic.
"""

from __future__ import annotations

import os
import random
import shutil

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fuzz import trees
from fuzz.mutators import mutate, seed_files, trigger_graph_pack
from fuzz.pages import hostile_look, hostile_recording
from fuzz.run import check_one
from hostile_page import inert_page, write_project

# a minute of CPU in all: deselected by default, run by CI (.ci/run: -m slow)
pytestmark = pytest.mark.slow

CORPUS = seed_files()
PROFILE = settings(max_examples=300, deadline=None, derandomize=True, database=None,
                   suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])


@pytest.fixture(scope="module")
def copies(tmp_path_factory):
    work = tmp_path_factory.mktemp("fuzz")
    out = []
    for k, (path, kind, data) in enumerate(CORPUS):
        folder = work / str(k)
        shutil.copytree(path.parent, folder, ignore=shutil.ignore_patterns("__pycache__"))
        out.append((folder / path.name, kind, data))
    return out


@pytest.mark.parametrize("kind", ["lore", "yaml"])
@PROFILE
@given(seed=st.integers(min_value=0, max_value=2**32), which=st.integers(min_value=0, max_value=100))
def test_a_mutated_file_ends_in_diagnostics(copies, kind, seed, which):
    candidates = [c for c in copies if c[1] == kind]
    target, kind, original = candidates[which % len(candidates)]
    target.write_bytes(mutate(original, random.Random(seed)))
    try:
        check_one(target, kind, play=seed % 10 == 0)  # raises if anything escapes the API
    finally:
        target.write_bytes(original)


@PROFILE
@given(seed=st.integers(min_value=0, max_value=2**32), size=st.integers(min_value=2, max_value=40),
       mutated=st.booleans())
def test_a_generated_trigger_graph_ends_in_diagnostics(tmp_path, seed, size, mutated):
    """Trigger graphs of every shape the cycle check classifies (issue 30), as generated and
    mutated: diagnostics, never an exception."""
    data = trigger_graph_pack(seed, triggers=size).encode()
    target = tmp_path / "graph.lore"
    target.write_bytes(mutate(data, random.Random(seed)) if mutated else data)
    check_one(target, "lore", play=False)


@settings(max_examples=40, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(seed=st.integers(min_value=0, max_value=2**32))
def test_a_symlinked_tree_leaks_no_secret(tmp_path_factory, monkeypatch, seed):
    """Generated trees of links (tests/fuzz/trees.py): check of the tree, and of each of its
    scenarios with its packs, ends in diagnostics that hold no byte of a file outside it."""
    from hexlore import api

    work = tmp_path_factory.mktemp("tree")
    outside = work / "outside"
    trees.secrets(outside)
    project = work / "project"
    scenarios = trees.build(project, outside, random.Random(seed))
    monkeypatch.chdir(project)
    found, sources = api.check(["."])
    for entry in sorted(os.listdir(project)):  # each as the CI recipe names it: check rules scenarios
        more, more_sources = api.check([entry])
        found += more
        sources.update(more_sources)
    for scenario in scenarios:
        loaded = api.open_scenario(str(scenario))
        found += loaded.diagnostics
        sources.update(loaded.sources)
    said = " ".join(f"{d.file} {d.message} {d.hint}" for d in found)
    assert trees.SECRET not in said
    assert not any(trees.SECRET in source.text for source in sources.values())


@pytest.fixture(scope="module")
def small_game(tmp_path_factory):
    """A short real game (tests/hostile_page.py's pack) and its look, to make hostile."""
    from hexlore import api
    from hexlore.look import look_of
    from hexlore.replay.make import play_recorded

    loaded = api.open_scenario(str(write_project(tmp_path_factory.mktemp("page"))))
    _, recording, diagnostics, _ = play_recorded(loaded)
    assert recording is not None, diagnostics
    return recording, look_of(loaded.rules)


@settings(max_examples=60, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(seed=st.integers(min_value=0, max_value=2**32))
def test_a_page_of_hostile_texts_runs_nothing_but_the_viewer(small_game, seed):
    import json

    from hexlore.replay.page import replay_html

    base, look = small_game
    rng = random.Random(seed)
    recording, where = hostile_recording(base, rng)
    html = replay_html(recording, hostile_look(look, recording, rng), where)
    data = inert_page(html)
    as_js = json.loads(json.dumps({"entries": [json.loads(line) for line in recording.lines], "where": where,
                                   "units": [u["id"] for u in recording.units]}))
    assert {"entries": data["entries"], "where": data["where"], "units": [u["id"] for u in data["units"]]} == as_js
