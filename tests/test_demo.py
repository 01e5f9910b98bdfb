"""The bundled demo: installed with shifted dates, resolvable as an OpenClaw state dir, indexable and searchable."""

from __future__ import annotations

import json
import re
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest

from memtui.cli import main
from memtui.context.sessions import session_reports
from memtui.demo import install_demo
from memtui.errors import PathError
from memtui.settings.agent import resolve_agent

TODAY = date(2027, 1, 10)
# The bundled data's newest daily log is 2026-03-20; 2026-03-20 → 2027-01-10 is 296 days.
SHIFT = 296
MAIN_ID = "7b3e9c1a-4f26-4d8b-a1e5-9c0d2f6b8e34"


@pytest.fixture
def demo(tmp_path: Path):
    return install_demo(tmp_path / "demo", today=TODAY)


def _daily_logs(workspace: Path) -> list[Path]:
    return sorted(p for p in (workspace / "memory").glob("*.md") if re.fullmatch(r"\d{4}-\d{2}-\d{2}\.md", p.name))


def test_newest_daily_log_is_today_and_spacing_is_kept(demo) -> None:
    logs = _daily_logs(demo.workspace_dir)
    assert demo.shift_days == SHIFT
    assert logs[-1].name == "2027-01-10.md"
    # Five weeks back: the oldest bundled log is 2026-02-14, 34 days before the newest.
    assert logs[0].name == f"{TODAY - timedelta(days=34)}.md"
    assert 20 <= len(logs) <= 30
    assert (demo.workspace_dir / "memory" / "2027-01-10-ledger-cutover-plan.md").is_file()


def test_headings_and_dates_inside_text_match_file_names(demo) -> None:
    for log in _daily_logs(demo.workspace_dir):
        assert log.read_text(encoding="utf-8").splitlines()[0] == f"# {log.stem}"
    for slug in (demo.workspace_dir / "memory").glob("????-??-??-*.md"):
        first = slug.read_text(encoding="utf-8").splitlines()[0]
        assert first.startswith(f"# Session: {slug.name[:10]} ")
    # 2026-03-09 moved by 296 days is 2026-12-30; the promotion marker and source follow it.
    memory = (demo.workspace_dir / "MEMORY.md").read_text(encoding="utf-8")
    assert "<!-- openclaw-memory-promotion:memory:memory/2026-12-30.md:7:9 -->" in memory
    assert "source=memory/2026-12-30.md:7-9]" in memory
    lines = (demo.workspace_dir / "memory" / "2026-12-30.md").read_text(encoding="utf-8").splitlines()
    assert "keep-alive must stay above nginx's 65 s" in lines[7]
    # The 2026-03-17 entry referred to 2026-03-17T10:05Z; 296 days later is 2027-01-07.
    assert "2027-01-07T10:05Z" in (demo.workspace_dir / "memory" / "2027-01-07.md").read_text(encoding="utf-8")


def test_dream_diary_dates_move_with_the_timezone_name(tmp_path: Path) -> None:
    winter = install_demo(tmp_path / "winter", today=TODAY)
    diary = (winter.workspace_dir / "DREAMS.md").read_text(encoding="utf-8")
    assert "*January 4, 2027 at 3:00 AM CET*" in diary
    assert "*January 10, 2027 at 3:00 AM CET*" in diary
    summer = install_demo(tmp_path / "summer", today=date(2027, 7, 15))
    diary = (summer.workspace_dir / "DREAMS.md").read_text(encoding="utf-8")
    assert "*July 15, 2027 at 3:00 AM CEST*" in diary
    assert (summer.workspace_dir / "memory" / "dreaming" / "deep" / "2027-07-09.md").is_file()


def test_memory_md_is_longer_than_the_bootstrap_budget_and_heartbeat_is_missing(demo) -> None:
    text = (demo.workspace_dir / "MEMORY.md").read_text(encoding="utf-8").rstrip()
    # bootstrapMaxChars is 12000 UTF-16 code units in 2026.4.29 (§1.3).
    assert len(text.encode("utf-16-le")) // 2 > 12000
    for name in ("AGENTS.md", "SOUL.md", "TOOLS.md", "USER.md", "IDENTITY.md", "DREAMS.md"):
        assert (demo.workspace_dir / name).is_file()
    assert not (demo.workspace_dir / "HEARTBEAT.md").exists()


def test_config_resolves_to_the_demo_workspace_and_agent(demo) -> None:
    env = resolve_agent(state_dir=str(demo.state_dir))
    assert env.agent_id == "main"
    assert env.workspace_dir == demo.workspace_dir
    assert env.sessions_dir == demo.sessions_dir
    assert "sessions" in env.settings.sources


def test_sessions_parse_and_the_main_session_sits_in_the_soft_band(demo) -> None:
    store = json.loads((demo.sessions_dir / "sessions.json").read_text(encoding="utf-8"))
    assert set(store) == {"agent:main:main", "agent:main:telegram:group:-100123", "agent:main:cron:nightly-digest"}
    for entry in store.values():
        assert (demo.sessions_dir / f"{entry['sessionId']}.jsonl").is_file()
    # updatedAt was 2026-03-20T07:12:00Z in the bundled data; it moves by 296 whole days.
    assert store["agent:main:main"]["updatedAt"] == int(datetime(2027, 1, 10, 7, 12, tzinfo=UTC).timestamp() * 1000)
    last = json.loads((demo.sessions_dir / f"{MAIN_ID}.jsonl").read_text(encoding="utf-8").splitlines()[-1])
    assert last["timestamp"] == "2027-01-10T07:12:00.000Z"
    assert last["message"]["timestamp"] == store["agent:main:main"]["updatedAt"]

    env = resolve_agent(state_dir=str(demo.state_dir), provider="none")
    reports = {r.key: r for r in session_reports(env).sessions}
    main_session = reports["agent:main:main"]
    # 200000 − 20000 − 4000; totalTokens 172400 (fresh). The last assistant output (600) joins the count only
    # when a next prompt brings the session within 8192 tokens of the threshold.
    assert main_session.threshold == 176000
    assert main_session.token_count == 172400
    with_prompt = {r.key: r for r in session_reports(env, pending_prompt="x" * 40).sessions}["agent:main:main"]
    assert with_prompt.token_count == 172400 + 600 + 10
    assert main_session.flush_state == "below"
    assert 0 < main_session.transcript_bytes < 150 * 1024
    group = reports["agent:main:telegram:group:-100123"]
    assert group.already_flushed and group.flush_state == "below"  # flushed this cycle, now below again
    assert reports["agent:main:cron:nightly-digest"].chat_type == "cron"


def test_index_and_search_find_an_incident_by_its_id(demo, capsys: pytest.CaptureFixture[str]) -> None:
    common = ["--state-dir", str(demo.state_dir), "--provider", "none"]
    assert main(["index", *common]) == 0
    capsys.readouterr()
    assert main(["search", *common, "--json", "OPS-1188"]) == 0
    results = json.loads(capsys.readouterr().out)["results"]
    # OPS-1188 was logged on 2026-03-13, 7 days before the newest log.
    assert f"memory/{TODAY - timedelta(days=7)}.md" in {r["path"] for r in results}


def test_sk_key_in_the_group_transcript_is_redacted_in_search(demo, capsys: pytest.CaptureFixture[str]) -> None:
    common = ["--state-dir", str(demo.state_dir), "--provider", "none"]
    assert main(["search", *common, "--json", "staging key demo tenant"]) == 0
    results = json.loads(capsys.readouterr().out)["results"]
    session_hits = [r for r in results if r["path"].startswith("sessions/")]
    assert session_hits
    assert all("sk-demoR4nd0mK3yF0rT3st1ngOnlyX9" not in r["snippet"] for r in session_hits)


def test_two_installs_are_independent(tmp_path: Path) -> None:
    first = install_demo(tmp_path / "a", today=TODAY)
    second = install_demo(tmp_path / "b", today=TODAY)
    (first.workspace_dir / "MEMORY.md").write_text("# replaced\n", encoding="utf-8")
    assert len((second.workspace_dir / "MEMORY.md").read_text(encoding="utf-8")) > 12000
    assert resolve_agent(state_dir=str(second.state_dir)).workspace_dir == second.workspace_dir
    assert resolve_agent(state_dir=str(first.state_dir)).workspace_dir == first.workspace_dir


def test_install_refuses_a_non_empty_directory_and_keeps_it(tmp_path: Path) -> None:
    target = tmp_path / "busy"
    target.mkdir()
    (target / "notes.txt").write_text("mine", encoding="utf-8")
    with pytest.raises(PathError, match="not an empty directory"):
        install_demo(target, today=TODAY)
    assert [p.name for p in target.iterdir()] == ["notes.txt"]


def test_demo_command_without_tui_installs_indexes_and_prints_searches(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "cli-demo"
    assert main(["demo", "--no-tui", "--no-model", "--dir", str(target)]) == 0
    out = capsys.readouterr().out
    assert f"Demo installed in {target}" in out
    assert "FTS-only" in out
    assert "$ memtui --state-dir" in out and "'OPS-1142'" in out
    newest = max(p.name for p in _daily_logs(target / "state" / "workspace"))
    assert newest == f"{date.today()}.md"
    assert (target / "state" / "memtui" / "main.sqlite").is_file()


def test_demo_screenshot_opens_on_a_query_with_its_first_hit_and_says_why_search_is_keyword_only(
        tmp_path: Path) -> None:
    svg = tmp_path / "first.svg"
    assert main(["demo", "--no-model", "--dir", str(tmp_path / "shot"), "--query", "OPS-1188",
                 "--screenshot", str(svg)]) == 0
    text = svg.read_text(encoding="utf-8").replace("&#160;", " ")
    today = date.today()
    assert f"{today.day:02d} {today.strftime('%a')} (today)" in text  # the browser groups days by month
    assert "OPS-1188" in text and "citation" in text
    assert "keyword-only" in text and "started with --no-model" in text and "memtui model install" in text
    assert (tmp_path / "shot" / "state" / "memtui" / "main.sqlite").is_file()


def test_an_installed_memtui_model_is_shared_with_the_demo(tmp_path: Path) -> None:
    """The per-user model cache serves the demo's state dir too (no copy, no link)."""
    from memtui.embeddings.model_store import installed_model_path, model_path

    user_model = model_path()
    user_model.parent.mkdir(parents=True)
    user_model.write_bytes(b"GGUF fake weights")
    demo = install_demo(tmp_path / "demo", today=TODAY)
    found = installed_model_path(demo.state_dir)
    assert found == user_model and not (demo.state_dir / "memtui" / "models").exists()
