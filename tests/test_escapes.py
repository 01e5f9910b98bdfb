"""No read or write outside the workspace: symlinked files and folders, races, FIFOs, long names, appends."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from datetime import date
from pathlib import Path

import pytest

from memtui.atomic import EscapeError, atomic_write_text
from memtui.errors import MemtuiError
from memtui.manager import MemoryManager
from memtui.settings.agent import AgentEnv
from memtui.tools import memory_get
from memtui.tui.curation import append_note, promote_lines

DAY = date(2026, 11, 30)
SECRET = "outside secret: the root password"


def _cli(tmp_path: Path, workspace: Path, *args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "memtui", *args, "--state-dir", str(tmp_path / "state"),
                           "--workspace", str(workspace), "--provider", "none"],
                          capture_output=True, text=True, timeout=timeout)


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    folder = tmp_path / "outside"
    folder.mkdir()
    (folder / "secret.md").write_text(SECRET + "\n", encoding="utf-8")
    return folder


# -- writes through symlinked parent folders ----------------------------------------------------


def test_atomic_write_refuses_a_symlinked_memory_folder(workspace: Path, outside: Path) -> None:
    os.rename(workspace / "memory", workspace / "memory-real")
    os.symlink(outside, workspace / "memory")
    with pytest.raises(EscapeError, match="memory is a symlink"):
        atomic_write_text(workspace / "memory" / "secret.md", "overwritten\n", root=workspace)
    with pytest.raises(EscapeError):
        atomic_write_text(workspace / "memory" / "new.md", "created\n", root=workspace)
    assert sorted(p.name for p in outside.iterdir()) == ["secret.md"]
    assert (outside / "secret.md").read_text(encoding="utf-8") == SECRET + "\n"


def test_atomic_write_refuses_a_symlinked_subfolder(workspace: Path, outside: Path) -> None:
    os.symlink(outside, workspace / "memory" / "sub")
    with pytest.raises(EscapeError, match="memory/sub is a symlink"):
        atomic_write_text(workspace / "memory" / "sub" / "secret.md", "overwritten\n", root=workspace)
    assert (outside / "secret.md").read_text(encoding="utf-8") == SECRET + "\n"


def test_append_note_and_promote_refuse_a_symlinked_memory_folder(workspace: Path, outside: Path) -> None:
    os.rename(workspace / "memory", workspace / "memory-real")
    os.symlink(outside, workspace / "memory")
    with pytest.raises(MemtuiError, match="symlink"):
        append_note(workspace, DAY, "a note")
    assert sorted(p.name for p in outside.iterdir()) == ["secret.md"]
    (workspace / "MEMORY.md").unlink()
    os.symlink(outside / "secret.md", workspace / "MEMORY.md")
    with pytest.raises(MemtuiError, match="symlink"):
        promote_lines(workspace, path="memory/x.md", start_line=1, end_line=1, text="promoted", day=DAY)
    assert (outside / "secret.md").read_text(encoding="utf-8") == SECRET + "\n"


def test_memtui_writers_create_missing_folders_without_following_links(workspace: Path) -> None:
    written = workspace / "memory" / "a" / "b" / "note.md"
    atomic_write_text(written, "deep\n", root=workspace)
    assert written.read_text(encoding="utf-8") == "deep\n"


# -- memory_get: open once, no follow ---------------------------------------------------------------


def test_memory_get_never_returns_content_reached_through_a_swapped_symlink(workspace: Path, outside: Path) -> None:
    note = workspace / "memory" / "flip.md"
    note.write_text("inside\n", encoding="utf-8")
    link = workspace / "memory" / ".flip-link"
    os.symlink(outside / "secret.md", link)
    regular = workspace / "memory" / ".flip-regular"
    regular.write_text("inside\n", encoding="utf-8")
    stop = threading.Event()

    def flip() -> None:
        while not stop.is_set():
            os.link(link, workspace / "memory" / ".tmp-l", follow_symlinks=False)
            os.replace(workspace / "memory" / ".tmp-l", note)
            os.link(regular, workspace / "memory" / ".tmp-r")
            os.replace(workspace / "memory" / ".tmp-r", note)

    flipper = threading.Thread(target=flip, daemon=True)
    flipper.start()
    texts: list[str] = []
    try:
        for _ in range(20000):
            texts.append(memory_get(workspace, "memory/flip.md").get("text", ""))
    finally:
        stop.set()
        flipper.join()
    assert not [t for t in texts if "secret" in t]
    assert "inside\n" in texts  # the race really ran: both states were seen
    assert any(t == "" for t in texts)


def test_symlinked_extra_folder_is_neither_indexed_nor_readable(make_env: Callable[..., AgentEnv], workspace: Path,
                                                                 outside: Path, tmp_path: Path) -> None:
    os.symlink(outside, workspace / "notes")
    (tmp_path / "state").mkdir()
    (tmp_path / "state" / "openclaw.json").write_text(json.dumps(
        {"agents": {"defaults": {"memorySearch": {"extraPaths": ["notes"]}}}}), encoding="utf-8")
    env = make_env()
    with MemoryManager(env) as manager:
        manager.sync()
        indexed = {row[0] for row in manager.store.file_rows()}
        got = manager.memory_get("notes/secret.md")
    assert "notes/secret.md" not in indexed
    assert got["text"] == "" and got["error"] == "path required: notes is a symlink; refusing to follow it"


# -- FIFOs never hang -----------------------------------------------------------------------------------


def test_a_fifo_named_like_a_note_does_not_hang_get_or_index(tmp_path: Path, workspace: Path) -> None:
    os.mkfifo(workspace / "memory" / "x.md")
    got = _cli(tmp_path, workspace, "get", "memory/x.md", "--json", timeout=30)
    assert json.loads(got.stdout) == {"path": "memory/x.md", "text": "", "disabled": True, "error": (
        "path required: memory/x.md is not a regular file (a FIFO); refusing to open it")}
    indexed = _cli(tmp_path, workspace, "index", timeout=60)
    assert indexed.returncode == 0, indexed.stderr
    assert "Indexed 4 of 4 files" in indexed.stdout


def test_editor_save_refuses_to_replace_a_fifo(workspace: Path) -> None:
    os.mkfifo(workspace / "memory" / "pipe.md")
    with pytest.raises(EscapeError, match="not a regular file"):
        atomic_write_text(workspace / "memory" / "pipe.md", "x\n", root=workspace)


# -- over-long names --------------------------------------------------------------------------------------


def test_a_300_character_name_is_a_one_line_error_without_the_workspace_path(tmp_path: Path,
                                                                            workspace: Path) -> None:
    long_path = "memory/" + "n" * 300 + ".md"
    got = memory_get(workspace, long_path)
    assert got == {"path": long_path, "text": "", "disabled": True, "error": "not readable (File name too long)"}
    done = _cli(tmp_path, workspace, "get", long_path)
    assert done.returncode == 1
    assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert str(workspace) not in done.stderr


# -- concurrent appends --------------------------------------------------------------------------------------

AGENT = """
import sys, time
path, count = sys.argv[1], int(sys.argv[2])
for i in range(count):
    with open(path, "a", encoding="utf-8") as handle:
        handle.write(f"- agent line {i}\\n")
"""


def test_append_note_keeps_every_line_an_agent_appends_at_the_same_time(workspace: Path) -> None:
    log = workspace / "memory" / f"{DAY.isoformat()}.md"
    log.write_text(f"# {DAY.isoformat()}\n", encoding="utf-8")
    agent = subprocess.Popen([sys.executable, "-c", AGENT, str(log), "3000"])
    notes = 0
    while agent.poll() is None or notes < 50:
        append_note(workspace, DAY, f"note {notes}")
        notes += 1
    assert agent.wait(timeout=60) == 0
    text = log.read_text(encoding="utf-8")
    agent_lines = [line for line in text.splitlines() if line.startswith("- agent line ")]
    assert len(agent_lines) == 3000 and len(set(agent_lines)) == 3000
    assert [line for line in text.splitlines() if line.startswith("- note ")] == [f"- note {i}" for i in range(notes)]


# -- killed saves leave no temp files behind ---------------------------------------------------------------

SAVER = """
import sys
from pathlib import Path
from memtui.atomic import atomic_write_text
root = Path(sys.argv[1])
text = "x" * (8 << 20)
print("ready", flush=True)
while True:
    atomic_write_text(root / sys.argv[2], text, root=root)
"""


def _temps(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


@pytest.mark.parametrize("saved", ["memory/big.md", "MEMORY.md"])
def test_temp_files_of_killed_saves_are_removed_by_the_next_index(tmp_path: Path, workspace: Path,
                                                                  saved: str) -> None:
    folder = (workspace / saved).parent
    # Another program's file that merely looks like a temp file is not memtui's to delete.
    unrelated = workspace / ".other.0123456789ab.tmp"
    unrelated.write_text("not memtui's\n", encoding="utf-8")
    os.utime(unrelated, (time.time() - 60, time.time() - 60))
    left: list[str] = []
    for _ in range(20):
        saver = subprocess.Popen([sys.executable, "-c", SAVER, str(workspace), saved], stdout=subprocess.PIPE,
                                 text=True, env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
        assert saver.stdout is not None and saver.stdout.readline() == "ready\n"
        time.sleep(0.15)
        saver.send_signal(signal.SIGKILL)
        saver.wait()
        left = [name for name in _temps(folder) if name != unrelated.name]
        if left:
            break
    assert left, "no kill landed during a write"
    time.sleep(1.1)
    done = _cli(tmp_path, workspace, "index")
    assert done.returncode == 0, done.stderr
    assert [name for name in _temps(folder) if name != unrelated.name] == []
    assert unrelated.exists()


# -- reads that may follow a link inside the workspace (bootstrap MEMORY.md, promotion sources) ---------


def _flip_between_inside_and_outside(target: Path, outside: Path, stop: threading.Event) -> None:
    """Swap `target` between a regular file and a symlink to the outside secret, atomically, until stopped."""
    folder = target.parent
    link, regular = folder / ".flip-link", folder / ".flip-regular"
    os.symlink(outside / "secret.md", link)
    regular.write_text("inside\n", encoding="utf-8")
    while not stop.is_set():
        os.link(link, folder / ".tmp-l", follow_symlinks=False)
        os.replace(folder / ".tmp-l", target)
        os.link(regular, folder / ".tmp-r")
        os.replace(folder / ".tmp-r", target)


def _race(target: Path, outside: Path, read: Callable[[], str | None], tries: int = 5000) -> list[str | None]:
    for leftover in (target, target.parent / ".flip-link", target.parent / ".flip-regular"):
        leftover.unlink(missing_ok=True)
    target.write_text("inside\n", encoding="utf-8")
    stop = threading.Event()
    flipper = threading.Thread(target=_flip_between_inside_and_outside, args=(target, outside, stop), daemon=True)
    flipper.start()
    try:
        return [read() for _ in range(tries)]
    finally:
        stop.set()
        flipper.join()


def test_bootstrap_reads_never_return_content_reached_through_a_swapped_symlink(workspace: Path,
                                                                              outside: Path) -> None:
    from memtui.context.bootstrap_files import read_within_workspace

    target = workspace / "MEMORY.md"
    texts = _race(target, outside, lambda: read_within_workspace(target, workspace)[0])
    assert not [t for t in texts if t and "secret" in t]
    assert "inside\n" in texts and None in texts  # both states were seen


def test_promotion_rehydration_never_reads_through_a_swapped_symlink(workspace: Path, outside: Path) -> None:
    from dataclasses import fields

    from memtui.dreaming.promotion import rehydrate
    from memtui.dreaming.ranking import Candidate

    def candidate(snippet: str) -> Candidate:
        blank = {f.name: None for f in fields(Candidate) if f.init and f.name not in ("claim_hash", "promoted_at",
                                                                                       "rejected")}
        return Candidate(**{**blank, "key": "k", "path": "memory/flip.md", "start_line": 1, "end_line": 1,
                            "snippet": snippet})

    target = workspace / "memory" / "flip.md"
    inside = _race(target, outside, lambda: "found" if rehydrate(workspace, candidate("inside"))[0] else None)
    assert "found" in inside and None in inside  # both states were seen
    leaks = _race(target, outside, lambda: "leak" if rehydrate(workspace, candidate(SECRET))[0] else None,
                  tries=20000)
    assert "leak" not in leaks
    assert (outside / "secret.md").read_text(encoding="utf-8") == SECRET + "\n"
