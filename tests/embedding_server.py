"""A real HTTP server on 127.0.0.1 speaking the OpenAI, Gemini and Voyage embedding APIs.

Vectors come from hashed character trigrams of the input (deterministic, not normalised).
Every request is recorded; failures (status codes) and slow responses can be injected per path.
OpenAI routes live under `/v1`, Gemini under `/v1beta`, Voyage under `/voyage/v1`.
"""

from __future__ import annotations

import base64
import hashlib
import itertools
import json
import re
import struct
import threading
import time
from dataclasses import dataclass, field
from email.parser import BytesParser
from email.policy import HTTP
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

DEFAULT_DIMS = 16
_UNCHANGED = object()


def vector_for(text: str, dims: int = DEFAULT_DIMS) -> list[float]:
    """Sum of ±1 per character trigram of `text`, hashed into `dims` buckets."""
    padded = f"  {text} "
    vector = [0.0] * dims
    for i in range(len(padded) - 2):
        digest = hashlib.sha1(padded[i : i + 3].encode("utf-8", "surrogatepass")).digest()
        vector[digest[0] % dims] += 1.0 if digest[1] % 2 else -1.0
    return vector


@dataclass
class Recorded:
    """One request as the server saw it."""

    method: str
    path: str
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


@dataclass
class _Injection:
    pattern: str
    times: int
    status: int | None = None
    message: str = ""
    delay: float = 0.0
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class EmbeddingServer:
    """Start with `start()`, stop with `stop()`; `url` is `http://127.0.0.1:<port>`."""

    api_key: str | None = None
    batch_polls_before_done: int = 1
    batch_outcome: str = "completed"
    requests: list[Recorded] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.dims = DEFAULT_DIMS
        self._resize: tuple[int, int] = (0, DEFAULT_DIMS)
        self._corrupt: tuple[int, Any] = (0, _UNCHANGED)
        self._lock = threading.Lock()
        self._injections: list[_Injection] = []
        self._files: dict[str, bytes] = {}
        self._batches: dict[str, dict[str, Any]] = {}
        self._ids = itertools.count(1)
        self._httpd: ThreadingHTTPServer | None = None

    # -- control -----------------------------------------------------------------------------
    def start(self) -> EmbeddingServer:
        server = self

        class Handler(_Handler):
            owner = server

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        ).start()
        return self

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()

    @property
    def url(self) -> str:
        assert self._httpd is not None
        return f"http://127.0.0.1:{self._httpd.server_address[1]}"

    def fail(self, pattern: str, status: int, times: int = 1, message: str = "",
             headers: dict[str, str] | None = None) -> None:
        """The next `times` requests whose path contains `pattern` (begins with it after a `^`) get `status`
        (with extra `headers`)."""
        with self._lock:
            self._injections.append(_Injection(pattern, times, status=status, message=message,
                                               headers=dict(headers or {})))

    def respond(self, pattern: str, body: Any, times: int = 1, status: int = 200) -> None:
        """The next `times` requests whose path contains `pattern` get `body` (bytes as they are, anything
        else as JSON, NaN included) with `status`: malformed answers from a broken or hostile provider."""
        with self._lock:
            self._injections.append(_Injection(pattern, times, status=status, body=body))

    def heal(self) -> None:
        """Drop every pending injected failure, delay and malformed answer."""
        with self._lock:
            self._injections.clear()
            self._corrupt = (0, _UNCHANGED)

    def resize(self, dims: int, after: int = 0) -> None:
        """After `after` more embedding requests, every vector has `dims` dimensions (a provider whose model
        changed underneath)."""
        with self._lock:
            self._resize = (after, dims)

    def corrupt(self, value: Any, times: int = 1) -> None:
        """The next `times` embedding responses carry `value` (NaN, a string…) as every vector's first number."""
        with self._lock:
            self._corrupt = (times, value)

    def _vector_shape(self) -> tuple[int, Any]:
        """The dimensions of this response's vectors, and the value to corrupt them with (or `_UNCHANGED`)."""
        with self._lock:
            after, dims = self._resize
            if after <= 0:
                self.dims = dims
            self._resize = (after - 1, dims)
            times, value = self._corrupt
            self._corrupt = (times - 1, value)
            return self.dims, value if times > 0 else _UNCHANGED

    def slow(self, pattern: str, seconds: float, times: int = 1) -> None:
        """The next `times` requests whose path contains `pattern` wait `seconds` first."""
        with self._lock:
            self._injections.append(_Injection(pattern, times, delay=seconds))

    def file_text(self, file_id: str) -> str:
        return self._files[file_id].decode()

    def paths(self, contains: str = "") -> list[str]:
        return [r.path for r in self.requests if contains in r.path]

    def matching(self, contains: str) -> list[Recorded]:
        return [r for r in self.requests if contains in r.path]

    # -- request handling -----------------------------------------------------------------
    def _take(self, path: str) -> tuple[_Injection | None, float]:
        failure, delay = None, 0.0
        with self._lock:
            for inj in self._injections:
                if inj.times <= 0 or not _matches(inj.pattern, path):
                    continue
                if inj.status is not None and failure is None:
                    failure = inj
                    inj.times -= 1
                elif inj.status is None and not delay:
                    delay = inj.delay
                    inj.times -= 1
        return failure, delay

    def handle(self, method: str, path: str, headers: dict[str, str], body: bytes) -> tuple[int, Any]:
        with self._lock:
            self.requests.append(Recorded(method, path, headers, body))
        failure, delay = self._take(path)
        if delay:
            time.sleep(delay)
        if failure is not None:
            assert failure.status is not None
            if failure.body is not None:
                return failure.status, failure.body
            return failure.status, ({"error": {"message": failure.message or f"injected {failure.status}"}},
                                    failure.headers)
        presented = headers.get("x-goog-api-key") or headers.get("authorization", "").removeprefix("Bearer ")
        if self.api_key is not None and presented != self.api_key:
            return 401, {"error": {"message": f"Incorrect API key provided: {presented}"}}
        if path.startswith("/v1beta/models/"):
            return self._gemini(path, json.loads(body))
        if path == "/voyage/v1/embeddings":
            return self._voyage(json.loads(body))
        if path == "/v1/embeddings":
            return self._openai_embeddings(json.loads(body))
        if path == "/v1/files" and method == "POST":
            return self._upload(headers, body)
        if path == "/v1/batches" and method == "POST":
            return self._create_batch(json.loads(body))
        match = re.fullmatch(r"/v1/batches/([\w-]+)", path)
        if match and method == "GET":
            return self._poll_batch(match.group(1))
        match = re.fullmatch(r"/v1/files/([\w-]+)/content", path)
        if match and method == "GET":
            return 200, self._files[match.group(1)]
        return 404, {"error": {"message": f"no route {method} {path}"}}

    def _openai_embeddings(self, body: dict[str, Any]) -> tuple[int, Any]:
        texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
        dims, corrupt = self._vector_shape()
        data = []
        for i, text in enumerate(texts):
            vector: list[Any] = vector_for(text, dims)
            if corrupt is not _UNCHANGED:
                vector[0] = corrupt
            if body.get("encoding_format") == "base64":
                encoded: Any = base64.b64encode(struct.pack(f"<{len(vector)}f", *vector)).decode()
            else:
                encoded = vector
            data.append({"object": "embedding", "index": i, "embedding": encoded})
        return 200, {
            "object": "list",
            "data": data,
            "model": body["model"],
            "usage": {"prompt_tokens": 0, "total_tokens": 0},
        }

    def _voyage(self, body: dict[str, Any]) -> tuple[int, Any]:
        data = [
            {"object": "embedding", "index": i, "embedding": vector_for(t)}
            for i, t in enumerate(body["input"])
        ]
        return 200, {"object": "list", "data": data, "model": body["model"], "usage": {"total_tokens": 0}}

    def _gemini(self, path: str, body: dict[str, Any]) -> tuple[int, Any]:
        def embed(request: dict[str, Any]) -> dict[str, Any]:
            text = "".join(part["text"] for part in request["content"]["parts"])
            return {"values": vector_for(text, request.get("outputDimensionality") or DEFAULT_DIMS)}

        if path.endswith(":embedContent"):
            return 200, {"embedding": embed(body)}
        if path.endswith(":batchEmbedContents"):
            return 200, {"embeddings": [embed(r) for r in body["requests"]]}
        return 404, {"error": {"message": f"unknown gemini action {path}"}}

    def _upload(self, headers: dict[str, str], body: bytes) -> tuple[int, Any]:
        message = BytesParser(policy=HTTP).parsebytes(
            f"Content-Type: {headers['content-type']}\r\n\r\n".encode() + body
        )
        fields = {part.get_param("name", header="content-disposition"): part for part in message.iter_parts()}
        file_id = f"file-{next(self._ids)}"
        self._files[file_id] = fields["file"].get_payload(decode=True)
        purpose = fields["purpose"].get_payload(decode=True).decode()
        return 200, {
            "id": file_id,
            "object": "file",
            "bytes": len(self._files[file_id]),
            "created_at": 0,
            "filename": fields["file"].get_filename(),
            "purpose": purpose,
            "status": "processed",
        }

    def _create_batch(self, body: dict[str, Any]) -> tuple[int, Any]:
        batch_id = f"batch-{next(self._ids)}"
        batch = {
            "id": batch_id,
            "object": "batch",
            "endpoint": body["endpoint"],
            "errors": None,
            "input_file_id": body["input_file_id"],
            "completion_window": body["completion_window"],
            "status": "validating",
            "output_file_id": None,
            "error_file_id": None,
            "created_at": 0,
            "metadata": body.get("metadata"),
            "_polls": 0,
        }
        self._batches[batch_id] = batch
        return 200, _public(batch)

    def _poll_batch(self, batch_id: str) -> tuple[int, Any]:
        batch = self._batches[batch_id]
        batch["_polls"] += 1
        if batch["_polls"] < self.batch_polls_before_done:
            batch["status"] = "in_progress"
        elif self.batch_outcome != "completed":
            batch["status"] = self.batch_outcome
        else:
            lines = []
            for raw in self._files[batch["input_file_id"]].decode().splitlines():
                request = json.loads(raw)
                status, payload = self._openai_embeddings(request["body"])
                lines.append(
                    json.dumps(
                        {
                            "id": f"req-{request['custom_id']}",
                            "custom_id": request["custom_id"],
                            "response": {"status_code": status, "body": payload},
                            "error": None,
                        }
                    )
                )
            out_id = f"file-{next(self._ids)}"
            self._files[out_id] = "\n".join(lines).encode()
            batch.update(status="completed", output_file_id=out_id)
        return 200, _public(batch)


def _matches(pattern: str, path: str) -> bool:
    """An injection's `pattern`: a part of the path, or with a leading `^` how the path begins."""
    return path.startswith(pattern[1:]) if pattern.startswith("^") else pattern in path


def _public(batch: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in batch.items() if not k.startswith("_")}


class _Handler(BaseHTTPRequestHandler):
    owner: EmbeddingServer

    def log_message(self, format: str, *args: Any) -> None:
        return

    def _serve(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        body = self.rfile.read(length) if length else b""
        headers = {k.lower(): v for k, v in self.headers.items()}
        status, payload = self.owner.handle(self.command, self.path.split("?")[0], headers, body)
        extra: dict[str, str] = {}
        if isinstance(payload, tuple):
            payload, extra = payload
        data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        try:
            self.send_response(status)
            self.send_header(
                "Content-Type",
                "application/octet-stream" if isinstance(payload, bytes) else "application/json",
            )
            for name, value in extra.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            return

    do_GET = _serve
    do_POST = _serve
