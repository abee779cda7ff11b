"""The wheel ships every rules pack and scenario: each folder of rules/ and scenarios/ is a
package in pyproject.toml (setuptools ships data files by package), with the file kinds the
folders hold."""

from __future__ import annotations

import fnmatch
import tomllib

from conftest import ROOT

CONFIG = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]


def _package_of(folder) -> str:
    for package, where in CONFIG["package-dir"].items():
        root = ROOT / where
        if folder == root or root in folder.parents:
            return ".".join([package, *folder.relative_to(root).parts])
    raise AssertionError(f"{folder} is under no package-dir")


def test_every_data_folder_is_a_listed_package_and_its_files_match_the_package_data():
    for top in ("rules", "scenarios"):
        for folder in [ROOT / top, *sorted(p for p in (ROOT / top).rglob("*") if p.is_dir())]:
            if folder.name == "__pycache__":
                continue
            package = _package_of(folder)
            assert package in CONFIG["packages"], f"{folder.relative_to(ROOT)}: add '{package}' to packages"
            patterns = CONFIG["package-data"][f"hexlore.{top}"]
            for file in folder.iterdir():
                if file.is_file():
                    assert any(fnmatch.fnmatch(file.name, p.replace("**/", "")) for p in patterns), \
                        f"{file.relative_to(ROOT)} would not ship: add its kind to package-data"


def test_every_code_package_is_listed():
    """setuptools ships only the listed packages: a new sub-package left out installs a wheel
    that fails on import (the compiled engine's folder once did, caught only by the installed
    CLI test)."""
    for init in sorted((ROOT / "hexlore").rglob("__init__.py")):
        package = ".".join(init.parent.relative_to(ROOT).parts)
        assert package in CONFIG["packages"], f"{init.parent.relative_to(ROOT)}: add '{package}' to packages"
