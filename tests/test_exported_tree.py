"""The tests pass in an exported tree, with no ``.git`` (issue 32, item 6).

A release tarball, ``git archive`` or a copy made by a packager has no ``.git``: a test that
asks git for the list of files, or a feature that finds the project by its ``.git`` (a
campaign's folders, hexlore/campaign.py), would pass in a checkout and fail there. So the
slow test below copies the tree the way an export holds it (every file, less ``.git`` and
what ``.gitignore`` keeps out: caches, virtual environments, builds) into a temporary folder,
with no repository above it, and runs there the test files that read the repository as a
whole. It needs no git itself, so it runs in an export too (where it copies the export).

Every test file of the default run was run in an export when this test was written (see
docs/architecture.md, "Tests"); these are the ones that would first break.
"""

from __future__ import annotations

import fnmatch
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT

#: test files run in the copy, each with what it reads of the tree
IN_THE_EXPORT = {
    "tests/test_docs.py": "every doc, the README and the code they describe",
    "tests/test_code_health.py": "pyflakes and vulture over hexlore/, tests/ and benchmarks/",
    "tests/test_layering.py": "the imports of every module of the package",
    "tests/test_sources.py": "the package's files, by walking the folders",
    "tests/test_packaging.py": "the data folders against pyproject.toml's package data",
    "tests/test_campaign.py": "campaigns, whose folders include the repository found by its .git",
}


def ignored_patterns(root: Path = ROOT) -> list[str]:
    """The patterns of ``.gitignore`` (blank lines and comments left out)."""
    lines = (root / ".gitignore").read_text(encoding="utf-8").splitlines()
    return [line.strip() for line in lines if line.strip() and not line.lstrip().startswith("#")]


def is_ignored(relative: str, is_dir: bool, patterns: list[str]) -> bool:
    """Whether ``.gitignore`` keeps ``relative`` (a path from the root, '/'-separated) out of
    git, for the subset of its syntax this repository uses: a name or glob matched against
    the last part of the path, a trailing '/' for folders only, a path with an inner '/'
    anchored at the root. :func:`test_the_gitignore_uses_only_the_syntax_read_here` keeps
    the file to that subset (negations and '**' would need git's own matcher)."""
    name = relative.rsplit("/", 1)[-1]
    for pattern in patterns:
        folder_only = pattern.endswith("/")
        body = pattern.rstrip("/")
        if folder_only and not is_dir:
            continue
        if "/" in body:
            if fnmatch.fnmatchcase(relative, body.lstrip("/")):
                return True
        elif fnmatch.fnmatchcase(name, body):
            return True
    return False


def export_tree(source: Path, target: Path) -> None:
    """Copy ``source`` as an export holds it: no ``.git``, nothing ``.gitignore`` keeps out."""
    patterns = ignored_patterns(source)

    def leave_out(folder: str, names: list[str]) -> set[str]:
        base = Path(folder).relative_to(source).as_posix()
        out = set()
        for name in names:
            relative = name if base == "." else f"{base}/{name}"
            if name == ".git" or is_ignored(relative, os.path.isdir(os.path.join(folder, name)), patterns):
                out.add(name)
        return out

    shutil.copytree(source, target, ignore=leave_out, symlinks=True)


def test_the_gitignore_uses_only_the_syntax_read_here():
    for pattern in ignored_patterns():
        assert not pattern.startswith("!") and "**" not in pattern and "\\" not in pattern, (
            f".gitignore: {pattern!r} needs git's own matcher; tests/test_exported_tree.py reads only "
            "names, globs, a trailing '/' and root-anchored paths")


@pytest.mark.parametrize("relative, is_dir, ignored", [
    ("hexlore/__pycache__", True, True),
    ("hexlore/__pycache__", False, False),   # a file of that name is not a folder
    ("hexlore.egg-info", True, True),
    ("runs/out.jsonl", False, True),
    ("editors/vscode/node_modules", True, True),
    ("editors/node_modules", True, False),   # anchored at the root: only editors/vscode's
    ("hexlore/api.py", False, False),
    ("tests/fixtures", True, False),
])
def test_the_export_leaves_out_what_gitignore_names(relative, is_dir, ignored):
    assert is_ignored(relative, is_dir, ignored_patterns()) is ignored


def test_the_copy_has_the_files_and_no_git(tmp_path):
    source = tmp_path / "source"
    (source / ".git").mkdir(parents=True)
    (source / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (source / "pkg" / "__pycache__").mkdir(parents=True)
    (source / "pkg" / "__pycache__" / "m.pyc").write_bytes(b"")
    (source / "pkg" / "m.py").write_text("x = 1\n")
    (source / ".gitignore").write_text("__pycache__/\n*.jsonl\n")
    (source / "log.jsonl").write_text("{}\n")
    export_tree(source, tmp_path / "export")
    copied = sorted(p.relative_to(tmp_path / "export").as_posix() for p in (tmp_path / "export").rglob("*"))
    assert copied == [".gitignore", "pkg", "pkg/m.py"]


@pytest.mark.slow
def test_the_tests_that_read_the_tree_pass_without_git(tmp_path):
    export = tmp_path / "export"
    export_tree(ROOT, export)
    assert not any(parent.joinpath(".git").exists() for parent in (export, *export.parents)), (
        f"{tmp_path} lies inside a git repository: the copy would find its .git")
    env = {**os.environ, "PYTHONPATH": str(export)}
    out = subprocess.run([sys.executable, "-m", "pytest", "-q", "-n", "0", "-p", "no:cacheprovider",
                          *IN_THE_EXPORT], cwd=export, env=env, capture_output=True, text=True, timeout=3600)
    assert out.returncode == 0, f"in a tree with no .git:\n{out.stdout[-6000:]}\n{out.stderr[-2000:]}"
