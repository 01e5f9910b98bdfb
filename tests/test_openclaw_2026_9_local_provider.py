"""`memory.search.provider: "local"` on a 2026.9 agent with no model file on this disk: nothing is downloaded
while memtui runs; status and search answer keyword-only with the reason, what to do, and what OpenClaw 2026.9.6
itself does (its index and search fail: "Unknown memory embedding provider: local")."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from openclaw_2026_9_data import build_agent

import memtui.embeddings.local as local_embeddings
from memtui.cli import main as cli_main


def _no_download(*_args: object, **_kwargs: object) -> Path:
    raise AssertionError("a model download was attempted")


@pytest.mark.parametrize("local", [{}, {"modelPath": "~/models/missing.gguf"}])
def test_local_without_a_model_file_is_keyword_only_and_says_why(tmp_path: Path, capsys: pytest.CaptureFixture,
                                                                 monkeypatch: pytest.MonkeyPatch,
                                                                 local: dict[str, str]) -> None:
    for name, folder in (("HOME", "home"), ("MEMTUI_DATA_DIR", "data"), ("HF_HOME", "hf"),
                         ("XDG_CACHE_HOME", "cache")):
        monkeypatch.setenv(name, str(tmp_path / folder))
    monkeypatch.setattr(local_embeddings, "resolve_model_file", _no_download)
    agent = build_agent(tmp_path / "install")
    config_path = agent.state / "openclaw.json"
    config = json.loads(config_path.read_text(encoding="utf-8"))
    config["memory"]["search"].update(provider="local", local=local)
    config_path.write_text(json.dumps(config), encoding="utf-8")

    assert cli_main(["status", "--state-dir", str(agent.state), "--json"]) == 0
    status = json.loads(capsys.readouterr().out)
    assert (status["provider"], status["requestedProvider"], status["custom"]["searchMode"]) == \
        ("none", "local", "fts-only")
    reason = status["custom"]["providerUnavailableReason"]
    assert "memtui downloads nothing while it runs" in reason
    assert "set memory.search.local.modelPath to a .gguf file" in reason
    assert "Unknown memory embedding provider: local" in reason
    assert ("missing.gguf" in reason) == bool(local)
    assert cli_main(["status", "--state-dir", str(agent.state)]) == 0
    assert "FTS-only because: memory.search.provider is local" in capsys.readouterr().out
    assert cli_main(["search", "burst limit", "--state-dir", str(agent.state), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["results"]
