"""Remote embedding providers against a real HTTP server on 127.0.0.1 (§5.4, §8.3–§8.5, §2.4)."""

from __future__ import annotations

import hashlib
import json
import math
import random
import time
from collections.abc import Iterator

import pytest
from embedding_server import EmbeddingServer, vector_for

from memtui.embeddings.base import provider_key
from memtui.embeddings.gemini import GeminiEmbeddingProvider
from memtui.embeddings.http_retry import (
    RemoteEndpoint,
    RetryPolicy,
    cache_headers,
    group_by_bytes,
    is_retryable,
    retry_deadline,
)
from memtui.embeddings.openai_batch import OpenAIBatchRunner
from memtui.embeddings.openai_provider import OpenAIEmbeddingProvider
from memtui.embeddings.voyage import VoyageEmbeddingProvider
from memtui.errors import ProviderError
from memtui.settings.config import BatchSettings

KEY = "sk-test-SECRETKEY-7f3a9c"


@pytest.fixture
def server() -> Iterator[EmbeddingServer]:
    srv = EmbeddingServer(api_key=KEY).start()
    yield srv
    srv.stop()


@pytest.fixture
def sleeps() -> list[float]:
    return []


def retry(sleeps: list[float]) -> RetryPolicy:
    return RetryPolicy(sleep=sleeps.append, rng=random.Random(7))


def openai_provider(
    server: EmbeddingServer, sleeps: list[float], key: str = KEY, **kw
) -> OpenAIEmbeddingProvider:
    headers = kw.pop("headers", {})
    endpoint = RemoteEndpoint(base_url=f"{server.url}/v1", api_key=key, headers=headers)
    return OpenAIEmbeddingProvider(endpoint, retry=retry(sleeps), **kw)


def normalized(vector: list[float]) -> list[float]:
    norm = math.sqrt(sum(v * v for v in vector))
    return [v / norm for v in vector]


# -- OpenAI inline -----------------------------------------------------------------------------


def test_openai_query_request_shape_and_headers(server, sleeps):
    provider = openai_provider(
        server,
        sleeps,
        headers={"X-Team": "blue"},
        query_input_type="query",
        document_input_type="passage",
        model="openai/text-embedding-3-large",
    )
    vector = provider.embed_query("where is the pool config")
    assert vector == vector_for("where is the pool config")  # used as returned, not re-normalised
    (request,) = server.matching("/v1/embeddings")
    body = request.json()
    assert body["model"] == "text-embedding-3-large"
    assert body["input"] == ["where is the pool config"]
    assert body["input_type"] == "query"
    assert request.headers["authorization"] == f"Bearer {KEY}"
    assert request.headers["x-team"] == "blue"
    provider.embed_batch(["doc"])
    assert server.matching("/v1/embeddings")[1].json()["input_type"] == "passage"
    assert provider.dims == 16


def test_openai_omits_input_type_unless_configured(server, sleeps):
    openai_provider(server, sleeps).embed_batch(["a", "b"])
    assert "input_type" not in server.matching("/v1/embeddings")[0].json()


def test_batch_grouping_stays_under_8000_bytes_and_keeps_order(server, sleeps):
    texts = [f"note {i} " + ("é" * 900 if i % 2 else "x" * 2500) for i in range(9)]
    texts.append("big " + "y" * 9000)
    server.slow("/v1/embeddings", 0.3, times=1)  # the first group answers last
    provider = openai_provider(server, sleeps, concurrency=4)
    vectors = provider.embed_batch(texts)
    assert vectors == [vector_for(t) for t in texts]
    bodies = [r.json()["input"] for r in server.matching("/v1/embeddings")]
    assert len(bodies) >= 2
    assert sorted(t for body in bodies for t in body) == sorted(texts)
    for body in bodies:
        size = sum(len(t.encode("utf-8")) for t in body)
        assert size <= 8000 or len(body) == 1


def test_group_by_bytes_counts_utf8_bytes():
    # "é" is 2 bytes: 3 × 3000 bytes → groups of 2 + 1 at an 8000-byte limit
    assert group_by_bytes(["é" * 1500] * 3) == [[0, 1], [2]]
    assert group_by_bytes(["a" * 9000, "b"]) == [[0], [1]]
    assert group_by_bytes([]) == []


@pytest.mark.parametrize("status", [429, 500])
def test_retries_then_succeeds(server, sleeps, status):
    server.fail("/v1/embeddings", status, times=2)
    vector = openai_provider(server, sleeps).embed_query("hello")
    assert vector == vector_for("hello")
    assert len(server.matching("/v1/embeddings")) == 3
    assert len(sleeps) == 2
    assert 0.5 <= sleeps[0] <= 0.6 and 1.0 <= sleeps[1] <= 1.2


def test_gives_up_after_three_retries(server, sleeps):
    server.fail("/v1/embeddings", 429, times=10, message="Rate limit reached for requests")
    with pytest.raises(ProviderError) as info:
        openai_provider(server, sleeps).embed_query("hello")
    assert len(server.matching("/v1/embeddings")) == 4
    assert "HTTP 429" in str(info.value) and "\n" not in str(info.value)
    assert len(sleeps) == 3


def test_a_bounded_query_reports_the_providers_error_instead_of_retrying_past_its_bound(server, sleeps):
    """Backoff 0.5 + 1 + 2 s (+ jitter) can outlast a search's 4 s query bound: within a `retry_deadline` the retry
    that would end past it is not made, so the search says 'HTTP 503', not 'did not answer within 4s'."""
    server.fail("/v1/embeddings", 503, times=10)
    with retry_deadline(0.8), pytest.raises(ProviderError, match="HTTP 503"):  # (the test's sleeps take no time)
        openai_provider(server, sleeps).embed_query("hello")
    assert len(sleeps) == 1 and 0.5 <= sleeps[0] <= 0.6  # the 1.0 s wait would end past the bound
    sleeps.clear()
    with pytest.raises(ProviderError):  # outside the block: the full schedule
        openai_provider(server, sleeps).embed_query("hello")
    assert len(sleeps) == 3


def test_backoff_doubles_with_jitter_and_caps_at_8s():
    policy = RetryPolicy(rng=random.Random(1))
    for attempt, base in enumerate([0.5, 1.0, 2.0, 4.0]):
        assert base <= policy.delay(attempt) <= base * 1.2
    assert policy.delay(5) == 8.0


def test_non_retryable_400_fails_at_once(server, sleeps):
    server.fail("/v1/embeddings", 400, times=1, message="Invalid input: model not found")
    with pytest.raises(ProviderError) as info:
        openai_provider(server, sleeps).embed_query("hello")
    assert len(server.matching("/v1/embeddings")) == 1
    assert sleeps == []
    assert "HTTP 400" in str(info.value) and "model not found" in str(info.value)


def test_retry_regex_matches_openclaw_messages():
    assert is_retryable("openai embeddings failed: HTTP 503")
    assert is_retryable("RESOURCE HAS BEEN EXHAUSTED")
    assert is_retryable("Too Many Requests")
    assert is_retryable("tokens per day limit")
    assert not is_retryable("openai embeddings failed: HTTP 401: bad key")
    assert not is_retryable("timed out after 60s")


def test_timeout_gives_provider_error_quickly(server, sleeps):
    server.slow("/v1/embeddings", 3.0, times=1)
    provider = openai_provider(server, sleeps, query_timeout=0.3)
    started = time.monotonic()
    with pytest.raises(ProviderError) as info:
        provider.embed_query("hello")
    assert time.monotonic() - started < 2.5
    assert "timed out" in str(info.value)
    assert len(server.matching("/v1/embeddings")) == 1


def test_keys_never_in_errors_or_repr(server, sleeps):
    wrong = "sk-WRONG-distinctive-91c2"
    endpoint = RemoteEndpoint(base_url=f"{server.url}/v1", api_key=wrong, headers={})
    providers = [
        OpenAIEmbeddingProvider(endpoint, retry=retry(sleeps)),
        GeminiEmbeddingProvider(RemoteEndpoint(f"{server.url}/v1beta", wrong, {}), retry=retry(sleeps)),
        VoyageEmbeddingProvider(RemoteEndpoint(f"{server.url}/voyage/v1", wrong, {}), retry=retry(sleeps)),
    ]
    for provider in providers:
        with pytest.raises(ProviderError) as info:
            provider.embed_query("hello")
        assert "401" in str(info.value)
        assert wrong not in str(info.value) and wrong not in repr(info.value)
        assert wrong not in repr(provider)
        assert "API key" in str(info.value)
    assert wrong not in repr(endpoint)
    # the key was sent and the server echoed it in its 401 body, so the errors had to redact it
    assert sum(1 for r in server.requests if wrong in json.dumps(r.headers)) == 3


def test_connection_refused_is_one_line_error(sleeps):
    srv = EmbeddingServer().start()
    url = srv.url
    srv.stop()
    provider = OpenAIEmbeddingProvider(RemoteEndpoint(f"{url}/v1", KEY, {}), retry=retry(sleeps))
    with pytest.raises(ProviderError) as info:
        provider.embed_query("x")
    assert "cannot connect" in str(info.value) and KEY not in str(info.value)


# -- Gemini and Voyage -------------------------------------------------------------------------


def test_gemini_query_and_documents(server, sleeps):
    endpoint = RemoteEndpoint(f"{server.url}/v1beta/", KEY, {"X-Goog-User-Project": "p1"})
    provider = GeminiEmbeddingProvider(
        endpoint, model="models/gemini-embedding-001", output_dimensionality=8, retry=retry(sleeps)
    )
    assert provider.max_input_tokens == 2048
    vector = provider.embed_query("tea preferences")
    assert vector == pytest.approx(normalized(vector_for("tea preferences", 8)))
    (query,) = server.requests
    assert query.path == "/v1beta/models/gemini-embedding-001:embedContent"
    assert query.headers["x-goog-api-key"] == KEY and "authorization" not in query.headers
    assert query.headers["x-goog-user-project"] == "p1"
    assert query.json() == {
        "content": {"parts": [{"text": "tea preferences"}]},
        "taskType": "RETRIEVAL_QUERY",
        "outputDimensionality": 8,
    }
    docs = ["first doc", "second doc", "third"]
    vectors = provider.embed_batch(docs)
    assert vectors == [pytest.approx(normalized(vector_for(t, 8))) for t in docs]
    batch = server.requests[1]
    assert batch.path == "/v1beta/models/gemini-embedding-001:batchEmbedContents"
    assert batch.json()["requests"][1] == {
        "model": "models/gemini-embedding-001",
        "content": {"parts": [{"text": "second doc"}]},
        "taskType": "RETRIEVAL_DOCUMENT",
        "outputDimensionality": 8,
    }


def test_gemini_retries_resource_exhausted(server, sleeps):
    server.fail(":embedContent", 429, times=1, message="Resource has been exhausted (e.g. check quota).")
    provider = GeminiEmbeddingProvider(RemoteEndpoint(f"{server.url}/v1beta", KEY, {}), retry=retry(sleeps))
    assert provider.embed_query("q") == pytest.approx(normalized(vector_for("q")))
    assert len(server.requests) == 2


def test_voyage_input_types_and_raw_vectors(server, sleeps):
    provider = VoyageEmbeddingProvider(
        RemoteEndpoint(f"{server.url}/voyage/v1", KEY, {}), retry=retry(sleeps)
    )
    assert provider.model == "voyage-4-large"
    assert provider.embed_query("q one") == vector_for("q one")
    assert provider.embed_batch(["d1", "d2"]) == [vector_for("d1"), vector_for("d2")]
    first, second = (r.json() for r in server.requests)
    assert first == {"model": "voyage-4-large", "input": ["q one"], "input_type": "query"}
    assert second["input_type"] == "document" and second["input"] == ["d1", "d2"]
    assert server.requests[0].headers["authorization"] == f"Bearer {KEY}"


# -- OpenAI Batch API --------------------------------------------------------------------------


def batch_provider(server, sleeps, **settings) -> tuple[OpenAIEmbeddingProvider, list[float]]:
    provider = openai_provider(server, sleeps, document_input_type="document")
    polls: list[float] = []
    batch = BatchSettings(enabled=True, poll_interval_ms=250, **settings)
    provider.batch_runner = OpenAIBatchRunner(provider, batch, agent_id="ops", sleep=polls.append)
    return provider, polls


def test_openai_batch_end_to_end(server, sleeps):
    server.batch_polls_before_done = 3
    provider, polls = batch_provider(server, sleeps)
    texts = ["alpha note", "beta note", "gamma ü note"]
    assert provider.embed_batch(texts) == [vector_for(t) for t in texts]
    assert [(r.method, r.path) for r in server.requests] == [
        ("POST", "/v1/files"),
        ("POST", "/v1/batches"),
        ("GET", "/v1/batches/batch-2"),
        ("GET", "/v1/batches/batch-2"),
        ("GET", "/v1/batches/batch-2"),
        ("GET", "/v1/files/file-3/content"),
    ]
    upload = server.requests[0]
    assert b'name="purpose"' in upload.body and b"batch" in upload.body
    lines = [json.loads(line) for line in server.file_text("file-1").splitlines()]
    assert lines[2] == {
        "custom_id": "2",
        "method": "POST",
        "url": "/v1/embeddings",
        "body": {"model": "text-embedding-3-small", "input": "gamma ü note", "input_type": "document"},
    }
    create = server.requests[1].json()
    assert create == {
        "input_file_id": "file-1",
        "endpoint": "/v1/embeddings",
        "completion_window": "24h",
        "metadata": {"source": "openclaw-memory", "agent": "ops"},
    }
    assert polls == [0.25, 0.25, 0.25]  # after create (validating) and two in_progress polls
    assert provider.batch_status()["failures"] == 0 and provider.batch_status()["enabled"] is True


def test_batch_disabled_after_two_failures_and_inline_used(server, sleeps):
    server.batch_outcome = "failed"
    provider, _ = batch_provider(server, sleeps)
    for expected_failures in (1, 2):
        assert provider.embed_batch(["one", "two"]) == [vector_for("one"), vector_for("two")]
        status = provider.batch_status()
        assert status["failures"] == expected_failures
        assert "failed" in status["lastError"]
    assert status["enabled"] is False and status["limit"] == 2 and status["lastProvider"] == "openai"
    uploads_before = len(server.matching("/v1/files"))
    assert provider.embed_batch(["three"]) == [vector_for("three")]
    assert len(server.matching("/v1/files")) == uploads_before  # Batch API no longer tried
    assert len(server.matching("/v1/embeddings")) == 3


def test_batch_timeout_counts_as_failure(server, sleeps):
    server.batch_polls_before_done = 1000
    provider, _ = batch_provider(server, sleeps, timeout_minutes=0.01)
    clock = iter(range(0, 10_000, 1))
    provider.batch_runner.clock = lambda: float(next(clock))
    assert provider.embed_batch(["x"]) == [vector_for("x")]
    assert "timed out" in provider.batch_status()["lastError"]


def test_batch_wait_disabled_fails_without_polling(server, sleeps):
    provider, polls = batch_provider(server, sleeps, wait=False)
    assert provider.embed_batch(["x"]) == [vector_for("x")]
    assert polls == []
    assert "still validating" in provider.batch_status()["lastError"]


# -- providerKey ------------------------------------------------------------------------------


def sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def test_openai_provider_key_matches_hand_written_json(sleeps):
    endpoint = RemoteEndpoint(
        "http://127.0.0.1:9/v1", KEY, {"X-Team": "blue", "authorization": "Bearer other"}
    )
    provider = OpenAIEmbeddingProvider(endpoint, retry=retry(sleeps))
    expected = (
        '{"provider":"openai","baseUrl":"http://127.0.0.1:9/v1","model":"text-embedding-3-small",'
        '"headers":[["Content-Type","application/json"],["X-Team","blue"]]}'
    )
    assert provider_key(provider) == sha(expected)
    provider = OpenAIEmbeddingProvider(
        RemoteEndpoint("https://api.openai.com/v1", KEY, {}), document_input_type="passage"
    )
    expected = (
        '{"provider":"openai","baseUrl":"https://api.openai.com/v1","model":"text-embedding-3-small",'
        '"documentInputType":"passage","headers":[["Content-Type","application/json"]]}'
    )
    assert provider_key(provider) == sha(expected)


def test_gemini_and_voyage_provider_keys():
    gemini = GeminiEmbeddingProvider(
        RemoteEndpoint(
            "https://generativelanguage.googleapis.com/v1beta", KEY, {"x-goog-api-key": "k", "X-Extra": "1"}
        )
    )
    expected = (
        '{"provider":"gemini","baseUrl":"https://generativelanguage.googleapis.com/v1beta",'
        '"model":"gemini-embedding-001","headers":[["X-Extra","1"]]}'
    )
    assert provider_key(gemini) == sha(expected)
    gemini = GeminiEmbeddingProvider(
        RemoteEndpoint("https://g.example/v1beta/openai/", KEY, {}), model="gemini-embedding-2-preview"
    )
    expected = (
        '{"provider":"gemini","baseUrl":"https://g.example/v1beta","model":"gemini-embedding-2-preview",'
        '"outputDimensionality":3072,"headers":[]}'
    )
    assert provider_key(gemini) == sha(expected)
    voyage = VoyageEmbeddingProvider(RemoteEndpoint("https://api.voyageai.com/v1", KEY, {}))
    assert provider_key(voyage) == sha('{"provider":"voyage","model":"voyage-4-large"}')


def test_cache_headers_sort_like_locale_compare():
    headers = {"x-b": "2", "X-a": "1", "Accept": "j", "x_c": "3", "Authorization": "no"}
    # ICU (JavaScript localeCompare) ignores case first and orders "_" before "-"
    assert cache_headers(headers, ["authorization"]) == [
        ["Accept", "j"],
        ["x_c", "3"],
        ["X-a", "1"],
        ["x-b", "2"],
    ]
