"""What the traces print adds up: every hit's final score is recomputed from the numbers of its printed formula
(`--explain`, why-not, the TUI), for every recorded OpenClaw query plus month-naming ones, in both of memtui's
profiles, keyword-only and hybrid, and for OpenClaw 2026.9's own ranking of its agent database."""

from __future__ import annotations

import contextlib
import io
import math
import re
import shutil
from pathlib import Path

import pytest
from hashed_provider import HashedProvider
from openclaw_2026_9_data import build_agent, recording

import memtui.cli
from memtui.manager import MemoryManager
from memtui.search.formula import formula_text
from memtui.settings.agent import resolve_agent

QUERIES = [case["query"] for case in recording("search")["searches"]] + [
    "what happened with Postgres in August 2026", "October 2026 offsite decisions", "rate limiting in November 2026"]
ROUNDING = 2e-4  # each printed number has 4 decimals
_TERM = re.compile(r"^(?:(?P<weight>[\d.]+)×(?:vec|text)|text|vec|month boost|keyword boost) (?P<value>-?[\d.]+)$")
_FINAL = re.compile(r"^final (?P<final>[\d.]+) = \((?P<terms>.*)\)(?: × decay (?P<decay>[\d.]+) \(age [\d.]+ d\))?$")
_RANKING = re.compile(r"^ranking (?P<ranking>[\d.]+) = (?P<factors>.*?)(?:; .*)?$")


def recomputed(printed: str) -> tuple[float, float]:
    """(printed final score, the score its printed terms make)."""
    match = _FINAL.match(printed)
    assert match, printed
    total = 0.0
    for term in match["terms"].split(" + "):
        part = _TERM.match(term)
        assert part, term
        total += float(part["weight"] or 1) * float(part["value"])
    return float(match["final"]), total * float(match["decay"] or 1)


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The 54 files of the OpenClaw 2026.9.6 recording, as a plain 2026.4 workspace."""
    agent = build_agent(tmp_path_factory.mktemp("ws"))
    shutil.rmtree(agent.state)
    return agent.workspace


@pytest.mark.parametrize("hybrid", [False, True], ids=["keyword-only", "hybrid"])
@pytest.mark.parametrize("profile", ["memtui", "openclaw-2026.4"])
def test_printed_formula_recomputes_the_final_score(tmp_path: Path, workspace: Path, profile: str,
                                                    hybrid: bool) -> None:
    env = resolve_agent(state_dir=str(tmp_path / "state"), workspace=str(workspace), provider="none")
    boosted = 0
    with MemoryManager(env, provider=HashedProvider() if hybrid else None) as manager:
        manager.sync()
        for query in QUERIES:
            response = manager.search(query, profile=profile, min_score=0.0)
            for hit in response.candidates:
                final, made = recomputed(formula_text(hit, response))
                assert final == pytest.approx(hit.score, abs=5e-5)
                assert made == pytest.approx(final, abs=ROUNDING), (query, formula_text(hit, response))
                boosted += "month boost" in formula_text(hit, response)
    assert (boosted > 0) == (profile == "memtui" and hybrid)  # the month boost is printed where it applies


def test_explain_lines_of_the_cli_add_up(tmp_path: Path, workspace: Path) -> None:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        for query in QUERIES[:12]:
            assert memtui.cli.main(["search", query, "--state-dir", str(tmp_path / "state"), "--workspace",
                                    str(workspace), "--provider", "none", "--explain"]) == 0
    lines = [line.strip() for line in out.getvalue().splitlines() if line.startswith("  final ")]
    assert len(lines) >= 12
    for line in lines:
        final, made = recomputed(line.split(" · ")[0])
        assert made == pytest.approx(final, abs=ROUNDING), line


def test_openclaw_2026_9_factors_multiply_to_the_ranking_score(tmp_path: Path) -> None:
    agent = build_agent(tmp_path)
    with MemoryManager(resolve_agent(state_dir=str(agent.state), provider="none", profile="openclaw")) as manager:
        checked = 0
        for query in QUERIES:
            response = manager.search(query, max_results=200, min_score=0.0)
            assert response.generation == "2026.9"
            for hit in response.results:
                match = _RANKING.match(formula_text(hit, response))
                assert match, formula_text(hit, response)
                factors = [float(piece.rsplit(" ", 1)[1]) for piece in match["factors"].split(" × ")]
                assert math.prod(factors) == pytest.approx(float(match["ranking"]), abs=ROUNDING)
                assert float(match["ranking"]) == pytest.approx(hit.openclaw["trace"]["rankingScore"], abs=5e-5)
                if not hit.openclaw["trace"]["exactTier"]:
                    assert hit.score == pytest.approx(float(match["ranking"]), abs=5e-5)
                checked += 1
    assert checked > 100


_TEXT_SIDE = re.compile(r"text #\d+ \((?:bm25 (?P<bm25>\S+) (?:/ (?P<divisor>\S+) |→ r/\(1\+r\) )?→? ?"
                        r"(?P<text>[\d.]+)|LIKE match → (?P<like>[\d.]+))\)")
_VECTOR_SIDE = re.compile(r"(?:vector #\d+|cosine only) \(cos (?P<cos>\S+) / (?P<divisor>\S+) → (?P<vec>[\d.]+)\)")
_WEIGHTED = re.compile(r"(?P<weight>[\d.]+)×(?P<side>vec|text) (?P<value>[\d.]+)")


def sides_add_up(line: str) -> int:
    """Check that each side's printed score is made of its printed numbers (bm25 over the printed divisor, or
    r/(1+r); cosine over the printed best) and is the one in the formula; the number of sides checked."""
    formula = {m["side"]: float(m["value"]) for m in _WEIGHTED.finditer(line.split(" · ")[0])}
    checked = 0
    if (text := _TEXT_SIDE.search(line)) is not None and text["bm25"] is not None:
        relevance = -float(text["bm25"])
        made = relevance / float(text["divisor"]) if text["divisor"] else relevance / (1 + relevance)
        assert made == pytest.approx(float(text["text"]), abs=ROUNDING, rel=1.5e-3), line
        assert formula.get("text", float(text["text"])) == pytest.approx(float(text["text"]), abs=5e-5), line
        checked += 1
    if (vector := _VECTOR_SIDE.search(line)) is not None:
        made = max(0.0, float(vector["cos"])) / float(vector["divisor"])
        assert made == pytest.approx(float(vector["vec"]), abs=ROUNDING, rel=1.5e-3), line
        assert formula["vec"] == pytest.approx(float(vector["vec"]), abs=5e-5), line
        checked += 1
    return checked


@pytest.mark.parametrize("profile", ["memtui", "openclaw-2026.4"])
def test_each_side_of_the_explain_line_is_made_of_printed_numbers(tmp_path: Path, workspace: Path,
                                                                  profile: str) -> None:
    from memtui.commands.explain_text import explain_header, trace_line

    env = resolve_agent(state_dir=str(tmp_path / "state"), workspace=str(workspace), provider="none")
    checked = 0
    with MemoryManager(env, provider=HashedProvider()) as manager:
        manager.sync()
        for query in QUERIES:
            response = manager.search(query, profile=profile, min_score=0.0)
            header = "\n".join(explain_header(response, profile, "hashed"))
            assert f"Profile: {profile} · " in header
            if response.text_divisor is not None:
                assert f"Text score: −{response.text_normalization} = " in header
            for hit in response.candidates:
                checked += sides_add_up(trace_line(hit, response))
    assert checked > 50


def test_a_flat_keyword_list_prints_the_floor_its_bm25_is_divided_by(tmp_path: Path) -> None:
    """Every chunk names Evan: best |bm25| ≈ 1e-6, divided by the floor, not by itself. The CLI printed
    "bm25 -0.0000" and "text 0.0005", which no reader could recompute."""
    from memtui.commands.explain_text import explain_header, trace_line

    workspace = tmp_path / "ws"
    (workspace / "memory").mkdir(parents=True)
    for day in range(1, 29):
        (workspace / "memory" / f"2026-10-{day:02d}.md").write_text(
            f"# 2026-10-{day:02d}\n\n- Evan and Sam talked about hiking trail number {day} and the weather.\n",
            encoding="utf-8")
    env = resolve_agent(state_dir=str(tmp_path / "state"), workspace=str(workspace), provider="none")
    with MemoryManager(env, provider=HashedProvider()) as manager:
        manager.sync()
        response = manager.search("What does Evan talk about?", min_score=0.0, profile="memtui")
    header = explain_header(response, "memtui", "hashed")
    assert ("Text score: −bm25 / 0.005 (the best keyword hit's bm25 is ≈ 0: its words are in nearly every "
            "chunk)") in header
    lines = [trace_line(hit, response) for hit in response.candidates if hit.bm25 is not None]
    assert len(lines) >= 20 and all(" / 0.005 → " in line and "bm25 -0.0000" not in line for line in lines)
    assert sum(sides_add_up(line) for line in lines) >= 40


class _ZeroQuery(HashedProvider):
    def embed_query(self, text: str) -> list[float]:
        return [0.0] * 64


def test_a_skipped_vector_side_and_skipped_stored_vectors_are_printed(tmp_path: Path, workspace: Path) -> None:
    from memtui.commands.explain_text import explain_header

    env = resolve_agent(state_dir=str(tmp_path / "state"), workspace=str(workspace), provider="none")
    with MemoryManager(env, provider=_ZeroQuery()) as manager:
        manager.sync()
        response = manager.search("payments deploy freeze", min_score=0.0, profile="memtui")
        header = explain_header(response, "memtui", "hashed")
    assert header[0] == ("Profile: memtui · mode: hybrid (vector side skipped: query embedding is all zeros; "
                         "keyword scores only) · provider: hashed")

    with MemoryManager(env, provider=HashedProvider()) as manager:
        conn = manager.store.conn
        (chunk_id,) = conn.execute("SELECT id FROM chunks WHERE path LIKE '%payments-deploy%' LIMIT 1").fetchone()
        conn.execute("UPDATE chunks SET embedding = ? WHERE id = ?", ("[" + ",".join(["0"] * 64) + "]", chunk_id))
        conn.execute("UPDATE chunks_vec SET embedding = ? WHERE id = ?", (bytes(4 * 64), chunk_id))
        conn.commit()
        response = manager.search("payments deploy freeze", min_score=0.0, profile="memtui", max_results=200)
        header = explain_header(response, "memtui", "hashed")
    assert response.skipped_vectors == 1
    assert ("Stored vectors skipped: 1 (no direction: all zeros or NaN; their chunks rank by keywords only; memtui "
            "index --force embeds them again)") in header
