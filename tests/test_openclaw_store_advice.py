"""A writable `--store` on a database memtui did not create is refused with advice that works when followed:
`--read-only` for OpenClaw 2026.4's index (which memtui then reads), leaving out `--store` for OpenClaw 2026.9's
agent database (which memtui finds and reads itself; `--read-only` refuses it) and for another program's file."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest
from openclaw_2026_9_data import build_agent
from openclaw_memory_data import build_openclaw_index, build_root, write_config

from memtui.cli import main as cli_main


def _run(capsys: pytest.CaptureFixture, *argv: str) -> tuple[int, str, str]:
    code = cli_main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(autouse=True)
def _data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMTUI_DATA_DIR", str(tmp_path / "data"))


def test_a_2026_4_index_is_refused_writable_and_read_with_read_only(tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture) -> None:
    """OpenClaw's own 2026.4 index: `--read-only` reads it. A copy of it elsewhere records no workspace, so
    `--read-only` refuses it too and says to leave out `--store`, which works."""
    root = build_root(tmp_path)
    state = tmp_path / "state"
    write_config(root, state, "default")
    own = build_openclaw_index(state / "memory" / "main.sqlite")
    copy = tmp_path / "copy" / "main.sqlite"
    copy.parent.mkdir()
    shutil.copyfile(own, copy)
    common = ["--state-dir", str(state), "--provider", "none", "--profile", "openclaw"]
    for store in (own, copy):
        code, _, err = _run(capsys, "search", "with", "--store", str(store), *common)
        assert code == 2 and "open it with --read-only" in err, err
    code, out, err = _run(capsys, "search", "with", "--store", str(own), "--read-only", "--json", *common)
    assert code == 0 and json.loads(out)["results"], err
    code, _, err = _run(capsys, "search", "with", "--store", str(copy), "--read-only", "--json", *common)
    assert code == 2 and "leave out --store" in err and "without --read-only" not in err, err
    code, out, err = _run(capsys, "search", "with", "--json", *common)
    assert code == 0 and json.loads(out)["results"], err


def test_a_2026_9_agent_database_is_refused_with_advice_that_works(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture) -> None:
    agent = build_agent(tmp_path / "install")
    copy = tmp_path / "copy" / "openclaw-agent.sqlite"
    copy.parent.mkdir()
    shutil.copyfile(agent.agent_db, copy)
    common = ["--state-dir", str(agent.state), "--provider", "none"]
    for store in (agent.agent_db, copy):
        code, _, err = _run(capsys, "status", "--store", str(store), *common)
        assert code == 2 and "leave out --store" in err and "--read-only" not in err, err
    code, out, err = _run(capsys, "status", "--json", *common)  # the advice: memtui reads it itself
    assert code == 0 and json.loads(out)["openclaw"]["index"]["chunks"] == 82, err


def test_another_programs_database_is_not_sent_to_read_only(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    agent = build_agent(tmp_path / "install")
    other = tmp_path / "other.sqlite"
    conn = sqlite3.connect(other)
    conn.execute("CREATE TABLE orders (id INTEGER PRIMARY KEY)")
    conn.close()
    code, _, err = _run(capsys, "status", "--store", str(other), "--state-dir", str(agent.state), "--provider", "none")
    assert code == 2 and "another program's SQLite database" in err
    assert "--read-only" not in err and "leave out --store" in err
