"""A broken index file is moved aside and rebuilt (or the message says exactly what to do), never a traceback."""

from __future__ import annotations

import ctypes
import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from store_paths import index_of

ENV = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}


def _cli(state: Path, workspace: Path, *args: str, **kwargs: object) -> subprocess.CompletedProcess[str]:
    kwargs.setdefault("env", ENV)
    return subprocess.run([sys.executable, "-m", "memtui", *args, "--state-dir", str(state), "--workspace",
                           str(workspace), "--provider", "none"],
                          capture_output=True, text=True, timeout=120, **kwargs)  # type: ignore[call-overload]


def _one_line_error(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode != 0
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("memtui: error: "), done.stderr
    return lines[0]


def _random_bytes(path: Path) -> None:
    path.write_bytes(os.urandom(64 << 10))


def _truncated(path: Path) -> None:
    with open(path, "r+b") as handle:
        handle.truncate(path.stat().st_size // 2)


def _foreign(path: Path) -> None:
    path.unlink()
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE chunks (x)")
    conn.execute("CREATE TABLE files (name, size)")
    conn.execute("INSERT INTO chunks VALUES (1)")
    conn.commit()
    conn.close()


DAMAGE = {"random bytes": _random_bytes, "truncated": _truncated, "foreign schema": _foreign}
REASON = {"random bytes": "file is not a database", "truncated": "database disk image is malformed",
          "foreign schema": "another program's SQLite database (tables chunks, files)"}


@pytest.mark.parametrize("damage", list(DAMAGE))
@pytest.mark.parametrize("command", [["status"], ["search", "payment webhook"], ["index"], ["index", "--force"]])
def test_a_damaged_index_is_moved_aside_and_rebuilt(tmp_path: Path, workspace: Path, damage: str,
                                                    command: list[str]) -> None:
    state = tmp_path / "state"
    assert _cli(state, workspace, "index").returncode == 0
    index = index_of(state, workspace)
    DAMAGE[damage](index)
    broken = index.read_bytes()
    done = _cli(state, workspace, *command)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    aside = [p for p in index.parent.iterdir() if ".damaged-" in p.name and not p.name.endswith(("-wal", "-shm"))]
    assert len(aside) == 1 and aside[0].read_bytes() == broken
    status = json.loads(_cli(state, workspace, "status", "--json").stdout)
    assert [issue["reason"] for issue in status["issues"]] == [
        f"index was damaged ({REASON[damage]}); moved aside to {aside[0].name} and rebuilt"]
    searched = json.loads(_cli(state, workspace, "search", "payment webhook", "--json").stdout)
    assert searched["results"][0]["path"] == "memory/2026-11-28.md"
    assert json.loads(_cli(state, workspace, "status", "--json").stdout)["files"] == 4


def test_a_damaged_index_opened_read_only_says_what_to_do(tmp_path: Path, workspace: Path) -> None:
    state = tmp_path / "state"
    assert _cli(state, workspace, "index").returncode == 0
    _random_bytes(index_of(state, workspace))
    line = _one_line_error(_cli(state, workspace, "search", "payment", "--read-only"))
    assert "is damaged (file is not a database)" in line and "memtui index --force" in line


def _without_root_powers() -> None:
    """Run as root still, but subject to file modes: drop CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH (Linux)."""
    libc = ctypes.CDLL(None, use_errno=True)
    for capability in (1, 2):
        if libc.prctl(PR_CAPBSET_DROP, capability, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP)")


PR_CAPBSET_DROP = 24


def test_a_read_only_state_dir_works_and_a_read_only_data_dir_is_a_one_line_error(tmp_path: Path,
                                                                                   workspace: Path) -> None:
    """memtui keeps its index in its own data dir: a state dir it may not write to is no obstacle (and gets no
    file), while a data dir it may not write to is a one-line error that says what to do."""
    state = tmp_path / "state"
    state.mkdir()
    state.chmod(0o555)
    as_user = {"preexec_fn": _without_root_powers} if os.geteuid() == 0 else {}
    for command in (["status"], ["search", "payment"], ["index"]):
        assert _cli(state, workspace, *command, **as_user).returncode == 0, command
    assert list(state.iterdir()) == []
    data = tmp_path / "data"
    data.mkdir(mode=0o555)
    locked = {**ENV, "MEMTUI_DATA_DIR": str(data)}
    for command in (["status"], ["search", "payment"], ["index"]):
        line = _one_line_error(_cli(state, workspace, *command, env=locked, **as_user))
        assert "Permission denied" in line and ("--store" in line or "--read-only" in line)
    state.chmod(0o755)


def test_a_watch_whose_index_is_damaged_says_what_to_do_and_recovers_after_a_rebuild(tmp_path: Path,
                                                                                      workspace: Path) -> None:
    state = tmp_path / "state"
    for i in range(200):
        (workspace / "memory" / f"2026-07-{i % 28 + 1:02d}-n{i}.md").write_text(
            f"# Note {i}\n\n" + "\n".join(f"- the heliotrope line {i}.{j}" for j in range(30)) + "\n")
    assert _cli(state, workspace, "index").returncode == 0
    watch = subprocess.Popen([sys.executable, "-m", "memtui", "watch", "--debounce-ms", "200", "--state-dir",
                              str(state), "--workspace", str(workspace), "--provider", "none"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV)
    try:
        lines = iter(watch.stdout.readline, "")  # type: ignore[union-attr]
        assert next(line for line in lines if "session-start" in line)
        _truncated(index_of(state, workspace))
        (workspace / "memory" / "2026-12-01.md").write_text("- the quokka note\n", encoding="utf-8")
        failed = next(line for line in lines if "FAILED" in line)
        assert "memtui index --force" in failed
        assert _cli(state, workspace, "index", "--force").returncode == 0
        (workspace / "memory" / "2026-12-02.md").write_text("- the numbat note\n", encoding="utf-8")
        assert "1 changed" in next(line for line in lines if "sync (watch)" in line)
        searched = json.loads(_cli(state, workspace, "search", "numbat", "--json").stdout)
        assert [hit["path"] for hit in searched["results"]] == ["memory/2026-12-02.md"]
    finally:
        watch.kill()
        watch.communicate(timeout=30)


@pytest.mark.parametrize("folder", ["c#-notes", "50%20off", "what?"])
def test_read_only_opens_an_index_whose_path_has_uri_characters(tmp_path: Path, workspace: Path, folder: str) -> None:
    store = tmp_path / folder / "index.sqlite"
    assert _cli(tmp_path / "state", workspace, "index", "--store", str(store)).returncode == 0
    before = sorted(p.name for p in tmp_path.iterdir())
    done = _cli(tmp_path / "state", workspace, "search", "payment webhook", "--json", "--store", str(store),
                "--read-only")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["results"]
    assert sorted(p.name for p in tmp_path.iterdir()) == before  # nothing created beside it
