"""Paths (issue 29, items 4 and 8): a refusal says why (a symlink, a FIFO, a socket, a device), a write that
races a folder being swapped raises memtui's EscapeError (never a raw OSError) and writes nothing outside,
`atomic_write_text` without `root=` does not write through a symlinked folder, and `extraPaths` naming the
whole machine, the home folder or the state dir is left out with a warning, a huge extra folder bounded."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import socket
import stat
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from memtui.atomic import EscapeError, atomic_write_text
from memtui.errors import MemtuiError
from memtui.index import workspace as listing
from memtui.manager import MemoryManager
from memtui.settings.agent import resolve_agent
from memtui.tools import memory_get
from memtui.tui.curation import save_memory_file

SECRET = "outside secret: the root password"


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    folder = tmp_path / "outside"
    folder.mkdir()
    (folder / "secret.md").write_text(SECRET + "\n", encoding="utf-8")
    return folder


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    folder = tmp_path / "ws"
    (folder / "memory").mkdir(parents=True)
    (folder / "MEMORY.md").write_text("# Memory\n\n- the harbour ferry leaves at nine\n", encoding="utf-8")
    return folder


def _cli(workspace: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "memtui", *args, "--state-dir", str(workspace.parent / "state"),
                           "--workspace", str(workspace), "--provider", "none"],
                          capture_output=True, text=True, timeout=60, env=env)


# -- item 8: a refusal says why ---------------------------------------------------------------------------------


@pytest.fixture
def specials(workspace: Path, outside: Path) -> Iterator[dict[str, str]]:
    """Memory paths that are not regular files, with the reason each refusal must give."""
    memory = workspace / "memory"
    os.symlink(outside / "secret.md", memory / "link.md")
    os.symlink(outside, memory / "linked")
    os.symlink("/dev/zero", memory / "zero.md")
    os.mkfifo(memory / "pipe.md")
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(str(memory / "sock.md"))
    reasons = {"memory/link.md": "memory/link.md is a symlink; refusing to follow it",
               "memory/linked/secret.md": "memory/linked is a symlink; refusing to follow it",
               "memory/zero.md": "memory/zero.md is a symlink; refusing to follow it",
               "memory/pipe.md": "memory/pipe.md is not a regular file (a FIFO); refusing to open it",
               "memory/sock.md": "memory/sock.md is not a regular file (a socket); refusing to open it"}
    if os.geteuid() == 0:
        os.mknod(memory / "dev.md", 0o600 | stat.S_IFCHR, os.makedev(1, 5))  # what /dev/zero is
        reasons["memory/dev.md"] = "memory/dev.md is not a regular file (a character device); refusing to open it"
    yield reasons
    listener.close()


def test_memory_get_says_why_it_refuses_a_symlink_a_fifo_a_socket_or_a_device(workspace: Path,
                                                                             specials: dict[str, str]) -> None:
    for rel, reason in specials.items():
        assert memory_get(workspace, rel) == {"path": rel, "text": "", "disabled": True,
                                              "error": f"path required: {reason}"}


def test_get_prints_the_reason_in_one_line(workspace: Path, specials: dict[str, str]) -> None:
    for rel in ("memory/linked/secret.md", "memory/pipe.md", "memory/sock.md"):
        done = _cli(workspace, "get", rel)
        assert done.returncode == 1 and SECRET not in done.stdout
        where = "" if specials[rel].startswith(f"{rel} ") else f"{rel}: "  # the path named once
        assert done.stderr.splitlines() == [f"memtui: error: {where}{specials[rel]}"]
    done = _cli(workspace, "get", "../outside/secret.md")
    assert done.stderr.splitlines() == ["memtui: error: ../outside/secret.md: not a memory file (allowed: MEMORY.md, "
                                        "DREAMS.md, memory/**/*.md, extra paths; .md only, relative to the workspace)"]


def test_a_path_through_a_file_is_not_found_as_in_openclaw(workspace: Path) -> None:
    (workspace / "memory" / "note.md").write_text("- a note\n", encoding="utf-8")
    assert memory_get(workspace, "memory/note.md/inner.md") == {"text": "", "path": "memory/note.md/inner.md"}


# -- item 8: writes ---------------------------------------------------------------------------------------------


def test_a_write_through_a_file_where_a_folder_should_be_says_so(workspace: Path) -> None:
    (workspace / "memory" / "sub").write_text("a file, not a folder\n", encoding="utf-8")
    with pytest.raises(EscapeError, match=r"^memory/sub is a file, not a folder; nothing was written$"):
        save_memory_file(workspace, "memory/sub/note.md", "- a note\n", expected_digest=None)
    assert (workspace / "memory" / "sub").read_text(encoding="utf-8") == "a file, not a folder\n"


def test_writes_racing_a_folder_swapped_for_a_symlink_or_a_file_raise_escape_errors_only(
        workspace: Path, outside: Path) -> None:
    memory, stop = workspace / "memory", threading.Event()

    def flip() -> None:
        turn = 0
        while not stop.is_set():
            turn += 1
            staged, old = memory / f".s{turn}", memory / f".o{turn}"
            if turn % 3 == 0:
                os.symlink(outside, staged)
            elif turn % 3 == 1:
                staged.mkdir()
            else:
                staged.write_text("x")
            for source, target in ((memory / "race", old), (staged, memory / "race")):
                with contextlib.suppress(OSError):  # a writer may have made memory/race meanwhile
                    os.rename(source, target)
            for leftover in (staged, old):
                if leftover.is_dir() and not leftover.is_symlink():
                    shutil.rmtree(leftover, ignore_errors=True)
                elif os.path.lexists(leftover):
                    os.unlink(leftover)

    flipper = threading.Thread(target=flip, daemon=True)
    flipper.start()
    raised: dict[str, int] = {}
    try:
        for attempt in range(600):
            try:
                if attempt % 2:
                    atomic_write_text(memory / "race" / "a.md", "overwritten\n", root=workspace)
                else:
                    save_memory_file(workspace, "memory/race/b.md", "saved\n", expected_digest=False)
            except MemtuiError as exc:
                raised[type(exc).__name__] = raised.get(type(exc).__name__, 0) + 1
    finally:
        stop.set()
        flipper.join()
    assert set(raised) == {"EscapeError"}  # a raw OSError would have failed the test
    assert sorted(p.name for p in outside.iterdir()) == ["secret.md"]
    assert (outside / "secret.md").read_text(encoding="utf-8") == SECRET + "\n"


def test_atomic_write_text_without_root_refuses_a_symlinked_folder(workspace: Path, outside: Path) -> None:
    os.symlink(outside, workspace / "memory" / "out")
    with pytest.raises(EscapeError, match=r"^out is a symlink; refusing to write through it \(pass root="):
        atomic_write_text(workspace / "memory" / "out" / "secret.md", "overwritten\n")
    with pytest.raises(EscapeError, match="is a symlink"):
        atomic_write_text(workspace / "memory" / "out" / "new.md", "created\n")
    assert sorted(p.name for p in outside.iterdir()) == ["secret.md"]
    assert (outside / "secret.md").read_text(encoding="utf-8") == SECRET + "\n"
    atomic_write_text(workspace / "memory" / "plain.md", "written\n")  # a real folder: written as before
    assert (workspace / "memory" / "plain.md").read_text(encoding="utf-8") == "written\n"


# -- item 4: extra paths ----------------------------------------------------------------------------------------


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """A home folder holding the OpenClaw state dir, the agent's workspace and a private note."""
    folder = tmp_path / "home"
    (folder / ".openclaw" / "workspace" / "memory").mkdir(parents=True)
    (folder / ".openclaw" / "workspace" / "MEMORY.md").write_text("# Memory\n\n- tea at four\n", encoding="utf-8")
    (folder / "private.md").write_text(SECRET + "\n", encoding="utf-8")
    return folder


def _configure(home: Path, extra: list[str]) -> None:
    (home / ".openclaw" / "openclaw.json").write_text(json.dumps(
        {"agents": {"defaults": {"memorySearch": {"extraPaths": extra}}}}), encoding="utf-8")


def _home_cli(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "memtui", *args, "--provider", "none"], capture_output=True,
                          text=True, timeout=120, env={**os.environ, "HOME": str(home), "OPENCLAW_HOME": "",
                                                       "OPENCLAW_STATE_DIR": "", "MEMTUI_DATA_DIR": str(home / "data")})


def test_extra_paths_naming_the_machine_home_or_state_dir_are_left_out_with_a_warning(home: Path,
                                                                                      tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "n.md").write_text("- the harbour ferry leaves at nine\n", encoding="utf-8")
    _configure(home, ["/", str(home), "~/../..", "..", str(home / ".openclaw"), str(tmp_path), str(notes)])
    done = _home_cli(home, "get", "../../private.md")
    assert done.returncode == 1 and SECRET not in done.stdout
    tail = ("; memtui leaves it out (it would index every Markdown file there and let memory_get read any of them): "
            "name the folder your notes are in instead")
    # "~/../.." is a folder named ~ in the workspace, as OpenClaw reads it: the workspace's parent, the state dir
    assert done.stderr.splitlines() == [
        f"memtui: warning: memorySearch.extraPaths entry '/' is the filesystem root{tail}",
        f"memtui: warning: memorySearch.extraPaths entry '{home}' is the home folder{tail}",
        f"memtui: warning: memorySearch.extraPaths entry '~/../..' is the OpenClaw state dir{tail}",
        f"memtui: warning: memorySearch.extraPaths entry '..' is the OpenClaw state dir{tail}",
        f"memtui: warning: memorySearch.extraPaths entry '{home / '.openclaw'}' is the OpenClaw state dir{tail}",
        f"memtui: warning: memorySearch.extraPaths entry '{tmp_path}' holds the home folder{tail}",
        "memtui: error: ../../private.md: not a memory file (allowed: MEMORY.md, DREAMS.md, memory/**/*.md, extra "
        "paths; .md only, relative to the workspace)"]
    indexed = _home_cli(home, "index")
    assert indexed.returncode == 0, indexed.stderr
    found = json.loads(_home_cli(home, "search", "harbour ferry", "--json").stdout)["results"]
    assert [hit["path"] for hit in found] == ["../../../notes/n.md"]  # the folder of notes is kept
    assert json.loads(_home_cli(home, "search", "root password", "--json").stdout)["results"] == []


def test_a_folder_inside_the_state_dir_or_home_is_kept(home: Path) -> None:
    (home / "notes").mkdir()
    _configure(home, [str(home / "notes"), "docs"])
    env = resolve_agent(state_dir=str(home / ".openclaw"), provider="none",
                        env={**os.environ, "HOME": str(home), "OPENCLAW_HOME": ""})
    assert env.settings.extra_paths == (str(home / "notes"), "docs") and env.warnings == []


def test_an_extra_folder_of_more_than_twenty_thousand_notes_is_listed_up_to_the_bound(tmp_path: Path,
                                                                                      workspace: Path) -> None:
    big = tmp_path / "big"
    for i in range(listing.MAX_EXTRA_FILES + 5):
        folder = big / f"d{i // 1000:02d}"
        if i % 1000 == 0:
            folder.mkdir(parents=True)
        (folder / f"n{i:05d}.md").write_text("- a note\n", encoding="utf-8")
    issues: list = []
    files = listing.list_memory_files(workspace, [str(big)], issues)
    assert len(files) == 1 + listing.MAX_EXTRA_FILES and files[-1].rel_path == "../big/d19/n19999.md"
    assert [issue.to_json() for issue in issues] == [{"path": "../big", "reason": (
        "extra path with more than 20,000 Markdown files: only the first 20,000 Markdown files (in name order) are "
        "indexed; name a narrower folder, or split it into several extraPaths entries")}]
    assert len(listing.list_memory_files(workspace, [str(big / "d00"), str(big / "d20")])) == 1 + 1000 + 5


@pytest.mark.parametrize(("knob", "value", "cut"), [("MAX_EXTRA_BYTES", 10 * 1024, "more than 0 MB of Markdown"),
                                                    ("MAX_EXTRA_ENTRIES", 30, "more than 30 files and folders")])
def test_a_walk_cut_by_size_or_entries_is_an_issue_in_status_and_the_rest_is_indexed(
        tmp_path: Path, workspace: Path, make_env, monkeypatch: pytest.MonkeyPatch, knob: str, value: int,
        cut: str) -> None:
    monkeypatch.setattr(listing, knob, value)
    big = tmp_path / "big"
    big.mkdir()
    for i in range(40):
        (big / f"n{i:02d}.md").write_text(f"- note {i:02d}: the lanternfish {'x' * 1000}\n", encoding="utf-8")
    (tmp_path / "state").mkdir()
    (tmp_path / "state" / "openclaw.json").write_text(json.dumps(
        {"agents": {"defaults": {"memorySearch": {"extraPaths": [str(big)]}}}}), encoding="utf-8")
    with MemoryManager(make_env()) as manager:
        manager.sync()
        issues = manager.status()["issues"]
        indexed = sorted(row[0] for row in manager.store.file_rows())
    assert [i["path"] for i in issues] == ["../big"] and cut in issues[0]["reason"]
    assert "MEMORY.md" in indexed and "../big/n00.md" in indexed and "../big/n39.md" not in indexed
