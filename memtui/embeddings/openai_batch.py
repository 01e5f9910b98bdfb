"""OpenAI Batch API for document embeddings (§8.3, §5.4).

JSONL upload to `/files` (purpose "batch"), `POST /batches`, polling until done, download of the
output file, and mapping `custom_id` back to input order. After 2 failed batch runs the Batch API
is disabled and the provider embeds inline; `status()` reports the count and the last error.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from memtui.embeddings.http_retry import redact, run_bounded
from memtui.embeddings.openai_sdk import call_sdk
from memtui.errors import ProviderError
from memtui.jscompat import parse_json

if TYPE_CHECKING:
    from memtui.settings.config import BatchSettings

ENDPOINT = "/v1/embeddings"
COMPLETION_WINDOW = "24h"
MAX_REQUESTS_PER_BATCH = 50_000
FAILURE_LIMIT = 2
_FAILED_STATES = ("failed", "expired", "cancelled", "canceled")


class BatchTarget(Protocol):
    """What the runner needs of the provider it embeds for."""

    model: str
    document_input_type: str | None
    batch_timeout: float
    client: Any
    secrets: tuple[str, ...]


class OpenAIBatchRunner:
    """Runs document embeddings through the Batch API for one provider and tracks its health."""

    def __init__(
        self,
        provider: BatchTarget,
        settings: BatchSettings,
        *,
        agent_id: str,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.provider = provider
        self.settings = settings
        self.agent_id = agent_id
        self.sleep = sleep
        self.clock = clock
        self.failures = 0
        self.last_error: str | None = None
        self.enabled = True
        self._lock = threading.Lock()

    @property
    def active(self) -> bool:
        """True while the Batch API has not been disabled by repeated failures."""
        return self.enabled

    @property
    def timeout_ms(self) -> int:
        """How long one batch may take before it counts as failed."""
        return int(self.settings.timeout_minutes * 60_000)

    def status(self) -> dict[str, Any]:
        """OpenClaw's `status.batch`: enabled, failures, limit, wait, concurrency, timings, last error."""
        return {
            "enabled": self.enabled,
            "failures": self.failures,
            "limit": FAILURE_LIMIT,
            "wait": self.settings.wait,
            "concurrency": self.settings.concurrency,
            "pollIntervalMs": self.settings.poll_interval_ms,
            "timeoutMs": self.timeout_ms,
            "lastError": self.last_error,
            "lastProvider": "openai" if self.last_error else None,
        }

    def try_embed(self, texts: Sequence[str]) -> list[list[float]] | None:
        """Vectors from a batch run, or None after recording a failure (the caller embeds inline)."""
        try:
            vectors = self.embed(texts)
        except ProviderError as exc:
            with self._lock:
                self.failures += 1
                self.last_error = exc.message
                if self.failures >= FAILURE_LIMIT:
                    self.enabled = False
            return None
        with self._lock:
            self.failures = 0
        return vectors

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """Embed `texts` through one or more batches (at most 50000 requests each), in order."""
        requests = [self._request_line(i, text) for i, text in enumerate(texts)]
        size = MAX_REQUESTS_PER_BATCH
        groups = [requests[i : i + size] for i in range(0, len(requests), size)]
        tasks = [lambda g=g: self._run_group(g) for g in groups]
        by_id: dict[str, list[float]] = {}
        for result in run_bounded(tasks, self.settings.concurrency):
            by_id.update(result)
        return [by_id[str(i)] for i in range(len(texts))]

    def _request_line(self, index: int, text: str) -> dict[str, Any]:
        body: dict[str, Any] = {"model": self.provider.model, "input": text}
        if self.provider.document_input_type:
            body["input_type"] = self.provider.document_input_type
        return {"custom_id": str(index), "method": "POST", "url": ENDPOINT, "body": body}

    def _sdk(self, call: Callable[[], Any]) -> Any:
        timeout = self.provider.batch_timeout
        return call_sdk(call, timeout=timeout, secrets=self.provider.secrets, what="openai batch")

    def _run_group(self, group: list[dict[str, Any]]) -> dict[str, list[float]]:
        client = self.provider.client
        jsonl = "\n".join(json.dumps(line, ensure_ascii=False, separators=(",", ":")) for line in group)
        uploaded = self._sdk(
            lambda: client.files.create(
                file=("memory-embeddings.jsonl", jsonl.encode("utf-8"), "application/jsonl"), purpose="batch"
            )
        )
        batch = self._sdk(
            lambda: client.batches.create(
                input_file_id=uploaded.id,
                endpoint=ENDPOINT,
                completion_window=COMPLETION_WINDOW,
                metadata={"source": "openclaw-memory", "agent": self.agent_id},
            )
        )
        batch = self._wait(batch)
        content = self._sdk(lambda: client.files.content(batch.output_file_id))
        return self._parse_output(batch.id, content.text, [line["custom_id"] for line in group])

    def _wait(self, batch: Any) -> Any:
        started = self.clock()
        while True:
            if batch.status == "completed":
                if not batch.output_file_id:
                    raise ProviderError(f"openai batch {batch.id} completed without an output file")
                return batch
            if batch.status in _FAILED_STATES:
                raise ProviderError(
                    f"openai batch {batch.id} {batch.status}", "the provider rejected or dropped the batch"
                )
            if not self.settings.wait:
                raise ProviderError(
                    f"openai batch {batch.id} submitted and still {batch.status}",
                    "enable memorySearch.remote.batch.wait to await completion",
                )
            if (self.clock() - started) * 1000 > self.timeout_ms:
                raise ProviderError(
                    f"openai batch {batch.id} timed out after {self.timeout_ms} ms",
                    "raise memorySearch.remote.batch.timeoutMinutes",
                )
            self.sleep(self.settings.poll_interval_ms / 1000)
            batch = self._sdk(lambda batch_id=batch.id: self.provider.client.batches.retrieve(batch_id))

    def _parse_output(self, batch_id: str, text: str, expected: list[str]) -> dict[str, list[float]]:
        found: dict[str, list[float]] = {}
        errors: list[str] = []
        for raw in text.splitlines():
            if not raw.strip():
                continue
            try:
                line = parse_json(raw)
            except ValueError:
                raise ProviderError(f"openai batch {batch_id} output is not JSONL") from None
            custom_id = line.get("custom_id")
            if not custom_id:
                continue
            response = line.get("response") or {}
            body = response.get("body") or {}
            if line.get("error") or int(response.get("status_code") or 0) >= 400:
                error = line.get("error") or body.get("error") or {}
                errors.append(f"{custom_id}: {error.get('message', 'unknown error')}")
                continue
            data = body.get("data") or []
            embedding = data[0].get("embedding") if data else None
            if not embedding:
                errors.append(f"{custom_id}: empty embedding")
                continue
            found[custom_id] = [float(v) for v in embedding]
        if errors:
            detail = redact("; ".join(errors[:3]), self.provider.secrets)
            raise ProviderError(f"openai batch {batch_id} failed: {detail}")
        missing = [c for c in expected if c not in found]
        if missing:
            raise ProviderError(f"openai batch {batch_id} is missing {len(missing)} embedding responses")
        return found
