"""Shared plumbing for remote embedding providers (§5.3–§5.4).

Retry policy (up to 3 retries on rate-limit / 5xx messages, 500 ms doubling with 0–20 % jitter,
capped at 8 s), grouping of texts into requests of at most 8000 UTF-8 bytes, a bounded-concurrency
runner that keeps order, header handling for `providerKey`, and key redaction for error messages.
"""

from __future__ import annotations

import email.utils
import random
import re
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from memtui.errors import ProviderError

if TYPE_CHECKING:
    import httpx

    from memtui.settings.config import MemorySearchSettings
    from memtui.settings.providers import ModelProviders

T = TypeVar("T")

RETRYABLE_MESSAGE = re.compile(
    r"rate_limit|too many requests|429|resource has been exhausted|5\d\d|cloudflare|tokens per day",
    re.IGNORECASE,
)
MAX_RETRIES = 3
BASE_DELAY_S = 0.5
MAX_DELAY_S = 8.0
JITTER = 0.2
BATCH_MAX_BYTES = 8000
DEFAULT_CONCURRENCY = 4
QUERY_TIMEOUT_S = 60.0
BATCH_TIMEOUT_S = 120.0
ERROR_DETAIL_CHARS = 200
# Longest `Retry-After` worth waiting for inside one call; beyond it the error is reported at once.
MAX_RETRY_AFTER_S = 60.0


_budget = threading.local()


@contextmanager
def retry_deadline(seconds: float | None) -> Iterator[None]:
    """Within the block (this thread), a retry whose backoff would end past `seconds` from now is not made: the
    last error is raised instead (a bounded query reports the provider's failure, not its own time-out)."""
    previous = getattr(_budget, "until", None)
    _budget.until = None if seconds is None else time.monotonic() + seconds
    try:
        yield
    finally:
        _budget.until = previous


def is_retryable(message: str) -> bool:
    """True when an error message names a rate limit, quota or server error (OpenClaw's regex)."""
    return bool(RETRYABLE_MESSAGE.search(message))


@dataclass
class RetryPolicy:
    """Retry with exponential backoff; `sleep` and `rng` are injectable so tests need not wait."""

    retries: int = MAX_RETRIES
    base_delay: float = BASE_DELAY_S
    max_delay: float = MAX_DELAY_S
    jitter: float = JITTER
    sleep: Callable[[float], None] = time.sleep
    rng: random.Random = field(default_factory=random.Random)

    def delay(self, retry_index: int) -> float:
        """Seconds to wait before retry number `retry_index` (0-based)."""
        base = self.base_delay * (2**retry_index)
        return min(self.max_delay, base * (1 + self.jitter * self.rng.random()))

    max_retry_after: float = MAX_RETRY_AFTER_S

    def run(self, call: Callable[[], T]) -> T:
        """Run `call`, retrying ProviderErrors whose message is retryable; a `Retry-After` the provider sent
        is waited for (at least), and one longer than `max_retry_after` fails at once instead."""
        attempt = 0
        while True:
            try:
                return call()
            except ProviderError as exc:
                if attempt >= self.retries or not is_retryable(exc.message):
                    raise
                wait = self.delay(attempt)
                if exc.retry_after is not None:
                    if exc.retry_after > self.max_retry_after:
                        raise
                    wait = max(wait, exc.retry_after)
                until = getattr(_budget, "until", None)
                if until is not None and time.monotonic() + wait >= until:
                    raise
                self.sleep(wait)
                attempt += 1


def utf8_len(text: str) -> int:
    """UTF-8 byte length (OpenClaw's token estimate for request grouping)."""
    return len(text.encode("utf-8", "surrogatepass"))


def group_by_bytes(texts: Sequence[str], max_bytes: int = BATCH_MAX_BYTES) -> list[list[int]]:
    """Indices of `texts` split into consecutive groups of at most `max_bytes` UTF-8 bytes.

    A single text above the limit gets a group of its own.
    """
    groups: list[list[int]] = []
    current: list[int] = []
    size = 0
    for index, text in enumerate(texts):
        cost = utf8_len(text)
        if current and size + cost > max_bytes:
            groups.append(current)
            current, size = [], 0
        current.append(index)
        size += cost
    if current:
        groups.append(current)
    return groups


def run_bounded(tasks: Sequence[Callable[[], T]], limit: int) -> list[T]:
    """Run `tasks` on at most `limit` threads; results keep task order; the first error is raised."""
    if not tasks:
        return []
    workers = max(1, min(limit, len(tasks)))
    if workers == 1:
        return [task() for task in tasks]
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="memtui-embed") as pool:
        futures = [pool.submit(task) for task in tasks]
        done, _ = wait(futures, return_when=FIRST_EXCEPTION)
        for future in futures:
            if future in done and future.exception() is not None:
                for other in futures:
                    other.cancel()
                raise future.exception()  # type: ignore[misc]
        return [future.result() for future in futures]


def embed_grouped(
    texts: Sequence[str],
    embed_group: Callable[[list[str]], list[list[float]]],
    *,
    concurrency: int,
    policy: RetryPolicy,
    max_bytes: int = BATCH_MAX_BYTES,
) -> list[list[float]]:
    """Embed `texts` in byte-bounded groups, `concurrency` requests at a time, each retried by `policy`."""
    groups = group_by_bytes(texts, max_bytes)

    def task(indices: list[int]) -> Callable[[], list[list[float]]]:
        batch = [texts[i] for i in indices]
        return lambda: policy.run(lambda: embed_group(batch))

    results = run_bounded([task(g) for g in groups], concurrency)
    out: list[list[float]] = []
    for indices, vectors in zip(groups, results, strict=True):
        if len(vectors) != len(indices):
            raise ProviderError(f"embedding response has {len(vectors)} vectors for {len(indices)} inputs")
        out.extend(vectors)
    return out


def redact(text: str, secrets: Iterable[str | None]) -> str:
    """`text` with every occurrence of each secret replaced by `***`."""
    for secret in secrets:
        if secret:
            text = text.replace(secret, "***")
    return text


def error_detail(body: Any, secrets: Iterable[str | None]) -> str:
    """A short one-line, key-free description of an error response body."""
    if body is None:
        return ""
    message: Any = body
    if isinstance(body, Mapping):
        error = body.get("error", body)
        message = error.get("message", error) if isinstance(error, Mapping) else error
    text = " ".join(str(message).split())
    text = redact(text, secrets)
    return text if len(text) <= ERROR_DETAIL_CHARS else text[: ERROR_DETAIL_CHARS - 1] + "…"


def status_hint(status: int, key_hint: str) -> str:
    """What the user can do about an HTTP error status."""
    if status in (401, 403):
        return f"check the API key ({key_hint})"
    if status == 404:
        return "check memorySearch.model and memorySearch.remote.baseUrl"
    if status == 429:
        return "rate limited; wait, lower remote.nonBatchConcurrency, or raise the provider quota"
    if status >= 500:
        return "the provider is failing; try again later or set memorySearch.fallback"
    return "check memorySearch.model, inputType and outputDimensionality"


def parse_retry_after(value: str | None, now: float | None = None) -> float | None:
    """Seconds to wait from a `Retry-After` header (delta-seconds or an HTTP date); None when absent or unreadable."""
    if not value or not value.strip():
        return None
    text = value.strip()
    if text.isdigit():
        return float(text)
    try:
        when = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


def http_failure(
    provider: str, status: int, body: Any, secrets: Iterable[str | None], key_hint: str,
    retry_after: float | None = None,
) -> ProviderError:
    """ProviderError for a non-2xx embeddings response."""
    detail = error_detail(body, secrets)
    suffix = f": {detail}" if detail else ""
    if retry_after is not None:
        suffix += f" (retry after {retry_after:g}s)"
    return ProviderError(
        f"{provider} embeddings failed: HTTP {status}{suffix}", status_hint(status, key_hint), retry_after=retry_after
    )


def timeout_failure(provider: str, seconds: float) -> ProviderError:
    """ProviderError for a request that exceeded its timeout."""
    return ProviderError(
        f"{provider} embeddings failed: timed out after {seconds:g}s",
        "check the network and remote.baseUrl, or raise sync.embeddingBatchTimeoutSeconds",
    )


def connection_failure(provider: str, reason: str, secrets: Iterable[str | None]) -> ProviderError:
    """ProviderError for a request that never got a response."""
    return ProviderError(
        f"{provider} embeddings failed: cannot connect ({redact(reason, secrets)})",
        "check the network and memorySearch.remote.baseUrl",
    )


def _collation_key(name: str) -> tuple[str, str]:
    primary = name.lower().translate(_PUNCT_ORDER)
    return primary, name.swapcase()


# ICU root collation puts "_" before "-" before "." and all punctuation before digits and letters.
_PUNCT_ORDER = str.maketrans({"_": "\x01", "-": "\x02", ".": "\x03"})


def cache_headers(headers: Mapping[str, str], excluded: Iterable[str]) -> list[list[str]]:
    """`sanitizeEmbeddingCacheHeaders`: [name, value] pairs minus `excluded` (any case), sorted like
    JavaScript `localeCompare`."""
    drop = {name.lower() for name in excluded}
    kept = [(k, v) for k, v in headers.items() if k.lower() not in drop]
    return [[k, v] for k, v in sorted(kept, key=lambda kv: _collation_key(kv[0]))]


def batch_timeout(settings_timeout: float | None) -> float:
    """Document-request timeout: `sync.embeddingBatchTimeoutSeconds` or 120 s."""
    return float(settings_timeout) if settings_timeout and settings_timeout > 0 else BATCH_TIMEOUT_S


class MissingApiKeyError(ProviderError):
    """No API key is configured for a remote provider (auto-selection moves on to the next one)."""


@dataclass(frozen=True, repr=False)
class RemoteEndpoint:
    """Where and how to call a remote provider: base URL, API key and extra headers."""

    base_url: str
    api_key: str
    headers: dict[str, str]

    def __repr__(self) -> str:
        return f"RemoteEndpoint(base_url={self.base_url!r}, headers={sorted(self.headers)!r})"


def resolve_remote(
    settings: MemorySearchSettings,
    providers: ModelProviders,
    env: Mapping[str, str],
    *,
    provider_id: str,
    config_provider: str,
    env_var: str,
    default_base_url: str,
) -> RemoteEndpoint:
    """Key, base URL and headers: `remote.*` first, then `models.providers.<p>.*`, then the env var."""
    from memtui.settings.providers import EMPTY_PROVIDER

    provider_cfg = providers.get(config_provider, EMPTY_PROVIDER)
    key = (
        (settings.remote.api_key or "").strip()
        or (provider_cfg.api_key or "").strip()
        or (env.get(env_var) or "").strip()
    )
    if not key:
        raise MissingApiKeyError(
            f"No API key found for provider {provider_id}",
            f"set {env_var}, models.providers.{config_provider}.apiKey or memorySearch.remote.apiKey",
        )
    base_url = (settings.remote.base_url or "").strip() or provider_cfg.base_url or default_base_url
    headers = {**provider_cfg.headers, **settings.remote.headers}
    return RemoteEndpoint(base_url=base_url, api_key=key, headers=headers)


def post_json(
    client: httpx.Client,
    url: str,
    body: Mapping[str, Any],
    *,
    timeout: float,
    provider: str,
    secrets: Sequence[str],
    key_hint: str,
) -> Any:
    """POST JSON and return the decoded response; failures become one-line, key-free ProviderErrors."""
    import httpx  # only remote providers need it; a keyword-only CLI call does not pay for the import

    try:
        response = client.post(url, json=body, timeout=timeout)
    except httpx.TimeoutException:
        raise timeout_failure(provider, timeout) from None
    except httpx.HTTPError as exc:
        raise connection_failure(provider, type(exc).__name__, secrets) from None
    try:
        payload = response.json()
    except (ValueError, RecursionError):
        payload = response.text
    if response.status_code >= 400:
        raise http_failure(provider, response.status_code, payload, secrets, key_hint,
                           parse_retry_after(response.headers.get("retry-after")))
    if not isinstance(payload, Mapping):
        raise ProviderError(f"{provider} embeddings failed: response is not a JSON object",
                            "check memorySearch.remote.baseUrl")
    return payload
