"""Traces you can trust (issue 27, after the audit): `--why` of a path OpenClaw's index does not hold says so, a
replayed memory_get tells not found from found and takes a plain-text result as what the agent got, a hit whose
file was deleted says so, `health` labels the index time truly and reports a touched file, and the profile and
the file counts are named as what they are."""

from __future__ import annotations

import contextlib
import io
import json
import os
from pathlib import Path
from typing import Any

import pytest
from openclaw_2026_9_data import build_agent
from test_recalls import _call, _line, _result, _state_2026_4, agent

import memtui.cli

__all__ = ["agent"]  # the recorded 2026.9 agent with its sessions, shared with test_recalls


def _cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = memtui.cli.main(list(argv))
        except SystemExit as exc:
            code = int(exc.code or 0)
    return code, out.getvalue(), err.getvalue()


def test_why_of_a_path_openclaws_index_does_not_hold_says_so(tmp_path: Path) -> None:
    state = str(build_agent(tmp_path).state)
    base = ("search", "deploy", "--state-dir", state, "--provider", "none", "--profile", "openclaw")
    code, out, err = _cli(*base, "--why", "memory/nope.md:3")
    assert code == 2 and "not among the 200" not in out
    assert err.strip() == ("memtui: error: memory/nope.md is not in OpenClaw's index (the agent database): no such "
                           "file is indexed; check the path (a new file is indexed at OpenClaw's next sync)")
    code, _out, err = _cli(*base, "--why", "memory/runbooks/payments-deploy.md:300")
    assert code == 2 and "has no chunk at line 300 in OpenClaw's index; indexed lines are 1-7" in err
    code, out, _err = _cli(*base[:1], "zebra", *base[2:], "--why", "memory/runbooks/payments-deploy.md:3")
    assert code == 0 and "is not among the 200 chunks 2026.9.6 ranks for this query" in out


def _replay(state: Path, ref: str, *extra: str) -> tuple[str, dict[str, Any]]:
    base = ("recalls", "--state-dir", str(state), "--provider", "none", "--replay", ref, *extra)
    code, out, err = _cli(*base)
    assert code == 0, err
    code, raw, err = _cli(*base, "--json")
    assert code == 0, err
    return out, json.loads(raw)


def test_a_replayed_get_that_was_not_found_says_so_then_and_now(agent: Any) -> None:
    out, value = _replay(agent.state, "4")
    assert "then: not found (no such file)\nnow:  not found (no such file)" in out
    assert "not found then, and still not found now" in out and "same text as then" not in out
    assert value["status"] == "still-not-found" and (value["thenState"], value["nowState"]) == ("not-found",) * 2
    (agent.workspace / "memory" / "does-not-exist.md").write_text("# Now it exists\n", encoding="utf-8")
    out, value = _replay(agent.state, "4")
    assert "now:  ok · 16 chars" in out and "not found then; the file exists now:\n# Now it exists" in out
    assert value["status"] == "found-now"


def test_a_plain_text_get_result_is_what_the_agent_got(tmp_path: Path) -> None:
    state = _state_2026_4(tmp_path)
    text = "# 2026-04-20\n\n- Deploys freeze on Fridays after 15:00.\n"
    with (state / "agents" / "main" / "sessions" / "s-main.jsonl").open("a", encoding="utf-8") as transcript:
        transcript.write(_line(_call("p1", "2026-04-21T09:10:00Z", "toolu_p", "memory_get",
                                     {"path": "memory/2026-04-20.md"})))
        transcript.write(_line(_result("p2", "2026-04-21T09:10:01Z", "toolu_p", "memory_get", text)))
    code, out, _err = _cli("recalls", "--state-dir", str(state), "--provider", "none")
    assert code == 0 and "→ read 55 chars, plain text (not JSON): # 2026-04-20" in out and "no-result" not in out
    code, raw, _err = _cli("recalls", "--state-dir", str(state), "--provider", "none", "--json")
    [listed] = [c for c in json.loads(raw)["calls"] if c["callId"] == "toolu_p"]
    assert listed["get"]["status"] == "ok" and listed["get"]["plainText"] is True
    out, value = _replay(state, "toolu_p")
    assert "then: ok · 55 chars (plain text, not JSON: the text the agent got)" in out
    assert "same text as then" in out and "holds no" not in out
    assert value["status"] == "same" and value["thenText"] == text


def test_a_dropped_hit_whose_file_was_deleted_says_so(agent: Any) -> None:
    (agent.workspace / "memory" / "runbooks" / "payments-deploy.md").unlink()
    out, value = _replay(agent.state, "8", "--profile", "memtui")
    [dropped] = value["dropped"]
    assert dropped["path"] == "memory/runbooks/payments-deploy.md" and dropped["whyNot"]["stage"] == "deleted"
    assert dropped["whyNot"]["headline"] == ("memory/runbooks/payments-deploy.md was deleted from disk since the call "
                                             "at 2026-12-03 14:49 UTC (it is not in the workspace now)")
    assert "check the path or re-index" not in out


def test_health_names_the_index_time_and_a_touched_file(tmp_path: Path) -> None:
    agent = build_agent(tmp_path)
    note = agent.workspace / "memory" / "2026-11-24.md"
    later = note.stat().st_mtime_ns + 86_400 * 10**9
    os.utime(note, ns=(later, later))  # touched: content unchanged
    code, raw, _err = _cli("health", "--state-dir", str(agent.state), "--json")
    report = json.loads(raw)
    assert code == 0 and report["healthy"] is True
    assert [(row["kind"], row["path"]) for row in report["rows"]] == [("touched", "memory/2026-11-24.md")]
    assert "content unchanged: harmless" in report["rows"][0]["detail"]
    code, out, _err = _cli("health", "--state-dir", str(agent.state))
    assert "only touched (modified time changed, content unchanged)" in out and "touched" in out
    note.write_text("# 2026-11-24\n\n- Burst limit is now 800.\n", encoding="utf-8")
    code, raw, _err = _cli("health", "--state-dir", str(agent.state), "--json")
    [row] = json.loads(raw)["rows"]
    # the index wrote the chunks on 2026-12-03; the file it indexed was last modified on 2026-11-24
    assert row["kind"] == "changed"
    assert row["detail"].startswith("text differs from the one indexed 2026-12-03 14:22 UTC (the file as modified "
                                    "2026-11-24 ")


@pytest.mark.parametrize("profile", ["openclaw-2026.4", "memtui"])
def test_explain_names_the_profile_asked_for(tmp_path: Path, workspace: Path, profile: str) -> None:
    code, out, _err = _cli("search", "payment webhook", "--state-dir", str(tmp_path / "state"), "--workspace",
                           str(workspace), "--provider", "none", "--profile", profile, "--explain")
    assert code == 0 and out.startswith(f"Profile: {profile} · mode: fts-only · provider: none\n")


def test_status_says_what_each_file_count_counts(tmp_path: Path, workspace: Path) -> None:
    sessions = tmp_path / "state" / "agents" / "main" / "sessions"
    sessions.mkdir(parents=True)
    (sessions / "s1.jsonl").write_text(_line({"type": "session", "version": 3, "id": "s1", "timestamp":
                                              "2026-11-28T09:00:00Z", "cwd": "/w"}) + _line(
        {"type": "message", "id": "u1", "parentId": None, "timestamp": "2026-11-28T09:00:01Z",
         "message": {"role": "user", "content": "What broke the payment webhook?", "timestamp": 0}}), encoding="utf-8")
    (tmp_path / "state" / "openclaw.json").write_text(json.dumps({"agents": {"defaults": {"memorySearch": {
        "sources": ["memory", "sessions"], "experimental": {"sessionMemory": True}}}}}), encoding="utf-8")
    base = ("--state-dir", str(tmp_path / "state"), "--workspace", str(workspace), "--provider", "none")
    assert _cli("index", *base)[0] == 0
    code, out, _err = _cli("status", *base)
    on_disk = len(list(workspace.rglob("*.md")))
    assert code == 0
    assert f"Indexed: {on_disk}/{on_disk} memory files (indexed/on disk) · 1 session transcripts · " in out
