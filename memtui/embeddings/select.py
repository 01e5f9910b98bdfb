"""Choosing the embedding provider: explicit, `auto` (OpenClaw 2026.4 order), fallback, or none (§8.1)."""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memtui.embeddings.base import EmbeddingProvider
from memtui.errors import MemtuiError, ProviderError

if TYPE_CHECKING:
    from memtui.embeddings.http_retry import RetryPolicy
    from memtui.settings.config import MemorySearchSettings
    from memtui.settings.providers import ModelProviders

DEFAULT_LOCAL_MODEL = "hf:ggml-org/embeddinggemma-300m-qat-q8_0-GGUF/embeddinggemma-300m-qat-Q8_0.gguf"
SUPPORTED = ("local", "openai", "gemini", "voyage")
AUTO_REMOTE_ORDER = ("openai", "gemini", "voyage")
NOT_IMPLEMENTED = ("github-copilot", "mistral", "deepinfra", "bedrock", "ollama", "lmstudio")
LOCAL_RESOLVE_TIMEOUT_S = 10.0


# 2026.9's doctor writes `provider: "openai"`; without a key memtui inspects keyword-only and says that
# OpenClaw's own index and search fail this way (for 2026.4 memtui keeps refusing, as OpenClaw 2026.4 does).
KEYLESS_2026_9 = "OpenClaw 2026.9 itself fails its memory index and search this way (missing-provider-auth)"


@dataclass
class ProviderSelection:
    """The chosen provider (None = FTS-only) and how it was chosen, for `status` and the TUI."""

    provider: EmbeddingProvider | None
    requested: str
    fallback_from: str | None = None
    reason: str | None = None
    source: str = "config"


def _is_model_file(spec: str | None) -> bool:
    if not spec or spec.startswith(("hf:", "http:", "https:")):
        return False
    return Path(spec).expanduser().is_file()


def _installed_memtui_model(state_dir: Path) -> Path | None:
    from memtui.embeddings.model_store import installed_model_path

    return installed_model_path(state_dir)


def _create_local(
    settings: MemorySearchSettings, spec: str, *, memtui_model: bool = False
) -> EmbeddingProvider:
    try:
        from memtui.embeddings.local import LocalEmbeddingProvider, resolve_model_file
    except ImportError as exc:
        raise ProviderError(
            f"local embeddings are unavailable: {exc}", "install the extra: pip install 'memtui[local]'"
        ) from None
    cache_dir = settings.local.model_cache_dir
    try:
        path = Path(spec) if memtui_model else resolve_model_file(spec, cache_dir, LOCAL_RESOLVE_TIMEOUT_S)
        return LocalEmbeddingProvider(
            str(path), model=path.name if memtui_model else spec, context_size=settings.local.context_size,
            model_cache_dir=cache_dir,
        )
    except MemtuiError as exc:
        raise ProviderError(f"local embeddings failed to start: {exc.message}", exc.hint) from None
    except (OSError, RuntimeError, ValueError) as exc:
        raise ProviderError(
            f"local embeddings failed to start: {exc}", "check memorySearch.local.modelPath"
        ) from None


def create_provider(
    provider_id: str,
    settings: MemorySearchSettings,
    providers: ModelProviders,
    *,
    state_dir: Path,
    profile: str = "memtui",
    env: Mapping[str, str] | None = None,
    agent_id: str = "main",
    retry: RetryPolicy | None = None,
) -> tuple[EmbeddingProvider, str]:
    """Create one named provider; returns it with its source ("config" or "memtui-model")."""
    env = os.environ if env is None else env
    if provider_id == "openai":
        from memtui.embeddings.openai_provider import OpenAIEmbeddingProvider

        return OpenAIEmbeddingProvider.from_settings(settings, providers, env=env, agent_id=agent_id,
                                                     retry=retry), "config"
    if provider_id == "gemini":
        from memtui.embeddings.gemini import GeminiEmbeddingProvider

        return GeminiEmbeddingProvider.from_settings(settings, providers, env=env, retry=retry), "config"
    if provider_id == "voyage":
        from memtui.embeddings.voyage import VoyageEmbeddingProvider

        return VoyageEmbeddingProvider.from_settings(settings, providers, env=env, retry=retry), "config"
    if provider_id == "local":
        spec = (settings.local.model_path or "").strip()
        if not spec and profile == "memtui":
            installed = _installed_memtui_model(state_dir)
            if installed is not None:
                return _create_local(settings, str(installed), memtui_model=True), "memtui-model"
        return _create_local(settings, spec or DEFAULT_LOCAL_MODEL), "config"
    if provider_id in NOT_IMPLEMENTED:
        raise ProviderError(
            f"embedding provider {provider_id} is not implemented in memtui",
            "use openai, gemini, voyage, local, auto or none",
        )
    raise ProviderError(
        f"unknown embedding provider {provider_id!r}", "use openai, gemini, voyage, local, auto or none"
    )


def select_provider(
    settings: MemorySearchSettings,
    providers: ModelProviders,
    *,
    state_dir: Path,
    profile: str = "memtui",
    env: Mapping[str, str] | None = None,
    agent_id: str = "main",
    retry: RetryPolicy | None = None,
    set_by: str = "memorySearch.provider",
    keyless_note: str | None = None,
) -> ProviderSelection:
    """Pick the provider for `memorySearch.provider` (`set_by` names where the choice came from: the config or
    `--provider`). With `keyless_note`, an explicit provider without credentials gives keyword-only with the
    missing key and that note as the reason, instead of raising.

    `none` gives FTS-only. `auto` follows OpenClaw 2026.4: `local` only when `local.modelPath` is an
    existing file, then openai, gemini and voyage when a key is available; github-copilot, mistral,
    deepinfra and bedrock are not implemented and are skipped. In the memtui profile only, memtui's
    installed model is used when nothing else is available. A remote provider is skipped only for a
    missing key; any other creation error is raised. An explicit provider that fails to start falls
    back to `memorySearch.fallback` when that is not "none"; otherwise the error is raised.
    """
    requested = settings.provider
    make = {"state_dir": state_dir, "profile": profile, "env": env, "agent_id": agent_id, "retry": retry}
    if requested == "none":
        from_config = set_by == "memorySearch.provider"
        return ProviderSelection(None, requested, reason=f"{set_by} is none" if from_config else f"{set_by} none",
                                 source="config" if from_config else set_by)
    if requested == "auto":
        return _auto(settings, providers, make)
    try:
        provider, source = create_provider(requested, settings, providers, **make)
        return ProviderSelection(provider, requested, source=source)
    except ProviderError as exc:
        if settings.fallback in ("none", requested):
            from memtui.embeddings.http_retry import MissingApiKeyError

            if keyless_note and isinstance(exc, MissingApiKeyError):
                return ProviderSelection(None, requested, reason=f"{exc.message}; {keyless_note}")
            raise
        selection = fallback_provider(settings, providers, failed=requested, reason=str(exc), **make)
        if selection.provider is None:
            raise ProviderError(selection.reason or f"{requested} failed", "fix the provider") from None
        return selection


def _auto(
    settings: MemorySearchSettings, providers: ModelProviders, make: dict[str, Any]
) -> ProviderSelection:
    from memtui.embeddings.http_retry import MissingApiKeyError

    skipped: list[str] = []
    if _is_model_file(settings.local.model_path):
        try:
            provider, _ = create_provider("local", settings, providers, **make)
            return ProviderSelection(provider, "auto", source="auto")
        except ProviderError as exc:
            skipped.append(f"local: {exc.message}")
    else:
        skipped.append("local: no local.modelPath file")
    for provider_id in AUTO_REMOTE_ORDER:
        try:
            provider, _ = create_provider(provider_id, settings, providers, **make)
            return ProviderSelection(provider, "auto", source="auto")
        except MissingApiKeyError:
            skipped.append(f"{provider_id}: no API key")
    if make["profile"] == "memtui":
        installed = _installed_memtui_model(make["state_dir"])
        if installed is not None and importlib.util.find_spec("llama_cpp") is None:
            skipped.append(f"memtui model: installed at {installed}, but llama-cpp-python is not")
        elif installed is not None:
            provider = _create_local(settings, str(installed), memtui_model=True)
            return ProviderSelection(provider, "auto", source="memtui-model")
        else:
            from memtui.embeddings.model_store import model_folders

            searched = " or ".join(str(folder) for folder in model_folders(make["state_dir"]))
            skipped.append(f"memtui model: not installed in {searched} (memtui model install)")
    reason = "no embedding provider available (" + "; ".join(skipped) + ")"
    return ProviderSelection(None, "auto", reason=reason, source="auto")


def fallback_provider(
    settings: MemorySearchSettings,
    providers: ModelProviders,
    *,
    state_dir: Path,
    failed: str,
    reason: str,
    profile: str = "memtui",
    env: Mapping[str, str] | None = None,
    agent_id: str = "main",
    retry: RetryPolicy | None = None,
) -> ProviderSelection:
    """Switch to `memorySearch.fallback` after `failed` broke (at start or mid-index).

    Returns provider None (FTS-only) with the reason when there is no usable fallback.
    """
    target = settings.fallback
    if target in ("none", failed):
        return ProviderSelection(None, settings.provider, fallback_from=failed,
                                 reason=f"{failed} failed and no fallback is configured: {reason}")
    try:
        provider, source = create_provider(
            target, settings, providers, state_dir=state_dir, profile=profile, env=env, agent_id=agent_id,
            retry=retry,
        )
    except ProviderError as exc:
        return ProviderSelection(None, settings.provider, fallback_from=failed,
                                 reason=f"{failed} failed ({reason}); fallback {target} failed too ({exc})")
    return ProviderSelection(provider, settings.provider, fallback_from=failed, reason=reason, source=source)
