"""Concept tags of a short-term recall snippet, as OpenClaw 2026.4.29's `deriveConceptTags` makes them (§12.4).

Sources, in order: a protected multilingual glossary, compound tokens (`a.b`, `a/b`, `a-b`, `a_b`) and the
words of ICU's word break iterator, which is what `Intl.Segmenter("und", {granularity: "word"})` runs in
Node. The ICU bundled with `icu4py` is 78.3, the version of Node 24's, so CJK words split by the same
dictionary. A segment counts as a word when it holds a letter or a digit (Node's `isWordLike`); on the
recording the two agree on every snippet. Lengths are UTF-16 code units, as in JavaScript.
"""

from __future__ import annotations

import unicodedata
from pathlib import PurePosixPath

import regex
from icu4py.breakers import WordBreaker

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

_COMPOUND_TOKEN_RE = regex.compile(r"[\p{L}\p{N}]+(?:[._/-][\p{L}\p{N}]+)+")
_LETTER_OR_NUMBER_RE = regex.compile(r"[\p{L}\p{N}]")
_EDGE_NOISE_RE = regex.compile(r"^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$")
_LATIN_RE = regex.compile(r"\p{Script=Latin}")
_CJK_RE = regex.compile(r"[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]")
_KANA_RE = regex.compile(r"[\p{Script=Hiragana}\p{Script=Katakana}]")
_HAN_OR_HANGUL_RE = regex.compile(r"[\p{Script=Han}\p{Script=Hangul}]")
_DIGITS_RE = regex.compile(r"^[0-9]+$")
_DAY_RE = regex.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$")
_DAY_FILE_RE = regex.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}\.[\p{L}\p{N}]+$")


def _units(text: str) -> int:
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def tag_script(tag: str) -> str:
    """`latin`, `cjk`, `mixed` or `other`, by the scripts in the NFKC form of `tag`."""
    normalized = unicodedata.normalize("NFKC", tag)
    latin = bool(_LATIN_RE.search(normalized))
    cjk = bool(_CJK_RE.search(normalized))
    if latin and cjk:
        return "mixed"
    return "cjk" if cjk else "latin" if latin else "other"


def normalize_concept_token(raw: str) -> str | None:
    """The tag a raw token becomes, or None when it is noise (too short or long, a number, a date, a stop word)."""
    token = _EDGE_NOISE_RE.sub("", unicodedata.normalize("NFKC", raw)).replace("_", "-").strip().lower()
    if not token or not _LETTER_OR_NUMBER_RE.search(token) or _units(token) > MAX_TAG_UNITS:
        return None
    if _DIGITS_RE.match(token) or _DAY_RE.match(token) or _DAY_FILE_RE.match(token):
        return None
    if _units(token) < (2 if tag_script(token) == "cjk" else 3):
        return None
    if not _HAN_OR_HANGUL_RE.search(token) and _KANA_RE.search(token) and _units(token) < 3:
        return None
    return None if token in STOP_WORDS else token


def word_segments(text: str) -> list[str]:
    """The word-like segments of ICU's word break iterator (root locale), in order."""
    return [segment for segment in WordBreaker(text, "und") if _LETTER_OR_NUMBER_RE.search(segment)]


def derive_concept_tags(path: str, snippet: str, limit: int = MAX_CONCEPT_TAGS) -> list[str]:
    """Up to `limit` distinct tags from the file name and the snippet: glossary, compounds, then words."""
    if limit <= 0:
        return []
    source = f"{PurePosixPath(path).name} {snippet}"
    folded = unicodedata.normalize("NFKC", source).strip().lower()
    tags: list[str] = []
    raw_tokens = [entry for entry in PROTECTED_GLOSSARY if entry in folded]
    raw_tokens += _COMPOUND_TOKEN_RE.findall(source)
    raw_tokens += word_segments(source)
    for raw in raw_tokens:
        tag = normalize_concept_token(raw)
        if tag and tag not in tags:
            tags.append(tag)
        if len(tags) >= limit:
            break
    return tags
