"""Everything resolved for one agent: state dir, config, workspace, sessions dir, store, settings.

The config is read here and only here: every part the engine uses is parsed once into typed, frozen
settings — memory search eagerly; QMD, dreaming, context and model providers on first use, so that their
errors surface where they always did and a command imports only the parsers it needs.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memtui.agentdb.generation import Generation, detect_generation
from memtui.agentdb.ownership import identify_database, store_advice
from memtui.agentdb.plugin_state import bind_workspace
from memtui.errors import ConfigError, PathError
from memtui.settings.config import (
    PROFILES,
    LoadedConfig,
    MemorySearchSettings,
    load_config_file,
    memory_search_block,
    resolve_memory_search,
)
from memtui.settings.memtui_config import config_folder, ranking
from memtui.settings.openclaw_2026_9 import (
    apply_fixed_knobs,
    config_generation,
    retired_keys,
    retired_paths,
    without_retired,
)
from memtui.settings.paths import (
    default_agent_id,
    expand_user,
    legacy_memtui_dir,
    memtui_dir,
    memtui_store_path,
    openclaw_store_path,
    refused_extra_paths,
    resolve_config_path,
    resolve_state_dir,
    resolve_workspace_dir,
    same_folder,
    sessions_dir,
    workspace_path,
)
from memtui.settings.raw import citations_mode, get_path, memory_backend, normalize_agent_id
from memtui.settings.store import StoreSettings

if TYPE_CHECKING:
    from memtui.settings.context import ContextSettings
    from memtui.settings.dreaming import DreamingSettings
    from memtui.settings.providers import ModelProviders
    from memtui.settings.qmd import QmdSettings


@dataclass
class AgentEnv:
    """The resolved environment of one agent, shared by the CLI, the TUI and the MCP server."""

    state_dir: Path
    config_path: Path
    config: LoadedConfig
    agent_id: str
    workspace_dir: Path
    configured_workspace_dir: Path
    sessions_dir: Path
    store_path: Path
    settings: MemorySearchSettings
    generation: Generation  # the OpenClaw layout found on disk for this agent
    read_only: bool = False
    store_is_memtuis: bool = True  # False for `--store FILE`: a file of the user's, never moved aside
    profile: str = "memtui"
    requested_provider: str = "auto"
    provider_set_by: str = "memorySearch.provider"  # or "--provider" when the command line chose it
    warnings: list[str] = field(default_factory=list)
    retired_keys: list[str] = field(default_factory=list)  # keys OpenClaw 2026.9 retired, not read (2026.9 only)

    @cached_property
    def citations(self) -> str:
        """`memory.citations` mode."""
        return citations_mode(self.config.raw)

    @cached_property
    def backend(self) -> str:
        """`memory.backend`: builtin or qmd."""
        return memory_backend(self.config.raw)

    @cached_property
    def providers(self) -> ModelProviders:
        """`models.providers`: keys, base URLs, headers and model catalogs."""
        from memtui.settings.providers import resolve_model_providers

        return resolve_model_providers(self.config.raw)

    @cached_property
    def qmd(self) -> QmdSettings:
        """`memory.qmd` (raises ConfigError on a bad value)."""
        from memtui.settings.qmd import resolve_qmd_settings

        return resolve_qmd_settings(self.config.raw)

    @cached_property
    def dreaming(self) -> DreamingSettings:
        """The dreaming settings (raises ConfigError on a bad value)."""
        from memtui.settings.dreaming import dreaming_settings

        return dreaming_settings(self.config.raw)

    @cached_property
    def context(self) -> ContextSettings:
        """Flush, session, sandbox, bootstrap, startup-context, user-time and `memory_get` settings."""
        from memtui.settings.context import resolve_context_settings

        return resolve_context_settings(self.config.raw, self.agent_id, str(self.config_path))

    @property
    def memtui_dir(self) -> Path:
        """memtui's own state folder (`<state>/memtui`)."""
        return memtui_dir(self.state_dir)

    @property
    def openclaw_store_path(self) -> Path:
        """Where OpenClaw itself keeps this agent's index."""
        return openclaw_store_path(self.settings.store.path, self.state_dir, self.agent_id)

    @property
    def openclaw_layout(self) -> str:
        """The generation whose rules apply: the one found on disk, else the one the config is written for,
        else 2026.4."""
        if self.generation.name in ("2026.9", "2026.4"):
            return self.generation.name
        return config_generation(self.config.raw) or "2026.4"

    def with_settings(self, settings: MemorySearchSettings) -> AgentEnv:
        """A copy with other memory-search settings."""
        return replace(self, settings=settings)


def refuse_state_dir_store(store_path: Path, state_dir: Path) -> None:
    """A writable `--store` inside the OpenClaw state dir (outside an older memtui's `<state>/memtui/`) is
    refused: that folder is OpenClaw's, and memtui never writes there."""
    resolved = state_dir.resolve()
    if store_path.is_relative_to(resolved) and not store_path.is_relative_to(legacy_memtui_dir(resolved)):
        kind = identify_database(store_path)
        hint = store_advice(kind) if kind.kind in ("openclaw-2026.4", "openclaw-agent-db") else \
            "give --store a path outside the state dir, or leave out --store so memtui keeps its own index"
        raise PathError(f"--store {store_path} is inside the OpenClaw state dir {state_dir}, which is OpenClaw's; "
                        "memtui never writes there", hint)


def _store_template(raw: dict[str, Any], agent_id: str) -> str:
    """`store.path` as the config sets it (unchecked), to find OpenClaw 2026.4's index before the settings are
    read (which ones are read depends on the generation found)."""
    value = get_path(memory_search_block(raw, agent_id), "store", "path")
    return value if isinstance(value, str) and value.strip() else StoreSettings.path


def resolve_agent(
    *,
    state_dir: str | None = None,
    workspace: str | None = None,
    agent: str | None = None,
    config: str | None = None,
    provider: str | None = None,
    store: str | None = None,
    read_only: bool = False,
    profile: str | None = None,
    env: Mapping[str, str] | None = None,
) -> AgentEnv:
    """Resolve an agent's environment from command-line style overrides and the OpenClaw config."""
    env = os.environ if env is None else env
    state = resolve_state_dir(state_dir, env)
    config_path = resolve_config_path(state, config, env)
    if config and not config_path.exists():
        raise ConfigError(f"{config_path}: config file not found")
    loaded = load_config_file(config_path)
    agent_id = normalize_agent_id(agent) if agent else default_agent_id(loaded.raw, strict=True) or "main"
    configured_workspace = resolve_workspace_dir(loaded.raw, agent_id, state, env)
    workspace_dir = configured_workspace
    if workspace:
        workspace_dir = workspace_path(workspace, env)
        if not workspace_dir.is_dir():
            raise PathError(f"workspace {workspace_dir} is not a directory")
    generation = detect_generation(state, agent_id, openclaw_store_path(_store_template(loaded.raw, agent_id), state,
                                                                        agent_id, env), config_generation(loaded.raw))
    warnings = list(loaded.warnings)
    if generation.note:
        warnings.append(generation.note)
    retired: list[str] = []
    layout = generation.name if generation.name in ("2026.9", "2026.4") else config_generation(loaded.raw)
    if layout == "2026.9":
        # 2026.9.6 runs no command on a config with a retired key: its values are nobody's settings.
        warnings.extend(retired_keys(loaded.raw))
        retired = retired_paths(loaded.raw)
        loaded = replace(loaded, raw=without_retired(loaded.raw))
    settings = resolve_memory_search(loaded.raw, agent_id, str(config_path))
    if layout == "2026.9":
        settings = apply_fixed_knobs(settings)
    # The dreaming code is given workspaces: this one's recall state is OpenClaw 2026.9's database, or its files.
    bind_workspace(workspace_dir, state if layout == "2026.9" else None)
    requested = settings.provider
    if provider:
        settings = replace(settings, provider=provider.strip())
        requested = provider.strip()
    chosen_profile = profile or env.get("MEMTUI_PROFILE") or "memtui"
    if chosen_profile not in PROFILES:
        raise ConfigError(f"unknown ranking profile {chosen_profile!r}; use one of {', '.join(PROFILES)}")
    if store:
        store_path = expand_user(store, env).resolve()
        if not read_only:
            refuse_state_dir_store(store_path, state)
    else:
        own = same_folder(workspace_dir, configured_workspace)
        store_path = memtui_store_path(state, agent_id, None if own else workspace_dir, env)
    tuned = ranking(config_folder(state, env))
    settings = replace(settings, query=replace(settings.query, month_boost=tuned.month_boost,
                                               memtui_weights=tuned.weights))
    refused = refused_extra_paths(workspace_dir, settings.extra_paths, state, env)
    if refused:
        settings = replace(settings, extra_paths=tuple(p for p in settings.extra_paths if p not in refused))
        warnings.extend(refused.values())
    if read_only and settings.store.driver == "sqlite" and not store_path.exists():  # postgres: the store says
        raise PathError(f"--read-only needs an existing index; {store_path} does not exist")
    return AgentEnv(
        state_dir=state,
        config_path=config_path,
        config=loaded,
        agent_id=agent_id,
        workspace_dir=workspace_dir,
        configured_workspace_dir=configured_workspace,
        sessions_dir=sessions_dir(state, agent_id),
        store_path=store_path,
        settings=settings,
        read_only=read_only,
        store_is_memtuis=not store,
        profile=chosen_profile,
        requested_provider=requested,
        provider_set_by="--provider" if provider else "memorySearch.provider",
        warnings=warnings,
        retired_keys=retired,
        generation=generation,
    )
