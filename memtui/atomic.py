"""Atomic file writes (temp file + rename) that refuse to clobber a file changed on disk."""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path

from memtui.errors import PathError


class ConflictError(PathError):
    """The file changed on disk since it was read; the write was refused."""


def file_digest(path: Path) -> str | None:
    """SHA-256 of the file's bytes, or None when it does not exist."""
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except FileNotFoundError:
        return None


def atomic_write_text(path: Path, text: str, *, expected_digest: str | bool | None = False) -> str:
    """Write `text` (UTF-8) to `path` via a temp file in the same folder and `os.replace`.

    When `expected_digest` is given (a digest, or None for "must not exist yet"), the write is
    refused with `ConflictError` if the file's current bytes differ. Symlinks are refused.
    Returns the digest of the written bytes.
    """
    if path.is_symlink():
        raise PathError(f"{path} is a symlink; refusing to write through it")
    if expected_digest is not False:
        current = file_digest(path)
        if current != expected_digest:
            raise ConflictError(f"{path} changed on disk since it was opened; reload or save elsewhere")
    path.parent.mkdir(parents=True, exist_ok=True)
    data = text.encode("utf-8")
    mode = path.stat().st_mode & 0o777 if path.exists() else 0o644
    fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp_name, mode)
        os.replace(tmp_name, path)
    except BaseException:
        Path(tmp_name).unlink(missing_ok=True)
        raise
    return hashlib.sha256(data).hexdigest()
