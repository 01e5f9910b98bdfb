"""The index's meta row: what it was built for (provider, model, scope, chunking), and when that forces a rebuild."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from memtui.embeddings.base import NO_PROVIDER, EmbeddingProvider, model_name, provider_key
from memtui.index.annotations import CHUNKING_VERSION
from memtui.jscompat import js_sort_key, js_stringify, sha256_hex
from memtui.settings.config import MemorySearchSettings
from memtui.settings.paths import resolve_extra_path

# 2026.9.6's `provenanceVersion`: the index keeps what each chunk's provenance and recall metadata are read from.
PROVENANCE_VERSION = 1


def scope_json(workspace_dir: Path, settings: MemorySearchSettings) -> str:
    """What OpenClaw hashes into `scopeHash`: `{extraPaths, multimodal: {enabled, modalities, maxFileBytes}}`,
    the extra paths made absolute by plain `path.resolve` (no `~` expansion, symlinks kept), de-duplicated
    and sorted, the modalities sorted (none when multimodal is off)."""
    extra = {str(resolve_extra_path(workspace_dir, p)).replace("\\", "/") for p in settings.extra_paths}
    multimodal = settings.multimodal
    return js_stringify({
        "extraPaths": sorted(extra, key=js_sort_key),
        "multimodal": {
            "enabled": multimodal.enabled,
            "modalities": sorted(multimodal.modalities, key=js_sort_key),
            "maxFileBytes": multimodal.max_file_bytes,
        },
    })


def scope_hash(workspace_dir: Path, settings: MemorySearchSettings) -> str:
    """sha256 of `scope_json`: the meta's `scopeHash`."""
    return sha256_hex(scope_json(workspace_dir, settings))


def build_meta(workspace_dir: Path, settings: MemorySearchSettings, provider: EmbeddingProvider | None,
               vector_dims: int | None) -> dict[str, Any]:
    """The meta row in OpenClaw's key order (`vectorDims` only when sqlite-vec is loaded and dims known)."""
    meta: dict[str, Any] = {
        "model": model_name(provider),
        "provider": provider.id if provider is not None else NO_PROVIDER,
        "providerKey": provider_key(provider),
        "sources": sorted(settings.sources),
        "scopeHash": scope_hash(workspace_dir, settings),
        "chunkTokens": settings.chunking.tokens,
        "chunkOverlap": settings.chunking.overlap,
    }
    if settings.chunking.version is not None:
        meta["chunkingVersion"] = settings.chunking.version
    meta["ftsTokenizer"] = settings.store.fts_tokenizer
    if settings.chunking.version == CHUNKING_VERSION:  # 2026.9: each chunk's recall metadata is kept (`RECALL`)
        meta["provenanceVersion"] = PROVENANCE_VERSION
    if vector_dims is not None:
        meta["vectorDims"] = vector_dims
    return meta


def full_reindex_reason(existing: dict[str, Any] | None, wanted: dict[str, Any], vector_ready: bool) -> str | None:
    """`shouldRunFullMemoryReindex`: why the stored meta forces a full rebuild, or None."""
    if existing is None:
        return "no index metadata"
    for key in ("model", "provider", "providerKey", "scopeHash", "chunkTokens", "chunkOverlap", "chunkingVersion",
                "provenanceVersion"):
        if existing.get(key) != wanted.get(key):
            return f"{key} changed ({existing.get(key)!r} → {wanted.get(key)!r})"
    if sorted(existing.get("sources") or []) != wanted["sources"]:
        return "sources changed"
    if (existing.get("ftsTokenizer") or "unicode61") != wanted["ftsTokenizer"]:
        return "FTS tokenizer changed"
    if vector_ready and wanted["provider"] != NO_PROVIDER and existing.get("vectorDims") is None:
        return "vector dimensions missing"
    return None
