"""`memtui recalls`: the agent's own memory_search / memory_get calls (recorded OpenClaw 2026.9.6 sessions, and
2026.4 JSONL transcripts built in the documented format), and a search replayed against today's index: the same
list when nothing changed, new / dropped hits with their why-not when the index changed, nothing written."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from openclaw_2026_9_data import build_agent, snapshot

from memtui.agentdb.recalls import jsonl_memory_calls
from memtui.agentdb.sessions import memory_tool_calls
from memtui.cli import main as cli_main
from memtui.errors import MemtuiError
from memtui.manager import MemoryManager
from memtui.search import replay as replay_module
from memtui.search.replay import agent_recalls, compare, find_recall, iso_to_ms
from memtui.settings.agent import resolve_agent

SESSIONS_DB = Path(__file__).parent / "data" / "openclaw-2026.9.6" / "sessions" / "agent.sqlite"


@pytest.fixture
def agent(tmp_path: Path) -> Any:
    built = build_agent(tmp_path / "agent")
    shutil.copyfile(SESSIONS_DB, built.agent_db)
    return built


def _run(capsys: pytest.CaptureFixture, *argv: str) -> tuple[int, str, str]:
    code = cli_main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _json(capsys: pytest.CaptureFixture, state: Path, *argv: str) -> Any:
    code, out, err = _run(capsys, "recalls", "--state-dir", str(state), "--provider", "none", "--json", *argv)
    assert code == 0, err
    return json.loads(out)


def _env(state: Path) -> Any:
    return resolve_agent(state_dir=str(state), provider="none")


def replay(env: Any, recall: Any, **options: Any) -> Any:
    return replay_module.replay(env, recall, open_manager=MemoryManager, **options)


def _pin_to_call_time(monkeypatch: pytest.MonkeyPatch, called_at: str) -> int:
    """Decay measures age against the replay's clock: pinned to the recorded call, the ranking is the one the
    agent saw (the search itself ran between calledAt and resultAt, ≤ 2 s later: a decay difference ≤ 1e-6)."""
    at = iso_to_ms(called_at)
    assert at is not None
    monkeypatch.setattr(replay_module, "_now_ms", lambda: at)
    return at


# The listing -------------------------------------------------------------------------------------------------

def test_listing_is_every_recorded_call_newest_first(agent: Any, capsys: pytest.CaptureFixture) -> None:
    recorded = memory_tool_calls(SESSIONS_DB)
    assert [c.tool for c in recorded].count("memory_search") == 8
    assert [c.tool for c in recorded].count("memory_get") == 3
    listing = _json(capsys, agent.state)
    assert listing["generation"] == "2026.9" and listing["source"] == str(agent.agent_db)
    calls = listing["calls"]
    assert [c["index"] for c in calls] == list(range(1, 12))
    # newest first = the recorded (oldest-first) order reversed
    assert [(c["tool"], c["callId"], c["sessionKey"], c["arguments"]) for c in calls] == [
        (c.tool, c.call_id, c.session_key, c.arguments) for c in reversed(recorded)]
    assert [c["calledAt"] for c in calls] == sorted((c["calledAt"] for c in calls), reverse=True)
    for item, call in zip(calls, reversed(recorded), strict=True):
        if call.tool == "memory_search":
            assert item["query"] == call.query and item["hitCount"] == len(call.hits)
            assert item["hits"] == [{"path": h["path"], "startLine": h["startLine"], "endLine": h["endLine"],
                                     "score": h["score"]} for h in call.hits]
            assert (item["maxResults"], item["minScore"], item["corpus"]) == (call.max_results, call.min_score,
                                                                              call.corpus)
        else:
            assert item["path"] == call.path and item["get"]["status"] == call.result["status"]
    missing = next(c for c in calls if c.get("path") == "memory/does-not-exist.md")
    assert missing["get"]["status"] == "not_found"
    truncated = next(c for c in calls if c["tool"] == "memory_get" and c["path"] == "MEMORY.md")
    assert truncated["get"]["truncated"] and truncated["get"]["nextFrom"] == 7


def test_listing_by_session_and_human_output(agent: Any, capsys: pytest.CaptureFixture) -> None:
    ops = _json(capsys, agent.state, "--session", "agent:main:ops")["calls"]
    assert [c["tool"] for c in ops] == ["memory_search", "memory_get", "memory_search"]
    assert {c["sessionKey"] for c in ops} == {"agent:main:ops"}
    by_id = _json(capsys, agent.state, "--session", ops[0]["sessionId"][:8])["calls"]
    assert by_id == ops  # a session id prefix selects the same calls, numbered as in the full listing
    code, out, err = _run(capsys, "recalls", "--state-dir", str(agent.state), "--provider", "none")
    assert code == 0, err
    assert "11 memory calls (8 memory_search, 3 memory_get), newest first" in out
    assert "search 'payments API burst limit' · maxResults 4 · minScore 0.2" in out
    assert "→ 1 hit: 0.801 memory/2026-11-24.md:1-4" in out
    assert "get memory/does-not-exist.md" in out and "→ not found (no such file)" in out
    assert out.index("agent:main:incident") < out.index("agent:main:ops")


# Replays on OpenClaw's own index -----------------------------------------------------------------------------

def test_replay_reproduces_every_recorded_search(agent: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    env = _env(agent.state)
    searches = [r for r in agent_recalls(env) if r.tool == "memory_search"]
    assert len(searches) == 8
    for recall in searches:
        at = _pin_to_call_time(monkeypatch, recall.call.called_at)
        result = replay(env, recall, profile="openclaw")
        assert result.index == "agent-db" and result.mode == "keyword-only" and result.now_ms == at
        assert result.same, recall.call.query
        assert [(h["path"], h["startLine"], h["endLine"]) for h in result.now] == [
            (h["path"], h["startLine"], h["endLine"]) for h in recall.call.hits]
        for now, then in zip(result.now, recall.call.hits, strict=True):
            assert now["score"] == pytest.approx(then["score"], rel=1e-5, abs=1e-9)
        assert result.of("new") == [] and result.of("dropped") == []
        assert all(r.rank_then == r.rank_now for r in result.of("kept"))


def _change_agent_index(db: Path) -> None:
    """What OpenClaw's next sync would leave after three edits: the Friday runbook says less, two new daily notes
    speak of deploying on Fridays, and the Postgres fact in MEMORY.md is gone (triggers keep the FTS tables)."""
    con = sqlite3.connect(db)
    try:
        con.execute("UPDATE memory_index_chunks SET text = '# Payments runbook\n\nAsk the on-call engineer first.' "
                    "WHERE path = 'memory/runbooks/payments-deploy.md'")
        model = con.execute("SELECT model FROM memory_index_chunks LIMIT 1").fetchone()[0]
        for day, text in (("2026-12-01", "- Deploy on Friday: the freeze moves to 16:00 CET."),
                          ("2026-12-02", "- Deploy on Friday is allowed again for the payments service.")):
            con.execute("INSERT INTO memory_index_chunks (id, path, source, start_line, end_line, hash, model, "
                        "text, embedding, updated_at) VALUES (?, ?, 'memory', 1, 3, 'h', ?, ?, X'', 0)",
                        (f"new-{day}", f"memory/{day}.md", model, f"# {day}\n\n{text}"))
        con.execute("DELETE FROM memory_index_chunks WHERE path = 'MEMORY.md' AND start_line = 11")
        con.commit()
    finally:
        con.close()


def test_replay_after_the_index_changed_shows_new_and_dropped(agent: Any, capsys: pytest.CaptureFixture) -> None:
    _change_agent_index(agent.agent_db)
    env = _env(agent.state)
    friday = next(r for r in agent_recalls(env) if r.call.query == "deploy on friday")
    at = iso_to_ms(friday.call.called_at)
    result = replay(env, friday, profile="openclaw", now_ms=at)
    assert not result.same
    [kept] = result.of("kept")
    assert (kept.path, kept.start_line, kept.rank_then) == ("MEMORY.md", 5, 1)
    assert {r.path for r in result.of("new")} == {"memory/2026-12-01.md", "memory/2026-12-02.md"}
    assert all(r.rank_now is not None and r.rank_then is None for r in result.of("new"))
    [dropped] = result.of("dropped")
    assert dropped.path == "memory/runbooks/payments-deploy.md" and dropped.rank_then == 2
    why = dropped.why_not
    assert why is not None and why["stillIndexed"] is True and why["stage"] == "cut-by-max-results"
    assert why["rank"] == 4 and why["candidates"] >= 4 and why["score"] < result.of("new")[-1].score_now
    assert why["headline"].startswith("still indexed; #4 of ") and "cut by maxResults 3" in why["headline"]
    # a chunk gone from the index is named as such
    postgres = next(r for r in agent_recalls(env) if r.call.query == "postgres version production")
    gone = replay(env, postgres, now_ms=iso_to_ms(postgres.call.called_at))
    [lost] = gone.of("dropped")
    assert (lost.path, lost.start_line) == ("MEMORY.md", 11)
    assert lost.why_not["stillIndexed"] is False and lost.why_not["stage"] == "rechunked"
    assert "no longer a chunk" in lost.why_not["headline"]
    # the same on the command line, by number and by call id, human and JSON
    code, out, err = _run(capsys, "recalls", "--state-dir", str(agent.state), "--provider", "none", "--replay",
                          str(friday.index), "--at-call-time")
    assert code == 0, err
    assert "profile openclaw · OpenClaw 2026.9's own index" in out
    assert "memory/2026-12-02.md:1-3" in out and "why not: still indexed; #4 of" in out
    assert "1 kept · 2 new · 1 dropped" in out
    value = _json(capsys, agent.state, "--replay", friday.call.call_id, "--at-call-time")
    assert value["nowMs"] == at and [d["path"] for d in value["dropped"]] == ["memory/runbooks/payments-deploy.md"]


def test_replay_json_shape(agent: Any, capsys: pytest.CaptureFixture) -> None:
    burst = next(r for r in agent_recalls(_env(agent.state)) if r.call.query == "payments API burst limit")
    value = _json(capsys, agent.state, "--replay", str(burst.index), "--at-call-time")
    assert set(value) == {"call", "profile", "index", "location", "mode", "nowMs", "maxResults", "minScore", "same",
                          "then", "now", "kept", "new", "dropped", "notes"}
    assert (value["profile"], value["index"], value["mode"]) == ("openclaw", "agent-db", "keyword-only")
    assert (value["maxResults"], value["minScore"], value["same"]) == (4, 0.2, True)
    assert value["call"]["query"] == "payments API burst limit" and value["call"]["index"] == burst.index
    [kept] = value["kept"]
    assert set(kept) == {"status", "path", "startLine", "endLine", "rankThen", "rankNow", "scoreThen", "scoreNow"}
    assert (kept["rankThen"], kept["rankNow"]) == (1, 1)
    assert value["then"][0] == {"path": "memory/2026-11-24.md", "startLine": 1, "endLine": 4,
                                "score": value["call"]["hits"][0]["score"]}


def test_unknown_calls_are_refused(agent: Any) -> None:
    env = _env(agent.state)
    get = next(r for r in agent_recalls(env) if r.tool == "memory_get")
    with pytest.raises(MemtuiError, match="replay_get reads a memory_get again"):
        replay(env, get)
    with pytest.raises(MemtuiError, match="no memory call #99"):
        find_recall(env, "99")
    with pytest.raises(MemtuiError, match="no memory call has the id"):
        find_recall(env, "call_nope")
    assert find_recall(env, get.call.call_id).index == get.index


def test_a_memory_get_is_read_again_then_against_now(agent: Any, capsys: pytest.CaptureFixture) -> None:
    """What the agent read then, what the same read gives now: the same text, then a diff after an edit, then
    nothing once the file is gone."""
    env = _env(agent.state)
    get = next(r for r in agent_recalls(env) if r.tool == "memory_get" and r.call.path == "MEMORY.md")
    args = ("recalls", "--state-dir", str(agent.state), "--provider", "none", "--replay", str(get.index))
    same = _json(capsys, agent.state, "--replay", str(get.index))
    assert same["status"] == "same" and same["thenText"] == same["now"]["text"] and same["thenText"]
    memory = agent.workspace / "MEMORY.md"
    first = same["thenText"].split("\n")[0]
    memory.write_text(memory.read_text(encoding="utf-8").replace(first, first + " (edited)", 1), encoding="utf-8")
    code, out, _err = _run(capsys, *args)
    assert code == 0 and f"-{first}" in out and f"+{first} (edited)" in out
    memory.unlink()
    assert _json(capsys, agent.state, "--replay", str(get.index))["status"] == "gone"


# Replays on memtui's index -----------------------------------------------------------------------------------

def test_replay_on_memtuis_index_after_a_file_changed(agent: Any) -> None:
    env = _env(agent.state)
    friday = next(r for r in agent_recalls(env) if r.call.query == "deploy on friday")
    before = replay(env, friday, profile="memtui")
    assert before.index == "memtui" and not before.of("dropped")
    assert {r.path for r in before.of("kept")} == {"MEMORY.md", "memory/runbooks/payments-deploy.md"}
    runbook = agent.workspace / "memory" / "runbooks" / "payments-deploy.md"
    runbook.write_text("# Payments runbook\n\nAsk the on-call engineer first.\n", encoding="utf-8")
    (agent.workspace / "memory" / "2026-12-02.md").write_text(
        "# 2026-12-02\n\n- Deploy on Friday is allowed again for the payments service.\n", encoding="utf-8")
    after = replay(_env(agent.state), friday, profile="memtui")
    assert "memory/2026-12-02.md" in {r.path for r in after.of("new")}
    [dropped] = after.of("dropped")
    assert dropped.path == "memory/runbooks/payments-deploy.md"
    why = dropped.why_not
    assert why is not None and why["stage"] in ("not-a-candidate", "below-min-score", "cut-by-max-results")
    assert why["reasons"] and why["headline"]  # why_not.explain_chunk's own words


def test_nothing_is_written_in_the_state_dir_or_workspace(agent: Any, capsys: pytest.CaptureFixture) -> None:
    before = snapshot(agent.state, agent.workspace)
    base = ("recalls", "--state-dir", str(agent.state), "--provider", "none")
    for extra in ((), ("--json",), ("--replay", "1"), ("--replay", "3", "--json"), ("--replay", "8", "--at-call-time"),
                  ("--replay", "8", "--profile", "memtui"), ("--replay", "6", "--profile", "openclaw-2026.4")):
        code, _out, err = _run(capsys, *base, *extra)
        assert code == 0, (extra, err)
    assert snapshot(agent.state, agent.workspace) == before
    assert agent.agent_db.read_bytes() == SESSIONS_DB.read_bytes()


# 2026.4 JSONL transcripts ------------------------------------------------------------------------------------

def _line(record: dict[str, Any]) -> str:
    return json.dumps(record, separators=(",", ":")) + "\n"


def _call(entry_id: str, at: str, call_id: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"type": "message", "id": entry_id, "parentId": None, "timestamp": at,
            "message": {"role": "assistant", "content": [
                {"type": "thinking", "thinking": "look it up"},
                {"type": "toolCall", "id": call_id, "name": name, "arguments": arguments}],
                "stopReason": "toolUse", "timestamp": 0}}


def _result(entry_id: str, at: str, call_id: str, name: str, payload: Any, *, error: bool = False) -> dict[str, Any]:
    text = payload if isinstance(payload, str) else json.dumps(payload, indent=2)
    return {"type": "message", "id": entry_id, "parentId": None, "timestamp": at,
            "message": {"role": "toolResult", "toolCallId": call_id, "toolName": name,
                        "content": [{"type": "text", "text": text}], "isError": error, "timestamp": 0}}


def _state_2026_4(tmp: Path) -> Path:
    state = tmp / "state"
    sessions = state / "agents" / "main" / "sessions"
    sessions.mkdir(parents=True)
    workspace = tmp / "ws"
    (workspace / "memory").mkdir(parents=True)
    (workspace / "MEMORY.md").write_text("# Memory\n\n- The payments API burst limit is 500 per minute.\n")
    (workspace / "memory" / "2026-04-20.md").write_text("# 2026-04-20\n\n- Deploys freeze on Fridays after 15:00.\n")
    config = {"agents": {"defaults": {"workspace": str(workspace)}}}
    (state / "openclaw.json").write_text(json.dumps(config))
    (sessions / "sessions.json").write_text(json.dumps({
        "agent:main:main": {"sessionId": "s-main", "updatedAt": 1},
        "agent:main:ops": {"sessionId": "s-ops", "sessionFile": "ops-transcript.jsonl", "updatedAt": 2}}))
    header = {"type": "session", "version": 3, "id": "s-main", "timestamp": "2026-04-21T09:00:00Z", "cwd": "/w"}
    hit = {"path": "MEMORY.md", "startLine": 1, "endLine": 3, "score": 0.72, "snippet": "burst limit",
           "source": "memory"}
    (sessions / "s-main.jsonl").write_text("".join([
        _line(header),
        _line({"type": "message", "id": "u1", "parentId": None, "timestamp": "2026-04-21T09:00:01Z",
               "message": {"role": "user", "content": "What is the burst limit?", "timestamp": 0}}),
        _line(_call("a1", "2026-04-21T09:00:02Z", "toolu_1", "memory_search",
                    {"query": "payments burst limit", "maxResults": 3, "minScore": 0.1})),
        _line(_result("r1", "2026-04-21T09:00:03Z", "toolu_1", "memory_search",
                      {"results": [hit], "provider": "none", "citations": "auto"})),
        _line(_call("a2", "2026-04-21T09:00:04Z", "toolu_2", "memory_get", {"path": "MEMORY.md", "from": 3,
                                                                           "lines": 1})),
        _line(_result("r2", "2026-04-21T09:00:05Z", "toolu_2", "memory_get",
                      {"path": "MEMORY.md", "text": "- The payments API burst limit is 500 per minute."})),
        "this line is not JSON\n",
        _line(_call("a3", "2026-04-21T09:00:06Z", "toolu_3", "exec", {"command": "ls"})),
        _line(_call("a4", "2026-04-21T09:00:07Z", "toolu_4", "memory_search", {"query": "friday deploys"})),
    ]))
    ops_header = dict(header, id="s-ops", timestamp="2026-04-22T09:00:00Z")
    (sessions / "ops-transcript.jsonl").write_text("".join([
        _line(ops_header),
        _line(_call("b1", "2026-04-22T10:00:00Z", "toolu_5", "memory_get", {"path": "../secrets.md"})),
        _line(_result("b2", "2026-04-22T10:00:01Z", "toolu_5", "memory_get", "path escapes the workspace",
                      error=True)),
    ]))
    archived = dict(header, id="s-old", timestamp="2026-04-01T09:00:00Z")
    (sessions / "s-old.jsonl.reset.2026-04-02T10-00-00.000Z").write_text("".join([
        _line(archived),
        _line(_call("c1", "2026-04-01T09:30:00Z", "toolu_6", "memory_search", {"query": "friday freeze"})),
        _line(_result("c2", "2026-04-01T09:30:01Z", "toolu_6", "memory_search", {"results": []})),
    ]))
    (sessions / "s-main.trajectory.jsonl").write_text(_line(_call("t", "2026-04-23T00:00:00Z", "x",
                                                                  "memory_search", {"query": "skip me"})))
    return state


def test_jsonl_transcripts_of_a_2026_4_agent(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    state = _state_2026_4(tmp_path)
    sessions = state / "agents" / "main" / "sessions"
    main_calls = jsonl_memory_calls(sessions / "s-main.jsonl", "agent:main:main")
    assert [(c.tool, c.call_id, c.call_seq, c.result_seq) for c in main_calls] == [
        ("memory_search", "toolu_1", 3, 4), ("memory_get", "toolu_2", 5, 6), ("memory_search", "toolu_4", 9, None)]
    assert main_calls[0].session_id == "s-main" and main_calls[0].hits[0]["path"] == "MEMORY.md"
    assert (main_calls[0].max_results, main_calls[0].min_score) == (3, 0.1)
    value = _json(capsys, state)
    assert value["generation"] != "2026.9" and value["source"] == str(sessions)
    calls = value["calls"]
    assert [(c["callId"], c["sessionKey"]) for c in calls] == [
        ("toolu_5", "agent:main:ops"), ("toolu_4", "agent:main:main"), ("toolu_2", "agent:main:main"),
        ("toolu_1", "agent:main:main"), ("toolu_6", None)]
    escape, pending, get, search, archived = calls
    assert escape["isError"] and escape["get"]["status"] == "error"
    assert escape["get"]["error"] == "path escapes the workspace"
    assert pending["hitCount"] == 0 and pending["resultAt"] is None
    assert get["get"]["status"] == "ok" and (get["from"], get["lines"]) == (3, 1)
    assert search["hits"] == [{"path": "MEMORY.md", "startLine": 1, "endLine": 3, "score": 0.72}]
    assert archived["sessionId"] == "s-old" and archived["source"].endswith(".reset.2026-04-02T10-00-00.000Z")
    code, out, err = _run(capsys, "recalls", "--state-dir", str(state), "--provider", "none")
    assert code == 0, err
    assert f"transcripts in {sessions}" in out and "no result recorded" in out
    assert "error: path escapes the workspace" in out or "→ error: path escapes the workspace" in out
    # a replay on the 2026.4 agent ranks memtui's index (profile openclaw: the 2026.4 rules)
    before = snapshot(state, tmp_path / "ws")
    value = _json(capsys, state, "--replay", "toolu_1")
    assert value["index"] == "memtui" and value["profile"] == "openclaw"
    assert [k["path"] for k in value["kept"]] == ["MEMORY.md"]
    assert snapshot(state, tmp_path / "ws") == before


def test_compare_pairs_rechunked_hits() -> None:
    then = [{"path": "a.md", "startLine": 5, "endLine": 5, "score": 1.0},
            {"path": "b.md", "startLine": 1, "endLine": 4, "score": 0.5}]
    now = [{"path": "c.md", "startLine": 1, "endLine": 2, "score": 0.9},
           {"path": "a.md", "startLine": 1, "endLine": 9, "score": 0.8}]
    rows = compare(then, now)
    assert [(r.status, r.path, r.rank_then, r.rank_now, r.now_lines) for r in rows] == [
        ("kept", "a.md", 1, 2, (1, 9)), ("new", "c.md", None, 1, None), ("dropped", "b.md", 2, None, None)]
