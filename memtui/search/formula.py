"""A hit's final score written as the terms that make it, every number that changes a rank included (the
weights, the month boost, a keyword boost, decay), so that what `--explain`, why-not and the TUI print adds up:
`final = (sum of the terms) × decay`."""

from __future__ import annotations

from memtui.search.response import Candidate, SearchResponse


def _weight(value: float) -> str:
    text = f"{value:.4f}".rstrip("0")
    return text + "0" * max(0, 2 - len(text.partition(".")[2]))


def number_text(value: float) -> str:
    """4 decimals from 1 up, else 4 significant digits (a flat list's bm25 of -2.6e-06 must not print as 0)."""
    return f"{value:.4f}" if value == 0 or abs(value) >= 1 else f"{value:.4g}"


def score_terms(hit: Candidate, response: SearchResponse) -> list[tuple[str, float]]:
    """(label, value) of each term of the hit's pre-decay score; their sum is `hit.base_score`."""
    vector, text = hit.vector_score or 0.0, hit.text_score or 0.0
    if response.mode == "hybrid":
        terms = [(f"{_weight(response.vector_weight)}×vec {vector:.4f}", response.vector_weight * vector),
                 (f"{_weight(response.text_weight)}×text {text:.4f}", response.text_weight * text)]
    elif response.mode == "vector-only":
        terms = [(f"vec {vector:.4f}", vector)]
    else:
        terms = [(f"text {text:.4f}", text)]
    if hit.date_boost:
        terms.append((f"month boost {hit.date_boost:.4f}", hit.date_boost))
    rest = hit.base_score - sum(value for _label, value in terms)
    if abs(rest) > 5e-5:  # OpenClaw 2026.4's keyword boost (query words in the text and the path)
        terms.append((f"keyword boost {rest:.4f}", rest))
    return terms


def formula_text(hit: Candidate, response: SearchResponse) -> str:
    """`final 0.9078 = (0.35×vec 0.7367 + 0.65×text 1.0000 + month boost 0.5000) × decay 0.6412 (age 19.2 d)`."""
    if hit.openclaw is not None:
        from memtui.search.agent_db import formula_text as agent_formula

        return agent_formula(hit)
    text = f"final {hit.score:.4f} = (" + " + ".join(label for label, _value in score_terms(hit, response)) + ")"
    if hit.decay != 1.0:
        text += f" × decay {hit.decay:.4f} (age {hit.age_days or 0:.1f} d)"
    return text
