"""OpenAI (and OpenAI-compatible) embeddings through the `openai` SDK (§8.3)."""

from __future__ import annotations

import os
import threading
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from memtui.embeddings.base import EmbeddingProvider, checked_vectors
from memtui.embeddings.http_retry import (
    DEFAULT_CONCURRENCY,
    QUERY_TIMEOUT_S,
    RemoteEndpoint,
    RetryPolicy,
    batch_timeout,
    cache_headers,
    embed_grouped,
    resolve_remote,
)
from memtui.embeddings.openai_batch import OpenAIBatchRunner
from memtui.embeddings.openai_sdk import call_sdk
from memtui.errors import ProviderError

if TYPE_CHECKING:
    import openai

    from memtui.settings.config import MemorySearchSettings
    from memtui.settings.providers import ModelProviders

DEFAULT_MODEL = "text-embedding-3-small"
DEFAULT_BASE_URL = "https://api.openai.com/v1"
_MAX_INPUT_TOKENS = {
    "text-embedding-3-small": 8192,
    "text-embedding-3-large": 8192,
    "text-embedding-ada-002": 8191,
}


def normalize_model(model: str) -> str:
    """Default model when empty; the `openai/` prefix is stripped."""
    trimmed = model.strip()
    if not trimmed:
        return DEFAULT_MODEL
    return trimmed.removeprefix("openai/")



class OpenAIEmbeddingProvider(EmbeddingProvider):
    """`POST {baseUrl}/embeddings` with `{model, input, input_type?}`; vectors used as returned."""

    id = "openai"

    def __init__(
        self,
        endpoint: RemoteEndpoint,
        *,
        model: str = "",
        query_input_type: str | None = None,
        document_input_type: str | None = None,
        concurrency: int | None = None,
        query_timeout: float = QUERY_TIMEOUT_S,
        batch_timeout_s: float | None = None,
        retry: RetryPolicy | None = None,
    ) -> None:
        self.model = normalize_model(model)
        self.max_input_tokens = _MAX_INPUT_TOKENS.get(self.model, 8192)
        self.base_url = endpoint.base_url
        self.headers = dict(endpoint.headers)
        self.query_input_type = query_input_type
        self.document_input_type = document_input_type
        self.concurrency = concurrency or DEFAULT_CONCURRENCY
        self.query_timeout = query_timeout
        self.batch_timeout = batch_timeout(batch_timeout_s)
        self.retry = retry or RetryPolicy()
        self.secrets = (endpoint.api_key,)
        self._api_key = endpoint.api_key
        self._client: openai.OpenAI | None = None
        self._client_lock = threading.Lock()
        self.batch_runner: OpenAIBatchRunner | None = None

    @property
    def client(self) -> openai.OpenAI:
        """The SDK's client, made on first use: importing the SDK costs 0.4-0.6 s, which a process that never
        embeds (a keyword search, the app's first frame) should not pay."""
        with self._client_lock:
            if self._client is None:
                import openai

                self._client = openai.OpenAI(base_url=self.base_url, api_key=self._api_key,
                                             default_headers=self.headers, timeout=self.batch_timeout, max_retries=0)
            return self._client

    def warm_up(self) -> None:
        """Import the SDK and make the client now (the app does it in a worker after its first frame)."""
        _ = self.client

    @classmethod
    def from_settings(
        cls,
        settings: MemorySearchSettings,
        providers: ModelProviders,
        *,
        env: Mapping[str, str] | None = None,
        agent_id: str = "main",
        retry: RetryPolicy | None = None,
    ) -> OpenAIEmbeddingProvider:
        """Create from `memorySearch` settings; raises MissingApiKeyError without a key."""
        endpoint = resolve_remote(
            settings, providers, os.environ if env is None else env,
            provider_id="openai", config_provider="openai", env_var="OPENAI_API_KEY",
            default_base_url=DEFAULT_BASE_URL,
        )
        provider = cls(
            endpoint,
            model=settings.model,
            query_input_type=settings.query_input_type or settings.input_type,
            document_input_type=settings.document_input_type or settings.input_type,
            concurrency=settings.remote.non_batch_concurrency,
            batch_timeout_s=settings.sync.embedding_batch_timeout_seconds,
            retry=retry,
        )
        if settings.remote.batch.enabled:

            provider.batch_runner = OpenAIBatchRunner(provider, settings.remote.batch, agent_id=agent_id)
        return provider

    def __repr__(self) -> str:
        return f"OpenAIEmbeddingProvider(model={self.model!r}, base_url={self.base_url!r})"

    def _request(self, texts: list[str], input_type: str | None, timeout: float) -> list[list[float]]:
        extra = {"input_type": input_type} if input_type else None
        response = call_sdk(
            lambda: self.client.embeddings.create(
                model=self.model, input=texts, encoding_format="float", extra_body=extra, timeout=timeout
            ),
            timeout=timeout,
            secrets=self.secrets,
        )
        try:
            ordered = sorted(response.data, key=lambda item: item.index)
            vectors = [item.embedding for item in ordered]
        except (TypeError, AttributeError):
            raise ProviderError("openai embeddings failed: malformed response (no data list of embeddings)",
                                "check memorySearch.remote.baseUrl points at an OpenAI-compatible embeddings API",
                                ) from None
        return checked_vectors("openai", vectors, len(texts))

    def embed_query(self, text: str) -> list[float]:
        """Embed one query (`queryInputType`), retried on rate limits and 5xx."""
        vectors = self.retry.run(lambda: self._request([text], self.query_input_type, self.query_timeout))
        self._remember_dims(vectors)
        return vectors[0]

    def embed_inline(self, texts: Sequence[str]) -> list[list[float]]:
        """Embed documents through `/embeddings` in byte-bounded, concurrent requests."""
        vectors = embed_grouped(
            texts,
            lambda group: self._request(group, self.document_input_type, self.batch_timeout),
            concurrency=self.concurrency,
            policy=self.retry,
        )
        self._remember_dims(vectors)
        return vectors

    def embed_batch(self, texts: Sequence[str]) -> list[list[float]]:
        """Embed documents: through the Batch API when enabled and healthy, else inline."""
        if not texts:
            return []
        if self.batch_runner is not None and self.batch_runner.active:
            vectors = self.batch_runner.try_embed(texts)
            if vectors is not None:
                self._remember_dims(vectors)
                return vectors
        return self.embed_inline(texts)

    def batch_status(self) -> dict[str, Any] | None:
        """OpenClaw's `status.batch` object, or None when the Batch API is not configured."""
        return self.batch_runner.status() if self.batch_runner is not None else None

    def cache_key_data(self) -> dict[str, Any]:
        """`{provider, baseUrl, model, documentInputType, headers}` with Authorization left out."""
        headers = {"Content-Type": "application/json", "Authorization": "Bearer", **self.headers}
        return {
            "provider": "openai",
            "baseUrl": self.base_url,
            "model": self.model,
            "documentInputType": self.document_input_type,
            "headers": cache_headers(headers, ["authorization"]),
        }

    def close(self) -> None:
        """Close the SDK's HTTP client, if one was made."""
        with self._client_lock:
            if self._client is not None:
                self._client.close()
