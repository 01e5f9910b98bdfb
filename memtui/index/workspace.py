"""The memory files of a workspace, listed exactly as OpenClaw's `listMemoryFiles` (§1.2, §5.5)."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import BinaryIO

from memtui.atomic import open_for_read, parts_below
from memtui.errors import PathError
from memtui.issues import FileIssue
from memtui.settings.paths import resolve_extra_path

ROOT_MEMORY_FILE = "MEMORY.md"
MEMORY_DIR = "memory"
REPAIR_DIR = ".openclaw-repair"
# Larger memory files are not indexed (an issue says so).
MAX_MARKDOWN_BYTES = 20 * 1024 * 1024
# The walk of one extra path stops at the first of these (an issue says so; several narrower entries each get
# their own): a folder of notes is far below them, a home folder or a disk far above (README, "Reliability").
MAX_EXTRA_FILES = 20_000
MAX_EXTRA_BYTES = 256 * 1024 * 1024
MAX_EXTRA_ENTRIES = 200_000
DAILY_RE = re.compile(r"^(\d{4})-(\d{2})-(\d{2})(?:-(.+))?\.md$")


@dataclass(frozen=True)
class MemoryFile:
    """One memory file: its absolute path (a string, so listing 10,000 files builds no `Path`) and its
    workspace-relative, forward-slash path."""

    path: str
    rel_path: str

    @property
    def abs_path(self) -> Path:
        """The absolute path as a `Path`."""
        return Path(self.path)


def rel_path(workspace_dir: Path, abs_path: Path) -> str:
    """`path.relative(workspace, abs)` with forward slashes (may start with `../`)."""
    return Path(os.path.relpath(abs_path, workspace_dir)).as_posix()


def canonical_root_memory(workspace_dir: Path) -> Path | None:
    """`MEMORY.md` when an exact-case entry exists and is a regular file, not a symlink."""
    try:
        names = os.listdir(workspace_dir)
    except OSError:
        return None
    if ROOT_MEMORY_FILE not in names:
        return None
    path = workspace_dir / ROOT_MEMORY_FILE
    if path.is_symlink() or not path.is_file():
        return None
    return path


def _walk_markdown(directory: Path, *, bounded: bool = False) -> tuple[list[str], str | None]:
    """Depth-first walk in name order: symlinks (files and dirs) and `.openclaw-repair` skipped, `.md` files
    kept, as paths relative to `directory` (joined with `/`). Iterative, so a folder nested thousands of levels
    deep is walked like any other. `bounded` (an extra path) stops at `MAX_EXTRA_*`; then the second value
    says where, in words."""
    found: list[str] = []
    pending: list[tuple[str, list[os.DirEntry[str]]]] = [("", _entries_last_first(str(directory)))]
    visited = size = 0
    while pending:
        prefix, entries = pending[-1]
        if not entries:
            pending.pop()
            continue
        entry = entries.pop()
        visited += 1
        if bounded and visited > MAX_EXTRA_ENTRIES:
            return found, f"more than {MAX_EXTRA_ENTRIES:,} files and folders to walk"
        if entry.is_symlink():
            continue
        if entry.is_dir(follow_symlinks=False):
            if entry.name != REPAIR_DIR:
                pending.append((f"{prefix}{entry.name}/", _entries_last_first(entry.path)))
        elif entry.is_file(follow_symlinks=False) and entry.name.endswith(".md"):
            if bounded:
                if len(found) == MAX_EXTRA_FILES:
                    return found, f"more than {MAX_EXTRA_FILES:,} Markdown files"
                size += _size(entry)
                if size > MAX_EXTRA_BYTES:
                    return found, f"more than {MAX_EXTRA_BYTES // (1024 * 1024)} MB of Markdown"
            found.append(prefix + entry.name)
    return found, None


def _size(entry: os.DirEntry[str]) -> int:
    try:
        return entry.stat(follow_symlinks=False).st_size
    except OSError:
        return 0


def _entries_last_first(directory: str) -> list[os.DirEntry[str]]:
    """A folder's entries in reverse name order (taken from the end, they come in name order)."""
    try:
        with os.scandir(directory) as entries:
            return sorted(entries, key=lambda e: e.name, reverse=True)
    except OSError:
        return []


def _below(workspace_dir: Path, directory: Path,
           issues: list[FileIssue] | None = None) -> list[tuple[str, str, str]]:
    """The Markdown files under `directory`: path, workspace-relative path and real path, each built from the
    folder's own once (the walk skips symlinks, so nothing below the folder changes the real path). With
    `issues` (an extra path), the walk is bounded and a cut is recorded there."""
    base, real_dir = os.fspath(directory).rstrip("/"), os.path.realpath(directory).rstrip("/")
    rel_dir = rel_path(workspace_dir, directory)
    prefix = "" if rel_dir == "." else f"{rel_dir}/"
    inner_paths, cut = _walk_markdown(directory, bounded=issues is not None)
    if cut is not None and issues is not None:
        issues.append(FileIssue(rel_dir, f"extra path with {cut}: only the first {len(inner_paths):,} Markdown "
                                         "files (in name order) are indexed; name a narrower folder, or split it "
                                         "into several extraPaths entries"))
    return [(f"{base}/{inner}", prefix + inner, f"{real_dir}/{inner}") for inner in inner_paths]


def list_memory_files(workspace_dir: Path, extra_paths: tuple[str, ...] | list[str] = (),
                      issues: list[FileIssue] | None = None) -> list[MemoryFile]:
    """MEMORY.md, then `memory/**/*.md`, then each extra path (its walk bounded: `MAX_EXTRA_*`, a cut recorded
    in `issues` when given); de-duplicated by real path."""
    candidates: list[tuple[str, str, str]] = []
    root = canonical_root_memory(workspace_dir)
    if root is not None:
        candidates.append((str(root), ROOT_MEMORY_FILE, os.path.realpath(root)))
    memory_dir = workspace_dir / MEMORY_DIR
    if memory_dir.is_dir() and not memory_dir.is_symlink():
        candidates.extend(_below(workspace_dir, memory_dir))
    for raw in extra_paths:
        extra = resolve_extra_path(workspace_dir, raw)
        if extra.is_symlink():
            continue
        if extra.is_dir():
            candidates.extend(_below(workspace_dir, extra, [] if issues is None else issues))
        elif extra.is_file() and extra.name.endswith(".md"):
            candidates.append((str(extra), rel_path(workspace_dir, extra), os.path.realpath(extra)))
    seen: set[str] = set()
    files: list[MemoryFile] = []
    for path, rel, real in candidates:
        if real in seen:
            continue
        seen.add(real)
        files.append(MemoryFile(path, rel))
    return files


def daily_date(rel: str) -> date | None:
    """The date of a daily log or slug file (`memory/YYYY-MM-DD[-slug].md` at any depth)."""
    match = DAILY_RE.match(rel.rsplit("/", 1)[-1])
    if not match:
        return None
    try:
        return date(int(match.group(1)), int(match.group(2)), int(match.group(3)))
    except ValueError:
        return None


@dataclass(frozen=True)
class MemoryLocation:
    """A memory file and the folder it is confined to: nothing below `root` may be a symlink."""

    root: Path
    target: Path

    def open(self) -> BinaryIO:
        """The file opened for reading as every memory read opens it (`memory_get`, `get`, the indexer): no
        symlink below `root` followed, a regular file only, and one with another hard link refused
        (`LinkedError`: the other link may name a file outside the workspace; README, "Reliability")."""
        return open_for_read(self.root, parts_below(self.root, self.target), refuse_linked=True)


def is_allowed_memory_path(workspace_dir: Path, rel: str, extra_paths: tuple[str, ...] | list[str] = ()) -> Path:
    """Validate a `memory_get` path and return the file; raise PathError("path required") otherwise."""
    return memory_location(workspace_dir, rel, extra_paths).target


def memory_location(workspace_dir: Path, rel: str, extra_paths: tuple[str, ...] | list[str] = ()) -> MemoryLocation:
    """Validate a `memory_get` path (lexically; nothing is opened) and return where it lives.

    Allowed: MEMORY.md, DREAMS.md/dreams.md, anything under `memory/`, anything under an extra path
    (which may sit outside the workspace, reached as `../…`); `.md` only, no absolute paths, and no `..`
    that leaves those places. The root is the workspace, or the folder holding the extra path, so the
    extra path itself must not be a symlink either (the listing skips symlinked extra paths). Opening
    with `memtui.atomic.open_beneath(root, …)` refuses a symlink anywhere below the root.
    """
    text = rel.strip() if isinstance(rel, str) else ""
    if not text or "\x00" in text or text.startswith(("/", "\\", "~")) or re.match(r"^[A-Za-z]:", text):
        raise PathError("path required")
    if not text.endswith(".md"):
        raise PathError("path required")
    workspace = Path(os.path.normpath(workspace_dir))
    target = Path(os.path.normpath(workspace / text.replace("\\", "/")))
    dotdot = ".." in text.replace("\\", "/").split("/")
    is_root_file = target == workspace / ROOT_MEMORY_FILE or (
        target.parent == workspace and target.name.lower() == "dreams.md")
    if not dotdot and (is_root_file or _strictly_below(target, workspace / MEMORY_DIR)):
        return MemoryLocation(workspace, target)
    for raw in extra_paths:
        extra = Path(os.path.normpath(resolve_extra_path(workspace, raw)))
        if target == extra or _strictly_below(target, extra):
            return MemoryLocation(extra.parent, target)
    raise PathError("path required")


def _strictly_below(path: Path, folder: Path) -> bool:
    """`folder in path.parents`, in time linear in the path's length (`parents` is quadratic: a tool call's path
    of 100,000 folders took a minute)."""
    return path != folder and path.is_relative_to(folder)
