"""Sessions engine: token estimate (§7.3), threshold (§7.2), flush decision (§7.5) on a fixture state dir."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from memtui.cli import main
from memtui.context.sessions import scan_transcript, session_reports
from memtui.settings.agent import resolve_agent
from memtui.settings.values import parse_byte_size

NOW = datetime(2026, 4, 30, 3, 5, tzinfo=UTC)


def _line(record: dict) -> str:
    return json.dumps(record, separators=(",", ":")) + "\n"


def _assistant(usage: dict) -> dict:
    return {"type": "message", "id": "a1", "parentId": "u1", "timestamp": "2026-04-29T10:00:00Z",
            "message": {"role": "assistant", "content": [{"type": "text", "text": "ok"}], "usage": usage}}


def _user(text: str) -> dict:
    return {"type": "message", "id": "u1", "parentId": None, "timestamp": "2026-04-29T10:00:00Z",
            "message": {"role": "user", "content": text}}


HEADER = {"type": "session", "version": 3, "id": "x", "timestamp": "2026-04-29T09:00:00Z", "cwd": "/w"}


def build_state(tmp: Path, *, defaults_extra: dict | None = None, sessions_text: str | None = None) -> Path:
    """A state dir with five sessions covering every flush state."""
    state = tmp / "state"
    sessions = state / "agents" / "main" / "sessions"
    sessions.mkdir(parents=True)
    (state / "workspace").mkdir()
    defaults = {
        "userTimezone": "UTC",
        "compaction": {"reserveTokensFloor": 20000,
                       "memoryFlush": {"softThresholdTokens": 4000, "forceFlushTranscriptBytes": "64kb"}},
    }
    defaults.update(defaults_extra or {})
    config = {"agents": {"defaults": defaults},
              "models": {"providers": {"local": {"models": [{"id": "tiny-model", "contextWindow": 20000}]}}}}
    (state / "openclaw.json").write_text(json.dumps(config))
    # main: usage 170000 + 3000 + 500 = 173500 beats the fresh persisted 150000; a compaction record and a
    # zero-usage record come after it and are skipped.
    (sessions / "s-main.jsonl").write_text("".join([
        _line(HEADER), _line(_user("hello")),
        _line(_assistant({"input": 170000, "output": 1500, "cacheRead": 3000, "cacheWrite": 500})),
        _line({"type": "compaction", "id": "c1", "parentId": "a1", "timestamp": "2026-04-29T11:00:00Z",
               "summary": "s", "firstKeptEntryId": "a1", "tokensBefore": 175000}),
        _line(_assistant({"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0})),
        _line(_user("next")),
    ]))
    (sessions / "s-group.jsonl").write_text(_line(HEADER) + _line(_assistant({"input": 1000, "output": 10})))
    # channel: the usage record straddles the first 64 KiB block boundary counted from the end.
    usage_line = _line(_assistant({"input": 50000, "output": 200}))
    pad_template = _line(_user(""))
    pad_len = 65536 - len(usage_line) // 2
    padding = _line(_user("y" * (pad_len - len(pad_template))))
    assert len(padding) == pad_len
    (sessions / "chan.jsonl").write_text(_line(HEADER) + usage_line + padding)
    (sessions / "s-sub.jsonl").write_text(
        _line(HEADER) + "{not json\n" + _line(_assistant({"input": 100, "output": 5})) + '{"type":"mess')
    entries = {
        "agent:main:main": {"sessionId": "s-main", "updatedAt": 5000, "totalTokens": 150000,
                            "totalTokensFresh": True, "compactionCount": 2, "memoryFlushCompactionCount": 1},
        "agent:main:telegram:group:-100123": {"sessionId": "s-group", "updatedAt": 4000, "chatType": "group",
                                              "totalTokens": 180000, "totalTokensFresh": True,
                                              "compactionCount": 1, "memoryFlushCompactionCount": 1,
                                              "memoryFlushAt": 1777000000000},
        "agent:main:discord:channel:42": {"sessionId": "s-chan", "sessionFile": "chan.jsonl",
                                          "updatedAt": 3000, "totalTokens": 90000, "totalTokensFresh": False},
        "cron:nightly": {"sessionId": "s-cron", "updatedAt": 2000, "totalTokens": 9000,
                         "contextTokens": 32000},
        "agent:main:subagent:abc": {"sessionId": "s-sub", "updatedAt": 1000, "providerOverride": "local",
                                    "modelOverride": "tiny-model"},
    }
    text = sessions_text if sessions_text is not None else json.dumps(entries)
    (sessions / "sessions.json").write_text(text)
    return state


def _env(state: Path):
    return resolve_agent(state_dir=str(state), env={})


def _by_key(report):
    return {s.key: s for s in report.sessions}


def test_token_estimate_threshold_and_flush_states(tmp_path: Path) -> None:
    state = build_state(tmp_path)
    report = session_reports(_env(state), now=NOW)
    assert [s.key for s in report.sessions] == [
        "agent:main:main", "agent:main:telegram:group:-100123", "agent:main:discord:channel:42",
        "cron:nightly", "agent:main:subagent:abc"]
    s = _by_key(report)

    main_s = s["agent:main:main"]
    # A fresh persisted count far below the threshold: the transcript is not read, its usage does not count.
    assert main_s.usage_prompt_tokens is None and main_s.token_source == "fresh sessions.json totalTokens"
    assert main_s.token_count == 150000
    assert main_s.threshold == 200000 - 20000 - 4000  # 176000
    assert main_s.context_window_source == "default"
    assert main_s.percent_used == 85.2  # 150000 / 176000
    assert main_s.flush_state == "below" and not main_s.would_flush and main_s.flush_rule == "below-threshold"
    assert main_s.flush_reason == "26,000 tokens below threshold"
    assert main_s.compaction_count == 2 and not main_s.already_flushed
    assert main_s.transcript_bytes == (state / "agents/main/sessions/s-main.jsonl").stat().st_size

    group = s["agent:main:telegram:group:-100123"]
    assert group.chat_type == "group"
    assert group.token_count == 180000
    assert group.flush_by_tokens and group.already_flushed and not group.would_flush
    assert group.flush_state == "flushed" and group.flush_rule == "once-per-cycle"

    chan = s["agent:main:discord:channel:42"]
    assert chan.chat_type == "channel"
    assert not chan.persisted_fresh
    assert chan.token_count == 50000 + 200  # stale totalTokens ignored, the transcript's usage counts
    assert chan.token_source == "transcript usage"
    assert chan.force_flush_transcript_bytes == 64 * 1024
    assert chan.flush_by_bytes and chan.would_flush and chan.flush_state == "due"
    assert chan.flush_rule == "transcript-size"
    assert chan.flush_reason == f"transcript {chan.transcript_bytes} bytes ≥ 65536"

    cron = s["cron:nightly"]
    assert cron.chat_type == "cron"
    # sessions.json `contextTokens` is not the flush path's window; totalTokens without a fresh mark still
    # counts at the gate when the transcript has no usage.
    assert (cron.context_window, cron.threshold) == (200000, 176000)
    assert cron.token_count == 9000 and cron.flush_state == "below"
    assert cron.token_source == "sessions.json totalTokens (not marked fresh)"
    assert cron.transcript_bytes is None

    sub = s["agent:main:subagent:abc"]
    assert sub.context_window == 20000 and sub.threshold == 20000 - 24000
    assert sub.flush_state == "size-only" and sub.flush_rule == "token-gate-off"
    assert sub.flush_reason == "threshold -4000 ≤ 0: token gate off, size gate only"
    assert sub.percent_used is None
    assert sub.token_count == 100 + 5


def test_pending_prompt_counts_and_opens_the_transcript_window(tmp_path: Path) -> None:
    """chars/4 of the next prompt; once persisted + prompt reach threshold − 8192 the transcript is read too."""
    state = build_state(tmp_path)
    below = _by_key(session_reports(_env(state), now=NOW, pending_prompt="x" * 71228))["agent:main:main"]
    assert below.pending_prompt_tokens == 17807 and below.token_count == 150000 + 17807  # 167807 < 167808
    assert below.usage_prompt_tokens is None and below.flush_state == "below"
    inside = _by_key(session_reports(_env(state), now=NOW, pending_prompt="x" * 71229))["agent:main:main"]
    assert inside.pending_prompt_tokens == 17808  # ceil(71229 / 4): 150000 + 17808 = 176000 − 8192
    assert inside.usage_prompt_tokens == 173500 and inside.token_source == "transcript usage"
    assert inside.token_count == 173500 + 1500 + 17808
    assert inside.flush_state == "due" and inside.flush_reason == "tokens 192808 ≥ threshold 176000"


def test_broken_and_missing_transcripts_are_named_and_others_still_reported(tmp_path: Path) -> None:
    state = build_state(tmp_path)
    report = session_reports(_env(state), now=NOW)
    assert len(report.sessions) == 5
    issues = {Path(i.path).name: i for i in report.issues}
    assert issues["s-sub.jsonl"].line == 4  # the cut-off last line; "{not json" is before the usage
    assert "1 line(s)" in issues["s-sub.jsonl"].reason
    assert "not found" in issues["s-cron.jsonl"].reason


def test_scan_reads_whole_file_when_no_usage(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_text(_line(HEADER) + "garbage\n" + _line(_user("hi")))
    scan = scan_transcript(path)
    assert scan.usage is None and scan.broken_lines == 1 and scan.first_broken_line == 2
    assert scan.size == len((_line(HEADER) + "garbage\n" + _line(_user("hi"))).encode())


def test_corrupt_sessions_json_names_file_and_lists_transcripts(tmp_path: Path) -> None:
    state = build_state(tmp_path, sessions_text='{\n  "agent:main:main": {"sessionId": "s-main",,}\n}')
    report = session_reports(_env(state), now=NOW)
    store = str(state / "agents/main/sessions/sessions.json")
    assert report.issues[0].path == store and report.issues[0].line == 2
    assert "not valid JSON" in report.issues[0].reason
    by = _by_key(report)
    assert by["s-main.jsonl"].token_count == 175000
    assert by["chan.jsonl"].token_count == 50200


def test_sandbox_read_only_blocks_flush(tmp_path: Path) -> None:
    state = build_state(tmp_path, defaults_extra={"sandbox": {"mode": "non-main", "workspaceAccess": "ro"}})
    by = _by_key(session_reports(_env(state), now=NOW))
    assert not by["agent:main:main"].sandboxed
    chan = by["agent:main:discord:channel:42"]
    assert chan.sandboxed and chan.flush_state == "blocked" and not chan.would_flush
    assert chan.flush_rule == "sandbox" and chan.flush_reason == "sandboxed without workspaceAccess 'rw'"


def test_disabled_flush(tmp_path: Path) -> None:
    state = build_state(tmp_path, defaults_extra={"compaction": {"memoryFlush": {"enabled": False}}})
    for s in session_reports(_env(state), now=NOW).sessions:
        assert s.flush_state == "disabled" and not s.would_flush


@pytest.mark.parametrize(("value", "expected"), [
    ("2mb", 2 * 1024 * 1024), ("512kb", 512 * 1024), ("1.5m", 1572864), (" 10 ", 10), ("7", 7),
    ("1G", 1024**3), (3.7, 3), (0, 0), ("2 mb", None), ("-1", None), (-5, None), ("5xb", None), ("", None),
    (True, None),
])
def test_parse_byte_size(value, expected) -> None:
    assert parse_byte_size(value) == expected


def test_invalid_force_bytes_falls_back_with_an_issue(tmp_path: Path) -> None:
    state = build_state(tmp_path, defaults_extra={"compaction": {"memoryFlush": {"forceFlushTranscriptBytes":
                                                                                   "lots"}}})
    report = session_reports(_env(state), now=NOW)
    assert report.settings.force_flush_transcript_bytes == 2097152
    assert any("forceFlushTranscriptBytes 'lots'" in i.reason for i in report.issues)


def test_cli_sessions_json_and_table(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    state = build_state(tmp_path)
    code = main(["sessions", "--state-dir", str(state), "--json", "--now", "2026-04-30T03:05:00Z"])
    out, err = capsys.readouterr()
    data = json.loads(out)
    assert code == 1  # the broken and missing transcripts are errors
    assert "s-sub.jsonl:4" in err and "s-cron.jsonl" in err
    main_s = data["sessions"][0]
    assert (main_s["key"], main_s["tokenCount"], main_s["threshold"], main_s["flushState"]) == (
        "agent:main:main", 150000, 176000, "below")
    assert main_s["flushRule"] == "below-threshold"
    assert data["memoryFlush"]["relativePath"] == "memory/2026-04-30.md"
    code = main(["sessions", "--state-dir", str(state)])
    out, _ = capsys.readouterr()
    row = next(line for line in out.splitlines() if line.startswith("agent:main:discord:channel:42"))
    assert row.split()[1:7] == ["channel", "50200", "176000", "28.5%", "due", "transcript-size"]  # 50200/176000
