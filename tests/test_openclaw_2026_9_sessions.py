"""Sessions of the real OpenClaw 2026.9.6 agent (`tests/data/openclaw-2026.9.6/sessions/`, recorded by
`benchmarks/openclaw_record/sessions_2026_9.py` against a scripted chat-completions server): memtui lists the
sessions the agent database holds (as `openclaw sessions --json` printed them), reads the transcripts in order,
extracts every memory_search / memory_get call with exactly the result the chat server shows the agent sent back,
reports 2026.9.6's flush thresholds in `memtui sessions --json`, and leaves the database byte-identical."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import sqlite3
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from openclaw_2026_9_data import build_agent

from memtui.agentdb.sessions import list_sessions, memory_tool_calls, read_transcript
from memtui.agentdb.sessions_budget import effective_reserve, flush_plan, session_budgets
from memtui.cli import main as cli_main

DATA = Path(__file__).parent / "data" / "openclaw-2026.9.6" / "sessions"
DB = DATA / "agent.sqlite"


@cache
def recorded(name: str) -> Any:
    return json.loads((DATA / f"{name}.json").read_text(encoding="utf-8"))


def _sql(query: str, *params: Any) -> list[tuple[Any, ...]]:
    con = sqlite3.connect(f"file:{DB}?mode=ro&immutable=1", uri=True)
    try:
        return con.execute(query, params).fetchall()
    finally:
        con.close()


def _placeholders() -> list[tuple[str, str]]:
    """The recorder's machine paths (the DB keeps them; the JSON files hold `<ws>`, …), from the session header."""
    sid = _sql("SELECT session_id FROM transcript_events WHERE seq = 0 LIMIT 1")[0][0]
    header = json.loads(_sql("SELECT event_json FROM transcript_events WHERE session_id = ? AND seq = 0", sid)[0][0])
    ws = Path(header["cwd"])
    scratch = ws.parent
    pairs = [(str(ws), "<ws>"), (str(scratch / "state"), "<state>"), (str(scratch / "home"), "<home>"),
             (str(scratch), "<scratch>")]
    return sorted(pairs, key=lambda pair: len(pair[0]), reverse=True)


def _apply(text: str) -> str:
    for path, token in _placeholders():
        text = text.replace(path, token)
    return text


def _message_text(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    return "".join(part.get("text", "") for part in content or [] if isinstance(part, dict))


def _replayed_id(call_id: str) -> str:
    """OpenClaw replays tool-call ids to a chat-completions provider with only [A-Za-z0-9] kept (call_1 → call1)."""
    return re.sub(r"[^A-Za-z0-9]", "", call_id)


def _chat_tool_exchanges() -> dict[str, dict[str, Any]]:
    """call id (as replayed) → {name, arguments, result} as the chat server saw them (assistant tool_calls and
    role tool messages of later requests)."""
    out: dict[str, dict[str, Any]] = {}
    for request in recorded("chat_requests")["requests"]:
        body = request.get("body")
        if not isinstance(body, dict):
            continue
        for message in body.get("messages") or []:
            for call in message.get("tool_calls") or []:
                fn = call.get("function") or {}
                out.setdefault(call["id"], {"name": fn.get("name"), "arguments": json.loads(fn.get("arguments")
                                                                                         or "{}")})
            if message.get("role") == "tool":
                out.setdefault(message["tool_call_id"], {})["result"] = _message_text(message)
    return out


# The sessions --------------------------------------------------------------------------------------------------

def test_the_recording_is_what_the_provenance_says() -> None:
    prov = recorded("provenance")
    assert prov["openclaw_version"] == "2026.9.6"
    assert hashlib.sha256(DB.read_bytes()).hexdigest() == prov["agent_db"]["sha256"]
    keys = {turn["session_key"] for turn in prov["turns"]}
    assert len(keys) >= 2 and prov["agent_db"]["session_windows"] >= 3
    assert sum(1 for turn in prov["turns"] if turn["exit"] == 0) >= 6


def test_sessions_match_the_database_and_openclaw_sessions_json() -> None:
    sessions = list_sessions(DB)
    windows = _sql("SELECT session_id, session_key FROM session_windows")
    assert sorted((s.session_id, s.key) for s in sessions) == sorted(windows)
    assert len(sessions) >= 3 and len({s.key for s in sessions}) >= 2
    events = dict(_sql("SELECT session_id, COUNT(*) FROM transcript_events GROUP BY session_id"))
    for session in sessions:
        assert session.events == events.get(session.session_id, 0)
        assert session.current
    printed = recorded("cli")["sessions"]["output"]["sessions"]
    by_key = {s.key: s for s in sessions}
    assert set(by_key) == {row["key"] for row in printed}
    for row in printed:
        s = by_key[row["key"]]
        assert (s.session_id, s.total_tokens, s.input_tokens, s.output_tokens, s.context_tokens, s.model,
                s.model_provider, s.total_tokens_fresh) == (
            row["sessionId"], row["totalTokens"], row.get("inputTokens"), row.get("outputTokens"),
            row.get("contextTokens"), row["model"], row["modelProvider"], row["totalTokensFresh"])
        assert s.updated_at_ms is not None and abs(s.updated_at_ms - row["updatedAt"]) < 60_000
    # newest first, like openclaw sessions
    assert [s.key for s in sessions] == [row["key"] for row in printed]


def test_transcripts_read_in_order_with_roles_tool_calls_and_results() -> None:
    turns = recorded("provenance")["turns"]
    assert _sql("SELECT COUNT(*) FROM transcript_events WHERE event_zstd IS NOT NULL")[0][0] > 0  # zstd frames too
    for session in list_sessions(DB):
        events = read_transcript(DB, session.session_id)
        assert [e.seq for e in events] == sorted(e.seq for e in events) and len(events) == session.events
        assert all(e.decode_error is None for e in events)
        assert events[0].type == "session" and events[0].raw["id"] == session.session_id
        sizes = dict(_sql("SELECT seq, event_utf8_bytes FROM transcript_events WHERE session_id = ?",
                          session.session_id))
        for event in events:
            assert len(json.dumps(event.raw, ensure_ascii=False, separators=(",", ":")).encode()) > 0
            assert event.utf8_bytes == sizes[event.seq]
        users = [e.text for e in events if e.role == "user"]
        asked = [t["message"] for t in turns if t["session_key"] == session.key and t["exit"] == 0]
        for message in asked:
            assert any(message in text for text in users), (session.key, message)
        for event in events:
            for call in event.tool_calls:
                assert event.role == "assistant" and call.id and call.name
            if event.tool_result is not None:
                assert event.role == "toolResult" and event.tool_result.tool_call_id
        answers = [e for e in events if e.role == "assistant" and e.text and not e.tool_calls]
        assert answers and all(e.usage for e in answers)


def test_memory_calls_equal_what_the_chat_server_log_shows() -> None:
    calls = memory_tool_calls(DB)
    chat = _chat_tool_exchanges()
    searches = [c for c in calls if c.tool == "memory_search"]
    gets = [c for c in calls if c.tool == "memory_get"]
    assert len(searches) >= 6 and len(gets) >= 2
    for call in calls:
        seen = chat[_replayed_id(call.call_id)]
        assert seen["name"] == call.tool and seen["arguments"] == call.arguments
        assert call.result_text is not None and call.result_seq is not None and call.result_seq > call.call_seq
        assert _apply(call.result_text) == seen["result"], call.call_id
        assert call.called_at and call.result_at and call.result_at >= call.called_at
    memory_ids = {cid for cid, seen in chat.items() if seen.get("name") in ("memory_search", "memory_get")
                  and "result" in seen}
    assert memory_ids == {_replayed_id(c.call_id) for c in calls}
    # the ids the scripted server issued are what the transcript keeps
    requests = recorded("chat_requests")["requests"]
    issued = {f"call_{i + 1}" for i, r in enumerate(requests) if "tool" in (r["reply"] or {})}
    assert {c.call_id for c in calls} <= issued
    # the arguments the scripted model sent, as typed fields
    by_query = {c.query: c for c in searches}
    burst = by_query["payments API burst limit"]
    assert (burst.max_results, burst.min_score) == (4, 0.2) and burst.hits
    assert burst.hits[0]["path"] == burst.result["results"][0]["path"]
    default = by_query["postgres version production"]
    assert (default.max_results, default.min_score) == (None, None)
    assert by_query["terraform state bucket"].min_score == 0
    assert by_query["CI runners"].corpus == "memory"
    get_top = next(c for c in gets if c.path == burst.hits[0]["path"])
    assert get_top.result["path"] == get_top.path and get_top.from_line == burst.hits[0]["startLine"]
    missing = next(c for c in gets if c.path == "memory/does-not-exist.md")
    assert missing.result is not None and missing.result != {} and not missing.hits


# 2026.9.6's numbers ---------------------------------------------------------------------------------------------

def test_flush_plan_follows_2026_9_6() -> None:
    plan = flush_plan(200_000)
    assert (plan.reserve_tokens, plan.soft_threshold_tokens, plan.compaction_threshold, plan.flush_threshold) == \
        (20_000, 4000, 180_000, 176_000)
    assert effective_reserve(64_000) == 16_000 and flush_plan(64_000).compaction_threshold == 48_000
    small = flush_plan(8000)  # reserve 2000 (a quarter), soft min(4000, floor(6000 / 2))
    assert (small.reserve_tokens, small.soft_threshold_tokens, small.compaction_threshold, small.flush_threshold) \
        == (2000, 3000, 6000, 3000)
    assert flush_plan(200_000, soft_threshold_tokens=0).flush_threshold == 180_000
    # OpenClaw's own pre-prompt budget for these sessions says the same: 200000 − 20000
    for session in list_sessions(DB):
        status = session.entry.get("contextBudgetStatus") or {}
        if status.get("contextTokenBudget") == 200_000:
            assert status["effectiveReserveTokens"] == flush_plan(200_000).reserve_tokens
            assert status["promptBudgetBeforeReserve"] == flush_plan(200_000).compaction_threshold


def test_the_flush_ran_where_the_budget_says_it_is_due() -> None:
    requests = recorded("chat_requests")["requests"]
    flushes = [i for i, r in enumerate(requests) if r["script"] == "Pre-compaction memory flush"]
    assert len(flushes) == 1
    turns = recorded("provenance")["turns"]
    turn = next(t for t in turns if t["requests"][0] <= flushes[0] < t["requests"][1])
    assert turn["session_key"] == "agent:main:incident"
    # the turn before it left 190000 prompt tokens (the scripted usage) against 200000 − 20000
    assert recorded("provenance")["chat_server"]["reported_prompt_tokens"] == {
        "Summarize the September 14 database failover.": 190_000}
    plan = flush_plan(200_000)
    assert plan.compaction_threshold <= 190_000
    budgets = {b.session.key: b for b in session_budgets(DB)}
    incident = budgets["agent:main:incident"]
    # then OpenClaw compacted: the flush belongs to cycle 0, the session is in cycle 1 and not due again
    assert (incident.session.memory_flush_compaction_count, incident.session.compaction_count) == (0, 1)
    compaction = next(e for e in read_transcript(DB, incident.session.session_id) if e.type == "compaction")
    assert compaction.raw["tokensBefore"] >= plan.compaction_threshold
    assert incident.flush_state == "ok" and incident.token_count < plan.flush_threshold
    for key, budget in budgets.items():
        assert budget.flush_state == "ok" and budget.token_count < budget.plan.flush_threshold, key
        if key != "agent:main:incident":
            assert budget.session.memory_flush_compaction_count is None and budget.session.compaction_count == 0


def test_memtui_sessions_json_for_the_2026_9_agent(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    agent = build_agent(tmp_path)
    shutil.copyfile(DB, agent.agent_db)
    code = cli_main(["sessions", "--state-dir", str(agent.state), "--provider", "none", "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    report = json.loads(out)
    assert report["generation"] == "2026.9" and report["database"] == str(agent.agent_db)
    assert report["memoryFlush"]["reserveTokensFloor"] == 20_000
    assert report["memoryFlush"]["softThresholdTokens"] == 4000
    assert report["memoryFlush"]["forceFlushTranscriptBytes"] == 2 * 1024 * 1024
    assert (report["bootstrap"]["maxChars"], report["bootstrap"]["totalMaxChars"],
            report["bootstrap"]["userMdMaxChars"]) == (20_000, 60_000, 4000)
    printed = recorded("cli")["sessions"]["output"]["sessions"]
    assert [s["key"] for s in report["sessions"]] == [row["key"] for row in printed]
    for row, mine in zip(printed, report["sessions"], strict=True):
        assert mine["sessionId"] == row["sessionId"] and mine["tokenCount"] == row["totalTokens"]
        assert (mine["contextWindow"], mine["compactionThreshold"], mine["flushThreshold"]) == \
            (200_000, 180_000, 176_000)
        assert mine["contextWindowSource"] == "session"
        assert mine["bootstrap"]["truncatedFiles"] == 0 and mine["bootstrap"]["bootstrapMaxChars"] == 20_000
        assert {f["name"] for f in mine["bootstrap"]["files"]} >= {"MEMORY.md", "USER.md"}
        assert mine["activeBytes"] > 0 and mine["events"] > 0
    assert {s["flushState"] for s in report["sessions"]} == {"ok"}
    incident = next(s for s in report["sessions"] if s["key"] == "agent:main:incident")
    assert (incident["compactionCount"], incident["memoryFlushCompactionCount"]) == (1, 0)
    code = cli_main(["sessions", "--state-dir", str(agent.state), "--provider", "none"])
    text, _ = capsys.readouterr()
    assert code == 0 and "reserveTokensFloor 20000" in text and "agent:main:incident" in text
    assert "176000" in text and "180000" in text


def test_reading_leaves_the_agent_database_byte_identical(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    agent = build_agent(tmp_path)
    shutil.copyfile(DB, agent.agent_db)
    before = agent.agent_db.read_bytes()
    folder = sorted(p.name for p in agent.agent_db.parent.iterdir())
    for session in list_sessions(agent.agent_db):
        read_transcript(agent.agent_db, session.session_id)
    memory_tool_calls(agent.agent_db)
    session_budgets(agent.agent_db)
    for argv in (["sessions", "--json"], ["sessions"], ["status", "--json"]):
        assert cli_main([*argv, "--state-dir", str(agent.state), "--provider", "none"]) == 0
        capsys.readouterr()
    assert agent.agent_db.read_bytes() == before == DB.read_bytes()
    assert sorted(p.name for p in agent.agent_db.parent.iterdir()) == folder  # no -wal / -shm / journal
