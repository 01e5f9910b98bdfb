"""End-to-end CLI runs (§10.2, §9.1, §9.3, status JSON) on a fixture workspace, in-process and as a subprocess."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from store_paths import memtui_folder

from memtui.cli import main as cli_main

FILES = {
    "MEMORY.md": "# Memory\n- The router in the garage uses vlan 20.\n",
    "memory/2026-04-28.md": "# 2026-04-28\n- Replaced the router power supply.\n- Called the plumber.\n",
    "memory/2026-04-29.md": "Planted tomatoes in the garden",
}


@pytest.fixture
def fixture(tmp_path: Path) -> dict[str, Path]:
    ws = tmp_path / "ws"
    for rel, text in FILES.items():
        (ws / rel).parent.mkdir(parents=True, exist_ok=True)
        (ws / rel).write_text(text, encoding="utf-8")
    state = tmp_path / "state"
    state.mkdir()
    return {"ws": ws, "state": state}


def _common(fx: dict[str, Path]) -> list[str]:
    return ["--state-dir", str(fx["state"]), "--workspace", str(fx["ws"]), "--provider", "none"]


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = cli_main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _config(fx: dict[str, Path], raw: dict) -> None:
    (fx["state"] / "openclaw.json").write_text(json.dumps(raw), encoding="utf-8")


def test_index_output_ends_with_spec_line(fixture, capsys) -> None:
    code, out, _ = _run(capsys, "index", *_common(fixture))
    assert code == 0
    assert out.strip().splitlines()[-1] == "Memory index updated (main)."


def test_index_then_status_json(fixture, capsys) -> None:
    code, out, _ = _run(capsys, "index", *_common(fixture))
    assert code == 0
    code, out, _ = _run(capsys, "status", *_common(fixture), "--json")
    assert code == 0
    status = json.loads(out)
    assert status["files"] == 3
    assert status["chunks"] == 3
    assert status["dirty"] is False
    assert status["provider"] == "none"
    assert status["model"] == "fts-only"
    assert status["workspaceDir"] == str(fixture["ws"].resolve())
    # --workspace names a folder other than the agent's: that workspace has an index of its own.
    db = Path(status["dbPath"])
    # memtui's own folder in its data dir: nothing is created in OpenClaw's state dir.
    assert db.parent == memtui_folder(fixture["state"]) and db.name.startswith("main-ws-")
    assert not db.is_relative_to(fixture["state"].resolve()) and not (fixture["state"] / "memtui").exists()
    assert status["indexIdentity"] == {"recorded": status["workspaceDir"], "matches": True, "reason": None,
                                       "changedElsewhere": False}
    assert status["fts"]["available"] is True and status["fts"]["error"] is None
    assert set(status["vector"]) >= {"available", "dims", "loadError"}
    assert status["vector"]["dims"] is None


def test_status_human_shape(fixture, capsys) -> None:
    _run(capsys, "index", *_common(fixture))
    code, out, _ = _run(capsys, "status", *_common(fixture))
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "Memory Search (main)"
    assert "Model: fts-only" in lines
    assert "Indexed: 3/3 memory files (indexed/on disk) · 3 chunks" in lines
    assert "Dirty: no" in lines
    assert "FTS: ready" in lines


def _expected_output(hits: list[tuple[str, str]]) -> str:
    """§10.2: `<score.toFixed(3)> <path>:<start>-<end>`, the snippet, a blank line — for (score, path) hits."""
    parts = []
    for score, path in hits:
        text = FILES[path]
        parts.append(f"{score} {path}:1-{text.count(chr(10)) + 1}\n{text}\n\n")
    return "".join(parts)


def test_search_human_output_shape(fixture, capsys) -> None:
    _run(capsys, "index", *_common(fixture))
    code, out_json, _ = _run(capsys, "search", "router", *_common(fixture), "--min-score", "0", "--json")
    results = json.loads(out_json)["results"]
    assert {r["path"] for r in results} == {"MEMORY.md", "memory/2026-04-28.md"}
    code, out, _ = _run(capsys, "search", "router", *_common(fixture), "--min-score", "0")
    assert code == 0
    assert out == _expected_output([(f"{r['score']:.3f}", r["path"]) for r in results])


def test_search_no_matches(fixture, capsys) -> None:
    _run(capsys, "index", *_common(fixture))
    code, out, _ = _run(capsys, "search", "xylophone", *_common(fixture))
    assert code == 0
    assert out == "No matches.\n"


def test_a_note_edited_since_the_last_index_is_found_by_the_next_search(fixture, capsys) -> None:
    """A one-shot search has no watcher: a note changed after `memtui index` (another size, mtime) is synced before
    the search answers, and a note deleted since is not returned; `--no-sync` answers from the index as it is."""
    _run(capsys, "index", *_common(fixture))
    note = fixture["ws"] / "memory" / "2026-04-29.md"
    note.write_text("Planted tomatoes; the xylophone recital moved to Thursday.", encoding="utf-8")
    assert _run(capsys, "search", "xylophone", "--no-sync", *_common(fixture))[1] == "No matches.\n"
    code, out, _ = _run(capsys, "search", "xylophone", *_common(fixture))
    assert code == 0 and "memory/2026-04-29.md" in out and "xylophone recital" in out
    note.unlink()
    assert _run(capsys, "search", "xylophone", *_common(fixture))[1] == "No matches.\n"


def test_search_json_shape_with_auto_citations(fixture, capsys) -> None:
    code, out, _ = _run(capsys, "search", "tomatoes", *_common(fixture), "--json")
    assert code == 0
    payload = json.loads(out)
    assert payload["provider"] == "none"
    assert "model" not in payload  # OpenClaw reports no model without a provider
    assert payload["citations"] == "auto"
    assert payload["debug"]["backend"] == "builtin"
    assert payload["debug"]["effectiveMode"] == "n/a"
    assert isinstance(payload["debug"]["searchMs"], int)
    assert payload["debug"]["hits"] == len(payload["results"]) == 1
    hit = payload["results"][0]
    assert hit["path"] == "memory/2026-04-29.md"
    assert (hit["startLine"], hit["endLine"]) == (1, 1)
    assert hit["source"] == "memory" and hit["corpus"] == "memory"
    assert hit["citation"] == "memory/2026-04-29.md#L1"
    assert hit["snippet"] == "Planted tomatoes in the garden\n\nSource: memory/2026-04-29.md#L1"
    assert 0 < hit["score"] <= 1


def test_search_json_multiline_citation_and_channel_session(fixture, capsys) -> None:
    code, out, _ = _run(capsys, "search", "plumber", *_common(fixture), "--json")
    assert code == 0
    hit = json.loads(out)["results"][0]
    assert hit["citation"] == "memory/2026-04-28.md#L1-L4"
    assert hit["snippet"] == FILES["memory/2026-04-28.md"].strip() + "\n\nSource: memory/2026-04-28.md#L1-L4"
    for key in ("agent:main:discord:channel:123", "agent:main:telegram:group:9"):
        _code, out, _ = _run(capsys, "search", "plumber", *_common(fixture), "--json", "--session-key", key)
        hit = json.loads(out)["results"][0]
        assert "citation" not in hit
        assert hit["snippet"] == FILES["memory/2026-04-28.md"]


@pytest.mark.parametrize(("mode", "included"), [("on", True), ("off", False)])
def test_citations_config_on_and_off(fixture, capsys, mode: str, included: bool) -> None:
    _config(fixture, {"memory": {"citations": mode}})
    _code, out, _ = _run(capsys, "search", "plumber", *_common(fixture), "--json", "--session-key",
                        "agent:main:discord:channel:1")
    payload = json.loads(out)
    assert payload["citations"] == mode
    hit = payload["results"][0]
    assert ("citation" in hit) is included
    assert hit["snippet"].endswith("Source: memory/2026-04-28.md#L1-L4") is included


def test_search_max_results(fixture, capsys) -> None:
    _code, out, _ = _run(capsys, "search", "router", *_common(fixture), "--json", "--max-results", "1",
                        "--min-score", "0")
    assert len(json.loads(out)["results"]) == 1


def test_get_command(fixture, capsys) -> None:
    code, out, _ = _run(capsys, "get", "memory/2026-04-28.md", *_common(fixture), "--from", "2", "--lines", "1")
    assert code == 0
    assert out.startswith("- Replaced the router power supply.\n")
    code, out, _ = _run(capsys, "get", "../../etc/passwd.md", *_common(fixture), "--json")
    result = json.loads(out)
    assert result == {"path": "../../etc/passwd.md", "text": "", "disabled": True, "error": result["error"]}
    assert result["error"]


def test_malformed_config_is_one_line_error(fixture, capsys) -> None:
    (fixture["state"] / "openclaw.json").write_text("{\n  agents: {\n    defaults: [\n}\n")
    code, _out, err = _run(capsys, "status", *_common(fixture))
    assert code != 0
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1
    assert str(fixture["state"].resolve() / "openclaw.json") in lines[0]
    assert re.search(r"openclaw\.json:\d+:\d+", lines[0])


def test_unknown_config_key_warns_and_runs(fixture, capsys) -> None:
    _config(fixture, {"agents": {"defaults": {"memorySearch": {"query": {"mysteryKnob": 1}}}}})
    code, out, err = _run(capsys, "status", *_common(fixture), "--json")
    assert code == 0
    assert "mysteryKnob" in err
    json.loads(out)


def test_a_bad_block_stops_only_the_commands_that_read_it(fixture, capsys) -> None:
    """A malformed `memory.qmd` or dreaming block is a one-line error naming the key where that part is used;
    `status`, `index`, `get` and `sessions` still run."""
    dreaming = {"storage": {"mode": "cloud"}}
    _config(fixture, {"memory": {"qmd": {"searchMode": "fuzzy"}},
                      "plugins": {"entries": {"memory-core": {"config": {"dreaming": dreaming}}}}})
    for argv in (["index"], ["status"], ["get", "MEMORY.md"], ["sessions"]):
        code, _out, err = _run(capsys, *argv, *_common(fixture))
        assert code == 0, (argv, err)
    code, _out, err = _run(capsys, "dream", *_common(fixture))
    assert (code, err) == (2, "memtui: error: dreaming.storage.mode must be one of inline, separate, both, "
                              "got 'cloud'\n")
    _config(fixture, {"memory": {"backend": "qmd", "qmd": {"searchMode": "fuzzy"}}})
    code, _out, err = _run(capsys, "status", *_common(fixture))
    assert (code, err) == (2, "memtui: error: memory.qmd.searchMode: use one of search, vsearch, query, "
                              "got 'fuzzy'\n")


def _subprocess(fx: dict[str, Path], *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENCLAW_", "MEMTUI_"))}
    env["HOME"] = str(fx["state"].parent / "home")
    return subprocess.run([sys.executable, "-m", "memtui", *args], capture_output=True, text=True, env=env,
                          timeout=60, check=False)


def test_subprocess_index_search_status_get(fixture) -> None:
    common = _common(fixture)
    index = _subprocess(fixture, "index", *common)
    assert index.returncode == 0, index.stderr
    search = _subprocess(fixture, "search", "garden tomatoes", *common, "--json")
    assert search.returncode == 0, search.stderr
    hits = json.loads(search.stdout)["results"]
    assert [h["path"] for h in hits] == ["memory/2026-04-29.md"]
    human = _subprocess(fixture, "search", "plumber", *common)
    score = human.stdout.split(" ", 1)[0]
    assert re.fullmatch(r"[01]\.\d{3}", score), human.stdout
    assert human.stdout == _expected_output([(score, "memory/2026-04-28.md")])
    status = _subprocess(fixture, "status", *common, "--json")
    assert json.loads(status.stdout)["chunks"] == 3
    got = _subprocess(fixture, "get", "MEMORY.md", *common)
    assert got.returncode == 0
    assert got.stdout == FILES["MEMORY.md"] + "\n"
