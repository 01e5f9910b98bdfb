"""Paths (issue 29, items 4 and 8): a refusal says why (a symlink, a FIFO, a socket, a device), a write that
races a folder being swapped raises memtui's EscapeError (never a raw OSError) and writes nothing outside,
`atomic_write_text` without `root=` does not write through a symlinked folder, and `extraPaths` naming the
whole machine, the home folder or the state dir is left out with a warning, a huge extra folder bounded."""

from __future__ import annotations

import contextlib
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
        assert done.stderr.splitlines() == [f"memtui: error: {rel}: {specials[rel]}"]
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
