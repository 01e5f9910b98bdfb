"""Readable views of the engine's explanations (Rich text, no Textual): the query (`x`), the index status (`i`)
and why a query found nothing."""

from __future__ import annotations

from typing import Any

from rich.console import Group, RenderableType
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

from memtui.search.ranking import bm25_rank_to_score
from memtui.search.response import Candidate, SearchResponse

SCORE_RULE = "score >= minScore"  # the engine's plain rule; memtui's hybrid profile thresholds the evidence
LABEL = 21  # the label column, as wide as the longest label: every section's values start in one column


class Sheet:
    """Sections of label / value rows: a Rich grid per section, so a long value (a path) wraps inside its
    column, under itself, at whatever width the dialog has."""

    def __init__(self) -> None:
        self.parts: list[RenderableType] = []
        self._grid: Table | None = None

    def section(self, title: str) -> None:
        """Start a section under a heading."""
        self.parts.append(Text(f"\n{title}" if self.parts else title, style="bold underline"))
        self._grid = Table.grid(padding=(0, 2))
        self._grid.add_column(style="dim", no_wrap=True, min_width=LABEL)
        self._grid.add_column(ratio=1, overflow="fold")
        self.parts.append(Padding(self._grid, (0, 0, 0, 2)))

    def row(self, label: str, value: object, style: str = "") -> None:
        """One labelled value in the current section."""
        assert self._grid is not None
        self._grid.add_row(label, Text(str(value), style=style))

    def line(self, text: str, style: str = "") -> None:
        """A line of its own in the current section."""
        self._grid = None
        self.parts.append(Padding(Text(text, style=style, overflow="fold"), (0, 0, 0, 2)))

    def render(self) -> Group:
        """Everything, in order."""
        return Group(*self.parts)


def counted(number: int, noun: str) -> str:
    """`1 file`, `2 files`, `1,234 files`."""
    return f"{number:,} {noun}" + ("" if number == 1 else "s")


def _tick(ok: bool) -> tuple[str, str]:
    return ("✓", "green") if ok else ("✗", "red")


def query_explanation(response: SearchResponse) -> Group:
    """What the engine did with the query: the keyword query, dropped terms, weights, thresholds, counts."""
    info = response.explain()
    sheet = Sheet()
    sheet.section("Keyword query")
    sheet.row("FTS5 match", info["ftsQuery"] or "(none: no usable terms)")
    sheet.row("terms", ", ".join(info["terms"]) or "–")
    if info["droppedTerms"]:
        sheet.row("dropped", ", ".join(info["droppedTerms"]) + "  (stop words or too short)")
    if info["keywordFallbackTerms"]:
        sheet.row("fallback terms", ", ".join(info["keywordFallbackTerms"]))
    sheet.section("Ranking")
    sheet.row("profile · mode", f"{info['profile']} · {info['mode']}")
    if info["mode"] == "hybrid":
        sheet.row("weights", f"vector {info['vectorWeight']:.2f} · text {info['textWeight']:.2f}")
    if info["textNormalization"]:
        sheet.row("text score", info["textNormalization"])
    if info["vectorSkipped"]:
        sheet.row("vector search", f"skipped: {info['vectorSkipped']}", "yellow")
    sheet.row("candidates", f"{info['candidates']} (limit {info['candidateLimit']} per list)")
    sheet.section("Thresholds")
    sheet.row("minScore", f"{info['minScore']:.2f}" + ("  relaxed (no hit reached it)" if info["relaxed"] else ""))
    sheet.row("below minScore", info["filteredByMinScore"])
    sheet.row("maxResults", info["maxResults"])
    sheet.row("shown", len(response.results))
    sheet.row("search time", f"{info['searchMs']:.1f} ms")
    return sheet.render()


def status_view(status: dict[str, Any]) -> Group:
    """Every status field people look for, in sections, with ✓ / ✗ and the reasons."""
    sheet = Sheet()
    sheet.section("Index")
    sheet.row("agent", status["agentId"])
    sheet.row("files · chunks", f"{status['files']:,} · {status['chunks']:,}")
    if status["scan"]["memoryFiles"] is not None:
        sheet.row("on disk", f"{status['scan']['memoryFiles']:,} memory files")
    reason = status["custom"].get("dirtyReason")
    sheet.row("state", (f"dirty: {reason}" if reason else "dirty (a sync is due)") if status["dirty"] else "clean",
              "yellow" if status["dirty"] else "")
    sheet.row("database", status["dbPath"])
    sheet.row("workspace", status["workspaceDir"])
    if status["readOnly"]:
        sheet.row("mode", "read-only", "yellow")
    last = status.get("lastSync")
    if last:
        sheet.row("last sync", sync_summary(last))
    openclaw_section(sheet, status.get("openclaw"))
    sheet.section("Embeddings")
    source = status["providerSource"]
    sheet.row("provider", f"{status['provider']} (requested {status['requestedProvider']}"
                          + (f", by {source})" if source.startswith("--") else f", from {source})"))
    sheet.row("model", status["model"])
    unavailable = status["custom"].get("providerUnavailableReason")
    if unavailable:
        sheet.row("keyword-only because", unavailable, "yellow")
    if status.get("fallback"):
        fallback = status["fallback"]
        sheet.row("fallback", f"from {fallback.get('from')}: {fallback.get('reason', '')}", "yellow")
    sheet.section("Search")
    mark, style = _tick(status["fts"]["available"])
    sheet.row("FTS5 (BM25)", f"{mark} {status['fts'].get('error') or ''}".rstrip(), style)
    vector = status["vector"]
    mark, style = _tick(vector["available"])
    if vector["available"]:
        detail = f"{vector['dims']} dimensions" if vector["dims"] else "loaded (no vectors stored yet)"
    else:
        detail = vector.get("loadError") or "cosine computed in Python"
    sheet.row("sqlite-vec", f"{mark} {detail}", style)
    sheet.row("search mode · profile", f"{status['custom']['searchMode']} · {status['profile']}")
    sheet.row("sources", ", ".join(status["sources"]))
    if status["extraPaths"]:
        sheet.row("extra paths", ", ".join(status["extraPaths"]))
    cache = status["cache"]
    sheet.row("embedding cache", f"{cache['entries']:,} entries" + (" (off)" if not cache["enabled"] else ""))
    issues = status.get("issues") or []
    sheet.section(f"File issues ({len(issues)})")
    for issue in issues[:50]:
        sheet.line(f"{issue.get('path', '?')}: {issue.get('reason') or issue.get('message') or issue}", "yellow")
    if not issues:
        sheet.line("none", "dim")
    return sheet.render()


def openclaw_section(sheet: Sheet, view: dict[str, Any] | None) -> None:
    """OpenClaw's own layout and index (read by memtui, never written)."""
    if not view:
        return
    sheet.section("OpenClaw")
    sheet.row("generation", view["label"], "yellow" if view["generation"] == "unknown" else "")
    if view["generation"] != "none":
        sheet.row("its database", view["path"])
    if view.get("legacyPath"):
        sheet.row("left beside it", f"{view['legacyPath']} (a 2026.4 index 2026.9 no longer reads)", "dim")
    index = view.get("index")
    if view.get("error"):
        sheet.row("its index", f"unreadable: {view['error']}", "yellow")
    elif index is not None:
        by_source = ", ".join(f"{source} {count:,}" for source, count in index["chunksBySource"].items()) or "none"
        sheet.row("its index", f"{index['chunks']:,} chunks in {index['files']:,} files ({by_source})")
        versions = [f"chunking v{index['chunkingVersion']}" if index.get("chunkingVersion") is not None else "",
                    f"provenance v{index['provenanceVersion']}" if index.get("provenanceVersion") is not None
                    else "", str(index.get("model") or "")]
        sheet.row("built with", " · ".join(v for v in versions if v) or "unknown")
        sheet.row("vectors · importance", f"{index['vectors']:,} · {index['withImportance']:,} annotated chunks")
        sheet.line("memtui reads this index and never writes it; the Index section is memtui's own", "dim")


def sync_summary(last: dict[str, Any]) -> str:
    """The last sync in words: why, full or incremental, files checked and changed, chunks, time."""
    kind = f"full rebuild ({last['fullReason']})" if last.get("full") and last.get("fullReason") else \
        "full rebuild" if last.get("full") else "incremental"
    parts = [str(last.get("reason") or "sync"), kind + (" · index repaired" if last.get("repaired") else ""),
             f"{last.get('filesTotal', 0):,} files checked, {last.get('filesChanged', 0):,} changed, "
             f"{last.get('filesDeleted', 0):,} deleted" + (f", {last['filesSkipped']:,} skipped"
                                                          if last.get("filesSkipped") else ""),
             f"{last.get('chunksWritten', 0):,} chunks written, {last.get('embedded', 0):,} embedded"
             + (f" ({last['cacheHits']:,} from the cache)" if last.get("cacheHits") else ""),
             f"{last.get('elapsedMs', 0):,.0f} ms"]
    return " · ".join(parts)


def no_hits_text(response: SearchResponse) -> Text:
    """Why a query shows nothing, and what to try."""
    text = Text(f"No hits for “{response.query}”.\n\n", style="bold")
    keyword = response.keyword
    if keyword is None or not keyword.match:
        text.append("• No keyword query could be built from it (only stop words or symbols).\n")
    else:
        text.append(f"• Keyword query: {keyword.match}")
        text.append(f"  (dropped: {', '.join(keyword.dropped)})\n" if keyword.dropped else "\n")
    # With no hit returned every candidate fell short of minScore (whatever stage the engine left on them).
    below = [c for c in response.candidates if c.stage == "below-min-score"] or \
        (response.candidates if response.filtered_count and not response.results else [])
    if below:
        what = "evidence (keyword r/(1+r) or cosine)" if response.threshold_rule != SCORE_RULE else "score"
        best = max(evidence(c) if response.threshold_rule != SCORE_RULE else c.score for c in below)
        text.append(f"• {len(below)} candidate(s) fell below minScore {response.min_score:.2f}; best {what} "
                    f"{best:.3f}: lower minScore in the tuning panel (t).\n")
    elif not response.candidates:
        text.append("• No chunk matched the keywords" + (" or came close in meaning" if response.mode != "fts-only"
                                                         else "") + ".\n")
    text.append("• W explains why a given chunk (path:line) is not found; x shows the whole query.\n")
    return text


def evidence(candidate: Candidate) -> float:
    """A candidate's strongest single piece of evidence, which memtui's hybrid profile holds against minScore:
    its keyword score r/(1+r) (1 for a LIKE match) or its cosine."""
    if candidate.bm25 is not None:
        keyword = bm25_rank_to_score(candidate.bm25)
    else:
        keyword = 1.0 if "like" in candidate.matched_by else 0.0
    return max(keyword, candidate.cosine or 0.0)
