"""Voyage AI embeddings over REST with httpx (§8.5)."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import httpx

from memtui.embeddings.base import EmbeddingProvider, checked_vectors
from memtui.embeddings.http_retry import (
    DEFAULT_CONCURRENCY,
    QUERY_TIMEOUT_S,
    RemoteEndpoint,
    RetryPolicy,
    batch_timeout,
    embed_grouped,
    post_json,
    resolve_remote,
)
from memtui.errors import ProviderError

if TYPE_CHECKING:
    from memtui.settings.config import MemorySearchSettings
    from memtui.settings.providers import ModelProviders

DEFAULT_MODEL = "voyage-4-large"
DEFAULT_BASE_URL = "https://api.voyageai.com/v1"
KEY_HINT = "memorySearch.remote.apiKey, models.providers.voyage.apiKey or VOYAGE_API_KEY"


class VoyageEmbeddingProvider(EmbeddingProvider):
    """`POST {baseUrl}/embeddings` with `input_type` query/document; vectors used as returned."""

    id = "voyage"

    def __init__(
        self,
        endpoint: RemoteEndpoint,
        *,
        model: str = "",
        concurrency: int | None = None,
        query_timeout: float = QUERY_TIMEOUT_S,
        batch_timeout_s: float | None = None,
        retry: RetryPolicy | None = None,
    ) -> None:
        self.model = model.strip().removeprefix("voyage/") or DEFAULT_MODEL
        self.base_url = endpoint.base_url
        self.concurrency = concurrency or DEFAULT_CONCURRENCY
        self.query_timeout = query_timeout
        self.batch_timeout = batch_timeout(batch_timeout_s)
        self.retry = retry or RetryPolicy()
        self._secrets = (endpoint.api_key,)
        self._url = f"{endpoint.base_url.rstrip('/')}/embeddings"
        auth = {"Authorization": f"Bearer {endpoint.api_key}"}
        self.client = httpx.Client(headers={**auth, **endpoint.headers})

    @classmethod
    def from_settings(
        cls,
        settings: MemorySearchSettings,
        providers: ModelProviders,
        *,
        env: Mapping[str, str] | None = None,
        retry: RetryPolicy | None = None,
    ) -> VoyageEmbeddingProvider:
        """Create from `memorySearch` settings; raises MissingApiKeyError without a key."""
        endpoint = resolve_remote(
            settings, providers, os.environ if env is None else env,
            provider_id="voyage", config_provider="voyage", env_var="VOYAGE_API_KEY",
            default_base_url=DEFAULT_BASE_URL,
        )
        return cls(
            endpoint,
            model=settings.model,
            concurrency=settings.remote.non_batch_concurrency,
            batch_timeout_s=settings.sync.embedding_batch_timeout_seconds,
            retry=retry,
        )

    def __repr__(self) -> str:
        return f"VoyageEmbeddingProvider(model={self.model!r}, base_url={self.base_url!r})"

    def _request(self, texts: list[str], input_type: str, timeout: float) -> list[list[float]]:
        body = {"model": self.model, "input": texts, "input_type": input_type}
        payload = post_json(
            self.client, self._url, body, timeout=timeout, provider="voyage", secrets=self._secrets,
            key_hint=KEY_HINT,
        )
        data = payload.get("data")
        if not isinstance(data, list) or not all(isinstance(item, Mapping) for item in data):
            raise ProviderError("voyage embeddings failed: malformed response (no data list of embeddings)",
                                "check memorySearch.remote.baseUrl")
        ordered = sorted(data, key=lambda item: item.get("index", 0) if isinstance(item.get("index"), int) else 0)
        return checked_vectors("voyage", [item.get("embedding") for item in ordered], len(texts))

    def embed_query(self, text: str) -> list[float]:
        """Embed one query with `input_type: "query"`."""
        vectors = self.retry.run(lambda: self._request([text], "query", self.query_timeout))
        self._remember_dims(vectors)
        return vectors[0]

    def embed_batch(self, texts: Sequence[str]) -> list[list[float]]:
        """Embed documents with `input_type: "document"` in byte-bounded, concurrent requests."""
        vectors = embed_grouped(
            texts,
            lambda group: self._request(group, "document", self.batch_timeout),
            concurrency=self.concurrency,
            policy=self.retry,
        )
        self._remember_dims(vectors)
        return vectors

    def close(self) -> None:
        """Close the HTTP client."""
        self.client.close()
