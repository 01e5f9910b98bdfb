"""How long a provider has kept its callers waiting, and a call that gives up waiting after a bound (the call
itself goes on in a daemon thread: an HTTP request cannot be cancelled, and a one-shot CLI must not wait for it
at exit)."""

from __future__ import annotations

import threading
import time
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TypeVar

from memtui.embeddings.base import EmbeddingProvider

T = TypeVar("T")
# A remote provider's query normally answers in well under a second; past this a search ranks keyword-only.
QUERY_DEADLINE_S = 4.0

_lock = threading.Lock()
_pending: weakref.WeakKeyDictionary[EmbeddingProvider, dict[int, float]] = weakref.WeakKeyDictionary()
_tokens = iter(range(1 << 62))


@contextmanager
def watched(provider: EmbeddingProvider) -> Iterator[None]:
    """Count the enclosed call as one the provider has not answered yet."""
    with _lock:
        token = next(_tokens)
        _pending.setdefault(provider, {})[token] = time.monotonic()
    try:
        yield
    finally:
        with _lock:
            _pending.get(provider, {}).pop(token, None)


def waiting_for(provider: EmbeddingProvider) -> float:
    """Seconds the provider's oldest unanswered call (in this process) has waited; 0.0 when none is pending."""
    with _lock:
        started = list(_pending.get(provider, {}).values())
    return time.monotonic() - min(started) if started else 0.0


def query_deadline(provider: EmbeddingProvider) -> float | None:
    """The bound on one query embedding: None for a local model (its first call loads it; nothing is slow)."""
    return None if provider.id == "local" else QUERY_DEADLINE_S


class Expired(Exception):
    """The call did not return within its bound (it may still finish in its thread)."""


def call_within(call: Callable[[], T], seconds: float | None) -> T:
    """`call()`, or Expired once `seconds` have passed (None: no bound); its exception is raised here."""
    if seconds is None:
        return call()
    done = threading.Event()
    outcome: list[object] = []

    def run() -> None:
        try:
            outcome.append((True, call()))
        except BaseException as exc:  # handed to the caller below
            outcome.append((False, exc))
        done.set()

    threading.Thread(target=run, name="memtui-query-embed", daemon=True).start()
    if not done.wait(seconds):
        raise Expired(f"no answer within {seconds:g}s")
    ok, value = outcome[0]  # type: ignore[misc]
    if not ok:
        raise value  # type: ignore[misc]
    return value  # type: ignore[return-value]
