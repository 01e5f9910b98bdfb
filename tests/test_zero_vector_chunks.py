"""Vectors without a direction, told (issue 29, item 1, after the audit): a chunk the provider always embeds to all
zeros while it embeds everything else has no vector of its own — keyword-only, named in status, not sent again
every sync and not a provider failure; vectors without a direction already stored (an older memtui) are named by
`status`, `status --json` and `memtui health` with what to do."""

from __future__ import annotations

import json
from typing import Any

from test_hardening_r3_vectors import ZERO_MARK, ZeroingServer, _cli, _json, _poison, agent, server

__all__ = ["agent", "server"]  # the fixtures, shared with test_hardening_r3_vectors


def _zero_texts(server: ZeroingServer) -> int:
    """How many texts with the zeroing mark the provider was sent."""
    return sum(ZERO_MARK in text for request in server.matching("/embeddings")
               for text in (request.json()["input"] if isinstance(request.json()["input"], list)
                            else [request.json()["input"]]))


def _status(agent: list[str]) -> dict[str, Any]:
    return _json(agent, "status")


FILLER = "".join(f"- Line {n}: the routing team reviewed the carrier manifests for depot {n}.\n" for n in range(60))


def test_a_chunk_the_provider_embeds_to_zeros_is_keyword_only_and_not_retried(agent: list[str],
                                                                             server: ZeroingServer) -> None:
    log = _workspace(agent) / "memory" / "2026-04-01.md"
    log.write_text(f"# 2026-04-01\n\n- Alice prefers green tea over coffee ({ZERO_MARK}).\n{FILLER}", encoding="utf-8")
    assert _cli(agent, "index").returncode == 0
    status = _status(agent)
    custom = status["custom"]
    assert custom["noVector"] == {"chunks": 1, "files": {"memory/2026-04-01.md": 1},
                                  "reasons": ["the provider's vector is all zeros"],
                                  "retry": "when the chunk's text, the provider or the model changes"}
    assert status["dirty"] is False and custom["dirtyReason"] is None
    assert custom["providerUnavailableReason"] is None and custom["missingVectors"] is None
    assert custom["searchMode"] == "hybrid"
    human = _cli(agent, "status").stdout
    assert ("No vector by the provider's answer: 1 chunk(s) in memory/2026-04-01.md (1) — the provider's vector is "
            "all zeros; they rank by keywords only and are embedded again when the chunk's text, the provider or "
            "the model changes") in human
    assert "Dirty: no" in human and "Embedding provider failed" not in human

    sent = _zero_texts(server)
    assert sent == 1
    for _ in range(2):  # further syncs do not ask again
        assert _cli(agent, "index").returncode == 0
    # The file's last chunk changes: the file is written again, its first chunk (the zero one) is not sent again
    log.write_text(log.read_text(encoding="utf-8") + "- One more line at the end.\n", encoding="utf-8")
    assert _cli(agent, "index", "--json").returncode == 0
    assert _zero_texts(server) == sent
    assert _status(agent)["custom"]["noVector"]["files"] == {"memory/2026-04-01.md": 1}
    assert [hit["path"] for hit in _json(agent, "search", "green tea")["results"]][:1] == ["memory/2026-04-01.md"]

    # Its text changes: asked again; the provider now embeds it, and the record is gone.
    server.zeroing = False
    log.write_text(f"# 2026-04-01\n\n- Alice prefers green tea, no sugar ({ZERO_MARK}).\n{FILLER}", encoding="utf-8")
    assert _cli(agent, "index").returncode == 0
    assert _zero_texts(server) == sent + 1
    assert _status(agent)["custom"]["noVector"] is None


def test_a_provider_answering_zeros_for_everything_is_still_a_failure(agent: list[str],
                                                                      server: ZeroingServer) -> None:
    """The probe tells the two apart: zeros for the probe text too is a provider that does not work."""
    original = server._openai_embeddings

    def all_zeros(body: dict[str, Any]) -> tuple[int, Any]:
        status, payload = original(body)
        for item in payload["data"]:
            item["embedding"] = [0.0] * len(item["embedding"])
        return status, payload

    server._openai_embeddings = all_zeros  # type: ignore[method-assign]
    done = _cli(agent, "index")
    assert done.returncode == 0, done.stderr
    assert "a probe text got no vector with a direction either" in done.stdout
    status = _status(agent)
    assert status["custom"]["noVector"] is None and status["custom"]["missingVectors"]["chunks"] == 2
    assert "vector 1 is all zeros" in status["custom"]["providerUnavailableReason"]


def test_stored_vectors_without_a_direction_are_named_with_what_to_do(agent: list[str],
                                                                      server: ZeroingServer) -> None:
    server.zeroing = False
    assert _cli(agent, "index").returncode == 0
    assert _status(agent)["custom"]["degenerateVectors"] is None
    _poison(agent, "memory/2026-04-01.md")
    assert _status(agent)["custom"]["degenerateVectors"] == {
        "chunks": 1, "files": {"memory/2026-04-01.md": 1}, "action": "memtui index --force embeds them again"}
    human = _cli(agent, "status").stdout
    assert ("Stored vectors without a direction (all zeros or NaN): 1 in memory/2026-04-01.md (1); searches skip "
            "them (keyword-only for those chunks): run memtui index --force to embed them again") in human
    health = _json(agent, "health", "--index", "memtui")
    assert health["healthy"] is False and health["counts"]["vector"] == 1
    [row] = [row for row in health["rows"] if row["kind"] == "vector"]
    assert row["path"] == "memory/2026-04-01.md" and "is all zeros" in row["detail"]
    assert "memtui index --force" in row["detail"]
    assert "Healthy" not in _cli(agent, "health", "--index", "memtui").stdout

    assert _cli(agent, "index", "--force").returncode == 0
    assert _status(agent)["custom"]["degenerateVectors"] is None
    assert _json(agent, "health", "--index", "memtui")["healthy"] is True


def _workspace(agent: list[str]) -> Any:
    from pathlib import Path

    return Path(agent[agent.index("--workspace") + 1])


def test_the_json_of_the_sync_counts_them_apart() -> None:
    from memtui.index.indexer import SyncReport

    report = SyncReport(reason="t", full=False, vector_gaps={"a.md": 2}, no_vector={"b.md": {"h1": "x", "h2": "y"}})
    assert json.loads(json.dumps(report.to_json()))["chunksWithNoVectorOfTheirOwn"] == 2
    assert report.to_json()["chunksWithoutVectors"] == 2
