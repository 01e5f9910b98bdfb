"""The plain concept-tag path (stdlib `re`, no `regex`/ICU) gives exactly what the ICU path gives on its text."""

from __future__ import annotations

import json
import random
import subprocess
import sys
import unicodedata
from pathlib import PurePosixPath
from typing import Any

import pytest
import regex
from openclaw_context_data import RECORDING

from memtui.dreaming.concepts import PLAIN_CHARS, derive_concept_tags, word_segments

PATHS = ("memory/2026-04-27.md", "memory/gateway_notes.md", "MEMORY.md", "memory/ops/2026-11-30.md",
         "memory/v1.2-release-notes.txt", "notes/router-setup.md")
WORDS = ("gateway", "router", "backup", "S3", "Glacier", "failover", "OpenAI", "qmd", "VLAN", "the", "and", "memory",
         "deploy", "pgbouncer", "OOMKilled", "ECONNRESET", "Alice", "Bob", "ok", "a", "x", "embeddings", "snake_case",
         "flush_threshold_tokens", "dot.separated.keys", "text-embedding-3-small", "don't", "it’s", "‘quoted’",
         "“double”", "rock’n’roll", "O'Brien", "e.g.", "i.e.", "U.S.A.", "v1.2.3", "3.14", "1,000", "1;2", "12:30",
         "a:b", "2026-04-27", "2026-04-28.md", "12345", "42", "README.md", "src/agents/workspace.ts", "a/b/c",
         "https://example.com/a/b?c=d&e=f#frag", "http://host:8080/path_x", "ops@example.com", "#L4-L6", "--dashes--",
         "...dots...", "_leading", "trailing_", "__dunder__", "x_1", "1_000", "a_.b", "a._b", "'s", "rock'", "—",
         "–", "•", "→", "HTTP 502", "OPS-1234", "b12345", "Q3", "09:12", "(parens)", "[brackets]", "{braces}",
         "'single'", '"double"', "semi;colon", "com,ma", "a1.b", "1a.b", "x..y", "a'.b", "a’’b", "1’2", "7'8")
PUNCTUATION = " .,;:'\"’‘“”!?-_/\\@#$%^&*()[]{}<>=+~`|—–•→"


def _recorded_snippets() -> list[tuple[str, str]]:
    """Every (path, snippet) of the dreaming recording: the concept-tag cases and every other `snippet`."""
    data = json.loads((RECORDING / "dreaming.json").read_text(encoding="utf-8"))
    found: list[tuple[str, str]] = []

    def walk(node: Any, path: str) -> None:
        if isinstance(node, dict):
            here = node.get("path") if isinstance(node.get("path"), str) else path
            if isinstance(node.get("snippet"), str):
                found.append((here, node["snippet"]))
            for value in node.values():
                walk(value, here)
        elif isinstance(node, list):
            for value in node:
                walk(value, path)

    walk(data, "memory/2026-04-27.md")
    return found


def _generated_snippet(rng: random.Random) -> str:
    parts: list[str] = []
    for _ in range(rng.randint(1, 30)):
        roll = rng.random()
        if roll < 0.55:
            parts.append(rng.choice(WORDS))
        elif roll < 0.7:
            parts.append("".join(rng.choice("abcXYZ019_.,;:'’‘-") for _ in range(rng.randint(1, 8))))
        elif roll < 0.85:
            parts.append("".join(chr(rng.randint(0, 127)) for _ in range(rng.randint(1, 6))))
        else:
            parts.append(rng.choice(PUNCTUATION))
        parts.append(rng.choice(("", " ", " ", " ", "  ", "\t", "\n", "\r\n", ", ", ". ", "/", "-", "_", ":", "'")))
    return "".join(parts)


def _generated(count: int, seed: int) -> list[tuple[str, str]]:
    rng = random.Random(seed)
    return [(rng.choice(PATHS), _generated_snippet(rng)) for _ in range(count)]


RECORDED = _recorded_snippets()
GENERATED = _generated(4000, seed=2026)


def _plain(path: str, snippet: str) -> bool:
    return PLAIN_CHARS.issuperset(f"{PurePosixPath(path).name} {snippet}")


def test_the_corpora_exercise_the_plain_path_and_icu_joins():
    plain_recorded = [case for case in RECORDED if _plain(*case)]
    assert len(plain_recorded) >= 12
    assert all(_plain(*case) for case in GENERATED)
    joined = [seg for path, snippet in GENERATED for seg in word_segments(snippet, unicode=True)
              if any(mark in seg for mark in ".:,;'’‘")]
    assert len({seg for seg in joined if not seg.replace(".", "").isdigit()}) >= 500


@pytest.mark.parametrize("corpus", ["recorded", "generated"])
def test_plain_path_tags_and_words_equal_the_icu_path(corpus):
    cases = RECORDED if corpus == "recorded" else GENERATED
    differences = []
    for path, snippet in cases:
        source = f"{PurePosixPath(path).name} {snippet}"
        for limit in (8, 1000):
            if derive_concept_tags(path, snippet, limit) != derive_concept_tags(path, snippet, limit, unicode=True):
                differences.append(("tags", limit, path, snippet))
        if word_segments(source) != word_segments(source, unicode=True):
            differences.append(("words", path, snippet))
    assert differences == []


def test_recorded_openclaw_tags_come_out_of_the_plain_path_too():
    cases = [c for c in json.loads((RECORDING / "dreaming.json").read_text(encoding="utf-8"))["conceptTags"]["cases"]
             if _plain(c["path"], c["snippet"])]
    assert cases
    for case in cases:
        assert derive_concept_tags(case["path"], case["snippet"], case.get("limit", 8)) == case["tags"]


@pytest.mark.parametrize("char", sorted(c for c in PLAIN_CHARS if not c.isascii()))
def test_plain_non_ascii_characters_are_word_separators_icu_agrees_on(char):
    assert not regex.match(r"[\p{L}\p{N}]", char)
    assert unicodedata.normalize("NFKC", char) == char == char.lower() and not char.isspace()
    apostrophe = char in "’‘"
    assert word_segments(f"ab{char}cd", unicode=True) == (["ab" + char + "cd"] if apostrophe else ["ab", "cd"])
    assert word_segments(f"12{char}34", unicode=True) == (["12" + char + "34"] if apostrophe else ["12", "34"])


def test_an_ascii_snippet_is_tagged_without_loading_regex_or_icu():
    code = ("import sys\nfrom memtui.dreaming.concepts import derive_concept_tags\n"
            "print(derive_concept_tags('memory/2026-04-27.md', 'Decided — keep the gateway’s VLAN router.'))\n"
            "print(sorted({m.split('.')[0] for m in sys.modules} & {'regex', 'icu4py'}))\n"
            "derive_concept_tags('memory/2026-04-27.md', '网关配置已经更新')\n"
            "print(sorted({m.split('.')[0] for m in sys.modules} & {'regex', 'icu4py'}))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.splitlines() == ["['gateway', 'router', 'vlan', 'decided', 'keep', 'gateway’s']", "[]",
                                        "['icu4py', 'regex']"]
