"""Confine every file hexlore reads to the project: one function, links followed (issue 30).

``hexlore check`` runs on pull requests, and the language server opens whatever a workspace
holds: a committed link (``rules -> ../outside``, a link to ``/``, a ``look.yaml`` or a sheet
linked to a file of the runner) must not make hexlore read a file outside the project, whose
lines, keys and tokens a diagnostic would then print. Every opener of an input file therefore
asks :func:`confine` first; the path is resolved (every link followed, ``..`` removed) and must
lie in one of the roots it is given:

* the project root: ``--root DIR`` (the CLI puts it in :data:`ROOT_VARIABLE`, so that sweep
  workers and every API call see it); without it, for a path named on the command line the
  working directory (the path's own folder when it lies elsewhere), for a scenario its folder
  tree, for the language server its workspace folders;
* the trusted roots: the bundled rules and scenarios and the folders the user declared
  (``--packs-path``, ``HEXLORE_PATH``), assembled by the callers that know them
  (:mod:`hexlore.loading`), since this module is the bottom layer.

A path refused is reported by the caller as a located diagnostic that names the path as it was
written (a link as itself), never its target nor anything behind it. Files are then read with
:func:`read_confined` (the bounded reader of :mod:`.files`) and folders walked with
:func:`walk`, which follows no linked folder and refuses linked files that lead out.
``tests/test_confinement.py`` scans the package for every call that opens or lists a file and
fails unless it is here, goes through here, or reads one of hexlore's own shipped assets.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from .files import ReadProblem, read_text

#: the project root given with ``--root`` (a folder); unset, each command chooses its own
ROOT_VARIABLE = "HEXLORE_ROOT"
#: folders searched for packs after the scenario's own, as a PATH-like variable (``--packs-path``
#: adds to it for one command): declared by the user, so trusted
PATH_VARIABLE = "HEXLORE_PATH"
#: hexlore's package folder; the bundled rules and scenarios ship in it or beside it (a checkout)
_PACKAGE = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Roots:
    """Folders, resolved once (links followed), that files may be read from."""

    folders: tuple[Path, ...]

    @staticmethod
    def of(folders: Iterable[str | Path]) -> Roots:
        """The folders resolved; one that cannot be resolved (a loop of links) is left out."""
        out: list[Path] = []
        for folder in folders:
            try:
                real = Path(folder).resolve()
            except (OSError, RuntimeError, ValueError):
                continue
            if real not in out:
                out.append(real)
        return Roots(tuple(out))

    def __add__(self, other: Roots) -> Roots:
        return Roots(self.folders + tuple(f for f in other.folders if f not in self.folders))


def confine(path: str | Path, roots: Roots) -> Path | None:
    """The real path of ``path`` (every link followed) when it lies in one of ``roots``, else
    None: the one test of whether hexlore may open a file or walk a folder.

    Resolving first is what makes links count: a path that is written inside the project but
    is (or passes through) a link to elsewhere is outside. A path that cannot be resolved (a
    loop of links, a name too long, a NUL) is outside too.
    """
    try:
        real = Path(path).resolve()
    except (OSError, RuntimeError, ValueError):
        return None
    return real if any(real.is_relative_to(root) for root in roots.folders) else None


def read_confined(path: str | Path, roots: Roots, what: str = "file") -> tuple[str | None, ReadProblem | None]:
    """The text of ``path`` if it lies inside ``roots`` (read with :func:`.files.read_text`'s
    bounds), else None and a problem that names only the path as given."""
    if confine(path, roots) is None:
        return None, outside_problem(path, what)
    return read_text(path, what)


def outside_problem(path: str | Path, what: str) -> ReadProblem:
    from ..diagnostics import Span

    return ReadProblem(f"'{path}' leads outside the project; the {what} is not read", Span(),
                       "copy the file into the project, or name its folder with --root or --packs-path")


def project_root() -> Path | None:
    """The folder given with ``--root`` (or ``HEXLORE_ROOT``), if any."""
    value = os.environ.get(ROOT_VARIABLE, "")
    return Path(value) if value and "\0" not in value else None


def declared_folders() -> list[Path]:
    """The folders of ``HEXLORE_PATH`` (``--packs-path`` adds to it), in order."""
    return [Path(p) for p in os.environ.get(PATH_VARIABLE, "").split(os.pathsep) if p]


def trusted_roots() -> Roots:
    """The folders every command may read: the bundled rules and scenarios (inside the package,
    or at the top of a source checkout) and the folders the user declared."""
    shipped = []
    for name in ("rules", "scenarios"):  # in the wheel, else at the top of a source checkout
        found = next((base / name for base in (_PACKAGE, _PACKAGE.parent) if (base / name).is_dir()), None)
        if found is not None:
            shipped.append(found)
    return Roots.of(shipped + declared_folders())


def command_line_root(path: str | Path) -> Roots:
    """The roots of a path named on the command line, the trusted roots with the project root:
    ``--root`` when given; else the working directory when the path is written inside it
    (``hexlore check rules``, the CI recipe: a ``rules`` that links out is refused); else the
    folder the path is written in (the user named a file elsewhere, not what a link there
    points at)."""
    given = project_root()
    if given is not None:
        return Roots.of([given]) + trusted_roots()
    written = Path(os.path.abspath(path))
    cwd = Path(os.getcwd())
    return Roots.of([cwd if written.is_relative_to(cwd) else written.parent]) + trusted_roots()


@dataclass(frozen=True)
class Walked:
    """What :func:`walk` found: the files to read, and the links leading out (as written)."""

    files: list[str]
    refused: list[str]


def walk(folder: str | Path, roots: Roots, keep: Callable[[str], bool],
         prune: Callable[[str], bool] = lambda name: False, limit: int | None = None) -> Walked:
    """The files under ``folder`` whose name ``keep`` accepts, sorted, each inside ``roots``.

    Linked folders are not followed (a link to ``/`` walks nothing); a linked file or folder
    that leads outside the roots is listed in ``refused``; folders ``prune`` names are skipped.
    The folder itself must lie inside the roots (the caller checks it with :func:`confine`).
    ``limit``: stop once that many files are found (a search that may give up part-way).
    """
    files: list[str] = []
    refused: list[str] = []
    for top, dirs, names in os.walk(folder, followlinks=False):
        kept_dirs = []
        for d in sorted(dirs):
            if prune(d):
                continue
            full = os.path.join(top, d)
            if os.path.islink(full):
                if confine(full, roots) is None:
                    refused.append(full)
                continue
            kept_dirs.append(d)
        dirs[:] = kept_dirs
        for name in sorted(names):
            if not keep(name) or prune(name):
                continue
            full = os.path.join(top, name)
            if confine(full, roots) is None:
                refused.append(full)
            else:
                files.append(full)
                if limit is not None and len(files) >= limit:
                    return Walked(sorted(files), sorted(refused))
    return Walked(sorted(files), sorted(refused))


__all__ = ["PATH_VARIABLE", "ROOT_VARIABLE", "Roots", "Walked", "command_line_root", "confine", "declared_folders",
           "outside_problem", "project_root", "read_confined", "trusted_roots", "walk"]
