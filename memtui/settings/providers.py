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


# Every configured provider block by id, in config order (blocks that are not objects are left out).
ModelProviders = Mapping[str, ProviderConfig]
EMPTY_PROVIDER = ProviderConfig()


def _provider(block: dict[str, Any]) -> ProviderConfig:
    base = block.get("baseUrl")
    headers = block.get("headers")
    models = block.get("models")
    return ProviderConfig(
        api_key=resolve_secret(block.get("apiKey")),
        base_url=base.strip() if isinstance(base, str) else "",
        headers={str(k): str(v) for k, v in headers.items()} if isinstance(headers, dict) else {},
        models=tuple(ModelEntry(item.get("id"), non_negative_int(item.get("contextWindow")))
                     for item in (models if isinstance(models, list) else []) if isinstance(item, dict)),
    )


def resolve_model_providers(raw: dict[str, Any]) -> ModelProviders:
    """Read `models.providers` into provider id → block."""
    blocks = get_path(raw, "models", "providers")
    if not isinstance(blocks, dict):
        return {}
    return {str(k): _provider(v) for k, v in blocks.items() if isinstance(v, dict)}
