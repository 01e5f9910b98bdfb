"""memtui's own index of an OpenClaw 2026.9 agent (the `memtui` profile, `memtui search --json`, the MCP
`memory_search`) gives each hit what 2026.9.6's `memory_search` gives it: `importance`, `triggers` and `projectKey`
when set and `provenance` always, in 2026.9.6's key order, with the values OpenClaw's own agent database holds for
the same chunk; an annotation edited is seen after a sync, and an index built before it is rebuilt."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from hashed_provider import HashedProvider
from openclaw_2026_9_data import RECORDING, Agent2026_9, build_agent, recording

from memtui.cli import main as cli_main
from memtui.index.store.schema import META_KEY, RECALL
from memtui.manager import MemoryManager
from memtui.settings.agent import AgentEnv, resolve_agent

QUERIES = list(dict.fromkeys(search["query"] for search in recording("search")["searches"]))
RECALLED = ("importance", "triggers", "projectKey", "provenance")


def openclaw_rows(db: Path) -> dict[tuple[str, int, int], dict[str, Any]]:
    """(path, start, end) → what 2026.9.6 attaches to a hit of that chunk, read from its agent database."""
    conn = sqlite3.connect(f"{db.absolute().as_uri()}?mode=ro", uri=True)
    try:
        rows = conn.execute(
            "SELECT c.path, c.start_line, c.end_line, m.importance, m.triggers, m.project_key, p.origin_class, "
            "p.session_kind, p.observed_at FROM memory_index_chunks c LEFT JOIN memory_index_chunk_recall_metadata m "
            "ON m.chunk_id = c.id JOIN memory_index_chunk_provenance p ON p.chunk_id = c.id").fetchall()
    finally:
        conn.close()
    found = {}
    for path, start, end, importance, triggers, project, origin, kind, observed in rows:
        fields: dict[str, Any] = {"importance": importance, "triggers": triggers, "projectKey": project}
        fields = {key: value for key, value in fields.items() if value is not None}
        fields["provenance"] = {"originClass": origin, "sessionKind": kind, "observedAt": observed}
        found[(path, start, end)] = fields
    return found


def hit_keys(hit: dict[str, Any]) -> list[str]:
    """A hit's keys without what the tool adds (`corpus`, `citation`)."""
    return [key for key in hit if key not in ("corpus", "citation")]


def expected_keys(fields: dict[str, Any], hybrid: bool) -> list[str]:
    """2026.9.6's `memory search --json` keys of a hit carrying `fields`."""
    return ["path", "startLine", "endLine", "score", *(["vectorScore"] if hybrid else []), "textScore", "snippet",
            "source", *fields]


@pytest.fixture
def agent(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Agent2026_9:
    """The recorded 2026.9.6 agent, memtui's data folder and HOME in `tmp_path`."""
    monkeypatch.setenv("MEMTUI_DATA_DIR", str(tmp_path / "memtui-data"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    return build_agent(tmp_path / "install")


def env_of(agent: Agent2026_9, **overrides: Any) -> AgentEnv:
    """The agent's environment, keyword-only."""
    return resolve_agent(state_dir=str(agent.state), provider="none", **overrides)


def searched(manager: MemoryManager) -> list[dict[str, Any]]:
    """Every hit of every recorded query, a wide net (up to 20 hits, no score floor)."""
    return [hit for query in QUERIES for hit in manager.memory_search(query, max_results=20, min_score=0,
                                                                     profile="memtui")["results"]]


@pytest.mark.parametrize("provider", [None, HashedProvider()], ids=["keyword-only", "hybrid"])
def test_hits_carry_what_openclaw_keeps_for_the_same_chunk(agent: Agent2026_9, provider: Any) -> None:
    expected = openclaw_rows(agent.agent_db)
    with MemoryManager(env_of(agent), provider=provider) as manager:
        manager.sync()
        hits = searched(manager)
    assert len({(h["path"], h["startLine"], h["endLine"]) for h in hits}) >= 40
    for hit in hits:
        fields = expected[(hit["path"], hit["startLine"], hit["endLine"])]
        assert {key: hit[key] for key in RECALLED if key in hit} == fields, hit["path"]
        assert hit_keys(hit) == expected_keys(fields, provider is not None)
        assert hit["corpus"] == "memory" and list(hit)[-2:] == ["corpus", "citation"]
    for key in RECALLED:
        assert any(key in hit for hit in hits), key
    assert any(h["provenance"]["observedAt"] != hits[0]["provenance"]["observedAt"] for h in hits)


def test_the_hit_shape_is_the_recorded_one(agent: Agent2026_9, capsys: pytest.CaptureFixture) -> None:
    """For each chunk both lists hold, `memtui search --json` has the keys of the recorded 2026.9.6 hit, in its order,
    and the same recall fields."""
    recorded = {(h["path"], h["startLine"], h["endLine"]): h for search in recording("search")["searches"]
                for h in search["output"]["results"]}
    args = ["--state-dir", str(agent.state), "--provider", "none"]
    assert cli_main(["index", *args]) == 0
    compared = 0
    for query in ("what is the payments API burst limit?", "payments deploy friday", "who owns payments",
                  "timezone", "Neovim"):
        capsys.readouterr()
        assert cli_main(["search", query, "--json", *args]) == 0
        for hit in json.loads(capsys.readouterr().out)["results"]:
            theirs = recorded.get((hit["path"], hit["startLine"], hit["endLine"]))
            if theirs is not None:
                compared += 1
                assert hit_keys(hit) == list(theirs)
                assert {k: hit[k] for k in RECALLED if k in hit} == {k: theirs[k] for k in RECALLED if k in theirs}
    assert compared >= 8


def recorded_searches() -> list[tuple[dict[str, Any], list[dict[str, Any]]]]:
    """(arguments, results) of each `memory_search` the real 2026.9.6 agent ran in the recorded sessions."""
    requests = json.loads((RECORDING / "sessions" / "chat_requests.json").read_text(encoding="utf-8"))["requests"]
    arguments: dict[str, dict[str, Any]] = {}
    results: dict[str, list[dict[str, Any]]] = {}
    for message in (message for request in requests for message in request["body"]["messages"]):
        for call in message.get("tool_calls") or ():
            if call["function"]["name"] == "memory_search":
                arguments[call["id"]] = json.loads(call["function"]["arguments"])
        if message.get("role") == "tool" and '"results"' in message["content"]:
            results[message["tool_call_id"].replace("_", "")] = json.loads(message["content"])["results"]
    return [(arguments[call], results[call]) for call in arguments if results.get(call)]


@pytest.mark.parametrize("profile", ["memtui", "openclaw"])
def test_the_tool_adds_corpus_then_the_citation(agent: Agent2026_9, profile: str) -> None:
    """The tool's hits as the recorded agent received them: `corpus`, then `citation`, the snippet trimmed at its
    end only before `Source:` (from memtui's index, and from OpenClaw's agent database)."""
    calls = recorded_searches()
    compared = 0
    with MemoryManager(env_of(agent)) as manager:
        manager.sync()
        for arguments, theirs in calls:
            mine = manager.memory_search(arguments["query"], max_results=arguments.get("maxResults"),
                                         min_score=arguments.get("minScore"), profile=profile)["results"]
            recorded = {(h["path"], h["startLine"], h["endLine"]): h for h in theirs}
            for hit in mine:
                if (expected := recorded.get((hit["path"], hit["startLine"], hit["endLine"]))) is not None:
                    compared += 1
                    assert list(hit) == list(expected)
                    assert {k: v for k, v in hit.items() if "Score" not in k and k != "score"} == \
                        {k: v for k, v in expected.items() if "Score" not in k and k != "score"}
    assert len(calls) >= 8 and compared >= len(calls)


def test_an_edited_annotation_is_seen_after_a_sync(agent: Agent2026_9) -> None:
    memory = agent.workspace / "MEMORY.md"
    text = memory.read_text(encoding="utf-8")
    assert "Friday freeze" in text and "<!-- importance: 9 -->" in text
    with MemoryManager(env_of(agent)) as manager:
        manager.sync()

        def freeze_hit() -> dict[str, Any]:
            hits = manager.memory_search("Friday freeze", profile="memtui")["results"]
            return next(h for h in hits if "Friday freeze" in h["snippet"])

        before = freeze_hit()
        assert (before["importance"], before["triggers"]) == (9, "deploy on friday; friday deploy")
        memory.write_text(text.replace("<!-- importance: 9 -->", "<!-- importance: 4 --> <!-- project: Acme/Pay -->")
                          .replace("deploy on friday, friday deploy", "freeze"), encoding="utf-8")
        assert manager.sync().files_changed == 1
        after = freeze_hit()
        assert (after["startLine"], after["snippet"]) == (before["startLine"], before["snippet"])  # the same chunk
        assert (after["importance"], after["triggers"], after["projectKey"]) == (4, "freeze", "acme/Pay")
        assert after["provenance"]["observedAt"] == int(memory.stat().st_mtime_ns // 1_000_000)
        memory.write_text(text.replace(" <!-- importance: 9 --> <!-- trigger: deploy on friday, friday deploy -->",
                                       ""), encoding="utf-8")
        manager.sync()
        assert [k for k in RECALLED if k in freeze_hit()] == ["provenance"]
        rows = manager.store.conn.execute(f"SELECT COUNT(*) FROM {RECALL}").fetchone()[0]
        assert rows == sum(1 for fields in openclaw_rows(agent.agent_db).values() if len(fields) > 1) - 1


def test_an_index_built_before_the_recall_table_is_rebuilt(agent: Agent2026_9) -> None:
    """An index of memtui before this change: chunked by version 5, its meta without `provenanceVersion`, no
    recall table. Read-only it answers with provenance only; the next sync rebuilds it."""
    env = env_of(agent)
    with MemoryManager(env) as manager:
        manager.sync()
    conn = sqlite3.connect(env.store_path)
    meta = json.loads(conn.execute("SELECT value FROM meta WHERE key = ?", (META_KEY,)).fetchone()[0])
    del meta["provenanceVersion"]
    with conn:
        conn.execute("UPDATE meta SET value = ? WHERE key = ?", (json.dumps(meta, separators=(",", ":")), META_KEY))
        conn.execute(f"DROP TABLE {RECALL}")
    conn.close()
    with MemoryManager(env_of(agent, read_only=True)) as reader:
        hit = reader.memory_search("Friday freeze", profile="memtui")["results"][0]
        assert "importance" not in hit and hit["provenance"]["originClass"] == "agent"
    with MemoryManager(env) as manager:
        assert "provenanceVersion" in (manager.index_mismatch() or "")
        manager.sync()
        assert manager.index_mismatch() is None and manager.store.read_meta()["provenanceVersion"] == 1
        hit = manager.memory_search("Friday freeze", profile="memtui")["results"][0]
        assert hit["importance"] == 9


def test_other_hits_keep_their_shape(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A plain folder (2026.4 rules): the 2026.4 keys, `id` first, no provenance; its meta has no
    `provenanceVersion`; sessions and extra paths would be `untrusted`, the dreaming files `system`."""
    from memtui.index.recall import origin_class

    monkeypatch.setenv("MEMTUI_DATA_DIR", str(tmp_path / "memtui-data"))
    workspace = tmp_path / "ws"
    (workspace / "memory").mkdir(parents=True)
    (workspace / "MEMORY.md").write_text("- Deploys freeze on Friday. <!-- importance: 9 -->\n", encoding="utf-8")
    env = resolve_agent(state_dir=str(tmp_path / "state"), workspace=str(workspace), provider="none")
    with MemoryManager(env) as manager:
        manager.sync()
        hit = manager.memory_search("deploys freeze", profile="memtui")["results"][0]
        assert "provenanceVersion" not in manager.store.read_meta()
    assert list(hit) == ["id", "path", "startLine", "endLine", "score", "textScore", "snippet", "source", "citation",
                         "corpus"]
    assert [origin_class(path, source) for path, source in (
        ("USER.md", "memory"), ("users/ana/USER.md", "memory"), ("memory/a/b.md", "memory"),
        ("DREAMS.md", "memory"), ("memory/.dreams/x.md", "memory"), ("memory/dreaming/x.md", "memory"),
        ("../notes/x.md", "memory"), ("notes/x.md", "memory"), ("sessions/a.jsonl", "sessions"))] == [
        "agent", "agent", "agent", "system", "system", "system", "untrusted", "untrusted", "untrusted"]
