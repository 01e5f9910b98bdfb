"""Messages that carry results out of workers and engine callbacks to the app's handlers."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from textual.message import Message

if TYPE_CHECKING:  # the indexer loads with the first sync, after the first frame
    from memtui.index.indexer import Progress, SyncReport
    from memtui.search.response import SearchResponse
    from memtui.tui.browser_model import BrowserEntry, Listing


@dataclass
class SearchFinished(Message):
    """A search ran; `generation` lets the app drop results of an outdated query."""

    generation: int
    response: SearchResponse
    retune: bool


@dataclass
class SearchFailed(Message):
    """A search raised; `error` is the readable message."""

    generation: int
    error: str


@dataclass
class IndexStarted(Message):
    """A sync began."""

    reason: str


@dataclass
class IndexProgress(Message):
    """Sync progress; a newer one replaces an unprocessed older one."""

    progress: Progress

    def can_replace(self, message: Message) -> bool:
        """Coalesce a flood of progress updates to the newest."""
        return isinstance(message, IndexProgress)


@dataclass
class IndexFinished(Message):
    """A sync finished."""

    report: SyncReport


@dataclass
class IndexFailed(Message):
    """A sync failed; `error` is the readable message."""

    error: str


@dataclass
class WatcherFailed(Message):
    """The file watcher did not start; `error` is the readable message."""

    error: str


@dataclass
class FilesChanged(Message):
    """The watcher saw memory files change (workspace-relative paths)."""

    paths: tuple[str, ...]


@dataclass
class StatusReady(Message):
    """`MemoryManager.status()`, computed in a worker; `full` (with the files on disk) opens the status view."""

    status: dict[str, Any]
    full: bool = False


@dataclass
class FilesListed(Message):
    """The browser's entries, read from disk and grouped in a worker; with `changes`, what differs from the
    listing shown when the worker started (added or changed entries, removed paths)."""

    listing: Listing
    changes: tuple[list[BrowserEntry], list[str]] | None = None


@dataclass
class FilesTracked(Message):
    """Changed paths checked on disk in a worker: entries to add or replace, paths to remove."""

    added: list[BrowserEntry]
    removed: list[str]


@dataclass
class PromotionScored(Message):
    """A hit to promote, with its score under the configured (not the live-tuned) settings."""

    path: str
    start_line: int
    end_line: int
    text: str
    score: float
