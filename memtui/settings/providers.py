"""`models.providers.<id>`: each model provider's key, base URL, headers and model catalog."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from memtui.settings.config import resolve_secret
from memtui.settings.raw import get_path
from memtui.settings.values import non_negative_int


@dataclass(frozen=True)
class ModelEntry:
    """One `models[]` entry of a provider: the model id and its context window (None when unset or invalid)."""

    id: Any
    context_window: int | None


@dataclass(frozen=True)
class ProviderConfig:
    """One `models.providers.<id>` block; an absent or malformed block reads as the empty one."""

    api_key: str | None = field(default=None, repr=False)
    base_url: str = ""
    headers: Mapping[str, str] = field(default_factory=dict)
    models: tuple[ModelEntry, ...] = ()
    context_window: int | None = None


# Every configured provider block by id, in config order (blocks that are not objects are left out).
ModelProviders = Mapping[str, ProviderConfig]
EMPTY_PROVIDER = ProviderConfig()


def _window(block: dict[str, Any]) -> int | None:
    """`contextTokens` when it is a number, else `contextWindow`; None unless above zero."""
    value = block.get("contextTokens")
    if isinstance(value, bool) or not isinstance(value, int | float):
        value = block.get("contextWindow")
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    count = non_negative_int(value)
    return count if count else None


def _provider(block: dict[str, Any]) -> ProviderConfig:
    base = block.get("baseUrl")
    headers = block.get("headers")
    models = block.get("models")
    return ProviderConfig(
        api_key=resolve_secret(block.get("apiKey")),
        base_url=base.strip() if isinstance(base, str) else "",
        headers={str(k): str(v) for k, v in headers.items()} if isinstance(headers, dict) else {},
        models=tuple(ModelEntry(item.get("id"), _window(item))
                     for item in (models if isinstance(models, list) else []) if isinstance(item, dict)),
        context_window=_window(block),
    )


def resolve_model_providers(raw: dict[str, Any]) -> ModelProviders:
    """Read `models.providers` into provider id → block."""
    blocks = get_path(raw, "models", "providers")
    if not isinstance(blocks, dict):
        return {}
    return {str(k): _provider(v) for k, v in blocks.items() if isinstance(v, dict)}


def _normalize_provider_id(provider: str) -> str:
    return provider.strip().lower().replace("_", "-")


def catalog_context_window(providers: ModelProviders, provider: str, model: str) -> tuple[int, str] | None:
    """The configured window of `provider/model` and where it was found: the provider block matched by id
    (exactly, case-insensitively; then by normalized id), its `models[id]` entry, else its own window."""
    for same in (lambda pid: pid.lower() == provider.lower(),
                 lambda pid: _normalize_provider_id(pid) == _normalize_provider_id(provider)):
        for pid, block in providers.items():
            if not same(pid):
                continue
            for item in block.models:
                if item.id == model and item.context_window:
                    return item.context_window, f"models.providers.{pid}.models[{model}]"
            if block.context_window:
                return block.context_window, f"models.providers.{pid}.contextWindow"
    return None
