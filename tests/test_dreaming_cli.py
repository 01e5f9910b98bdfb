"""`memtui promote | promote-explain | rem-backfill | dream` end to end on a temp workspace."""

from __future__ import annotations

import json

import pytest
from dreaming_helpers import make_workspace, recall_backups

from memtui import cli

KEY = "memory:memory/2026-04-27.md:4:4"


@pytest.fixture
def run(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(cli, "COMMAND_MODULES", ("promote", "promote_explain", "rem_backfill", "dream"))
    ws = make_workspace(tmp_path / "ws")
    state = tmp_path / "state"
    state.mkdir()

    def invoke(*argv):
        code = cli.main([*argv, "--workspace", str(ws), "--state-dir", str(state)])
        out = capsys.readouterr()
        return code, out.out, out.err

    invoke.ws = ws
    return invoke


def test_promote_lists_applies_and_is_idempotent(run):
    recall_backups(run.ws)
    code, out, _ = run("promote", "--min-score", "0")
    assert code == 0
    assert "Promotion candidates (1):\n1. " in out and "memory/2026-04-27.md:4-4 signals=3" in out
    assert not (run.ws / "MEMORY.md").exists()

    code, out, _ = run("promote", "--min-score", "0", "--apply")
    assert code == 0 and "Promoted 1 candidate(s)" in out
    memory = (run.ws / "MEMORY.md").read_bytes()
    code, out, _ = run("promote", "--min-score", "0", "--apply", "--json")
    payload = json.loads(out)
    assert payload["candidates"] == [] and payload["applied"]["applied"] == 0
    assert (run.ws / "MEMORY.md").read_bytes() == memory


def test_promote_rejects_bad_numbers(run, capsys):
    with pytest.raises(SystemExit):
        run("promote", "--min-score", "2")
    assert "between 0 and 1" in capsys.readouterr().err


def test_promote_explain_by_key_range_and_path(run):
    recall_backups(run.ws)
    for selector in (KEY, "memory/2026-04-27.md:4-4", "memory/2026-04-27.md"):
        code, out, _ = run("promote-explain", selector, "--json")
        [candidate] = json.loads(out)["candidates"]
        assert candidate["key"] == KEY and candidate["signalCount"] == 3
        assert set(candidate["components"]) == {
            "frequency",
            "relevance",
            "diversity",
            "recency",
            "consolidation",
            "conceptual",
        }
    code, out, _ = run("promote-explain", KEY)
    assert "relevance     0.900 × 0.30 = 0.270" in out
    code, _, err = run("promote-explain", "memory/1999-01-01.md")
    assert code == 2 and "no short-term recall entry matches" in err


def test_rem_backfill_and_rollback(run):
    code, out, _ = run("rem-backfill", "--path", str(run.ws / "memory"), "--stage-short-term")
    assert code == 0 and "Staged 2 grounded" in out
    assert "backfill-entry day=2026-04-27" in (run.ws / "DREAMS.md").read_text()
    code, out, _ = run("rem-backfill", "--rollback", "--rollback-short-term", "--json")
    assert json.loads(out) == {
        "workspaceDir": str(run.ws),
        "rollback": True,
        "rollbackShortTerm": True,
        "dreamsPath": str(run.ws / "DREAMS.md"),
        "removedEntries": 1,
        "removedShortTermEntries": 1,
    }
    assert "backfill-entry" not in (run.ws / "DREAMS.md").read_text()
    code, _, err = run("rem-backfill", "--path", str(run.ws / "nope"))
    assert code == 2 and "does not exist" in err


def test_dream_runs_a_sweep(run):
    code, out, _ = run("dream", "--json", "--no-sessions")
    summary = json.loads(out)
    assert code == 0 and summary["light"]["dailySignals"] == 0  # the note is outside the 2-day lookback
    assert summary["written"]["light"] == [f"memory/dreaming/light/{summary['day']}.md"]
    assert summary["written"]["rem"] == [f"memory/dreaming/rem/{summary['day']}.md"]
    assert summary["diaryEntries"] == 0 and not (run.ws / "DREAMS.md").exists()  # nothing recent to dream of
