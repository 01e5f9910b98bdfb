"""Shared fixtures: a fixture workspace, an isolated state dir, and agent environments."""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest
from fixtures_model import llama_cpp, minilm_models, minilm_reference  # noqa: F401  (shared fixtures)

from memtui.settings.agent import AgentEnv, resolve_agent

# memtui's own data folder (its indexes, by state dir) for this whole run, set before any test module copies
# os.environ for its subprocesses, so no test writes into the real ~/.local/share/memtui.
os.environ["MEMTUI_DATA_DIR"] = tempfile.mkdtemp(prefix="memtui-test-data-")
atexit.register(shutil.rmtree, os.environ["MEMTUI_DATA_DIR"], True)


@pytest.fixture(autouse=True)
def _isolated_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Never read or write the real ~/.openclaw or ~/.cache/memtui (models), and never see real API keys."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    for name in ("OPENCLAW_STATE_DIR", "OPENCLAW_CONFIG_PATH", "OPENCLAW_WORKSPACE_DIR", "OPENCLAW_HOME",
                 "OPENCLAW_PROFILE", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_CONFIG_HOME", "OPENAI_API_KEY",
                 "GEMINI_API_KEY", "VOYAGE_API_KEY", "MEMTUI_PROFILE"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """A small workspace: MEMORY.md and three daily logs."""
    ws = tmp_path / "workspace"
    (ws / "memory").mkdir(parents=True)
    (ws / "MEMORY.md").write_text(
        "# Long-term memory\n\n- User prefers dark mode in every editor.\n"
        "- Production database is PostgreSQL 16 on db-prod-3.\n",
        encoding="utf-8",
    )
    (ws / "memory" / "2026-11-27.md").write_text(
        "# 2026-11-27\n\n## Decisions\n- We chose Redis for the session cache (ticket OPS-412).\n",
        encoding="utf-8",
    )
    (ws / "memory" / "2026-11-28.md").write_text(
        "# 2026-11-28\n\n## Incident\nThe payment webhook returned HTTP 502 for order batch 7.\n"
        "Root cause: connection pool timeout on pgbouncer.\n",
        encoding="utf-8",
    )
    (ws / "memory" / "2026-11-29.md").write_text(
        "# 2026-11-29\n\n- Alice asked to move the standup to 9:30.\n", encoding="utf-8"
    )
    return ws


@pytest.fixture
def make_env(tmp_path: Path, workspace: Path) -> Callable[..., AgentEnv]:
    """Build an AgentEnv on the fixture workspace with an isolated state dir (FTS-only by default)."""

    def build(**overrides: object) -> AgentEnv:
        options: dict[str, object] = {
            "state_dir": str(tmp_path / "state"),
            "workspace": str(workspace),
            "provider": "none",
        }
        options.update(overrides)
        return resolve_agent(**options)  # type: ignore[arg-type]

    return build
