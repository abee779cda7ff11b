"""Nothing lost on a write failure (issue 30, items 5 and 6).

Every output (logs, replay pages, pictures, sweep reports, campaign sheets) is written to a
temporary file and renamed (hexlore/dsl/output_files.py). These tests make the writes fail for
real — a child process under ``RLIMIT_FSIZE`` (the kernel refuses to grow a file past the limit:
EFBIG, the way a full disk refuses with ENOSPC), ``/dev/full``, a kill in the middle of a write —
and check that the command says which file it could not write, exits 1 without a traceback,
and leaves the previous file byte for byte and no temporary file behind.
"""

from __future__ import annotations

import ast
import errno
import fcntl
import os
import resource
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from bounded import ROOT, run_bounded
from midwrite import kill_mid_write
from hexlore import api
from hexlore.dsl import output_files
from hexlore.dsl.limits import MAX_INT
from hexlore.dsl.output_files import AtomicOutput, OutputError, remove_stale_temporaries, write_atomically
from hexlore.runtime.scenarios.campaign_files import load_sheet
from conftest import need_program

CAMPAIGN_FIXTURE = ROOT / "tests" / "fixtures" / "campaign"
CAMPAIGN = "two_fords.campaign.yaml"
SHEET = "duellists.sheet.yaml"
PREVIOUS = "the previous content, which must survive\n"


def run_limited(args: list[str], cwd: Path, file_bytes: int) -> subprocess.CompletedProcess:
    """``python -m hexlore ARGS`` in a child whose files cannot grow past ``file_bytes``."""
    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (file_bytes, file_bytes))

    env = {**os.environ, "PYTHONPATH": str(ROOT), "NO_COLOR": "1", "COLUMNS": "120"}
    env.pop("GITHUB_ACTIONS", None)
    return subprocess.run([sys.executable, "-m", "hexlore", *args], cwd=cwd, capture_output=True, text=True,
                          encoding="utf-8", errors="replace", timeout=300, preexec_fn=limit, env=env)


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


@pytest.fixture
def campaign(tmp_path: Path) -> Path:
    shutil.copytree(CAMPAIGN_FIXTURE, tmp_path / "c")
    return tmp_path / "c"


# ---------------------------------------------------------------------------
# a full disk: every output command, the old file intact, a clear error
# ---------------------------------------------------------------------------

SPIDER = ["battlelore/spider_ford", "--seed", "7"]
FULL_DISK = [  # (id, the command, given the output's name)
    ("run --log", lambda out: ["run", *SPIDER, "--log", out]),
    ("run --html", lambda out: ["run", *SPIDER, "--html", out]),
    ("render -o", lambda out: ["render", "battlelore/spider_ford", "-o", out]),
    ("sweep --html", lambda out: ["sweep", "battlelore/spider_ford", "--games", "2", "--html", out]),
    ("sweep --plot", lambda out: ["sweep", "battlelore/spider_ford", "--games", "2", "--plot", out]),
    ("check -o", lambda out: ["check", str(ROOT / "tests" / "fixtures" / "errors"), "--format", "sarif",
                              "-o", out]),
]


@pytest.mark.parametrize("command", [c for _, c in FULL_DISK], ids=[i for i, _ in FULL_DISK])
def test_a_full_disk_leaves_the_previous_output_and_says_which_file(command, tmp_path):
    output = tmp_path / "output.svg"  # a name every option takes
    output.write_text(PREVIOUS, encoding="utf-8")
    done = run_limited(command(output.name), tmp_path, file_bytes=4096)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "Traceback" not in done.stdout + done.stderr
    assert f"error[S130]: cannot write '{output.name}'" in done.stderr
    assert output.read_text(encoding="utf-8") == PREVIOUS
    assert leftovers(tmp_path) == []


def test_a_replay_written_to_a_full_disk_leaves_the_previous_page(tmp_path):
    assert run_bounded("run", *SPIDER, "--log", "game.jsonl", cwd=tmp_path).returncode == 0
    page = tmp_path / "replay.html"
    page.write_text(PREVIOUS, encoding="utf-8")
    done = run_limited(["replay", "game.jsonl", "--scenario", "battlelore/spider_ford", "--seed", "7",
                        "-o", page.name], tmp_path, file_bytes=(tmp_path / "game.jsonl").stat().st_size + 1)
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    assert "error[S130]: cannot write 'replay.html'" in done.stderr
    assert page.read_text(encoding="utf-8") == PREVIOUS and leftovers(tmp_path) == []


@pytest.mark.parametrize("option", ["--log", "--html"])
def test_a_device_that_is_full_is_a_clear_error(option, tmp_path):
    need_program(os.path.exists("/dev/full"), "/dev/full (a device that is always full)",
                 "every Linux system has it; elsewhere the RLIMIT_FSIZE tests above cover a full disk")
    done = run_bounded("run", *SPIDER, option, "/dev/full", cwd=tmp_path)
    assert done.returncode == 1 and "Traceback" not in done.output, done.describe()
    assert "error[S130]: cannot write '/dev/full': the disk is full" in done.stderr


def test_a_campaign_log_on_a_full_device_stops_before_the_sheet_is_saved(campaign):
    need_program(os.path.exists("/dev/full"), "/dev/full (a device that is always full)",
                 "every Linux system has it; elsewhere the RLIMIT_FSIZE tests above cover a full disk")
    before = (campaign / SHEET).read_bytes()
    done = run_bounded("campaign", CAMPAIGN, "--log", "/dev/full", cwd=campaign)
    assert done.returncode == 1 and "Traceback" not in done.output, done.describe()
    assert "error[S130]: cannot write '/dev/full'" in done.output
    assert (campaign / SHEET).read_bytes() == before and leftovers(campaign) == []


def test_a_full_disk_while_saving_the_sheet_leaves_the_sheet(campaign):
    before = (campaign / SHEET).read_bytes()
    done = run_limited(["campaign", CAMPAIGN], campaign, file_bytes=len(before))
    assert done.returncode == 1 and "Traceback" not in done.stdout + done.stderr, done.stdout + done.stderr
    assert f"error[S130]: cannot write '{SHEET}'" in done.stdout
    assert (campaign / SHEET).read_bytes() == before
    assert leftovers(campaign) == []


@pytest.mark.parametrize("code, words", [(errno.ENOSPC, "the disk is full"), (errno.EDQUOT, "quota"),
                                         (errno.EROFS, "read-only"), (errno.EACCES, "permission denied")])
def test_each_write_failure_is_named_and_the_old_file_kept(code, words, tmp_path, monkeypatch):
    target = tmp_path / "out.jsonl"
    target.write_text(PREVIOUS, encoding="utf-8")
    written = []

    def failing(stream, data):  # the first chunk goes through, the second fails
        if written:
            raise OSError(code, os.strerror(code))
        written.append(data)
        stream.write(data)

    monkeypatch.setattr(output_files, "CHUNK", 8)
    monkeypatch.setattr(output_files, "_write_chunk", failing)
    out = AtomicOutput(target)
    with pytest.raises(OutputError, match=words) as raised:
        out.write("a line that is longer than one chunk\n")
    assert raised.value.diagnostic().code == "S130" and str(target) in raised.value.diagnostic().message
    out.commit()  # after a failure nothing is put in place
    assert target.read_text(encoding="utf-8") == PREVIOUS and leftovers(tmp_path) == []


def test_text_that_cannot_be_encoded_is_a_clear_error_and_writes_nothing(tmp_path):
    target = tmp_path / "page.html"
    target.write_text(PREVIOUS, encoding="utf-8")
    with pytest.raises(OutputError, match="U\\+D800"):
        write_atomically(target, "<p>\ud800</p>")
    assert target.read_text(encoding="utf-8") == PREVIOUS and leftovers(tmp_path) == []


def test_a_file_kept_read_only_is_not_replaced(tmp_path, monkeypatch):
    target = tmp_path / "kept.svg"
    target.write_text(PREVIOUS, encoding="utf-8")
    target.chmod(0o444)
    real_access = os.access
    # as root the kernel grants every access; ask as an ordinary user would be answered
    monkeypatch.setattr(output_files.os, "access", lambda path, mode: False if Path(path) == target and mode == os.W_OK
                        else real_access(path, mode))
    with pytest.raises(OutputError, match="permission denied"):
        write_atomically(target, "<svg/>")
    assert target.read_text(encoding="utf-8") == PREVIOUS and leftovers(tmp_path) == []


def test_an_output_keeps_its_permissions_and_a_new_one_gets_the_usual_ones(tmp_path):
    old = tmp_path / "old.svg"
    old.write_text(PREVIOUS, encoding="utf-8")
    old.chmod(0o640)
    write_atomically(old, "<svg/>")
    assert old.read_text(encoding="utf-8") == "<svg/>" and (old.stat().st_mode & 0o777) == 0o640
    mask = os.umask(0o022)
    os.umask(mask)
    write_atomically(tmp_path / "new.svg", b"<svg/>")
    assert ((tmp_path / "new.svg").stat().st_mode & 0o777) == 0o666 & ~mask
    assert leftovers(tmp_path) == []


def test_a_game_killed_while_writing_its_log_leaves_the_previous_log(tmp_path):
    log = tmp_path / "game.jsonl"
    log.write_text(PREVIOUS, encoding="utf-8")
    kill_mid_write(tmp_path, f"""
        from hexlore.cli import main
        main(["run", "battlelore/spider_ford", "--seed", "7", "--log", {str(log)!r}])
        """, tmp_path, log.name)
    assert log.read_text(encoding="utf-8") == PREVIOUS
    # the next run removes what the killed one left, and writes the whole log
    assert run_bounded("run", *SPIDER, "--log", log.name, cwd=tmp_path).returncode == 0
    assert leftovers(tmp_path) == []
    assert log.read_bytes() == _log_bytes(tmp_path)


def _log_bytes(tmp_path: Path) -> bytes:
    """The log of spider_ford seed 7 as the game writes it, through no file of the CLI."""
    import io

    stream = io.StringIO()
    api.run("battlelore/spider_ford", seed=7, log_file=stream)
    return stream.getvalue().encode("utf-8")


# ---------------------------------------------------------------------------
# temporary files: a dead writer's are removed, a live writer's are not
# ---------------------------------------------------------------------------

def test_only_the_temporaries_of_dead_writers_are_removed(tmp_path):
    target = tmp_path / "game.jsonl"
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        sleeper_pid = sleeper.pid
        dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                              text=True, check=True)
        dead_pid = int(dead.stdout)
        live = tmp_path / f".game.jsonl.{sleeper_pid}.0badcafe.tmp"
        stale = tmp_path / f".game.jsonl.{dead_pid}.deadbeef.tmp"
        other = tmp_path / f".other.jsonl.{dead_pid}.deadbeef.tmp"  # another target's
        mine = tmp_path / f".game.jsonl.{os.getpid()}.00000000.tmp"  # this process's, still being written
        for path in (live, stale, other, mine):
            path.write_text("partial", encoding="utf-8")
        fd = os.open(mine, os.O_RDONLY)
        fcntl.flock(fd, fcntl.LOCK_EX)
        try:
            assert remove_stale_temporaries(target) == 1
        finally:
            os.close(fd)
        assert sorted(p.name for p in tmp_path.iterdir()) == sorted([live.name, other.name, mine.name])
    finally:
        sleeper.kill()
        sleeper.wait()


# ---------------------------------------------------------------------------
# an output that is an input of the same command is refused
# ---------------------------------------------------------------------------

def _game_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "game"
    shutil.copytree(CAMPAIGN_FIXTURE, folder)
    (folder / "look.yaml").write_text("terrain: {}\n", encoding="utf-8")
    os.symlink("duel.lore", folder / "link_to_pack.lore")
    (folder / "logs").mkdir()
    os.symlink("..", folder / "logs" / "up")
    return folder


CLASHES = [  # (id, the command, the input it must not overwrite)
    ("run --log pack", ["run", "first_blood.yaml", "--log", "duel.lore"], "duel.lore"),
    ("run --log scenario", ["run", "first_blood.yaml", "--log", "first_blood.yaml"], "first_blood.yaml"),
    ("run --html link to pack", ["run", "first_blood.yaml", "--html", "link_to_pack.lore"], "duel.lore"),
    ("run --log through a linked folder", ["run", "first_blood.yaml", "--log", "logs/up/duel.lore"], "duel.lore"),
    ("run --html look", ["run", "first_blood.yaml", "--html", "look.yaml"], "look.yaml"),
    ("render -o scenario", ["render", "first_blood.yaml", "-o", "first_blood.yaml"], "first_blood.yaml"),
    ("check -o pack", ["check", "duel.lore", "-o", "duel.lore"], "duel.lore"),
    ("campaign --log sheet", ["campaign", CAMPAIGN, "--log", SHEET], SHEET),
    ("campaign --log pack", ["campaign", CAMPAIGN, "--log", "duel.lore"], "duel.lore"),
    ("sweep --html scenario", ["sweep", "first_blood.yaml", "--games", "1", "--html", "first_blood.yaml"],
     "first_blood.yaml"),
]


@pytest.mark.parametrize("command, kept", [(c, k) for _, c, k in CLASHES], ids=[i for i, _, _ in CLASHES])
def test_an_output_that_is_an_input_is_refused(command, kept, tmp_path):
    folder = _game_folder(tmp_path)
    before = {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file() and not p.is_symlink()}
    done = run_bounded(*command, cwd=folder)
    assert done.returncode == 2 and "Traceback" not in done.output, done.describe()
    assert "error[S131]" in done.stderr and "it is not overwritten" in done.stderr
    after = {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file() and not p.is_symlink()}
    assert after == before and (folder / kept).read_bytes() == before[kept]


def test_a_replay_written_over_its_own_log_is_refused(tmp_path):
    assert run_bounded("run", *SPIDER, "--log", "game.jsonl", cwd=tmp_path).returncode == 0
    before = (tmp_path / "game.jsonl").read_bytes()
    done = run_bounded("replay", "game.jsonl", "--scenario", "battlelore/spider_ford", "--seed", "7",
                       "-o", "game.jsonl", cwd=tmp_path)
    assert done.returncode == 2 and "error[S131]" in done.stderr, done.describe()
    assert (tmp_path / "game.jsonl").read_bytes() == before


def test_two_outputs_on_one_file_are_refused(tmp_path):
    done = run_bounded("run", *SPIDER, "--log", "same.out", "--html", "same.out", cwd=tmp_path)
    assert done.returncode == 2 and "error[S131]: --html 'same.out' is the file --log writes too" in done.stderr
    assert not (tmp_path / "same.out").exists()


def test_a_log_to_standard_output_still_works_and_is_the_file_log(tmp_path):
    piped = subprocess.run([sys.executable, "-m", "hexlore", "run", *SPIDER, "--log", "-"], cwd=tmp_path,
                           capture_output=True, env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=300)
    assert piped.returncode == 0 and piped.stdout == _log_bytes(tmp_path)


# ---------------------------------------------------------------------------
# replay: a log that is not UTF-8
# ---------------------------------------------------------------------------

def test_a_log_that_is_not_utf8_is_a_located_error(tmp_path):
    log = tmp_path / "game.jsonl"
    log.write_bytes(b'{"type":"setup"}\n{"type":"roll","face":"\xff\xfe"}\n')
    done = run_bounded("replay", str(log), "--scenario", "battlelore/spider_ford", "-o", "page.html", cwd=tmp_path)
    assert done.returncode == 1 and "Traceback" not in done.output, done.describe()
    assert f"{log}:2:24: error[S132]: the log is not UTF-8 text" in done.stdout
    assert not (tmp_path / "page.html").exists()


# ---------------------------------------------------------------------------
# campaign sheets: links, the revision counter, stale temporary files
# ---------------------------------------------------------------------------

def _link_sheet(campaign: Path) -> Path:
    """Move the sheet into a folder of its own and leave a link in its place."""
    (campaign / "sheets").mkdir()
    target = campaign / "sheets" / SHEET
    (campaign / SHEET).rename(target)
    os.symlink(os.path.join("sheets", SHEET), campaign / SHEET)
    return target


def test_a_linked_sheet_is_saved_through_the_link(campaign):
    target = _link_sheet(campaign)
    results, diagnostics, _ = api.campaign(str(campaign / CAMPAIGN))
    assert not diagnostics and len(results) == 2
    assert (campaign / SHEET).is_symlink() and os.readlink(campaign / SHEET) == os.path.join("sheets", SHEET)
    sheet, problems = load_sheet(target)
    assert not problems and [h["number"] for h in sheet.history] == [1, 2] and sheet.revision == 2
    assert leftovers(campaign) == [] and leftovers(target.parent) == []


def test_a_linked_sheet_is_locked_where_it_lies(campaign):
    target = _link_sheet(campaign)
    before = target.read_bytes()
    fd = os.open(target.with_name(f".{SHEET}.lock"), os.O_RDWR | os.O_CREAT)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)  # a run that reaches the sheet directly holds it
        done = run_bounded("campaign", CAMPAIGN, cwd=campaign)
    finally:
        os.close(fd)
    assert done.returncode == 1 and "error[S017]" in done.stdout, done.describe()
    assert target.read_bytes() == before
    assert not (campaign / f".{SHEET}.lock").exists()  # no lock of its own beside the link


def test_a_revision_at_the_largest_integer_goes_on(campaign):
    sheet_path = campaign / SHEET
    text = sheet_path.read_text(encoding="utf-8")
    sheet_path.write_text(f"revision: {MAX_INT}\n" + text, encoding="utf-8")
    results, diagnostics, _ = api.campaign(str(campaign / CAMPAIGN), adventure=1)
    assert not diagnostics and len(results) == 1
    assert yaml.safe_load(sheet_path.read_text(encoding="utf-8"))["revision"] == 1
    results, diagnostics, _ = api.campaign(str(campaign / CAMPAIGN))  # and the sheet is not refused after
    assert not diagnostics and [r.number for r in results] == [2]
    sheet, problems = load_sheet(sheet_path)
    assert not problems and sheet.revision == 2


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs POSIX signals")
def test_a_save_killed_midway_leaves_no_stray_file_after_the_next_run(campaign, tmp_path):
    before = (campaign / SHEET).read_bytes()
    kill_mid_write(tmp_path, f"""
        from hexlore import api
        api.campaign({str(campaign / CAMPAIGN)!r}, adventure=1)
        """, campaign, SHEET)
    assert (campaign / SHEET).read_bytes() == before and len(leftovers(campaign)) == 1
    results, diagnostics, _ = api.campaign(str(campaign / CAMPAIGN))
    assert not diagnostics and [r.number for r in results] == [1, 2]
    assert leftovers(campaign) == []


# ---------------------------------------------------------------------------
# one writer: nothing in hexlore/ writes a file but output_files.py
# ---------------------------------------------------------------------------

WRITERS = {"write_text", "write_bytes", "mkstemp", "NamedTemporaryFile", "savefig"}
#: functions of these modules that write (``x.replace`` alone is a string's method)
MODULE_WRITERS = {"os": {"replace", "rename", "renames", "link", "symlink"},
                  "shutil": {"copy", "copy2", "copyfile", "copytree", "move"}}
HELPER = ROOT / "hexlore" / "dsl" / "output_files.py"


def _writes(path: Path) -> list[str]:
    """The calls in ``path`` that write a file: open() in a writing mode, and the WRITERS."""
    found = []
    shown = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.Call):
            continue
        name = getattr(node.func, "attr", None) or getattr(node.func, "id", None)
        if name in ("open", "fdopen"):
            modes = [a for a in node.args[1:2] if isinstance(a, ast.Constant)] + \
                [k.value for k in node.keywords if k.arg == "mode" and isinstance(k.value, ast.Constant)]
            if any(isinstance(m.value, str) and set(m.value) & set("wax+") for m in modes):
                found.append(f"{shown}:{node.lineno}: {name}({modes[0].value!r})")
        elif name in MODULE_WRITERS.get(getattr(getattr(node.func, "value", None), "id", None), ()):
            found.append(f"{shown}:{node.lineno}: {node.func.value.id}.{name}()")
        elif name in WRITERS and not (name == "savefig" and _into_memory(node)):
            found.append(f"{shown}:{node.lineno}: {name}()")
        elif name == "open_file" and getattr(getattr(node.func, "value", None), "id", None) == "click":
            if not (node.args and isinstance(node.args[0], ast.Constant) and node.args[0].value == "-"):
                found.append(f"{shown}:{node.lineno}: click.open_file()")
    return found


def _into_memory(node: ast.Call) -> bool:
    return bool(node.args) and getattr(node.args[0], "id", None) == "drawn"


def test_every_file_is_written_through_the_one_helper():
    offenders = [w for p in sorted((ROOT / "hexlore").rglob("*.py")) if p != HELPER for w in _writes(p)]
    assert offenders == []
    assert _writes(HELPER)  # the scan does see writes: the helper's own


SAMPLE = """
import os, tempfile
from pathlib import Path
open(path, "w")  # a write
open(path, mode="ab")  # a write
open(path)
open(path, "rb")
os.fdopen(fd, "wb")  # a write
Path(p).write_text("x")  # a write
Path(p).write_bytes(b"x")  # a write
os.replace(a, b)  # a write
os.rename(a, b)  # a write
shutil.copyfile(a, b)  # a write
text.replace("a", "b")
tempfile.mkstemp()  # a write
fig.savefig(path)  # a write
fig.savefig(drawn, format="png")
click.open_file(path, "w")  # a write
click.open_file("-", "w")
"""


def test_the_scan_sees_each_kind_of_write(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text(SAMPLE, encoding="utf-8")
    assert len(_writes(sample)) == SAMPLE.count("# a write")


# ---------------------------------------------------------------------------
# the documented examples are what the commands print
# ---------------------------------------------------------------------------

DOCS = (ROOT / "docs" / "diagnostics.md").read_text(encoding="utf-8")


def _documented(code: str) -> str:
    import re

    return re.search(rf"^([^ \n].*?: error\[{code}\]: .*)$", DOCS, re.M).group(1)


def test_the_documented_examples_are_what_is_printed(tmp_path, monkeypatch):
    from hexlore.cli_files import clashes, read_log_lines
    from hexlore.dsl.output_files import output_error

    monkeypatch.chdir(tmp_path)
    full = output_error("game.jsonl", OSError(errno.ENOSPC, "No space left on device")).diagnostic()
    assert full.headline() == _documented("S130")
    (tmp_path / "duel.lore").write_text("pack duel\n", encoding="utf-8")
    [clash] = clashes({"--log": "duel.lore"}, ["duel.lore"])
    assert clash.headline() == _documented("S131")
    Path("game.jsonl").write_bytes(b'{"type":"setup"}\n{"type":"roll","face":"\xff\xfe"}\n')
    lines, problem = read_log_lines("game.jsonl")
    assert lines is None and problem.headline() == _documented("S132")
