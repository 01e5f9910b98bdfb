"""The engine as the evaluations use it: an isolated agent in a throw-away state dir."""

from __future__ import annotations

from pathlib import Path

from memtui.manager import MemoryManager
from memtui.settings.agent import AgentEnv, resolve_agent


def fresh_env(state_dir: Path, workspace: Path, profile: str, provider: str) -> AgentEnv:
    """An agent on `workspace` with default settings, ignoring the user's config and OPENCLAW_* variables;
    `provider="local"` gets memtui's bundled model converted into the per-user model cache when it is not
    there yet (about a second)."""
    state_dir.mkdir(parents=True, exist_ok=True)
    if provider == "local":
        from memtui.embeddings.model_store import install_model, installed_model_path

        if installed_model_path(state_dir) is None:
            install_model()
    return resolve_agent(
        state_dir=str(state_dir),
        workspace=str(workspace),
        provider=provider,
        profile=profile,
        env={"HOME": str(state_dir)},
    )


def open_manager(env: AgentEnv) -> MemoryManager:
    """A `MemoryManager` for `env` (use it as a context manager)."""
    return MemoryManager(env)
