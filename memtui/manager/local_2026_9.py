"""`memory.search.provider: "local"` on a 2026.9 agent with no model file on this disk.

memtui downloads nothing while it runs (`memtui model install` is the one command that fetches a model), so such
an agent is inspected keyword-only, with the reason and what to do. OpenClaw 2026.9.6 itself fails its memory
index and search with this config — "Unknown memory embedding provider: local": its local GGUF embeddings moved
to the llama.cpp provider plugin (`benchmarks/openclaw_record/OPENCLAW-2026.9.6.md` §3) — and the reason says so.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from memtui.embeddings.select import DEFAULT_LOCAL_MODEL, ProviderSelection, fallback_provider
from memtui.settings.paths import expand_user

if TYPE_CHECKING:  # the model catalog is parsed only when a provider needs it
    from memtui.settings.agent import AgentEnv
    from memtui.settings.config import MemorySearchSettings
    from memtui.settings.providers import ModelProviders

HF_PREFIX = "hf:"

LOCAL_2026_9 = ('OpenClaw 2026.9.6 itself fails its memory index and search with this config ("Unknown memory '
                'embedding provider: local": its local embeddings are the llama.cpp provider plugin\'s, '
                "`openclaw plugins install @openclaw/llama-cpp-provider`)")
WHAT_TO_DO = ("set memory.search.local.modelPath to a .gguf file on this disk, run `memtui model install`, or set "
              'memory.search.provider to "none"')


def _in_hf_cache(spec: str, cache_dir: str | None) -> bool:
    parts = spec[len(HF_PREFIX):].strip("/").split("/")
    if len(parts) < 3 or not all(parts):
        return False
    try:
        from huggingface_hub import try_to_load_from_cache
    except ImportError:
        return False
    cached = try_to_load_from_cache("/".join(parts[:2]), "/".join(parts[2:]),
                                    cache_dir=str(expand_user(cache_dir)) if cache_dir else None)
    return isinstance(cached, str)


def local_model_missing(settings: MemorySearchSettings, state_dir: Path) -> str | None:
    """Why the `local` provider of a 2026.9 agent is not started — no model file on this disk, and memtui
    downloads none at run time — with what OpenClaw does and what to do; None when a model file is there."""
    from memtui.embeddings.model_store import installed_model_path

    spec = (settings.local.model_path or "").strip()
    if not spec:
        if installed_model_path(state_dir) is not None:
            return None
        spec = DEFAULT_LOCAL_MODEL
    if spec.startswith(HF_PREFIX):
        if _in_hf_cache(spec, settings.local.model_cache_dir):
            return None
        missing = f"{spec} is not in the model cache"
    elif spec.startswith(("http://", "https://")):
        missing = f"{spec} is a URL, not a file"
    else:
        path = expand_user(spec)
        if path.is_file():
            return None
        missing = f"there is no model file at {path}"
    return (f"memory.search.provider is local, but {missing} and memtui downloads nothing while it runs "
            f"({WHAT_TO_DO}); {LOCAL_2026_9}")


def local_selection(env: AgentEnv, settings: MemorySearchSettings, providers: ModelProviders) -> \
        ProviderSelection | None:
    """For a 2026.9 agent whose `local` provider has no model file: keyword-only with the reason (or
    `memory.search.fallback` when one is set); None when this does not apply and the provider is chosen as usual."""
    if env.openclaw_layout != "2026.9" or settings.provider != "local":
        return None
    reason = local_model_missing(settings, env.state_dir)
    if reason is None:
        return None
    if settings.fallback in ("none", "local"):
        return ProviderSelection(None, "local", reason=reason)
    return fallback_provider(settings, providers, state_dir=env.state_dir, failed="local", reason=reason,
                             agent_id=env.agent_id)
