"""A failing or slow embedding provider, as the memory manager lives with it: chunks a sync could not embed
(recorded in the index, retried by the next sync), a search that waits a bounded time for the sync it needs and
for its query vector, and the staleness it then reports (OpenClaw 2026.9.6's `stale` / `partial` fields)."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from memtui.embeddings.base import EmbeddingProvider
from memtui.embeddings.deadline import Expired, call_within, query_deadline, waiting_for, watched
from memtui.embeddings.http_retry import retry_deadline
from memtui.errors import ProviderError
from memtui.index.store import Store
from memtui.index.sync_queue import SyncQueue
from memtui.settings.agent import AgentEnv

if TYPE_CHECKING:
    from memtui.index.indexer import SyncReport

GAPS_KEY = "memtui.vectorGaps"
# How long a search waits for the sync it asked for before it answers from the index as it is.
SEARCH_SYNC_WAIT_S = 2.0
KEYWORDS_ONLY = "Only memory-file keyword matches are included; semantic memory retrieval"
LATE = "did not finish within the search time limit."
FAILED = "the embedding provider failed"


class MemoryManager(Protocol):
    """What this module reads of the memory manager (memtui.manager.facade)."""

    env: AgentEnv
    store: Store
    provider: EmbeddingProvider | None
    queue: SyncQueue
    dirty: bool
    last_sync: SyncReport | None

    @property
    def model(self) -> str: ...

    def request_sync(self, reason: str) -> None: ...

    def wait_idle(self, timeout: float | None = None) -> bool: ...

    def embed_query(self, query: str) -> list[float] | None: ...

    def index_mismatch(self) -> str | None: ...

    def stale_reason(self) -> str | None: ...


@dataclass(frozen=True)
class VectorGaps:
    """Chunks of the index's model left without a vector, by file, and the provider failure that left them."""

    model: str
    files: dict[str, int]
    reason: str | None
    failed_at_ms: int | None

    @property
    def chunks(self) -> int:
        """Chunks without a vector."""
        return sum(self.files.values())

    def describe(self, total: int) -> str:
        """One line for status and the search's staleness warning."""
        why = f" (the embedding provider failed: {self.reason})" if self.reason else ""
        return (f"{self.chunks} of {total} chunks have no vector{why}; they are embedded again at the next sync, "
                "and rank by keywords until then")

    def to_json(self, total: int) -> dict[str, Any]:
        """`status.custom.missingVectors`."""
        return {"chunks": self.chunks, "of": total, "files": len(self.files), "reason": self.reason,
                "failedAt": self.failed_at_ms, "retry": "at the next sync"}


def read_gaps(manager: MemoryManager) -> VectorGaps | None:
    """The gaps the last sync recorded for the model in use (None: every chunk has its vector)."""
    raw = manager.store.meta_value(GAPS_KEY)
    try:
        data = json.loads(raw) if raw else None
    except ValueError:
        return None
    if not isinstance(data, dict) or data.get("model") != manager.model or not isinstance(data.get("files"), dict):
        return None
    files = {str(k): int(v) for k, v in data["files"].items() if isinstance(v, int) and v > 0}
    if not files:
        return None
    reason = data.get("reason")
    failed_at = data.get("failedAt")
    return VectorGaps(manager.model, files, reason if isinstance(reason, str) else None,
                      failed_at if isinstance(failed_at, int) else None)


def record_gaps(manager: MemoryManager, report: SyncReport) -> None:
    """After a sync (the write lock held): the files it left with chunks without a vector, plus those of the
    previous record it did not write again (a scoped sync), minus files no longer indexed."""
    if manager.provider is None:
        if manager.store.meta_value(GAPS_KEY):
            manager.store.write_meta("", key=GAPS_KEY)
        return
    old = None if report.full else read_gaps(manager)
    present = {row[0] for row in manager.store.file_rows()}
    files = {p: n for p, n in (old.files if old else {}).items() if p not in report.written and p in present}
    files.update(report.vector_gaps)
    if report.embed_failures:
        reason, failed_at = report.embed_error, int(time.time() * 1000)
    else:
        reason, failed_at = (old.reason, old.failed_at_ms) if old is not None else (None, None)
    value = json.dumps({"model": manager.model, "files": files, "reason": reason, "failedAt": failed_at}) \
        if files else ""
    if value != (manager.store.meta_value(GAPS_KEY) or ""):
        manager.store.write_meta(value, key=GAPS_KEY)


def sync_for_search(manager: MemoryManager) -> SyncReport | None:
    """Sync in the background and wait at most `SEARCH_SYNC_WAIT_S` for it: its report when it finished, None
    when the search must answer from the index as it is (a slow provider, a long rebuild)."""
    manager.request_sync("search")
    # The time a sync already spent on an unanswered provider call counts against the wait (a second search
    # behind the same stuck sync does not wait again).
    waited = waiting_for(manager.provider) if manager.provider is not None else 0.0
    return manager.last_sync if manager.wait_idle(max(0.0, SEARCH_SYNC_WAIT_S - waited)) else None


def bounded_query_vector(manager: MemoryManager, query: str) -> tuple[list[float] | None, str | None]:
    """The query vector, or `[]` and why the search ranks keyword-only: the provider has kept a call waiting as long
    as a search waits for its sync already, did not answer within the query bound, or failed while the index
    records it failing too (else its error is raised, as OpenClaw reports an unavailable provider)."""
    provider = manager.provider
    if provider is None:
        return None, None
    deadline = query_deadline(provider)
    waited = waiting_for(provider)
    if deadline is not None and waited >= min(deadline, SEARCH_SYNC_WAIT_S):
        return [], f"the embedding provider has not answered for {waited:.0f}s"

    def embed() -> list[float] | None:
        with watched(provider), retry_deadline(deadline):
            return manager.embed_query(query)

    try:
        return call_within(embed, deadline), None
    except Expired:
        return [], f"the embedding provider did not answer the query within {deadline:g}s"
    except ProviderError as exc:
        gaps = read_gaps(manager)
        if gaps is None or gaps.reason is None:
            raise
        return [], f"{FAILED} ({exc.message})"


def stale_because(manager: MemoryManager) -> str | None:
    """Why search results may be incomplete now: a sync under way on an index that owes changes (and how long the
    provider has kept it waiting), the index owing a sync, or chunks without a vector."""
    reasons = []
    owed = manager.dirty or manager.index_mismatch() is not None
    if manager.queue.busy():
        # A sync that checks a clean index (a session's warm-up) changes nothing a search returns: it counts
        # when the index owes changes or the sync is stuck on the provider with chunks to embed.
        waited = waiting_for(manager.provider) if manager.provider is not None else 0.0
        if owed or waited >= 1:
            reasons.append("a sync is under way" + (f" (the embedding provider has not answered for "
                                                    f"{waited:.0f}s)" if waited >= 1 else ""))
    if owed and (why := manager.stale_reason()):
        reasons.append(why)
    gaps = read_gaps(manager)
    if gaps is not None:
        reasons.append(gaps.describe(manager.store.chunk_count()))
    return "; ".join(reasons) or None


def freshness_fields(manager: MemoryManager, keyword_only: str | None) -> dict[str, Any]:
    """The `memory_search` fields OpenClaw 2026.9.6 adds for a stale index (`stale`, `warning`, `action`) and a
    search whose semantic side did not finish (`corpora`, `warning`, `error`, `partial`)."""
    fields: dict[str, Any] = {}
    warnings = []
    reason = None if manager.env.read_only else stale_because(manager)
    if reason:
        warnings.append(f"Memory index is stale: {reason}. Search results may be incomplete.")
        fields.update(stale=True, warning=warnings[0], action="Run: memtui index (it may call the embedding "
                                                               "provider); `memtui status` shows what is owed.")
    if keyword_only:
        fields["corpora"] = [{"corpus": "memory", "outcome": "partial", "error": keyword_only}]
        semantic = "is unavailable." if keyword_only.startswith(FAILED) else LATE
        fields["warning"] = " ".join([f"Memory corpus partial: {keyword_only}.", *warnings, KEYWORDS_ONLY, semantic])
        fields.update(error=keyword_only, partial=True)
    return fields
