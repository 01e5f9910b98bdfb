"""Searching every agent of a PostgreSQL store at once (`memtui search --fleet`, the TUI's fleet view), ranked as
an agent's own search ranks (the memtui profile: keywords, the query's vector, their fusion, decay and minScore)
as if one index held the whole fleet: BM25 with the fleet's statistics, each side normalised by the fleet's best
candidate, so scores compare across agents (one agent alone in the database gets its own search's answer)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from memtui.embeddings.base import EmbeddingProvider, embed_query_text
from memtui.errors import ProviderError
from memtui.index.fleet import FleetReader
from memtui.index.store.postgres.fleet_reads import FleetReads
from memtui.search.engine import Searcher
from memtui.search.fts_query import cap_query
from memtui.search.response import Candidate, SearchOptions, SearchResponse
from memtui.search.tokenizer import PorterTokenizer
from memtui.settings.config import MemorySearchSettings


@dataclass(frozen=True)
class FleetHit:
    """One chunk a fleet search returned: its agent and workspace, its id in that agent's index, where it is, its
    text and final score, and its candidate (the whole trace; `candidate.id` is the fleet's name of the chunk)."""

    agent: str
    workspace: str
    chunk_id: str
    path: str
    start_line: int
    end_line: int
    text: str
    score: float
    candidate: Candidate

    @classmethod
    def of(cls, origin: tuple[str, str, str], candidate: Candidate) -> FleetHit:
        """The hit of a candidate whose (agent, workspace, chunk id) is `origin`."""
        return cls(*origin, candidate.path, candidate.start_line, candidate.end_line, candidate.text,
                   candidate.score, candidate)


@dataclass(frozen=True)
class FleetResponse:
    """A fleet search: the response (its traces), the hits with their agents, and what was searched how."""

    response: SearchResponse
    hits: list[FleetHit]
    agents: int
    agents_with_vectors: int
    model: str | None
    approximate: bool

    def vectors(self) -> str:
        """How the vector side went: `the query's vector (bge-small, exact) in 104 (2 embed with another model)`,
        or why there was none."""
        if self.model is None:
            return "no query vector (no embedding provider)"
        if self.response.vector_skipped:
            return f"no query vector ({self.response.vector_skipped})"
        how = "approximate, hnsw" if self.approximate else "exact"
        others = self.agents - self.agents_with_vectors
        return (f"the query's vector ({self.model}, {how}) in {self.agents_with_vectors}"
                + (f" ({others} embed with another model)" if others else ""))

    def coverage(self) -> str:
        """How the fleet was searched: `106 agents searched: keywords in all, ` and `vectors()`."""
        return f"{self.agents} agent{'s' if self.agents != 1 else ''} searched: keywords in all, {self.vectors()}"


class _FleetSearcher(Searcher):
    """The searcher over `FleetReads`: a chunk's file mtime is that of its agent's file (paths repeat across agents)."""

    def _mtime_key(self, candidate: Candidate) -> str:
        return candidate.id


def search_fleet(conn: Any, vector_error: str | None, query: str, *, provider: EmbeddingProvider | None,
                 settings: MemorySearchSettings, options: SearchOptions, query_vector: Sequence[float] | None,
                 skipped: str | None = None, exact: bool = False, now: datetime | None = None,
                 side: Callable[[], Any] | None = None) -> FleetResponse:
    """Search every live index of the database on `conn` with the memtui profile: hybrid when `query_vector` is
    `provider`'s embedding of `query`, else keywords only (`skipped`: why the query has no vector); `exact`: never
    through the fleet's hnsw index; `side`: a second connection (opened when asked) on which the vectors are
    compared while the keywords are ranked."""
    model = provider.model if provider is not None else None
    reads = FleetReads(conn, PorterTokenizer(), model, vector_error, exact=exact, side=side,
                       query_vector=query_vector)
    with reads.reading():
        if vector_error is not None and provider is not None:  # no pgvector: no vector side (see FleetReads)
            query_vector, skipped = None, vector_error
        embedded = provider if query_vector is not None else None
        searcher = _FleetSearcher(reads, embedded, settings, "memtui", reads.mtimes)
        response = searcher.search(query, options, now=now, query_vector=query_vector)
        response.vector_skipped = skipped or response.vector_skipped
        hits = [FleetHit.of(reads.origin(c.id), c) for c in response.results]
        return FleetResponse(response, hits, reads.agents(), reads.agents_with_vectors(), model, reads.approximate)


def fleet_search(reader: FleetReader, query: str, *, provider: EmbeddingProvider | None,
                 settings: MemorySearchSettings, max_results: int | None = None, min_score: float | None = None,
                 exact: bool = False, now: datetime | None = None) -> FleetResponse:
    """Every agent of the PostgreSQL store `reader` reads, searched at once with an agent's `provider` (which
    embeds the query; when it fails, keywords only, saying why) and `settings`; `exact`: no hnsw index."""
    vector, skipped = None, None
    if provider is not None and query.strip():
        try:
            vector = embed_query_text(provider, cap_query(query))
        except ProviderError as exc:
            vector, skipped = [], f"the embedding provider failed ({exc.message})"
    options = SearchOptions(max_results=max_results, min_score=min_score)
    return reader.read(lambda conn: search_fleet(conn, reader.vector_error, query, provider=provider,
                                                 settings=settings, options=options, query_vector=vector,
                                                 skipped=skipped, exact=exact, now=now, side=reader.side))
