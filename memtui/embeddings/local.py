"""The `local` embedding provider: a GGUF model run in-process by llama-cpp-python (§8.2)."""

from __future__ import annotations

import os
import socket
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from memtui.embeddings.base import EmbeddingProvider, sanitize_and_normalize
from memtui.errors import ProviderError
from memtui.settings.paths import expand_user

PIP_LLAMA = 'CMAKE_ARGS="-DGGML_NATIVE=OFF -DLLAVA_BUILD=OFF" pip install llama-cpp-python==0.3.36'
PIP_HF_HUB = "pip install huggingface_hub"
HF_PREFIX = "hf:"
# OpenClaw's local adapter declares this input limit; the indexer splits chunks by it.
LOCAL_MAX_INPUT_TOKENS = 2048
DEFAULT_CONTEXT_SIZE = 4096
_FIRST_BATCH = 512


def _parse_hf_uri(spec: str) -> tuple[str, str]:
    parts = spec[len(HF_PREFIX):].strip("/").split("/")
    if len(parts) < 3 or not all(parts):
        raise ProviderError(f"bad model URI {spec!r}; expected hf:<owner>/<repo>/<file>.gguf")
    return "/".join(parts[:2]), "/".join(parts[2:])


def _hub_reachable(endpoint: str, timeout: float) -> str | None:
    """None when a TCP connection to the hub opens within `timeout` seconds, else the reason."""
    url = urlsplit(endpoint)
    host = url.hostname or ""
    port = url.port or (443 if url.scheme == "https" else 80)
    outcome: list[str | None] = []

    def probe() -> None:
        try:
            socket.create_connection((host, port), timeout=timeout).close()
            outcome.append(None)
        except OSError as exc:
            outcome.append(str(exc) or type(exc).__name__)

    worker = threading.Thread(target=probe, daemon=True)
    worker.start()
    worker.join(timeout)
    return outcome[0] if outcome else f"no answer within {timeout:g}s"


def resolve_model_file(spec: str, cache_dir: str | None, timeout: float = 10.0) -> Path:
    """The local file for `local.modelPath`: a path (`~` expanded) or an `hf:owner/repo/file.gguf` URI.

    An `hf:` URI is served from the Hugging Face cache under `cache_dir` when present; otherwise it
    is downloaded, after checking within `timeout` seconds that the hub answers. Offline
    (`HF_HUB_OFFLINE=1` or no connection) it fails fast with a `ProviderError`.
    """
    spec = spec.strip()
    if not spec:
        raise ProviderError("no local model configured; run `memtui model install` or set local.modelPath")
    if spec.startswith(("http://", "https://")):
        raise ProviderError(f"model URLs are not supported ({spec})",
                            hint="download the file and set local.modelPath to it")
    if not spec.startswith(HF_PREFIX):
        path = expand_user(spec)
        if not path.is_file():
            raise ProviderError(f"local model file not found: {path}",
                                hint="run `memtui model install` or fix local.modelPath")
        return path
    repo_id, filename = _parse_hf_uri(spec)
    try:
        from huggingface_hub import constants, hf_hub_download, try_to_load_from_cache
        from huggingface_hub.errors import HfHubHTTPError
    except ImportError as exc:
        raise ProviderError(f"hf: model URIs need huggingface_hub; run: {PIP_HF_HUB}") from exc
    cache = str(expand_user(cache_dir)) if cache_dir else None
    # A pure cache lookup: hf_hub_download(local_files_only=True) still contacts the hub.
    cached = try_to_load_from_cache(repo_id, filename, cache_dir=cache)
    if isinstance(cached, str):
        return Path(cached)
    if constants.HF_HUB_OFFLINE:
        raise ProviderError(f"{spec} is not in the model cache and HF_HUB_OFFLINE is set",
                            hint="download it once online, or use `memtui model install`")
    reason = _hub_reachable(constants.ENDPOINT, timeout)
    if reason is not None:
        raise ProviderError(f"cannot download {spec}: {constants.ENDPOINT} is unreachable ({reason})",
                            hint="work offline with `memtui model install` and a local model path")
    try:
        return Path(hf_hub_download(repo_id, filename, cache_dir=cache, etag_timeout=timeout))
    except (HfHubHTTPError, OSError) as exc:
        raise ProviderError(f"cannot download {spec}: {str(exc).splitlines()[0]}") from exc


def _context_size(value: int | str) -> int | None:
    """A positive context size, or None for "auto" (the model's training context)."""
    if isinstance(value, str):
        if value.strip().lower() == "auto":
            return None
        if not value.strip().isdigit():
            raise ProviderError(f"bad local.contextSize {value!r}; use a positive integer or \"auto\"")
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise ProviderError(f"bad local.contextSize {value!r}; use a positive integer or \"auto\"")
    return value


class LocalEmbeddingProvider(EmbeddingProvider):
    """Embeds with a local GGUF model; loads it on first use and keeps one llama context behind a lock.

    Texts longer than the context are cut to the longest prefix that fits, because llama.cpp
    aborts the process on an over-long embedding input.
    """

    id = "local"
    max_input_tokens = LOCAL_MAX_INPUT_TOKENS

    def __init__(self, model_path: str, *, model: str | None = None,
                 context_size: int | str = DEFAULT_CONTEXT_SIZE, model_cache_dir: str | None = None) -> None:
        self.model_path = model_path
        self.model = model if model is not None else model_path
        self.context_size = _context_size(context_size)
        self.model_cache_dir = model_cache_dir
        self._lock = threading.Lock()
        self._llm: Any = None

    def cache_key_data(self) -> dict[str, Any]:
        """`{provider: "local", model}`, hashed into `providerKey` as OpenClaw does."""
        return {"provider": "local", "model": self.model}

    @property
    def n_ctx(self) -> int:
        """The most tokens one input may have, [CLS]/[SEP] included (loads the model)."""
        with self._lock:
            return self._token_limit(self._load())

    def embed_query(self, text: str) -> list[float]:
        """Embed one search query (no prefix, as OpenClaw)."""
        return self.embed_batch([text])[0]

    def embed_batch(self, texts: Sequence[str]) -> list[list[float]]:
        """Embed each text with its own `embed()` call (faster than one big batch for BERT models)."""
        with self._lock:
            llm = self._load()
            vectors = [sanitize_and_normalize(llm.embed(self._fit(llm, text))) for text in texts]
        self._remember_dims(vectors)
        return vectors

    def warm_up(self) -> None:
        """Load the model now (the app does it in a worker after its first frame), not in the first search."""
        with self._lock:
            self._load()

    def close(self) -> None:
        """Free the llama model and context."""
        with self._lock:
            if self._llm is not None:
                self._llm.close()
                self._llm = None

    def _load(self) -> Any:
        if self._llm is not None:
            return self._llm
        # OpenMP threads that spin while waiting steal the CPU from the UI and other work; on a busy
        # 2-core machine passive waiting embedded 2.7 chunks/s against 1/s spinning.
        os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
        try:
            from llama_cpp import Llama
        except ImportError as exc:
            raise ProviderError(f"the local provider needs llama-cpp-python; run: {PIP_LLAMA}") from exc
        path = str(resolve_model_file(self.model_path, self.model_cache_dir))
        try:
            # n_ctx=0 opens the model's training context; reopen when the batch or the configured
            # size does not match it (a BERT-style encoder needs n_batch = n_ubatch = n_ctx).
            llm = self._open(Llama, path, 0, _FIRST_BATCH)
            target = min(self.context_size or llm.n_ctx(), llm.n_ctx())
            if target != llm.n_ctx() or llm.n_batch < target:
                llm.close()
                llm = self._open(Llama, path, target, target)
        except ValueError as exc:
            raise ProviderError(f"cannot load local model {path}: {exc}") from exc
        self._llm = llm
        self._dims = int(llm.n_embd())
        return llm

    @staticmethod
    def _open(llama_class: Any, path: str, n_ctx: int, batch: int) -> Any:
        # Flash attention: about 20 % faster on CPU for 400-token chunks (deps.md §3).
        return llama_class(model_path=path, embedding=True, n_ctx=n_ctx, n_batch=batch, n_ubatch=batch,
                           flash_attn=True, verbose=False)

    @staticmethod
    def _token_limit(llm: Any) -> int:
        return min(int(llm.n_ctx()), int(llm.n_batch))

    @staticmethod
    def _fit(llm: Any, text: str) -> str:
        """`text`, or its longest prefix whose tokens (with [CLS]/[SEP]) fit the context."""
        limit = LocalEmbeddingProvider._token_limit(llm)

        def fits(prefix: str) -> bool:
            return len(llm.tokenize(prefix.encode("utf-8"), add_bos=True)) <= limit

        if fits(text):
            return text
        low, high = 0, len(text)
        while high - low > 1:
            middle = (low + high) // 2
            if fits(text[:middle]):
                low = middle
            else:
                high = middle
        return text[:low]
