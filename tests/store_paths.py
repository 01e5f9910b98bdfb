"""Where memtui keeps an index, for tests that open or damage the file itself."""

from __future__ import annotations

from pathlib import Path

from memtui.settings.agent import resolve_agent


def index_of(state: Path, workspace: Path) -> Path:
    """The index of `memtui --state-dir state --workspace workspace` (a folder other than the agent's
    configured workspace has an index of its own)."""
    return resolve_agent(state_dir=str(state), workspace=str(workspace), provider="none").store_path


def memtui_folder(state: Path) -> Path:
    """The folder memtui keeps its indexes in for the state dir `state` (memtui's data dir, not the state dir)."""
    return resolve_agent(state_dir=str(state), provider="none").memtui_dir
