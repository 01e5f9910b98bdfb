"""The local llama.cpp provider against sentence-transformers reference vectors (independent torch run)."""

from __future__ import annotations

import hashlib
import os
import socket
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

from memtui.embeddings.base import provider_key
from memtui.embeddings.local import LocalEmbeddingProvider, resolve_model_file
from memtui.errors import ProviderError

REPO = Path(__file__).resolve().parent.parent
HF_URI = "hf:acme/minilm-GGUF/all-MiniLM-L6-v2-q8_0.gguf"


@pytest.fixture(scope="module")
def q8(llama_cpp, minilm_models):
    provider = LocalEmbeddingProvider(str(minilm_models["q8_0"]))
    yield provider
    provider.close()


def _cosines(vectors, reference) -> np.ndarray:
    return np.sum(np.asarray(vectors) * np.asarray(reference), axis=1)


@pytest.mark.parametrize(("quant", "minimum"), [("f16", 0.9999), ("q8_0", 0.995)])
def test_vectors_match_sentence_transformers(llama_cpp, minilm_models, minilm_reference, quant, minimum):
    provider = LocalEmbeddingProvider(str(minilm_models[quant]))
    try:
        vectors = provider.embed_batch(minilm_reference["sentences"])
    finally:
        provider.close()
    assert np.asarray(vectors).shape == (len(minilm_reference["sentences"]), 384)
    assert _cosines(vectors, minilm_reference["vectors"]).min() >= minimum


def test_related_sentences_score_high_and_unrelated_low(q8, minilm_reference):
    vectors = np.asarray(q8.embed_batch(minilm_reference["sentences"]))
    for a, b in minilm_reference["related_pairs"]:
        assert vectors[a] @ vectors[b] > 0.5
    for a, b in minilm_reference["unrelated_pairs"]:
        assert vectors[a] @ vectors[b] < 0.2


@pytest.mark.parametrize(("quant", "minimum"), [("f16", 0.999), ("q8_0", 0.995)])
def test_an_over_long_text_is_truncated_to_its_first_512_tokens(llama_cpp, minilm_models, minilm_reference,
                                                                quant, minimum):
    # The reference embeds the same text with sentence-transformers at max_seq_length=512; cutting
    # elsewhere (the tail, or 256 tokens) gives cosines of 0.94-0.96. Without the cut, llama.cpp
    # aborts the whole process.
    text = minilm_reference["long_text"]
    assert len(text) > 20_000
    provider = LocalEmbeddingProvider(str(minilm_models[quant]))
    try:
        vector = provider.embed_query(text)
        assert provider.n_ctx == 512
    finally:
        provider.close()
    assert len(vector) == 384
    assert np.linalg.norm(vector) == pytest.approx(1.0, abs=1e-6)
    assert float(np.dot(vector, minilm_reference["long_vector"])) >= minimum


def test_batch_equals_one_query_at_a_time_and_keeps_order(q8, minilm_reference):
    texts = minilm_reference["sentences"][:4]
    batch = q8.embed_batch(texts)
    assert batch == [q8.embed_query(t) for t in texts]
    assert q8.dims == 384


def test_empty_text_gets_a_normalised_vector(q8):
    assert np.linalg.norm(q8.embed_query("")) == pytest.approx(1.0, abs=1e-6)


def test_threads_share_one_model_safely(q8, minilm_reference):
    texts = minilm_reference["sentences"]
    expected = q8.embed_batch(texts)
    results: dict[int, list[list[float]]] = {}

    def work(index: int) -> None:
        results[index] = q8.embed_batch(texts)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert [results[i] for i in range(4)] == [expected] * 4


def test_identity_matches_openclaw(minilm_models):
    provider = LocalEmbeddingProvider(str(minilm_models["q8_0"]), model=HF_URI)
    assert (provider.id, provider.model, provider.max_input_tokens) == ("local", HF_URI, 2048)
    assert list(provider.cache_key_data()) == ["provider", "model"]
    expected = hashlib.sha256(('{"provider":"local","model":"' + HF_URI + '"}').encode()).hexdigest()
    assert provider_key(provider) == expected
    assert LocalEmbeddingProvider("~/m.gguf").model == "~/m.gguf"


def test_a_smaller_context_size_is_honoured(llama_cpp, minilm_models, minilm_reference):
    provider = LocalEmbeddingProvider(str(minilm_models["q8_0"]), context_size=128)
    try:
        assert provider.n_ctx == 128
        assert len(provider.embed_query(minilm_reference["long_text"])) == 384
    finally:
        provider.close()
    auto = LocalEmbeddingProvider(str(minilm_models["q8_0"]), context_size="auto")
    try:
        assert auto.n_ctx == 512
    finally:
        auto.close()


@pytest.mark.parametrize("size", ["big", 0, -5, "0"])
def test_a_bad_context_size_is_refused(size):
    with pytest.raises(ProviderError, match="contextSize"):
        LocalEmbeddingProvider("m.gguf", context_size=size)


def test_the_model_loads_lazily_and_a_missing_file_is_a_clear_error(llama_cpp, tmp_path):
    provider = LocalEmbeddingProvider(str(tmp_path / "nope.gguf"))
    with pytest.raises(ProviderError, match=r"local model file not found: .*nope\.gguf.*memtui model install"):
        provider.embed_query("hello")


def test_a_file_that_is_not_a_model_is_a_clear_error(llama_cpp, tmp_path):
    bogus = tmp_path / "bogus.gguf"
    bogus.write_bytes(b"not a gguf file")
    with pytest.raises(ProviderError, match="cannot load local model"):
        LocalEmbeddingProvider(str(bogus)).embed_query("hello")


def test_plain_paths_expand_the_home_dir(tmp_path, monkeypatch, minilm_models):
    monkeypatch.setenv("OPENCLAW_HOME", str(tmp_path))
    (tmp_path / "models").mkdir()
    target = tmp_path / "models" / "m.gguf"
    target.write_bytes(minilm_models["q8_0"].read_bytes())
    assert resolve_model_file("~/models/m.gguf", None) == target


@pytest.mark.parametrize(("spec", "message"), [
    ("hf:acme/only-repo", "expected hf:<owner>/<repo>/<file>.gguf"),
    ("https://example.com/m.gguf", "model URLs are not supported"),
    ("   ", "no local model configured"),
])
def test_bad_model_specs_are_refused(spec, message):
    with pytest.raises(ProviderError, match=message):
        resolve_model_file(spec, None)


def _hf_cache(cache: Path, model: Path) -> None:
    """Lay out a Hugging Face hub cache entry for HF_URI, as `hf_hub_download` leaves it."""
    commit = "0123456789abcdef0123456789abcdef01234567"
    repo = cache / "models--acme--minilm-GGUF"
    (repo / "refs").mkdir(parents=True)
    (repo / "refs" / "main").write_text(commit)
    snapshot = repo / "snapshots" / commit
    snapshot.mkdir(parents=True)
    (snapshot / "all-MiniLM-L6-v2-q8_0.gguf").write_bytes(model.read_bytes())


def test_an_hf_uri_is_served_from_the_cache_without_network(llama_cpp, tmp_path, minilm_models, minilm_reference):
    _hf_cache(tmp_path / "hf", minilm_models["q8_0"])
    provider = LocalEmbeddingProvider(HF_URI, model_cache_dir=str(tmp_path / "hf"))
    try:
        vector = provider.embed_query(minilm_reference["sentences"][0])
    finally:
        provider.close()
    assert provider.model == HF_URI
    assert float(np.dot(vector, minilm_reference["vectors"][0])) >= 0.995


def _resolve_in_subprocess(tmp_path: Path, env: dict[str, str], timeout: float) -> subprocess.CompletedProcess[str]:
    """resolve_model_file(HF_URI) in a fresh interpreter (huggingface_hub reads its env at import)."""
    code = ("import sys\nfrom memtui.embeddings.local import resolve_model_file\n"
            "from memtui.errors import ProviderError\n"
            f"try:\n    resolve_model_file({HF_URI!r}, {str(tmp_path / 'hf')!r}, timeout={timeout})\n"
            "except ProviderError as e:\n    print(e); sys.exit(3)\n")
    full_env = {k: v for k, v in os.environ.items() if not k.startswith("HF_")}
    full_env.update(env, PYTHONPATH=str(REPO))
    # The subprocess timeout bounds the test: a hang fails it instead of blocking the suite.
    return subprocess.run([sys.executable, "-c", code], env=full_env, capture_output=True, text=True,
                          timeout=30, check=False)


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_an_uncached_hf_uri_fails_at_once_when_the_hub_is_unreachable(tmp_path):
    result = _resolve_in_subprocess(tmp_path, {"HF_ENDPOINT": f"http://127.0.0.1:{_closed_port()}"}, 10.0)
    assert result.returncode == 3, result.stderr
    lines = result.stdout.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith(f"cannot download {HF_URI}: http://127.0.0.1:")
    assert "unreachable" in lines[0]


def test_a_silent_hub_fails_after_the_timeout(tmp_path):
    # A listening socket that never accepts keeps the TCP handshake pending after its backlog fills.
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(0)
        port = server.getsockname()[1]
        fillers = [socket.socket() for _ in range(4)]
        for filler in fillers:
            filler.setblocking(False)
            filler.connect_ex(("127.0.0.1", port))
        try:
            result = _resolve_in_subprocess(tmp_path, {"HF_ENDPOINT": f"http://127.0.0.1:{port}"}, 1.0)
        finally:
            for filler in fillers:
                filler.close()
    assert result.returncode == 3, result.stderr
    assert "unreachable" in result.stdout


def test_hf_hub_offline_refuses_an_uncached_uri(tmp_path):
    result = _resolve_in_subprocess(tmp_path, {"HF_HUB_OFFLINE": "1"}, 10.0)
    assert result.returncode == 3, result.stderr
    assert "not in the model cache and HF_HUB_OFFLINE is set" in result.stdout
