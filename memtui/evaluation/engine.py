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
        # the index beside its workspace, in the evaluation's own folder (a kept one is reused from there), not in
        # the user's data dir
        store=str(state_dir / "memtui" / f"eval-{_folder_key(workspace)}.sqlite"),
        env={"HOME": str(state_dir)},
    )


def _folder_key(workspace: Path) -> str:
    """A short stable name for a workspace folder."""
    from memtui.jscompat import sha256_hex

    return sha256_hex(str(workspace.resolve()))[:12]


def open_manager(env: AgentEnv) -> MemoryManager:
    """A `MemoryManager` for `env` (use it as a context manager)."""
    return MemoryManager(env)
