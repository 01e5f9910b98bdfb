"""Exact path matching: the tier a path earns against a query and the LIKE patterns that pre-select it."""

from __future__ import annotations

import unicodedata
from collections.abc import Callable

import regex

from memtui.agentdb.keywords import js_lower
from memtui.jscompat import js_trim

_ASCII_ANCHOR = regex.compile(r"[a-z0-9_]+")


def _normalize_path_id(value: str) -> str:
    value = js_trim(value).replace("\\", "/")
    if value.startswith("./"):
        value = value[2:]
    return js_lower(unicodedata.normalize("NFC", value))


def exact_path_matcher(query: str) -> Callable[[str], int]:
    """`prepareExactPathMatcher`: 3 = the whole path, 2 = the basename (queries without `/`), 1 = the stem."""
    wanted = _normalize_path_id(query)
    if not wanted or wanted == ".":
        return lambda _path: 0
    has_directory = "/" in wanted

    def tier(candidate: str) -> int:
        path = _normalize_path_id(candidate)
        if wanted == path:
            return 3
        if has_directory:
            return 0
        base = path.split("/")[-1]
        if wanted == base:
            return 2
        dot = base.rfind(".")
        stem = base[:dot] if dot > 0 else base
        return 1 if wanted == stem else 0

    return tier


def _like_escape(term: str) -> str:
    return term.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def exact_path_patterns(query: str) -> list[str]:
    """`buildExactPathCandidatePatterns`: the LIKE patterns that pre-select exact-path candidates."""
    normalized = js_trim(query).replace("\\", "/")
    if normalized.startswith("./"):
        normalized = normalized[2:]
    if not normalized or normalized == ".":
        return []
    canonical = [unicodedata.normalize("NFC", normalized), unicodedata.normalize("NFD", normalized)]
    forms = list(dict.fromkeys(canonical))
    ascii_query = normalized.isascii()
    if not ascii_query:
        for form in canonical:
            for variant in (form.lower(), form.upper()):
                if variant not in forms:
                    forms.append(variant)
    patterns: list[str] = []
    for form in forms:
        escaped = _like_escape(form)
        variants = [escaped] if "/" in normalized else [escaped, f"{escaped}.%", f"%/{escaped}", f"%/{escaped}.%"]
        patterns.extend(variants)
    if not ascii_query:
        runs = sorted(_ASCII_ANCHOR.findall(unicodedata.normalize("NFD", normalized).lower()), key=len, reverse=True)
        if runs:
            patterns.append(f"%{_like_escape(runs[0])}%")
        if normalized.lower() != normalized.upper():
            first = next(c for c in normalized if not c.isascii())
            for anchor in dict.fromkeys([first, first.lower(), first.upper()]):
                patterns.append(f"%{_like_escape(anchor)}%")
    return list(dict.fromkeys(patterns))
