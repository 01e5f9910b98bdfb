"""OpenClaw configuration (JSON5) → typed, defaulted, clamped memory-search settings.

Reads `openclaw.json` as OpenClaw 2026.4 does: `agents.defaults.memorySearch` merged field by
field with `agents.list[].memorySearch`, plus the newer top-level `memory.search` key.
"""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from memtui.errors import ConfigError
from memtui.jscompat import MAX_JSON_DEPTH, too_deep
from memtui.settings.memtui_config import MEMTUI_WEIGHTS, MONTH_BOOST
from memtui.settings.raw import agent_entry, get_path
from memtui.settings.store import StoreSettings, store_driver
from memtui.settings.values import MULTIMODAL_MAX_FILE_BYTES, multimodal_modalities

SOURCES = ("memory", "sessions")
# `openclaw`: the agent's OpenClaw generation, exactly (2026.9: OpenClaw's own index and ranking);
# `openclaw-2026.4`: the classic rules on memtui's index.
PROFILES = ("memtui", "openclaw", "openclaw-2026.4")

# Known keys of a memorySearch block; nested dicts describe nested blocks, None is a leaf.
_MEMORY_SEARCH_SCHEMA: dict[str, Any] = {
    "enabled": None,
    "sources": None,
    "extraPaths": None,
    "qmd": {"extraCollections": None},
    "multimodal": {"enabled": None, "modalities": None, "maxFileBytes": None},
    "experimental": {"sessionMemory": None},
    "provider": None,
    "model": None,
    "fallback": None,
    "inputType": None,
    "queryInputType": None,
    "documentInputType": None,
    "outputDimensionality": None,
    "remote": {
        "baseUrl": None,
        "apiKey": None,
        "headers": None,
        "nonBatchConcurrency": None,
        "batch": {"enabled": None, "wait": None, "concurrency": None, "pollIntervalMs": None, "timeoutMinutes": None},
    },
    "local": {"modelPath": None, "modelCacheDir": None, "contextSize": None},
    "store": {
        "driver": None,
        "url": None,
        "path": None,
        "fts": {"tokenizer": None},
        "vector": {"enabled": None, "extensionPath": None},
    },
    "chunking": {"tokens": None, "overlap": None},
    "sync": {
        "onSessionStart": None,
        "onSearch": None,
        "watch": None,
        "watchDebounceMs": None,
        "intervalMinutes": None,
        "embeddingBatchTimeoutSeconds": None,
        "sessions": {"deltaBytes": None, "deltaMessages": None, "postCompactionForce": None},
    },
    "query": {
        "maxResults": None,
        "minScore": None,
        "hybrid": {
            "enabled": None,
            "vectorWeight": None,
            "textWeight": None,
            "candidateMultiplier": None,
            "mmr": {"enabled": None, "lambda": None},
            "temporalDecay": {"enabled": None, "halfLifeDays": None},
        },
    },
    "cache": {"enabled": None, "maxEntries": None},
    "rememberAcrossConversations": None,
}


@dataclass(frozen=True)
class BatchSettings:
    """Provider batch-API settings (`remote.batch`)."""

    enabled: bool = False
    wait: bool = True
    concurrency: int = 2
    poll_interval_ms: int = 2000
    timeout_minutes: float = 60


@dataclass(frozen=True)
class RemoteSettings:
    """Remote embedding endpoint settings (`remote`)."""

    base_url: str | None = None
    api_key: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    non_batch_concurrency: int | None = None
    batch: BatchSettings = field(default_factory=BatchSettings)


@dataclass(frozen=True)
class LocalSettings:
    """Local GGUF model settings (`local`)."""

    model_path: str | None = None
    model_cache_dir: str | None = None
    context_size: int | str = 4096


@dataclass(frozen=True)
class ChunkingSettings:
    """Chunk size and overlap in estimated tokens (`chunking`)."""

    tokens: int = 400
    overlap: int = 80
    version: int | None = None  # 5: OpenClaw 2026.9's chunker (`chunkingVersion`); None: 2026.4's


@dataclass(frozen=True)
class SessionSyncSettings:
    """Session transcript delta thresholds (`sync.sessions`)."""

    delta_bytes: int = 100_000
    delta_messages: int = 50
    post_compaction_force: bool = True


@dataclass(frozen=True)
class SyncSettings:
    """When the index is refreshed (`sync`)."""

    on_session_start: bool = True
    on_search: bool = True
    watch: bool = True
    watch_debounce_ms: int = 1500
    interval_minutes: float = 0
    embedding_batch_timeout_seconds: float | None = None
    sessions: SessionSyncSettings = field(default_factory=SessionSyncSettings)


@dataclass(frozen=True)
class MMRSettings:
    """Maximal marginal relevance re-ranking (`query.hybrid.mmr`)."""

    enabled: bool = False
    lambda_: float = 0.7


@dataclass(frozen=True)
class DecaySettings:
    """Temporal decay of dated daily notes (`query.hybrid.temporalDecay`)."""

    enabled: bool = False
    half_life_days: int = 30


@dataclass(frozen=True)
class HybridSettings:
    """Hybrid merge settings (`query.hybrid`); weights are normalised to sum to 1. `weights_configured` says
    whether the config (or live tuning) set them, as opposed to OpenClaw's 0.7/0.3 defaults (the `memtui`
    ranking profile has defaults of its own)."""

    enabled: bool = True
    vector_weight: float = 0.7
    text_weight: float = 0.3
    candidate_multiplier: float = 4
    mmr: MMRSettings = field(default_factory=MMRSettings)
    temporal_decay: DecaySettings = field(default_factory=DecaySettings)
    weights_configured: bool = False


@dataclass(frozen=True)
class QuerySettings:
    """Result count and threshold (`query`)."""

    max_results: int = 6
    min_score: float = 0.35
    hybrid: HybridSettings = field(default_factory=HybridSettings)
    month_boost: float = MONTH_BOOST  # the memtui profile's knobs, from memtui's own config
    memtui_weights: tuple[float, float] = MEMTUI_WEIGHTS


@dataclass(frozen=True)
class CacheSettings:
    """Embedding cache (`cache`)."""

    enabled: bool = True
    max_entries: int | None = None


@dataclass(frozen=True)
class MultimodalSettings:
    """Multimodal indexing of extra paths (`multimodal`, normalized as OpenClaw does); memtui indexes text only."""

    enabled: bool = False
    modalities: tuple[str, ...] = ()
    max_file_bytes: int = MULTIMODAL_MAX_FILE_BYTES


@dataclass(frozen=True)
class MemorySearchSettings:
    """The resolved `memorySearch` block for one agent, with every default and clamp applied."""

    enabled: bool = True
    sources: tuple[str, ...] = ("memory",)
    extra_paths: tuple[str, ...] = ()
    multimodal: MultimodalSettings = field(default_factory=MultimodalSettings)
    session_memory: bool = False
    provider: str = "auto"
    model: str = ""
    fallback: str = "none"
    input_type: str | None = None
    query_input_type: str | None = None
    document_input_type: str | None = None
    output_dimensionality: int | None = None
    remote: RemoteSettings = field(default_factory=RemoteSettings)
    local: LocalSettings = field(default_factory=LocalSettings)
    store: StoreSettings = field(default_factory=StoreSettings)
    chunking: ChunkingSettings = field(default_factory=ChunkingSettings)
    sync: SyncSettings = field(default_factory=SyncSettings)
    query: QuerySettings = field(default_factory=QuerySettings)
    cache: CacheSettings = field(default_factory=CacheSettings)
    user_memory: bool = False  # USER.md is a memory file (OpenClaw 2026.9)

    @property
    def memory_paths(self) -> tuple[str, ...]:
        """Where memory files live beyond MEMORY.md and memory/: USER.md (2026.9) and the extra paths."""
        return ("USER.md", *self.extra_paths) if self.user_memory else self.extra_paths


@dataclass
class LoadedConfig:
    """A parsed config file: the raw JSON5 object, where it came from, and warnings found."""

    raw: dict[str, Any]
    path: Path | None
    warnings: list[str] = field(default_factory=list)


_JSON5_POS = re.compile(r"<string>:(\d+)\s*(.*?)(?:\s+at column (\d+))?$", re.DOTALL)
_ENV_REF = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


def parse_config_text(text: str, path: Path | None = None) -> LoadedConfig:
    """Parse JSON5 config text; errors name the file, line and column."""
    import json5  # ~1.5 ms: not loaded when there is no config file

    where = str(path) if path else "<config>"
    try:
        data = json5.loads(text)
    except RecursionError:
        raise ConfigError(f"{where}: invalid JSON5: nested too deeply to read",
                          "flatten the deeply nested value; OpenClaw's settings nest a few levels only") from None
    except ValueError as exc:
        match = _JSON5_POS.search(str(exc).replace("\r", "\\r").replace("\n", "\\n"))
        if match:
            line, message, column = match.group(1), match.group(2), match.group(3) or "1"
            raise ConfigError(f"{where}:{line}:{column}: invalid JSON5: {message}") from None
        raise ConfigError(f"{where}: invalid JSON5: {exc}") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{where}:1:1: the config must be a JSON5 object, not {type(data).__name__}")
    if too_deep(data):
        raise ConfigError(f"{where}: invalid JSON5: nested more than {MAX_JSON_DEPTH} levels deep",
                          "flatten the deeply nested value; OpenClaw's settings nest a few levels only")
    loaded = LoadedConfig(raw=data, path=path)
    loaded.raw = _substitute_env(data, loaded.warnings, where)
    _check_memory_keys(loaded)
    return loaded


def load_config_file(path: Path | None) -> LoadedConfig:
    """Load `path` (JSON5); a missing file gives an empty config."""
    if path is None or not path.exists():
        return LoadedConfig(raw={}, path=path)
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read config ({exc.strerror})") from None
    return parse_config_text(text, path)


def _substitute_env(value: Any, warnings: list[str], where: str) -> Any:
    if isinstance(value, str):

        def repl(match: re.Match[str]) -> str:
            name = match.group(1)
            if name in os.environ:
                return os.environ[name]
            warnings.append(f"{where}: environment variable {name} is not set (left as ${{{name}}})")
            return match.group(0)

        return _ENV_REF.sub(repl, value)
    if isinstance(value, dict):
        return {k: _substitute_env(v, warnings, where) for k, v in value.items()}
    if isinstance(value, list):
        return [_substitute_env(v, warnings, where) for v in value]
    return value


def _check_keys(block: Any, schema: dict[str, Any], prefix: str, warnings: list[str], where: str) -> None:
    if not isinstance(block, dict):
        return
    for key, value in block.items():
        if key not in schema:
            warnings.append(f"{where}: unknown key {prefix}.{key} (ignored)")
        elif isinstance(schema[key], dict):
            _check_keys(value, schema[key], f"{prefix}.{key}", warnings, where)


def _check_memory_keys(loaded: LoadedConfig) -> None:
    where = str(loaded.path) if loaded.path else "<config>"
    raw = loaded.raw
    agents = raw.get("agents") if isinstance(raw.get("agents"), dict) else {}
    defaults = agents.get("defaults") if isinstance(agents.get("defaults"), dict) else {}
    if "memorySearch" in defaults:
        _check_keys(defaults["memorySearch"], _MEMORY_SEARCH_SCHEMA, "agents.defaults.memorySearch",
                    loaded.warnings, where)
    entries = agents.get("list")
    if isinstance(entries, list):
        for index, entry in enumerate(entries):
            if isinstance(entry, dict) and "memorySearch" in entry:
                _check_keys(entry["memorySearch"], _MEMORY_SEARCH_SCHEMA, f"agents.list[{index}].memorySearch",
                            loaded.warnings, where)
    memory = raw.get("memory")
    if isinstance(memory, dict) and isinstance(memory.get("search"), dict):
        _check_keys(memory["search"], _MEMORY_SEARCH_SCHEMA, "memory.search", loaded.warnings, where)


def _deep_merge(base: dict[str, Any], override: dict[str, Any]) -> dict[str, Any]:
    merged = dict(base)
    for key, value in override.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = _deep_merge(merged[key], value)
        else:
            merged[key] = value
    return merged


class _Reader:
    """Typed access to a merged memorySearch dict; type errors name the key path."""

    def __init__(self, block: dict[str, Any], prefix: str, where: str) -> None:
        self.block = block
        self.prefix = prefix
        self.where = where

    def _get(self, path: str) -> Any:
        return get_path(self.block, *path.split("."))

    def _fail(self, path: str, expected: str, value: Any) -> ConfigError:
        return ConfigError(f"{self.where}: {self.prefix}.{path} must be {expected}, got {value!r}")

    def bool(self, path: str, default: bool) -> bool:
        value = self._get(path)
        if value is None:
            return default
        if not isinstance(value, bool):
            raise self._fail(path, "true or false", value)
        return value

    def number(self, path: str, default: float | None) -> float | None:
        value = self._get(path)
        if value is None:
            return default
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise self._fail(path, "a number", value)
        return value

    def str(self, path: str, default: str | None) -> str | None:
        value = self._get(path)
        if value is None:
            return default
        if not isinstance(value, str):
            raise self._fail(path, "a string", value)
        return value

    def str_list(self, path: str) -> list[str]:
        value = self._get(path)
        if value is None:
            return []
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise self._fail(path, "a list of strings", value)
        return list(value)

    def str_map(self, path: str) -> dict[str, str]:
        value = self._get(path)
        if value is None:
            return {}
        if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
            raise self._fail(path, "an object of strings", value)
        return dict(value)


def _chunking(tokens: float | None, overlap: float | None, where: str) -> tuple[int, int]:
    """`chunking.tokens` and `.overlap`, refused when they cannot make chunks (OpenClaw would clamp them
    silently into an index of one-token chunks, or of chunks that are all overlap). The default overlap
    (80) shrinks to fit a smaller `tokens`."""
    assert tokens is not None
    if tokens != int(tokens) or tokens < 1:
        raise ConfigError(f"{where}: memorySearch.chunking.tokens must be a whole number of at least 1, "
                          f"got {tokens:g}", "the default is 400")
    if overlap is None:
        return int(tokens), min(80, int(tokens) - 1)
    if overlap != int(overlap) or not 0 <= overlap < tokens:
        raise ConfigError(f"{where}: memorySearch.chunking.overlap must be a whole number from 0 to "
                          f"{int(tokens) - 1} (below chunking.tokens), got {overlap:g}", "the default is 80")
    return int(tokens), int(overlap)


def _clamp(value: float, low: float, high: float) -> float:
    return max(low, min(high, value))


def resolve_secret(value: Any) -> str | None:
    """Resolve an API key: a plain string, an `env:NAME` string, or a `{source:"env", id}` SecretRef."""
    if value is None:
        return None
    if isinstance(value, dict):
        if value.get("source") == "env" and isinstance(value.get("id"), str):
            return os.environ.get(value["id"]) or None
        return None
    if isinstance(value, str):
        if value.startswith("env:"):
            return os.environ.get(value[4:].strip()) or None
        return value or None
    return None


def memory_search_block(raw: dict[str, Any], agent_id: str) -> dict[str, Any]:
    """The merged memorySearch dict for an agent: memory.search < defaults < agents.list[] override."""
    layers: list[dict[str, Any]] = []
    top = get_path(raw, "memory", "search")
    if isinstance(top, dict):
        layers.append(top)
    defaults = get_path(raw, "agents", "defaults", "memorySearch")
    if isinstance(defaults, dict):
        layers.append(defaults)
    entry = agent_entry(raw, agent_id)
    if entry and isinstance(entry.get("memorySearch"), dict):
        layers.append(entry["memorySearch"])
    per_agent = get_path(raw, "agents", "entries", agent_id, "memory", "search")
    if isinstance(per_agent, dict):
        layers.append(per_agent)
    merged: dict[str, Any] = {}
    extra: list[str] = []
    for layer in layers:
        merged = _deep_merge(merged, layer)
        paths = layer.get("extraPaths")
        if isinstance(paths, list):
            extra.extend(p for p in paths if isinstance(p, str) and p not in extra)
    if extra:
        merged["extraPaths"] = extra
    return merged


def resolve_memory_search(raw: dict[str, Any], agent_id: str, where: str = "<config>") -> MemorySearchSettings:
    """Resolve the agent's memorySearch settings with OpenClaw 2026.4 defaults and clamps (§13)."""
    r = _Reader(memory_search_block(raw, agent_id), "memorySearch", where)
    multimodal_on = r.bool("multimodal.enabled", False)
    listed = r.str_list("multimodal.modalities") if get_path(r.block, "multimodal", "modalities") is not None else None
    session_memory = r.bool("experimental.sessionMemory", False)
    requested = r.str_list("sources") or ["memory"]
    unknown = [s for s in requested if s not in SOURCES]
    if unknown:
        raise ConfigError(f"{where}: memorySearch.sources has unknown source(s) {unknown}; use memory, sessions")
    sources = sorted({s for s in requested if s == "memory" or (s == "sessions" and session_memory)})
    if not sources:
        sources = ["memory"]

    tokens, overlap = _chunking(r.number("chunking.tokens", 400), r.number("chunking.overlap", None), where)

    weights_configured = any(r.number(f"query.hybrid.{key}", None) is not None
                             for key in ("vectorWeight", "textWeight"))
    vector_weight = _clamp(float(r.number("query.hybrid.vectorWeight", 0.7)), 0, 1)
    text_weight = _clamp(float(r.number("query.hybrid.textWeight", 0.3)), 0, 1)
    total = vector_weight + text_weight
    if total <= 0:
        vector_weight, text_weight = 0.7, 0.3
    else:
        vector_weight, text_weight = vector_weight / total, text_weight / total

    tokenizer = r.str("store.fts.tokenizer", "unicode61")
    if tokenizer not in ("unicode61", "trigram"):
        raise ConfigError(f"{where}: memorySearch.store.fts.tokenizer must be unicode61 or trigram, got {tokenizer!r}")
    driver, url = store_driver(r.str("store.driver", None), r.str("store.url", None), where)

    context_size: int | str = 4096
    raw_context = get_path(r.block, "local", "contextSize")
    if raw_context == "auto":
        context_size = "auto"
    elif raw_context is not None:
        context_size = int(r.number("local.contextSize", 4096))

    max_entries = r.number("cache.maxEntries", None)
    output_dims = r.number("outputDimensionality", None)
    batch_timeout = r.number("sync.embeddingBatchTimeoutSeconds", None)
    non_batch = r.number("remote.nonBatchConcurrency", None)
    return MemorySearchSettings(
        enabled=r.bool("enabled", True),
        sources=tuple(sources),
        extra_paths=tuple(dict.fromkeys(p.strip() for p in r.str_list("extraPaths") if p.strip())),
        multimodal=MultimodalSettings(multimodal_on, multimodal_modalities(multimodal_on, listed), max(
            1, math.floor(r.number("multimodal.maxFileBytes", MULTIMODAL_MAX_FILE_BYTES)))),
        session_memory=session_memory,
        provider=(r.str("provider", "auto") or "auto").strip() or "auto",
        model=(r.str("model", "") or "").strip(),
        fallback=(r.str("fallback", "none") or "none").strip() or "none",
        input_type=r.str("inputType", None),
        query_input_type=r.str("queryInputType", None),
        document_input_type=r.str("documentInputType", None),
        output_dimensionality=int(output_dims) if output_dims is not None else None,
        remote=RemoteSettings(
            base_url=r.str("remote.baseUrl", None),
            api_key=resolve_secret(get_path(r.block, "remote", "apiKey")),
            headers=r.str_map("remote.headers"),
            non_batch_concurrency=max(1, int(non_batch)) if non_batch is not None else None,
            batch=BatchSettings(
                enabled=r.bool("remote.batch.enabled", False),
                wait=r.bool("remote.batch.wait", True),
                concurrency=max(1, int(r.number("remote.batch.concurrency", 2))),
                poll_interval_ms=max(1, int(r.number("remote.batch.pollIntervalMs", 2000))),
                timeout_minutes=max(0.01, float(r.number("remote.batch.timeoutMinutes", 60))),
            ),
        ),
        local=LocalSettings(
            model_path=r.str("local.modelPath", None),
            model_cache_dir=r.str("local.modelCacheDir", None),
            context_size=context_size,
        ),
        store=StoreSettings(
            path=r.str("store.path", StoreSettings.path) or StoreSettings.path,
            fts_tokenizer=tokenizer,
            vector_enabled=r.bool("store.vector.enabled", True),
            vector_extension_path=r.str("store.vector.extensionPath", None),
            driver=driver,
            url=url,
        ),
        chunking=ChunkingSettings(tokens=tokens, overlap=overlap),
        sync=SyncSettings(
            on_session_start=r.bool("sync.onSessionStart", True),
            on_search=r.bool("sync.onSearch", True),
            watch=r.bool("sync.watch", True),
            watch_debounce_ms=max(0, int(r.number("sync.watchDebounceMs", 1500))),
            interval_minutes=max(0.0, float(r.number("sync.intervalMinutes", 0))),
            embedding_batch_timeout_seconds=batch_timeout,
            sessions=SessionSyncSettings(
                delta_bytes=int(r.number("sync.sessions.deltaBytes", 100_000)),
                delta_messages=int(r.number("sync.sessions.deltaMessages", 50)),
                post_compaction_force=r.bool("sync.sessions.postCompactionForce", True),
            ),
        ),
        query=QuerySettings(
            max_results=max(1, int(r.number("query.maxResults", 6))),
            min_score=_clamp(float(r.number("query.minScore", 0.35)), 0, 1),
            hybrid=HybridSettings(
                enabled=r.bool("query.hybrid.enabled", True),
                vector_weight=vector_weight,
                text_weight=text_weight,
                weights_configured=weights_configured,
                candidate_multiplier=_clamp(float(r.number("query.hybrid.candidateMultiplier", 4)), 1, 20),
                mmr=MMRSettings(
                    enabled=r.bool("query.hybrid.mmr.enabled", False),
                    lambda_=_clamp(float(r.number("query.hybrid.mmr.lambda", 0.7)), 0, 1),
                ),
                temporal_decay=DecaySettings(
                    enabled=r.bool("query.hybrid.temporalDecay.enabled", False),
                    half_life_days=max(1, math.floor(r.number("query.hybrid.temporalDecay.halfLifeDays", 30))),
                ),
            ),
        ),
        cache=CacheSettings(
            enabled=r.bool("cache.enabled", True),
            max_entries=max(1, int(max_entries)) if max_entries is not None else None,
        ),
    )


def with_weights(settings: MemorySearchSettings, vector_weight: float, text_weight: float) -> MemorySearchSettings:
    """A copy with new hybrid weights, clamped and normalised like the config resolver."""
    vw, tw = _clamp(vector_weight, 0, 1), _clamp(text_weight, 0, 1)
    total = vw + tw
    vw, tw = (0.7, 0.3) if total <= 0 else (vw / total, tw / total)
    hybrid = replace(settings.query.hybrid, vector_weight=vw, text_weight=tw, weights_configured=True)
    return replace(settings, query=replace(settings.query, hybrid=hybrid))
