"""QmdMemoryManager: memory_search / memory_get / status / sync through QMD, falling back to the builtin
engine when qmd is missing, fails or hangs (§11), with OpenClaw's 60 s failure cooldown."""

from __future__ import annotations

import fcntl
import json
import logging
import sqlite3
import threading
import time
from collections.abc import Callable
from contextlib import closing
from pathlib import Path
from typing import Any

from memtui.index.events import EventHub, IndexEvent
from memtui.jscompat import parse_json
from memtui.manager import MemoryManager
from memtui.qmd.collections import SESSIONS_SOURCE, Collection, build_collections, export_sessions
from memtui.qmd.parser import (
    MappedHit,
    QmdOutputError,
    clamp_injected_chars,
    diversify_by_source,
    map_results,
    parse_qmd_query_json,
)
from memtui.qmd.process import (
    QmdError,
    QmdResult,
    check_result,
    probe_qmd,
    qmd_environment,
    qmd_home,
    qmd_index_path,
    run_qmd,
)
from memtui.qmd.scope import denial_message, is_scope_allowed
from memtui.settings.agent import AgentEnv
from memtui.settings.qmd import QmdSettings
from memtui.tools import format_citation, include_citations, memory_get

FAILURE_COOLDOWN_S = 60.0
PROBE_TIMEOUT_S = 2.0
_UNKNOWN_FLAG = ("unknown option", "unknown flag", "unknown argument", "unrecognized option")
log = logging.getLogger(__name__)


def _open_read_only(path: Path) -> sqlite3.Connection:
    """A read-only connection to QMD's index; the path goes into the URI percent-encoded, so a `#`, `?` or `%` in
    it names the file it says instead of cutting the path (and opening another file read-write)."""
    return sqlite3.connect(f"{path.absolute().as_uri()}?mode=ro", uri=True)


class QmdMemoryManager(EventHub):
    """The QMD backend with the builtin `MemoryManager` as its fallback; same surface as `MemoryManager`."""

    def __init__(self, env: AgentEnv, *, settings: QmdSettings | None = None,
                 clock: Callable[[], float] = time.monotonic):
        super().__init__()
        self.env = env
        self.settings = env.settings
        self.qmd = settings or env.qmd
        self.clock = clock
        self.collections: list[Collection] = build_collections(env, self.qmd)
        self.process_env = qmd_environment(env.memtui_dir, env.agent_id, self.qmd.node_dir)
        self.dirty = True
        self.version: str | None = None
        self.served_by = "qmd"
        self.fallback_reason: str | None = None
        self.failed_at: float | None = None
        self.last_update: float | None = None
        self.last_embed: float | None = None
        self.last_error: str | None = None
        self._ready = False
        self._builtin: MemoryManager | None = None
        self._lock = threading.RLock()
        self._sync_thread: threading.Thread | None = None
        self._sync_pending = threading.Event()

    # -- lifecycle --------------------------------------------------------------------------

    @property
    def builtin(self) -> MemoryManager:
        """The builtin engine used as the fallback (opened on first use)."""
        with self._lock:
            if self._builtin is None:
                self._builtin = MemoryManager(self.env)
            return self._builtin

    def warm_up(self) -> None:
        """Nothing: qmd runs in a process of its own, started per search."""

    def close(self) -> None:
        """Close the fallback engine if it was opened."""
        if self._builtin is not None:
            self._builtin.close()

    def __enter__(self) -> QmdMemoryManager:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- qmd calls --------------------------------------------------------------------------

    def _run(self, args: list[str], timeout_ms: int) -> QmdResult:
        return run_qmd(self.qmd.command, args, env=self.process_env, timeout_s=timeout_ms / 1000,
                       cwd=self.env.workspace_dir)

    def in_cooldown(self) -> bool:
        """Whether a qmd failure less than 60 s ago keeps the builtin engine in charge."""
        return self.failed_at is not None and self.clock() - self.failed_at < FAILURE_COOLDOWN_S

    def _fail(self, reason: str) -> None:
        self.failed_at = self.clock()
        self.served_by = "builtin"
        self.fallback_reason = reason
        self.last_error = reason
        self._ready = False
        log.warning("qmd unavailable, using the builtin engine for %.0f s: %s", FAILURE_COOLDOWN_S, reason)

    def _managed_state_path(self) -> Path:
        return qmd_home(self.env.memtui_dir, self.env.agent_id) / "memtui-collections.json"

    def _ensure_ready(self) -> None:
        """Probe the binary (2 s) and make qmd's collections match the configured ones."""
        if self._ready:
            return
        if not self.env.workspace_dir.is_dir():
            raise QmdError(f"workspace {self.env.workspace_dir} is not available")
        qmd_home(self.env.memtui_dir, self.env.agent_id).mkdir(parents=True, exist_ok=True)
        self.version = probe_qmd(self.qmd.command, self.process_env, PROBE_TIMEOUT_S)
        state_path = self._managed_state_path()
        try:
            managed: dict[str, Any] = parse_json(state_path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            managed = {}
        existing = self._list_collections()
        wanted = {c.name: {"path": str(c.path), "pattern": c.pattern} for c in self.collections}
        for name in list(managed):
            if name in existing and managed[name] != wanted.get(name):
                check_result(self._run(["collection", "remove", name], self.qmd.command_timeout_ms),
                             ["collection", "remove"])
                existing.discard(name)
        for collection in self.collections:
            if collection.name in existing:
                continue
            collection.path.mkdir(parents=True, exist_ok=True)
            self._add_collection(collection)
        state_path.write_text(json.dumps(wanted, indent=2), encoding="utf-8")
        self._ready = True

    def _list_collections(self) -> set[str]:
        result = check_result(self._run(["collection", "list"], self.qmd.command_timeout_ms),
                              ["collection", "list"])
        names = set()
        for line in result.stdout.splitlines():
            head, _, rest = line.partition(" (qmd://")
            if rest and head and not head.startswith(" "):
                names.add(head.strip())
        return names

    def _add_collection(self, collection: Collection) -> None:
        args = ["collection", "add", str(collection.path), "--name", collection.name, "--mask", collection.pattern]
        result = self._run(args, self.qmd.update_timeout_ms)
        if result.returncode != 0 and any(m in result.stderr.lower() for m in _UNKNOWN_FLAG):
            result = self._run([*args[:-2], "--glob", collection.pattern], self.qmd.update_timeout_ms)
        check_result(result, args)

    def _update(self) -> None:
        if self.qmd.sessions_enabled:
            export_sessions(self.env, self.qmd)
        check_result(self._run(["update"], self.qmd.update_timeout_ms), ["update"])
        self.last_update = self.clock()
        self.dirty = False

    def _embed_due(self) -> bool:
        return self.qmd.search_mode in ("vsearch", "query") and (
            self.last_embed is None or self.clock() - self.last_embed >= self.qmd.embed_interval_ms / 1000)

    def _embed(self) -> None:
        lock_path = self.env.memtui_dir / "qmd" / "embed.lock"
        lock_path.parent.mkdir(parents=True, exist_ok=True)
        with open(lock_path, "a+") as handle:
            try:
                fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                return
            try:
                check_result(self._run(["embed"], self.qmd.embed_timeout_ms), ["embed"])
                self.last_embed = self.clock()
            finally:
                fcntl.flock(handle.fileno(), fcntl.LOCK_UN)

    # -- sync -------------------------------------------------------------------------------

    def sync(self, *, force: bool = False, reason: str = "cli", **_builtin_options: Any) -> dict[str, Any]:
        """`qmd update` (and `qmd embed` when due in vsearch/query mode); on failure, sync the builtin index
        instead so the fallback has data. Returns what ran."""
        self.emit(IndexEvent("started", reason=reason))
        with self._lock:
            if not self.in_cooldown():
                try:
                    self._ensure_ready()
                    self._update()
                    embedded = False
                    if force or self._embed_due():
                        self._embed()
                        embedded = True
                    self.served_by, self.fallback_reason = "qmd", None
                    self.emit(IndexEvent("finished", reason=reason))
                    return {"backend": "qmd", "updated": True, "embedded": embedded}
                except QmdError as exc:
                    self._fail(str(exc))
        report = self.builtin.sync(force=force, reason=reason)
        self.emit(IndexEvent("finished", reason=reason, report=report))
        return {"backend": "builtin", "fallbackReason": self.fallback_reason, "files": report.files_changed}

    def request_sync(self, reason: str, **_options: Any) -> None:
        """Run a sync on a background thread (requests while one runs coalesce into one more)."""
        self._sync_pending.set()
        if self._sync_thread is not None and self._sync_thread.is_alive():
            return

        def drain() -> None:
            while self._sync_pending.is_set():
                self._sync_pending.clear()
                try:
                    self.sync(reason=reason)
                except Exception as exc:
                    self.last_error = str(exc)
                    self.emit(IndexEvent("failed", reason=reason, error=str(exc)))

        self._sync_thread = threading.Thread(target=drain, name="memtui-qmd-sync", daemon=True)
        self._sync_thread.start()

    def wait_idle(self, timeout: float | None = None) -> bool:
        """Wait for the background sync; False on timeout."""
        thread = self._sync_thread
        if thread is not None:
            thread.join(timeout)
            return not thread.is_alive()
        return True

    def ensure_indexed(self) -> None:
        """A blocking `qmd update` unless one ran within `update.interval`."""
        if self.dirty or self.last_update is None:
            self.sync(reason="search")

    # -- search -----------------------------------------------------------------------------

    def _search_collections(self) -> list[Collection]:
        return [c for c in self.collections if c.source != SESSIONS_SOURCE or "sessions" in self.settings.sources]

    def _resolve_docid(self, docid: str) -> tuple[str, str] | None:
        path = qmd_index_path(self.env.memtui_dir, self.env.agent_id)
        try:
            with closing(_open_read_only(path)) as conn:
                row = conn.execute("SELECT collection, path FROM documents WHERE hash LIKE ? AND active = 1 "
                                   "LIMIT 1", (docid.replace("%", "") + "%",)).fetchone()
        except sqlite3.Error:
            return None
        return (row[0], row[1]) if row else None

    def _qmd_search(self, query: str, limit: int) -> QmdResult:
        names = [arg for c in self._search_collections() for arg in ("-c", c.name)]
        args = [self.qmd.search_mode, query, "--json", "-n", str(limit), *names]
        result = self._run(args, self.qmd.timeout_ms)
        if (result.returncode != 0 and self.qmd.search_mode != "query"
                and any(m in (result.stderr + result.stdout).lower() for m in _UNKNOWN_FLAG)):
            args[0] = "query"
            result = self._run(args, self.qmd.timeout_ms)
        return check_result(result, args)

    def search_hits(self, query: str, *, max_results: int | None = None,
                    min_score: float | None = None) -> list[MappedHit]:
        """Search through qmd (raises QmdError): mapped, filtered, interleaved by source, clamped."""
        limit = max(1, max_results or self.qmd.max_results)
        with self._lock:
            self._ensure_ready()
            stale = self.last_update is None or self.clock() - self.last_update >= self.qmd.update_interval_ms / 1000
            if self.qmd.on_boot and self.last_update is None:
                self._update()
            elif stale or self.dirty:
                self.request_sync("search")
        result = self._qmd_search(query, limit)
        try:
            items = parse_qmd_query_json(result.stdout, result.stderr)
        except QmdOutputError as exc:
            raise QmdError(str(exc)) from exc
        hits = map_results(items, workspace=self.env.workspace_dir, collections=self.collections,
                           max_snippet_chars=self.qmd.max_snippet_chars, min_score=min_score or 0.0,
                           resolve_docid=self._resolve_docid)
        hits = diversify_by_source(hits)[:limit]
        return clamp_injected_chars(hits, self.qmd.max_injected_chars)

    @property
    def citations(self) -> str:
        """`memory.citations` (on, off, auto)."""
        return self.env.citations

    def memory_search(self, query: str, *, max_results: int | None = None, min_score: float | None = None,
                      session_key: str | None = None, explain: bool = False,
                      profile: str | None = None, record: bool = False) -> dict[str, Any]:
        """The `memory_search` tool through qmd; scope-gated; the builtin engine answers (with `fallback`)
        while qmd is unavailable. `record`: feed the recall store (an agent's search, not an inspection)."""
        started = time.perf_counter()
        if not is_scope_allowed(self.qmd.scope, session_key):
            message = denial_message(session_key)
            log.info(message)
            return self._payload([], started, session_key, scope_denied=message)
        if not self.in_cooldown():
            try:
                hits = self.search_hits(query, max_results=max_results, min_score=min_score)
            except QmdError as exc:
                self._fail(str(exc))
            else:
                self.served_by, self.fallback_reason = "qmd", None
                if record:
                    self._record_recalls(query, hits)
                return self._payload(hits, started, session_key)
        payload = self.builtin.memory_search(query, max_results=max_results, min_score=min_score,
                                             session_key=session_key, explain=explain, profile=profile,
                                             record=record)
        payload["fallback"] = {"from": "qmd", "reason": self.fallback_reason or "qmd unavailable"}
        return payload

    def _record_recalls(self, query: str, hits: list[MappedHit]) -> None:
        memory_hits = [(h.path, h.start_line, h.end_line, h.score, h.snippet, h.source)
                       for h in hits if h.source != SESSIONS_SOURCE and not h.path.startswith("qmd/")]
        if self.env.read_only or not memory_hits or self.env.generation.name == "2026.9":
            return
        from memtui.dreaming.recalls import record_search_hits

        record_search_hits(self.env.workspace_dir, query, memory_hits, tz=self.env.dreaming.tz())

    def _payload(self, hits: list[MappedHit], started: float, session_key: str | None,
                 scope_denied: str | None = None) -> dict[str, Any]:
        citations = include_citations(self.env.citations, session_key)
        results = []
        for hit in hits:
            citation = format_citation(hit.path, hit.start_line, hit.end_line) if citations else None
            item: dict[str, Any] = {"path": hit.path, "startLine": hit.start_line, "endLine": hit.end_line,
                                    "score": hit.score,
                                    "snippet": f"{hit.snippet.strip()}\n\nSource: {citation}" if citation
                                    else hit.snippet,
                                    "source": hit.source}
            if citation:
                item["citation"] = citation
            item["corpus"] = hit.source
            results.append(item)
        debug: dict[str, Any] = {"backend": "qmd", "effectiveMode": self.qmd.search_mode,
                                 "searchMs": round((time.perf_counter() - started) * 1000), "hits": len(results)}
        if scope_denied:
            debug["scopeDenied"] = scope_denied
        return {"results": results, "provider": "qmd", "model": "qmd", "mode": self.qmd.search_mode,
                "citations": self.env.citations, "debug": debug}

    # -- memory_get -------------------------------------------------------------------------

    def memory_get(self, path: str, *, from_line: int | None = None, lines: int | None = None) -> dict[str, Any]:
        """The `memory_get` tool; also reads `qmd/<collection>/<path>` results from outside the workspace."""
        max_chars, default_lines = self.env.context.memory_get_max_chars, self.env.context.memory_get_default_lines
        text = path.strip() if isinstance(path, str) else ""
        if text.startswith("qmd/"):
            name, _, rel = text[4:].partition("/")
            collection = next((c for c in self.collections if c.name == name), None)
            if collection is None or not rel:
                return {"path": path, "text": "", "disabled": True, "error": "path required"}
            result = memory_get(collection.path, rel, from_line=from_line, lines=lines,
                                extra_paths=(str(collection.path),), max_chars=max_chars,
                                default_lines=default_lines)
            result["path"] = path
            return result
        return memory_get(self.env.workspace_dir, path, from_line=from_line, lines=lines,
                          extra_paths=self.settings.memory_paths, max_chars=max_chars, default_lines=default_lines)

    # -- status -----------------------------------------------------------------------------

    def status(self, *, deep: bool = False) -> dict[str, Any]:
        """Which backend serves and why, qmd's state, and (when the builtin one serves) its status."""
        if deep and not self.in_cooldown():
            try:
                with self._lock:
                    self._ensure_ready()
            except QmdError as exc:
                self._fail(str(exc))
        index = qmd_index_path(self.env.memtui_dir, self.env.agent_id)
        qmd_info: dict[str, Any] = {
            "command": self.qmd.command,
            "version": self.version,
            "searchMode": self.qmd.search_mode,
            "indexPath": str(index),
            "indexExists": index.exists(),
            "collections": [{"name": c.name, "path": str(c.path), "pattern": c.pattern, "source": c.source}
                            for c in self.collections],
            "documents": self._document_counts(index),
            "lastUpdateAgoS": None if self.last_update is None else round(self.clock() - self.last_update, 1),
            "lastEmbedAgoS": None if self.last_embed is None else round(self.clock() - self.last_embed, 1),
            "cooldownRemainingS": round(FAILURE_COOLDOWN_S - (self.clock() - self.failed_at), 1)
            if self.in_cooldown() and self.failed_at is not None else 0,
            "lastError": self.last_error,
            "limits": {"maxResults": self.qmd.max_results, "maxSnippetChars": self.qmd.max_snippet_chars,
                       "maxInjectedChars": self.qmd.max_injected_chars, "timeoutMs": self.qmd.timeout_ms},
        }
        if self.served_by == "builtin":
            status = self.builtin.status(deep=deep)
            status.update({"backend": "builtin", "requestedBackend": "qmd",
                           "fallback": {"from": "qmd", "reason": self.fallback_reason}, "qmd": qmd_info})
            return status
        return {"backend": "qmd", "requestedBackend": "qmd", "agentId": self.env.agent_id,
                "workspaceDir": str(self.env.workspace_dir), "dirty": self.dirty, "provider": "qmd",
                "model": "qmd", "sources": list(self.settings.sources), "qmd": qmd_info}

    def _document_counts(self, index: Path) -> dict[str, int]:
        if not index.exists():
            return {}
        try:
            with closing(_open_read_only(index)) as conn:
                rows = conn.execute("SELECT collection, COUNT(*) FROM documents WHERE active = 1 "
                                    "GROUP BY collection").fetchall()
        except sqlite3.Error:
            return {}
        return {name: count for name, count in rows}

