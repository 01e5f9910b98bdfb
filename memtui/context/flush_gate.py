"""OpenClaw 2026.4.29's pre-compaction flush gate (§7.2, §7.3, §7.5) as a pure decision, with the rule that
decided it: which token count is compared, when the transcript is read, and what stops or starts a flush.

Mirrors `runMemoryFlushIfNeeded` (src/auto-reply/reply/agent-runner-memory.ts) and its gate
(`shouldRunMemoryFlush`, src/auto-reply/reply/memory-flush.ts); checked against the recording in
`tests/data/openclaw-2026.4.29/context/flush.json`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

TRANSCRIPT_OUTPUT_READ_BUFFER_TOKENS = 8192

RULE_DISABLED = "memoryFlush.enabled"
RULE_SANDBOX = "sandbox"
RULE_ONCE_PER_CYCLE = "once-per-cycle"
RULE_TOKEN_GATE = "token-gate"
RULE_TRANSCRIPT_SIZE = "transcript-size"
RULE_TOKEN_GATE_OFF = "token-gate-off"
RULE_BELOW = "below-threshold"

SOURCE_FRESH = "fresh sessions.json totalTokens"
SOURCE_TRANSCRIPT = "transcript usage"
SOURCE_UNMARKED = "sessions.json totalTokens (not marked fresh)"
SOURCE_NONE = "none"

_CACHE_READ_KEYS = ("cacheRead", "cache_read", "cache_read_input_tokens", "cached_tokens")
_INPUT_KEYS = ("input", "inputTokens", "input_tokens", "promptTokens", "prompt_tokens", "prompt_n")
_OUTPUT_KEYS = ("output", "outputTokens", "output_tokens", "completionTokens", "completion_tokens", "predicted_n")
_CACHE_WRITE_KEYS = ("cacheWrite", "cache_write", "cache_creation_input_tokens")
_TOTAL_KEYS = ("total", "totalTokens", "total_tokens")


def _finite(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return None
    return value


def _first(raw: dict[str, Any], keys: tuple[str, ...], *nested: tuple[str, str]) -> Any:
    """JavaScript `a ?? b ?? …`: the first key present and not null."""
    for key in keys:
        if raw.get(key) is not None:
            return raw[key]
    for outer, inner in nested:
        block = raw.get(outer)
        if isinstance(block, dict) and block.get(inner) is not None:
            return block[inner]
    return None


def _token_count(value: Any) -> int | None:
    number = _finite(value)
    if number is None:
        return None
    return 0 if number <= 0 else min(math.trunc(number), 2**53 - 1)


@dataclass(frozen=True)
class Usage:
    """A usage record normalized like OpenClaw's `normalizeUsage` (None = the field was absent)."""

    input: int | None
    output: int | None
    cache_read: int | None
    cache_write: int | None
    total: int | None

    @property
    def nonzero(self) -> bool:
        """`hasNonzeroUsage`: some counter above zero."""
        return any((v or 0) > 0 for v in (self.input, self.output, self.cache_read, self.cache_write, self.total))

    @property
    def prompt_tokens(self) -> int | None:
        """`derivePromptTokens`: input + cacheRead + cacheWrite, None when that is 0."""
        total = (self.input or 0) + (self.cache_read or 0) + (self.cache_write or 0)
        return total if total > 0 else None

    @property
    def output_tokens(self) -> int | None:
        """The output count when above zero."""
        return self.output if self.output and self.output > 0 else None


def normalize_usage(raw: Any) -> Usage | None:
    """pi, OpenAI (`prompt_tokens`, `cached_tokens`), Anthropic and llama.cpp (`prompt_n`) usage shapes."""
    if not isinstance(raw, dict) or not raw:
        return None
    cache_raw = _first(raw, _CACHE_READ_KEYS, ("input_tokens_details", "cached_tokens"),
                       ("prompt_tokens_details", "cached_tokens"))
    cache_read = _token_count(cache_raw)
    input_raw = _finite(_first(raw, _INPUT_KEYS, ("timings", "prompt_n")))
    openai_totals = raw.get("cached_tokens") is not None or any(
        isinstance(raw.get(block), dict) and raw[block].get("cached_tokens") is not None
        for block in ("input_tokens_details", "prompt_tokens_details"))
    if input_raw is not None and openai_totals and cache_read is not None:
        input_raw -= cache_read
    usage = Usage(
        input=_token_count(input_raw),
        output=_token_count(_first(raw, _OUTPUT_KEYS, ("timings", "predicted_n"))),
        cache_read=cache_read,
        cache_write=_token_count(_first(raw, _CACHE_WRITE_KEYS)),
        total=_token_count(_first(raw, _TOTAL_KEYS)),
    )
    if all(v is None for v in (usage.input, usage.output, usage.cache_read, usage.cache_write, usage.total)):
        return None
    return usage


def usage_of_record(record: Any) -> Usage | None:
    """The non-zero usage of one transcript record (`message.usage`, else a top-level `usage`)."""
    if not isinstance(record, dict):
        return None
    message = record.get("message")
    raw = message.get("usage") if isinstance(message, dict) else None
    usage = normalize_usage(raw if raw is not None else record.get("usage"))
    return usage if usage is not None and usage.nonzero else None


@dataclass(frozen=True)
class GateInputs:
    """What the gate looks at for one session."""

    enabled: bool
    writable: bool
    context_window: int
    reserve_tokens_floor: int
    soft_threshold_tokens: int
    force_flush_transcript_bytes: int
    total_tokens: Any
    total_tokens_fresh: Any
    pending_prompt_tokens: int | None
    compaction_count: Any
    memory_flush_compaction_count: Any


@dataclass(frozen=True)
class GateDecision:
    """The outcome, every number behind it, and the rule that decided it."""

    threshold: int
    token_count: int
    token_source: str
    transcript_read: bool
    usage: Usage | None
    transcript_bytes: int | None
    by_tokens: bool
    by_bytes: bool
    already_flushed: bool
    would_flush: bool
    rule: str
    reason: str


def already_flushed(compaction_count: Any, memory_flush_compaction_count: Any) -> bool:
    """§7.5: `memoryFlushCompactionCount` is a number equal to `compactionCount ?? 0`."""
    flushed = _finite(memory_flush_compaction_count)
    count = compaction_count if compaction_count is not None else 0
    return flushed is not None and flushed == count


def decide(inputs: GateInputs, read_usage: Callable[[], Usage | None],
           read_size: Callable[[], int | None]) -> GateDecision:
    """The flush decision; the transcript is only read (usage, size) where OpenClaw reads it."""
    persisted_number = _finite(inputs.total_tokens)
    persisted = persisted_number if persisted_number is not None and persisted_number > 0 else None
    fresh = persisted is not None and inputs.total_tokens_fresh is True
    estimate = inputs.pending_prompt_tokens if inputs.pending_prompt_tokens else None
    threshold = inputs.context_window - inputs.reserve_tokens_floor - inputs.soft_threshold_tokens
    can_try = inputs.enabled and inputs.writable
    read_for_output = (can_try and fresh and estimate is not None and threshold > 0
                       and (persisted or 0) + estimate >= threshold - TRANSCRIPT_OUTPUT_READ_BUFFER_TOKENS)
    read = can_try and (not fresh or read_for_output)
    usage = read_usage() if read else None
    size = read_size() if can_try and inputs.force_flush_transcript_bytes > 0 else None
    prompt = usage.prompt_tokens if usage else None
    output = usage.output_tokens if usage else None
    snapshot = max(persisted if fresh and persisted else 0, prompt or 0)
    if snapshot > 0:
        token_count = int(snapshot + (output or 0) + (estimate or 0))
        source = SOURCE_TRANSCRIPT if prompt and prompt > (persisted if fresh and persisted else 0) else SOURCE_FRESH
    elif _finite(inputs.total_tokens) is not None and inputs.total_tokens >= 0 \
            and inputs.total_tokens_fresh is not False:
        token_count, source = int(inputs.total_tokens), SOURCE_UNMARKED
    else:
        token_count, source = 0, SOURCE_NONE
    already = already_flushed(inputs.compaction_count, inputs.memory_flush_compaction_count)
    by_tokens = threshold > 0 and token_count > 0 and token_count >= threshold
    by_bytes = size is not None and size >= inputs.force_flush_transcript_bytes
    decision = _rule(inputs, threshold, token_count, size, by_tokens, by_bytes, already)
    return GateDecision(threshold, token_count, source, read, usage, size, by_tokens, by_bytes, already,
                        decision[0], decision[1], decision[2])


def _rule(inputs: GateInputs, threshold: int, tokens: int, size: int | None, by_tokens: bool, by_bytes: bool,
          already: bool) -> tuple[bool, str, str]:
    if not inputs.enabled:
        return False, RULE_DISABLED, "memoryFlush.enabled is false"
    if not inputs.writable:
        return False, RULE_SANDBOX, "sandboxed without workspaceAccess 'rw'"
    if already and (by_tokens or by_bytes):
        return False, RULE_ONCE_PER_CYCLE, "already flushed in this compaction cycle"
    if by_tokens:
        return True, RULE_TOKEN_GATE, f"tokens {tokens} ≥ threshold {threshold}"
    if by_bytes:
        return True, RULE_TRANSCRIPT_SIZE, f"transcript {size} bytes ≥ {inputs.force_flush_transcript_bytes}"
    if threshold <= 0:
        return False, RULE_TOKEN_GATE_OFF, f"threshold {threshold} ≤ 0: token gate off, size gate only"
    return False, RULE_BELOW, f"{threshold - tokens:,} tokens below threshold"
