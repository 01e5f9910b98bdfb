"""Concept tags of a short-term recall snippet, as OpenClaw 2026.4.29's `deriveConceptTags` makes them (§12.4).

Sources, in order: a protected multilingual glossary, compound tokens (`a.b`, `a/b`, `a-b`, `a_b`) and the
words of ICU's word break iterator, which is what `Intl.Segmenter("und", {granularity: "word"})` runs in
Node. The ICU bundled with `icu4py` is 78.3, the version of Node 24's, so CJK words split by the same
dictionary. A segment counts as a word when it holds a letter or a digit (Node's `isWordLike`); on the
recording the two agree on every snippet. Lengths are UTF-16 code units, as in JavaScript. Text of ASCII and a
few separators (`PLAIN_CHARS`) takes a stdlib-`re` path with the same results; `regex` and ICU load for any other.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from collections.abc import Callable

MAX_CONCEPT_TAGS = 8
MAX_TAG_UNITS = 32

_STOP_WORDS = (
    # shared
    "about", "after", "agent", "again", "also", "assistant", "because", "before", "being", "between", "build",
    "called", "could", "daily", "default", "deploy", "during", "every", "file", "files", "from", "have", "into",
    "just", "line", "lines", "long", "main", "make", "memory", "month", "more", "most", "move", "much", "next",
    "note", "notes", "over", "part", "past", "port", "same", "score", "search", "session", "sessions", "short",
    "should", "since", "some", "subagent", "system", "than", "that", "their", "there", "these", "they", "this",
    "through", "today", "user", "using", "with", "work", "workspace", "year",
    # english
    "and", "are", "for", "its", "our", "the", "then", "were", "you", "your",
    # spanish
    "al", "con", "como", "de", "del", "el", "en", "es", "la", "las", "los", "para", "por", "que", "se", "sin",
    "su", "sus", "una", "uno", "unos", "unas", "y",
    # french
    "au", "aux", "avec", "dans", "des", "du", "est", "et", "le", "les", "ou", "pour", "qui", "sans", "ses", "son",
    "sur", "une", "un",
    # german
    "auf", "aus", "bei", "das", "dem", "den", "der", "die", "ein", "eine", "einem", "einen", "einer", "für", "im",
    "in", "mit", "nach", "oder", "ohne", "über", "und", "von", "zu", "zum", "zur",
    # cjk
    "が", "から", "する", "して", "した", "で", "と", "に", "の", "は", "へ", "まで", "も", "や", "を",
    "与", "为", "了", "及", "和", "在", "将", "或", "把", "是", "用", "的",
    "과", "는", "도", "로", "를", "에", "에서", "와", "은", "으로", "을", "이", "하다", "한", "할", "해", "했다",
    # path noise
    "cjs", "cpp", "cts", "jsx", "json", "md", "mjs", "mts", "text", "toml", "ts", "tsx", "txt", "yaml", "yml",
)
STOP_WORDS = frozenset(word.lower() for word in _STOP_WORDS)

_GLOSSARY = (
    "backup", "backups", "embedding", "embeddings", "failover", "gateway", "glacier", "gpt", "kv", "network",
    "openai", "qmd", "router", "s3", "vlan", "sauvegarde", "routeur", "passerelle", "konfiguration", "sicherung",
    "überwachung", "configuración", "respaldo", "enrutador", "puerta-de-enlace", "バックアップ", "フェイルオーバー",
    "ルーター", "ネットワーク", "ゲートウェイ", "障害対応", "路由器", "备份", "故障转移", "网络", "网关",
    "라우터", "백업", "페일오버", "네트워크", "게이트웨이", "장애대응",
)
PROTECTED_GLOSSARY = tuple(unicodedata.normalize("NFKC", word).strip().lower() for word in _GLOSSARY)

_DIGITS_RE = re.compile(r"^[0-9]+$")
_DAY_RE = re.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$")

# Text made only of ASCII and these characters is tagged with the stdlib `re` and a port of ICU's word rules
# for it, without loading `regex` or ICU (~7 ms a process): none of them is a letter or a digit, each is its
# own NFKC form, lower case and word-break class (Other; `‘’` are MidNumLet, like `.` and `'`).
_PLAIN_EXTRA = "\u2013\u2014\u2022\u2192\u201c\u201d\u2018\u2019"  # – — • → “ ” ‘ ’
PLAIN_CHARS = frozenset(map(chr, range(128))) | frozenset(_PLAIN_EXTRA)
# ICU 78's root word rules restricted to PLAIN_CHARS: letters, digits and `_` join; `.` `:` `'` `‘` `’`
# between two letters, `.` `,` `;` `'` `‘` `’` between two digits.
_PLAIN_WORD_RE = re.compile(r"(?:[A-Za-z0-9_]|(?<=[A-Za-z])[.:'\u2018\u2019](?=[A-Za-z])"
                            r"|(?<=[0-9])[.,;'\u2018\u2019](?=[0-9]))+")


class _Classes(NamedTuple):
    """The character-class patterns tagging needs, for one kind of text."""

    compound: re.Pattern[str]
    letter_or_number: re.Pattern[str]
    edge_noise: re.Pattern[str]
    latin: re.Pattern[str]
    cjk: re.Pattern[str]
    kana: re.Pattern[str]
    han_or_hangul: re.Pattern[str]
    day_file: re.Pattern[str]
    words: Callable[[str], list[str]]


_NEVER = re.compile("(?!)")
_PLAIN = _Classes(
    compound=re.compile(r"[A-Za-z0-9]+(?:[._/-][A-Za-z0-9]+)+"),
    letter_or_number=re.compile(r"[A-Za-z0-9]"),
    edge_noise=re.compile(r"^[^A-Za-z0-9]+|[^A-Za-z0-9]+$"),
    latin=re.compile(r"[A-Za-z]"),
    cjk=_NEVER,
    kana=_NEVER,
    han_or_hangul=_NEVER,
    day_file=re.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}\.[A-Za-z0-9]+$"),
    words=_PLAIN_WORD_RE.findall,
)


@functools.cache
def _unicode() -> _Classes:
    """The classes for any text: `regex`'s Unicode properties and ICU's word break iterator (loaded on first use)."""
    import regex
    from icu4py.breakers import WordBreaker

    return _Classes(
        compound=regex.compile(r"[\p{L}\p{N}]+(?:[._/-][\p{L}\p{N}]+)+"),
        letter_or_number=regex.compile(r"[\p{L}\p{N}]"),
        edge_noise=regex.compile(r"^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$"),
        latin=regex.compile(r"\p{Script=Latin}"),
        cjk=regex.compile(r"[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]"),
        kana=regex.compile(r"[\p{Script=Hiragana}\p{Script=Katakana}]"),
        han_or_hangul=regex.compile(r"[\p{Script=Han}\p{Script=Hangul}]"),
        day_file=regex.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}\.[\p{L}\p{N}]+$"),
        words=lambda text: list(WordBreaker(text, "und")),
    )


def _classes(text: str, *, unicode: bool = False) -> _Classes:
    return _PLAIN if not unicode and (text.isascii() or PLAIN_CHARS.issuperset(text)) else _unicode()


def _units(text: str) -> int:
    if text.isascii():
        return len(text)
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def _script(tag: str, classes: _Classes) -> str:
    normalized = unicodedata.normalize("NFKC", tag)
    latin = bool(classes.latin.search(normalized))
    cjk = bool(classes.cjk.search(normalized))
    if latin and cjk:
        return "mixed"
    return "cjk" if cjk else "latin" if latin else "other"


def tag_script(tag: str) -> str:
    """`latin`, `cjk`, `mixed` or `other`, by the scripts in the NFKC form of `tag`."""
    return _script(tag, _classes(tag))


def _normalize(raw: str, classes: _Classes) -> str | None:
    token = classes.edge_noise.sub("", unicodedata.normalize("NFKC", raw)).replace("_", "-").strip().lower()
    if not token or not classes.letter_or_number.search(token) or _units(token) > MAX_TAG_UNITS:
        return None
    if _DIGITS_RE.match(token) or _DAY_RE.match(token) or classes.day_file.match(token):
        return None
    if _units(token) < (2 if _script(token, classes) == "cjk" else 3):
        return None
    if not classes.han_or_hangul.search(token) and classes.kana.search(token) and _units(token) < 3:
        return None
    return None if token in STOP_WORDS else token


def normalize_concept_token(raw: str) -> str | None:
    """The tag a raw token becomes, or None when it is noise (too short or long, a number, a date, a stop word)."""
    return _normalize(raw, _classes(raw))


def _words(text: str, classes: _Classes) -> list[str]:
    return [segment for segment in classes.words(text) if classes.letter_or_number.search(segment)]


def word_segments(text: str, *, unicode: bool = False) -> list[str]:
    """The word-like segments of ICU's word break iterator (root locale), in order. `unicode` forces the
    ICU path for text the plain path covers (the two agree there; tests compare them)."""
    return _words(text, _classes(text, unicode=unicode))


def derive_concept_tags(path: str, snippet: str, limit: int = MAX_CONCEPT_TAGS, *, unicode: bool = False) -> list[str]:
    """Up to `limit` distinct tags from the file name and the snippet: glossary, compounds, then words."""
    if limit <= 0:
        return []
    source = f"{PurePosixPath(path).name} {snippet}"
    classes = _classes(source, unicode=unicode)
    folded = unicodedata.normalize("NFKC", source).strip().lower()
    tags: list[str] = []
    raw_tokens = [entry for entry in PROTECTED_GLOSSARY if entry in folded]
    raw_tokens += classes.compound.findall(source)
    raw_tokens += _words(source, classes)
    for raw in raw_tokens:
        tag = _normalize(raw, classes)
        if tag and tag not in tags:
            tags.append(tag)
        if len(tags) >= limit:
            break
    return tags
