"""Bootstrap injection (§1.3): order, missing files, budgets and the exact truncation markers."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from memtui.cli import main
from memtui.context.bootstrap import bootstrap_report, trim_bootstrap_content, utf16_len
from memtui.settings.agent import resolve_agent


def _alphabet(n: int) -> str:
    return "".join(chr(ord("a") + i % 26) for i in range(n))


def _long_marker(name: str, head: int, tail: int, original: int) -> str:
    return (f"\n[...truncated, read {name} for full content...]\n"
            f"…(truncated {name}: kept {head}+{tail} chars of {original})…\n")


def _state(tmp: Path, files: dict[str, str], defaults: dict | None = None) -> Path:
    state = tmp / "state"
    ws = state / "workspace"
    ws.mkdir(parents=True)
    (state / "openclaw.json").write_text(json.dumps({"agents": {"defaults": defaults or {}}}))
    for name, text in files.items():
        (ws / name).write_text(text)
    return state


def test_2026_4_default_cap_hand_computed() -> None:
    content = _alphabet(13000) + "\n\n  "  # trimEnd drops the trailing whitespace: 13000 chars remain
    text, truncated = trim_bootstrap_content(content, "SOUL.md", 12000)
    # marker(0+0) = 48 + 46 + 3 newlines = 97 → budget 11903 → H 8927, T 2975, marker 103
    # → budget 12000 − 103 − 2 = 11895 → H 8921, T 2973 (marker still 103) → stable: 8921 + 2973 + 103 + 2
    expected = _alphabet(13000)[:8921] + "\n" + _long_marker("SOUL.md", 8921, 2973, 13000) + "\n" + \
        _alphabet(13000)[-2973:]
    assert truncated and text == expected and len(text) == 11999


def test_2026_4_compact_marker_when_under_16_content_chars() -> None:
    text, truncated = trim_bootstrap_content("z" * 13000, "SOUL.md", 100)
    # long marker needs 97 + 2 > 100 − 16 → compact "[…truncated H+T/13000]": 22 chars → budget 78 → 58+19 (24)
    # → budget 76 → 57+19 (24) → stable; 57 + 19 + 24 = 100, joined without newlines
    assert truncated and text == "z" * 57 + "[…truncated 57+19/13000]" + "z" * 19


def test_2026_2_marker_not_counted() -> None:
    content = _alphabet(150)
    text, truncated = trim_bootstrap_content(content, "AGENTS.md", 100, variant="2026.2")
    # H = floor(100 * 0.7) = 70, T = floor(100 * 0.2) = 20
    assert truncated and text == content[:70] + "\n" + _long_marker("AGENTS.md", 70, 20, 150) + "\n" + content[-20:]


def test_surrogate_pair_is_never_cut() -> None:
    content = "a" * 99 + "😀" + "b" * 200  # the emoji takes units 99 and 100
    text, _ = trim_bootstrap_content(content, "X.md", 150, variant="2026.2")
    # H = 105 units; the unit at index 104 is a plain "b", so cut after 105 units: 99 a + emoji (2) + 4 b
    assert text.startswith("a" * 99 + "😀" + "bbbb\n")
    text, _ = trim_bootstrap_content(content, "X.md", 143, variant="2026.2")
    # H = floor(143 * 0.7) = 100: unit 99 is the high surrogate → keep 99 units only
    assert text.startswith("a" * 99 + "\n")
    assert utf16_len("😀") == 2


def test_budgets_order_missing_and_skips(tmp_path: Path) -> None:
    soul = _alphabet(400)
    state = _state(tmp_path, {"AGENTS.md": "a" * 250, "SOUL.md": soul, "TOOLS.md": "c" * 100 + "\n",
                              "IDENTITY.md": "d" * 10, "MEMORY.md": "m"},
                   {"bootstrapMaxChars": 300, "bootstrapTotalMaxChars": 700})
    report = bootstrap_report(resolve_agent(state_dir=str(state), env={}))
    names = [f.name for f in report.files]
    assert names == ["AGENTS.md", "SOUL.md", "TOOLS.md", "IDENTITY.md", "USER.md", "HEARTBEAT.md",
                     "BOOTSTRAP.md", "MEMORY.md"]
    by = {f.name: f for f in report.files}
    assert by["AGENTS.md"].injected_chars == 250  # remaining 700 → 450
    # SOUL.md 400 > 300: marker(0+0) 95 → 205 → 153+51 (98) → 200 → 150+50 (98) → stable, 300 in all
    assert by["SOUL.md"].text == soul[:150] + "\n" + _long_marker("SOUL.md", 150, 50, 400) + "\n" + soul[-50:]
    assert by["SOUL.md"].truncated and by["SOUL.md"].injected_chars == 300  # remaining 150
    assert by["TOOLS.md"].text == "c" * 100 and not by["TOOLS.md"].truncated  # remaining 50
    assert all(by[n].skipped for n in names[3:])  # 50 < 64: everything after is skipped
    assert report.warnings == [
        "workspace bootstrap file SOUL.md is 400 chars (limit 300); truncating in injected context",
        "remaining bootstrap budget is 50 chars (<64); skipping additional bootstrap files",
    ]
    assert (report.total_injected, report.total_raw) == (650, 250 + 400 + 101 + 10 + 1)


def test_missing_text_and_minimal_allowlist(tmp_path: Path) -> None:
    state = _state(tmp_path, {"AGENTS.md": "rules", "HEARTBEAT.md": "beat", "MEMORY.md": "facts"})
    env = resolve_agent(state_dir=str(state), env={})
    report = bootstrap_report(env)
    soul = next(f for f in report.files if f.name == "SOUL.md")
    assert soul.missing and soul.text == f"[MISSING] Expected at: {env.workspace_dir / 'SOUL.md'}"
    assert report.files[-1].name == "MEMORY.md" and report.files[-1].text == "facts"
    for key in ("agent:main:subagent:x1", "agent:main:cron:nightly", "subagent:x2"):
        minimal = bootstrap_report(env, session_key=key)
        assert minimal.minimal
        assert [f.name for f in minimal.files] == ["AGENTS.md", "SOUL.md", "TOOLS.md", "IDENTITY.md", "USER.md"]
    # OpenClaw's cron rule reads `agent:<id>:cron:…` keys only: a bare `cron:` key gets the full set.
    assert not bootstrap_report(env, session_key="cron:nightly").minimal


def test_2026_2_variant_reads_no_fifo_and_nothing_outside(tmp_path: Path) -> None:
    """The 2026.2 layout read its files plainly: a FIFO named memory.md hung `memtui context --variant 2026.2`, and
    a SOUL.md linking outside the workspace was injected."""
    state = _state(tmp_path, {"AGENTS.md": "agents"})
    ws = state / "workspace"
    os.mkfifo(ws / "memory.md")
    outside = tmp_path / "elsewhere.md"
    outside.write_text("secret")
    (ws / "SOUL.md").symlink_to(outside)
    files = {f.name: f for f in bootstrap_report(resolve_agent(state_dir=str(state), env={}), variant="2026.2").files}
    assert "memory.md" not in files
    assert files["SOUL.md"].missing and "secret" not in files["SOUL.md"].text
    assert files["AGENTS.md"].text == "agents"


def test_memory_md_lowercase_is_not_injected_but_a_symlink_inside_is(tmp_path: Path) -> None:
    state = _state(tmp_path, {"notes.md": "x", "memory.md": "legacy"})
    ws = state / "workspace"
    env = resolve_agent(state_dir=str(state), env={})
    assert "MEMORY.md" not in [f.name for f in bootstrap_report(env).files]
    assert [f.text for f in bootstrap_report(env, variant="2026.2").files if f.name == "memory.md"] == ["legacy"]
    (ws / "MEMORY.md").symlink_to(ws / "notes.md")
    assert [f.text for f in bootstrap_report(env).files if f.name == "MEMORY.md"] == ["x"]
    outside = tmp_path / "elsewhere.md"
    outside.write_text("secret")
    (ws / "MEMORY.md").unlink()
    (ws / "MEMORY.md").symlink_to(outside)
    memory = next(f for f in bootstrap_report(env).files if f.name == "MEMORY.md")
    assert memory.missing and memory.text == f"[MISSING] Expected at: {ws / 'MEMORY.md'}"


def test_total_clamp_with_ellipsis_in_2026_2(tmp_path: Path) -> None:
    agents = _alphabet(200)
    state = _state(tmp_path, {"AGENTS.md": agents}, {"bootstrapMaxChars": 100, "bootstrapTotalMaxChars": 150})
    report = bootstrap_report(resolve_agent(state_dir=str(state), env={}), variant="2026.2")
    first = report.files[0]
    trimmed = agents[:70] + "\n" + _long_marker("AGENTS.md", 70, 20, 200) + "\n" + agents[-20:]
    assert len(trimmed) == 70 + 1 + 101 + 1 + 20  # 193 > 150 remaining
    assert first.text == trimmed[:149] + "…" and first.injected_chars == 150
    assert all(f.skipped for f in report.files[1:])


def test_cli_context_json_and_text(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    state = _state(tmp_path, {"AGENTS.md": "z" * 13000}, {"userTimezone": "UTC"})
    assert main(["context", "--state-dir", str(state), "--json", "--show-text", "--now", "2026-04-30T12:00Z"]) == 0
    data = json.loads(capsys.readouterr().out)
    agents = data["bootstrap"]["files"][0]
    assert (agents["rawChars"], agents["injectedChars"], agents["truncated"]) == (13000, 11999, True)
    # marker(0+0) = 50 + 48 + 3 = 101 → 11899 → 8924+2974 (107) → 11891 → 8918+2972 (107) → stable
    assert agents["text"].count("…(truncated AGENTS.md: kept 8918+2972 chars of 13000)…") == 1
    assert data["startupContext"]["text"] is None  # no daily files
    assert main(["context", "--state-dir", str(state), "--session", "agent:main:cron:job", "--variant",
                 "2026.2"]) == 0
    out = capsys.readouterr().out
    assert "minimal set" in out
    row = next(line for line in out.splitlines() if line.startswith("AGENTS.md"))
    assert row.split() == ["AGENTS.md", "13000", "13000", "whole"]  # the 2026.2 cap of 20000 keeps it whole


def test_cli_context_notes_the_surrogate_safe_cut(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """OpenClaw's plain slice would leave a lone surrogate at each cut; memtui says it kept those units fewer."""
    state = _state(tmp_path, {"USER.md": "😀" * 400}, {"bootstrapMaxChars": 101})
    assert main(["context", "--state-dir", str(state), "--now", "2026-04-30T12:00Z"]) == 0
    out = capsys.readouterr().out
    assert "note: USER.md: cut 2 UTF-16 unit(s) shorter than OpenClaw" in out
    assert main(["context", "--state-dir", str(state), "--json", "--now", "2026-04-30T12:00Z"]) == 0
    files = {f["name"]: f for f in json.loads(capsys.readouterr().out)["bootstrap"]["files"]}
    assert files["USER.md"]["surrogateUnitsDropped"] == 2 and files["AGENTS.md"]["surrogateUnitsDropped"] == 0
