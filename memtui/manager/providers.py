"""The memory manager's embedding provider over its life: chosen from the config, warmed up ahead of the first
search, swapped for the configured fallback when it fails, and tried again later."""

from __future__ import annotations

import contextlib
import time
from typing import TYPE_CHECKING

from memtui.embeddings.base import NO_PROVIDER, EmbeddingProvider, model_name
from memtui.index.store import Store
from memtui.settings.agent import AgentEnv
from memtui.settings.config import MemorySearchSettings

if TYPE_CHECKING:
    from memtui.embeddings.select import ProviderSelection

# How long a provider that failed is left alone before a sync tries it again.
PROVIDER_RETRY_S = 300.0


class ProviderLifecycle:
    """The provider part of `MemoryManager` (the attributes below are the manager's)."""

    env: AgentEnv
    settings: MemorySearchSettings
    store: Store
    provider: EmbeddingProvider | None
    provider_reason: str | None
    provider_source: str
    fallback: dict[str, str] | None
    _failed: tuple[EmbeddingProvider | None, str | None, dict[str, str] | None] | None
    _failed_at: float

    def _select_provider(self) -> EmbeddingProvider | None:
        selection = agent_provider(self.env)
        self.provider_reason = selection.reason
        self.provider_source = selection.source
        if selection.fallback_from:
            self.fallback = {"from": selection.fallback_from, "reason": selection.reason or ""}
        return selection.provider

    def warm_up(self) -> None:
        """Load the embedding provider's SDK, client or model now, so the first search does not wait for it (a
        failure is left to the first search, which reports it as usual)."""
        provider = self.provider
        if provider is not None:
            with contextlib.suppress(Exception):
                provider.warm_up()

    def _retry_failed_provider(self) -> None:
        """Go back to the provider a sync fell back from (at once when the index was built with it meanwhile, else
        `PROVIDER_RETRY_S` after it failed): no lifetime keyword-only, no rebuild over others' vectors."""
        if self._failed is None:
            return
        failed, meta = self._failed[0], self.store.read_meta() or {}
        built_with_it = failed is not None and meta.get("model") == model_name(failed)
        if built_with_it or time.monotonic() - self._failed_at >= PROVIDER_RETRY_S:
            if self.provider is not None:
                self.provider.close()
            (self.provider, self.provider_reason, self.fallback), self._failed = self._failed, None

    def _switch_to_fallback(self, reason: str, *, keep: bool = False) -> bool:
        """Go over to the configured fallback provider (FTS-only without one); with `keep`, only to a provider:
        False (and nothing changed) when there is none to go to."""
        from memtui.embeddings.select import fallback_provider

        failed = self.provider.id if self.provider is not None else NO_PROVIDER
        selection = fallback_provider(self.settings, self.env.providers, state_dir=self.env.state_dir, failed=failed,
                                      reason=reason, profile=self.env.profile, agent_id=self.env.agent_id)
        if keep and selection.provider is None:
            return False
        if self._failed is None:  # kept: a later sync tries it again (`_retry_failed_provider`)
            self._failed, self._failed_at = (self.provider, self.provider_reason, self.fallback), time.monotonic()
        elif self.provider is not None:
            self.provider.close()
        self.provider = selection.provider
        self.provider_reason = selection.reason or reason
        self.fallback = {"from": failed, "reason": reason}
        return True


def agent_provider(env: AgentEnv) -> ProviderSelection:
    """The embedding provider `env`'s config selects (with why, and what it fell back from), as the agent's
    manager uses it; nothing is loaded or called yet."""
    from memtui.embeddings.select import KEYLESS_2026_9, select_provider
    from memtui.manager.local_2026_9 import local_selection

    settings = env.settings
    # `none` reads no provider config; the ranking profile never picks the provider (one index, its vectors)
    providers = {} if settings.provider == "none" else env.providers
    keyless = KEYLESS_2026_9 if env.openclaw_layout == "2026.9" else None
    return local_selection(env, settings, providers) or select_provider(
        settings, providers, state_dir=env.state_dir, agent_id=env.agent_id, set_by=env.provider_set_by,
        keyless_note=keyless)
