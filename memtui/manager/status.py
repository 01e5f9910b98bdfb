"""`memtui status --json`: OpenClaw's status fields plus memtui's (index identity, provider, driver, issues) and
what the OpenClaw state dir holds (its generation and, for 2026.9, the agent database's own index)."""

from __future__ import annotations

from typing import Any

from memtui.agentdb.index_summary import openclaw_view
from memtui.embeddings.base import NO_PROVIDER
from memtui.embeddings.deadline import waiting_for
from memtui.manager.outage import read_gaps


class StatusReport:
    """The `status` part of the memory manager (a mixin of `MemoryManager`, whose state it reads)."""

    def status(self, *, deep: bool = False, scan: bool = True, verify: bool = True) -> dict[str, Any]:
        """`status --json` (OpenClaw's fields plus memtui's); `scan=False` skips counting memory files on disk
        (`scan.memoryFiles` None), `verify=False` comparing them with the index (a `SyncReport.complete` did)."""
        self.current_store()
        from memtui.index.workspace import list_memory_files

        counts = self.store.counts()
        caps = self.store.capabilities
        scan_memory = (len(list_memory_files(self.env.workspace_dir, self.settings.memory_paths))
                       if self.env.workspace_dir.is_dir() else 0) if scan else None
        source_counts = [
            {"source": s, "files": counts.get(s, {}).get("files", 0), "chunks": counts.get(s, {}).get("chunks", 0)}
            for s in self.settings.sources
        ]
        meta = self.store.read_meta()
        stale = None if self.env.read_only else self.stale_reason() if verify else self.index_mismatch()
        chunks = sum(c["chunks"] for c in counts.values())
        gaps = read_gaps(self)  # chunks a sync could not embed: the index answers them by keywords only
        waited = waiting_for(self.provider) if self.provider is not None else 0.0
        syncing = self.queue.busy()
        owed = [reason for reason in (stale, gaps.describe(chunks) if gaps else None,
                                      f"a sync is under way (the embedding provider has not answered for "
                                      f"{waited:.0f}s)" if syncing and waited >= 1 else None) if reason]
        status: dict[str, Any] = {
            "backend": "builtin",
            "agentId": self.env.agent_id,
            "files": sum(c["files"] for c in counts.values()),
            "chunks": chunks,
            "dirty": self.dirty or bool(owed),
            "workspaceDir": str(self.env.workspace_dir),
            "dbPath": str(self.env.store_path),
            "readOnly": self.env.read_only,
            "indexIdentity": {**self.workspace_check.to_json(),
                              "changedElsewhere": self.store.check_external_writes()},
            "provider": self.provider.id if self.provider else NO_PROVIDER,
            "model": self.model,
            "modelPath": getattr(self.provider, "model_path", None),
            "requestedProvider": self.requested_provider,
            "providerSource": self.provider_source,
            "profile": self.env.profile,
            "sources": list(self.settings.sources),
            "extraPaths": list(self.settings.extra_paths),
            "sourceCounts": source_counts,
            "scan": {"memoryFiles": scan_memory},
            "cache": {"enabled": self.settings.cache.enabled, "entries": self.store.cache_count(),
                      "maxEntries": self.settings.cache.max_entries},
            "fts": {"enabled": self.settings.query.hybrid.enabled, "available": caps.fts_available,
                    "error": caps.fts_error},
            "vector": {"enabled": self.settings.store.vector_enabled, "available": caps.vector_available,
                       "extensionPath": self.settings.store.vector_extension_path, "loadError": caps.vector_error,
                       "dims": self.store.vector_dims() or (meta or {}).get("vectorDims")},
            "custom": {"searchMode": "fts-only" if self.provider is None or (gaps and gaps.chunks >= chunks)
                       else "hybrid",
                       "providerUnavailableReason": self.provider_reason if self.provider is None else
                       gaps.reason if gaps else None,
                       "missingVectors": gaps.to_json(chunks) if gaps else None,
                       "syncRunning": syncing,
                       "providerWaitS": round(waited, 1) if waited else None,
                       "dirtyReason": "; ".join(owed) or None,
                       "driver": caps.driver},
            "meta": meta,
            "issues": self._issues(),
        }
        status["custom"].update(self._vectors_without_direction())
        if self.fallback:
            status["fallback"] = self.fallback
        batch_status = getattr(self.provider, "batch_status", None)
        if callable(batch_status) and batch_status() is not None:
            status["batch"] = batch_status()
        if self.last_sync:
            status["lastSync"] = self.last_sync.to_json()
        status["openclaw"] = openclaw_view(self.env.generation, self.env.retired_keys)
        status["openclawStorePath"] = status["openclaw"]["path"]
        if deep:
            status["embeddingProbe"] = self._probe()
        return status

    def _vectors_without_direction(self) -> dict[str, Any]:
        """`custom.noVector`: chunks the provider gives a vector with no direction (all zeros…) while it embeds
        other text, recorded by the sync and ranked by keywords only (not an outage, not retried); and
        `custom.degenerateVectors`: such vectors already stored (an older memtui, another program), which every
        search skips until `memtui index --force` embeds them again (None when there are none)."""
        from memtui.index.health import stored_degenerate
        from memtui.index.indexer import read_no_vector

        recorded = read_no_vector(self.store, self.provider)
        stored = stored_degenerate(self.store) if self.provider is not None else None
        return {
            "noVector": {"chunks": sum(len(h) for h in recorded.values()),
                         "files": {path: len(h) for path, h in sorted(recorded.items())},
                         "reasons": sorted({why for h in recorded.values() for why in h.values()}),
                         "retry": "when the chunk's text, the provider or the model changes"} if recorded else None,
            "degenerateVectors": {"chunks": sum(stored.values()), "files": dict(sorted(stored.items())),
                                  "action": "memtui index --force embeds them again"} if stored else None,
        }

    def _issues(self) -> list[dict[str, Any]]:
        recorded = self.store.read_issues()
        return [*(n.to_json() for n in self.notices if n.to_json() not in recorded), *recorded]

    def _probe(self) -> dict[str, Any]:
        if self.provider is None:
            return {"ok": False, "error": "No embedding provider available (FTS-only mode)"}
        try:
            vector = self.provider.embed_query("ping")
        except Exception as exc:
            return {"ok": False, "error": str(exc)}
        return {"ok": True, "dims": len(vector)}

    def stale_reason(self) -> str | None:
        """Why the index does not answer for this process as it should: built for another provider or
        settings, or a memory file new, changed or gone since the last sync (also one killed halfway)."""
        from memtui.index.freshness import first_difference

        if "memory" not in self.settings.sources:
            return self.index_mismatch()
        skipped = {str(issue.get("path")) for issue in self.store.read_issues()
                   if str(issue.get("reason", "")).endswith("skipped")}
        return self.index_mismatch() or first_difference(self.env.workspace_dir, self.settings.memory_paths,
                                                         self.store.file_rows(), skipped)
