"""The sessions view's flush prediction against OpenClaw 2026.4.29's own `runMemoryFlushIfNeeded`, run in Node
over the same state dirs (`tests/data/openclaw-2026.4.29/context/flush.json`)."""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime
from pathlib import Path

import pytest
from openclaw_context_data import case_ids, fill_placeholders, recording, transcript_bytes

from memtui.context.sessions import session_reports
from memtui.settings.agent import resolve_agent

DATA = recording("flush")
CASES = DATA["cases"]
NOW = datetime.fromtimestamp(DATA["nowMs"] / 1000, UTC)


def _gate_tokens(case: dict) -> int:
    """The count OpenClaw's gate compared: the projection, else a persisted count not marked stale."""
    check, entry = case["result"]["check"], case["entry"]
    if check["tokenCount"] is not None:
        return check["tokenCount"]
    return entry.get("totalTokens", 0) if entry.get("totalTokensFresh") is not False else 0


def _report(tmp_path: Path, case: dict):
    state = tmp_path / "state"
    ws = tmp_path / "workspace"
    sessions = state / "agents" / "main" / "sessions"
    sessions.mkdir(parents=True)
    ws.mkdir()
    (state / "openclaw.json").write_text(json.dumps(fill_placeholders(case["config"], {"<ws>": str(ws)})))
    (sessions / "sessions.json").write_text(json.dumps({case["sessionKey"]: case["entry"]}))
    if "transcript" in case:
        data = transcript_bytes(case["transcript"])
        assert hashlib.sha256(data).hexdigest() == case["transcriptSha256"]
        (sessions / f"{case['entry']['sessionId']}.jsonl").write_bytes(data)
    report = session_reports(resolve_agent(state_dir=str(state), env={}), now=NOW, pending_prompt=case["prompt"])
    assert [s.key for s in report.sessions] == [case["sessionKey"]]
    return report.sessions[0]


@pytest.mark.parametrize("case", CASES, ids=case_ids(CASES))
def test_flush_decision_matches_openclaw(tmp_path: Path, case: dict) -> None:
    session = _report(tmp_path, case)
    result = case["result"]
    assert session.would_flush is result["flushed"]
    check = result["check"]
    if check is None:
        assert session.flush_rule == "memoryFlush.enabled"
        return
    assert (session.context_window, session.threshold) == (check["contextWindow"], check["threshold"])
    assert session.pending_prompt_tokens == (check["promptTokensEst"] or 0)
    assert session.token_count == _gate_tokens(case)
    assert session.usage_prompt_tokens == check["transcriptPromptTokens"]
    assert session.usage_output_tokens == check["transcriptOutputTokens"]


def _expected_rule(case: dict) -> str:
    """The rule that decided OpenClaw's outcome, read off the recorded check line and entry."""
    check, entry = case["result"]["check"], case["entry"]
    flushed_cycle = entry.get("memoryFlushCompactionCount") == entry.get("compactionCount", 0)
    over = check["threshold"] > 0 and _gate_tokens(case) >= check["threshold"]
    if not check["memoryFlushWritable"]:
        return "sandbox"
    if (over or check["forceFlushByTranscriptSize"]) and flushed_cycle:
        return "once-per-cycle"
    if over:
        return "token-gate"
    if check["forceFlushByTranscriptSize"]:
        return "transcript-size"
    return "token-gate-off" if check["threshold"] <= 0 else "below-threshold"


CHECKED = [c for c in CASES if c["result"]["check"]]


@pytest.mark.parametrize("case", CHECKED, ids=case_ids(CHECKED))
def test_each_session_names_the_rule_that_decided_it(tmp_path: Path, case: dict) -> None:
    session = _report(tmp_path, case)
    assert session.flush_rule == _expected_rule(case)
    assert session.to_json()["flushRule"] == session.flush_rule
