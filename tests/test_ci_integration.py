"""The pre-commit hook and the README's CI set-up point at commands that exist and work."""

from __future__ import annotations

import re
import shlex
import tomllib

import yaml
from click.testing import CliRunner

from conftest import ROOT
from hexlore.cli import main

HOOKS = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
README = (ROOT / "README.md").read_text(encoding="utf-8")
#: the pre-commit and GitHub Actions set-up, which the README's "Using hexlore in CI" points to
CI_DOC = (ROOT / "docs" / "ci.md").read_text(encoding="utf-8")


def _hook() -> dict:
    [hook] = [h for h in HOOKS if h["id"] == "hexlore-check"]
    return hook


def test_the_hook_entry_is_a_real_command():
    hook = _hook()
    assert hook["language"] == "python"
    program, *command = shlex.split(hook["entry"])
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["scripts"]
    assert scripts[program] == "hexlore.cli:main"
    assert command == ["check"] and command[0] in main.commands


def test_the_hook_selects_rules_and_scenarios_but_not_other_yaml():
    hook = _hook()
    files, exclude = re.compile(hook["files"]), re.compile(hook["exclude"])

    def selected(path: str) -> bool:
        return bool(files.search(path)) and not exclude.search(path)

    assert all(selected(p) for p in ["rules/battlelore/core.lore", "scenarios/a.yaml", "b.yml"])
    assert not any(selected(p) for p in ["hexlore/cli.py", ".pre-commit-config.yaml",
                                         ".github/workflows/ci.yml", "README.md"])


def test_the_hook_runs_as_pre_commit_would_call_it():
    # pre-commit appends the staged file names to the entry
    _, *command = shlex.split(_hook()["entry"])
    clean = [str(ROOT / "rules" / "battlelore" / "core.lore"),
             str(ROOT / "scenarios" / "battlelore" / "spider_ford.yaml")]
    assert CliRunner().invoke(main, command + clean).exit_code == 0
    broken = str(ROOT / "tests" / "fixtures" / "errors" / "unknown_unit_type.yaml")
    result = CliRunner().invoke(main, command + clean + [broken])
    assert result.exit_code == 1 and "S103" in result.output


def test_the_docs_show_the_pre_commit_and_github_actions_set_up():
    section = README.split("## Using hexlore in CI", 1)
    assert len(section) == 2, "README has a 'Using hexlore in CI' section"
    assert "docs/ci.md" in section[1].split("\n## ", 1)[0], "the README's CI section points to docs/ci.md"
    blocks = re.findall(r"^```yaml\n(.*?)^```", CI_DOC, re.S | re.M)
    configs = [yaml.safe_load(b) for b in blocks]
    pre_commit = next(c for c in configs if isinstance(c, dict) and "repos" in c)
    assert any(h["id"] == "hexlore-check" for r in pre_commit["repos"] for h in r["hooks"])
    # issue 15: no placeholder repository; the local hook runs the same command as the offered one
    [repo] = pre_commit["repos"]
    [hook] = repo["hooks"]
    assert repo["repo"] == "local" and "rev" not in repo
    assert hook["entry"] == _hook()["entry"] and hook["language"] == "system"
    files = re.compile(hook["files"])
    assert files.search("rules/my_creatures.lore") and files.search("scenarios/ford.yaml")
    assert not files.search(".github/workflows/hexlore.yml") and not files.search("docs/notes.yaml")
    workflows = [c for c in configs if isinstance(c, dict) and "jobs" in c]
    steps = [s for w in workflows for job in w["jobs"].values() for s in job["steps"]]
    runs = " ".join(s.get("run", "") for s in steps)
    assert "hexlore check" in runs and "--format sarif" in runs
    assert any(s.get("uses", "").startswith("github/codeql-action/upload-sarif") for s in steps)


def test_no_placeholder_address_is_left():
    """Issue 15: hexlore.dev was nobody's address (schema $ids, SARIF links, the pre-commit snippet)."""
    texts = [ROOT / "README.md", ROOT / ".pre-commit-hooks.yaml", *(ROOT / "docs").glob("*.md"),
             *(ROOT / "scenarios" / "schema").glob("*.json"), ROOT / "hexlore" / "diagnostics.schema.json",
             *(ROOT / "hexlore").glob("*.py"), *(ROOT / "rules").glob("*/*.md")]
    for path in texts:
        text = path.read_text(encoding="utf-8")
        assert "hexlore.dev" not in text and "github.com/hexlore" not in text, path
