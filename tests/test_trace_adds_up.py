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
