"""Gemini embeddings over the native REST API with httpx (§8.4)."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import httpx

from memtui.embeddings.base import EmbeddingProvider, checked_vectors, sanitize_and_normalize
from memtui.embeddings.http_retry import (
    DEFAULT_CONCURRENCY,
    QUERY_TIMEOUT_S,
    RemoteEndpoint,
    RetryPolicy,
    batch_timeout,
    cache_headers,
    embed_grouped,
    post_json,
    resolve_remote,
)
from memtui.errors import ProviderError

if TYPE_CHECKING:
    from memtui.settings.config import MemorySearchSettings
    from memtui.settings.providers import ModelProviders

DEFAULT_MODEL = "gemini-embedding-001"
DEFAULT_BASE_URL = "https://generativelanguage.googleapis.com/v1beta"
KEY_HINT = "memorySearch.remote.apiKey, models.providers.google.apiKey or GEMINI_API_KEY"
EMBEDDING_2_DEFAULT_DIMS = 3072
_MAX_INPUT_TOKENS = {"gemini-embedding-001": 2048, "text-embedding-004": 2048}


def normalize_model(model: str) -> str:
    """Default model when empty; `models/`, `gemini/` and `google/` prefixes are stripped."""
    trimmed = model.strip()
    if not trimmed:
        return DEFAULT_MODEL
    trimmed = trimmed.removeprefix("models/")
    for prefix in ("gemini/", "google/"):
        if trimmed.startswith(prefix):
            return trimmed[len(prefix) :]
    return trimmed


def normalize_base_url(raw: str) -> str:
    """Trailing slashes and any `/openai…` suffix (the OpenAI-compatible endpoint) are removed."""
    trimmed = raw.rstrip("/")
    cut = trimmed.find("/openai")
    return trimmed[:cut] if cut > -1 else trimmed


class GeminiEmbeddingProvider(EmbeddingProvider):
    """`:embedContent` (RETRIEVAL_QUERY) and `:batchEmbedContents` (RETRIEVAL_DOCUMENT); L2-normalised."""

    id = "gemini"

    def __init__(
        self,
        endpoint: RemoteEndpoint,
        *,
        model: str = "",
        output_dimensionality: int | None = None,
        concurrency: int | None = None,
        query_timeout: float = QUERY_TIMEOUT_S,
        batch_timeout_s: float | None = None,
        retry: RetryPolicy | None = None,
    ) -> None:
        self.model = normalize_model(model)
        self.max_input_tokens = _MAX_INPUT_TOKENS.get(self.model, 8192)
        self.base_url = normalize_base_url(endpoint.base_url)
        self.headers = dict(endpoint.headers)
        if output_dimensionality is None and self.model.startswith("gemini-embedding-2"):
            output_dimensionality = EMBEDDING_2_DEFAULT_DIMS
        self.output_dimensionality = output_dimensionality
        self.concurrency = concurrency or DEFAULT_CONCURRENCY
        self.query_timeout = query_timeout
        self.batch_timeout = batch_timeout(batch_timeout_s)
        self.retry = retry or RetryPolicy()
        self._secrets = (endpoint.api_key,)
        self._model_path = f"models/{self.model}"
        self.client = httpx.Client(headers={"x-goog-api-key": endpoint.api_key, **self.headers})

    @classmethod
    def from_settings(
        cls,
        settings: MemorySearchSettings,
        providers: ModelProviders,
        *,
        env: Mapping[str, str] | None = None,
        retry: RetryPolicy | None = None,
    ) -> GeminiEmbeddingProvider:
        """Create from `memorySearch` settings; raises MissingApiKeyError without a key."""
        endpoint = resolve_remote(
            settings, providers, os.environ if env is None else env,
            provider_id="gemini", config_provider="google", env_var="GEMINI_API_KEY",
            default_base_url=DEFAULT_BASE_URL,
        )
        return cls(
            endpoint,
            model=settings.model,
            output_dimensionality=settings.output_dimensionality,
            concurrency=settings.remote.non_batch_concurrency,
            batch_timeout_s=settings.sync.embedding_batch_timeout_seconds,
            retry=retry,
        )

    def __repr__(self) -> str:
        return f"GeminiEmbeddingProvider(model={self.model!r}, base_url={self.base_url!r})"

    def _content(self, text: str, task: str) -> dict[str, Any]:
        body: dict[str, Any] = {"content": {"parts": [{"text": text}]}, "taskType": task}
        if self.output_dimensionality:
            body["outputDimensionality"] = self.output_dimensionality
        return body

    def _post(self, action: str, body: dict[str, Any], timeout: float) -> Any:
        url = f"{self.base_url}/{self._model_path}:{action}"
        return post_json(
            self.client, url, body, timeout=timeout, provider="gemini", secrets=self._secrets,
            key_hint=KEY_HINT,
        )

    def embed_query(self, text: str) -> list[float]:
        """Embed one query with taskType RETRIEVAL_QUERY."""
        if not text.strip():
            return []
        payload = self.retry.run(
            lambda: self._post("embedContent", self._content(text, "RETRIEVAL_QUERY"), self.query_timeout)
        )
        embedding = payload.get("embedding")
        values = embedding.get("values") if isinstance(embedding, Mapping) else None
        vector = sanitize_and_normalize(checked_vectors("gemini", [values], 1, finite=False)[0]) if values else []
        self._remember_dims([vector])
        return vector

    def _embed_documents(self, texts: list[str]) -> list[list[float]]:
        requests = [{"model": self._model_path, **self._content(t, "RETRIEVAL_DOCUMENT")} for t in texts]
        payload = self._post("batchEmbedContents", {"requests": requests}, self.batch_timeout)
        embeddings = payload.get("embeddings")
        if not isinstance(embeddings, list) or len(embeddings) != len(texts):
            raise ProviderError(
                f"gemini embeddings failed: {len(embeddings or [])} vectors returned for {len(texts)} inputs",
                "check memorySearch.remote.baseUrl",
            )
        values = [item.get("values") if isinstance(item, Mapping) else None for item in embeddings]
        return [sanitize_and_normalize(v) for v in checked_vectors("gemini", values, len(texts), finite=False)]

    def embed_batch(self, texts: Sequence[str]) -> list[list[float]]:
        """Embed documents with taskType RETRIEVAL_DOCUMENT in byte-bounded, concurrent requests."""
        vectors = embed_grouped(texts, self._embed_documents, concurrency=self.concurrency, policy=self.retry)
        self._remember_dims(vectors)
        return vectors

    def cache_key_data(self) -> dict[str, Any]:
        """`{provider, baseUrl, model, outputDimensionality, headers}` without auth headers."""
        return {
            "provider": "gemini",
            "baseUrl": self.base_url,
            "model": self.model,
            "outputDimensionality": self.output_dimensionality,
            "headers": cache_headers(self.headers, ["authorization", "x-goog-api-key"]),
        }

    def close(self) -> None:
        """Close the HTTP client."""
        self.client.close()
