"""The query words OpenClaw 2026.9.6 searches with, restated from its dist in Python.

* `extract_keywords`: `extractKeywords` of `packages/memory-host-sdk/src/host/query-expansion.ts` (the terms of the
  per-keyword fallback searches): lowercase, split on whitespace and punctuation, kana / Han / Hangul rules, the
  EN, ES, PT, AR, ZH, KO and JA stop words (there is no German list), short ASCII words, digits and symbol runs
  dropped, first occurrence kept.
* `build_fts_query` / `search_tokens`: `buildFtsQuery` (`keyword-query.ts`) and `normalizeSearchTokens`
  (`manager-search.ts`): the FTS5 MATCH text and the lowercase query tokens the lexical boost counts.

JavaScript string semantics matter here: `trim()` uses JavaScript's whitespace set, lengths are UTF-16 code
units, and `\\s` / `\\p{P}` are the Unicode classes of the `u` flag.
"""

from __future__ import annotations

import unicodedata

import regex

from memtui.jscompat import JS_WHITESPACE, js_length, js_trim

_WORD_TOKEN = regex.compile(r"[\p{L}\p{N}_]+")
_WORD_TOKEN_WITH_MARKS = regex.compile(r"[\p{L}\p{M}\p{N}_]+")
# `/[\s\p{P}]+/u`: JavaScript's \s is its WhiteSpace + LineTerminator set.
_SEGMENT_SPLIT = regex.compile(f"[{regex.escape(JS_WHITESPACE)}\\p{{P}}]+")
_KANA = regex.compile(r"[\u3040-\u30ff]")
_HAN = regex.compile(r"[\u4e00-\u9fff]")
_HANGUL = regex.compile(r"[\uac00-\ud7af\u3131-\u3163]")
_HANGUL_SYLLABLE = regex.compile(r"[\uac00-\ud7af]")
_JA_PARTS = regex.compile(r"[a-z0-9_]+|[\u30a0-\u30ffー]+|[\u4e00-\u9fff]+|[\u3040-\u309f]{2,}")
_ALL_HAN = regex.compile(r"[\u4e00-\u9fff]+")
_ASCII_LETTERS = regex.compile(r"[a-zA-Z]+")
_ASCII_DIGITS = regex.compile(r"[0-9]+")
_PUNCT_OR_SYMBOL = regex.compile(r"[\p{P}\p{S}]+")
_ASCII_WORD = regex.compile(r"[a-zA-Z0-9_]+")



def _words(text: str) -> frozenset[str]:
    """A stop-word list written as whitespace-separated words."""
    return frozenset(text.split())


STOP_WORDS_EN = _words("""
a an the this that these those i me my we our you your he
she it they them is are was were be been being have has had
do does did will would could should can may might in on at
to for of with by from about into through during before
after above below between under over and or but if then
because as while when where what which who how why yesterday
today tomorrow earlier later recently ago just now thing
things stuff something anything everything nothing please
help find show get tell give
""")
STOP_WORDS_ES = _words("""
el la los las un una unos unas este esta ese esa yo me mi
nosotros nosotras tu tus usted ustedes ellos ellas de del a
en con por para sobre entre y o pero si porque como es son
fue fueron ser estar haber tener hacer ayer hoy mañana antes
despues después ahora recientemente que qué cómo cuando
cuándo donde dónde porqué favor ayuda
""")
STOP_WORDS_PT = _words("""
o a os as um uma uns umas este esta esse essa eu me meu
minha nos nós você vocês ele ela eles elas de do da em com
por para sobre entre e ou mas se porque como é são foi foram
ser estar ter fazer ontem hoje amanhã antes depois agora
recentemente que quê quando onde porquê favor ajuda
""")
STOP_WORDS_AR = frozenset([
    "ال", "و", "أو", "لكن", "ثم", "بل", "أنا", "نحن", "هو", "هي", "هم", "هذا", "هذه", "ذلك", "تلك", "هنا", "هناك",
    "من", "إلى", "الى", "في", "على", "عن", "مع", "بين", "ل", "ب", "ك", "كان", "كانت", "يكون", "تكون", "صار", "أصبح",
    "يمكن", "ممكن", "بالأمس", "امس", "اليوم", "غدا", "الآن", "قبل", "بعد", "مؤخرا", "لماذا", "كيف", "ماذا", "متى",
    "أين", "هل", "من فضلك", "فضلا", "ساعد",
])
STOP_WORDS_KO = _words("""
은 는 이 가 을 를 의 에 에서 로 으로 와 과 도 만 까지 부터 한테 에게 께 처럼 같이 보다 마다 밖에
대로 나 나는 내가 나를 너 우리 저 저희 그 그녀 그들 이것 저것 그것 여기 저기 거기 있다 없다 하다
되다 이다 아니다 주다 오다 가다 것 거 등 수 때 곳 중 분 잘 더 또 매우 정말 아주 많이 너무 좀
그리고 하지만 그래서 그런데 그러나 또는 그러면 왜 어떻게 뭐 언제 어디 누구 무엇 어떤 어제 오늘 내일
최근 지금 아까 나중 전에 제발 부탁
""")
# Longest first, so "에서" is tried before "에".
KO_TRAILING_PARTICLES = tuple(sorted(
    ["에서", "으로", "에게", "한테", "처럼", "같이", "보다", "까지", "부터", "마다", "밖에", "대로",
     "은", "는", "이", "가", "을", "를", "의", "에", "로", "와", "과", "도", "만"],
    key=len, reverse=True))
STOP_WORDS_JA = _words("""
これ それ あれ この その あの ここ そこ あそこ する した して です ます いる ある なる できる の こと
もの ため そして しかし また でも から まで より だけ なぜ どう 何 いつ どこ 誰 どれ 昨日 今日 明日
最近 今 さっき 前 後
""")
STOP_WORDS_ZH = _words("""
我 我们 你 你们 他 她 它 他们 这 那 这个 那个 这些 那些 的 了 着 过 得 地 吗 呢 吧 啊 呀 嘛 啦
是 有 在 被 把 给 让 用 到 去 来 做 说 看 找 想 要 能 会 可以 和 与 或 但 但是 因为 所以 如果
虽然 而 也 都 就 还 又 再 才 只 之前 以前 之后 以后 刚才 现在 昨天 今天 明天 最近 东西 事情 事
什么 哪个 哪些 怎么 为什么 多少 请 帮 帮忙 告诉
""")
_STOP_LISTS = (STOP_WORDS_EN, STOP_WORDS_ES, STOP_WORDS_PT, STOP_WORDS_AR, STOP_WORDS_ZH, STOP_WORDS_KO,
               STOP_WORDS_JA)


def js_lower(text: str) -> str:
    """`String.prototype.toLowerCase()` (Python's `lower()` has the same full mapping, final sigma included)."""
    return text.lower()


def is_stop_word(token: str) -> bool:
    """`isQueryStopWordToken`: the token is on one of the seven lists."""
    return any(token in words for words in _STOP_LISTS)


def is_valid_keyword(token: str) -> bool:
    """`isValidKeyword`: not empty, not ASCII letters shorter than 3, not ASCII digits only, not only
    punctuation and symbols."""
    if not token:
        return False
    if _ASCII_LETTERS.fullmatch(token) and js_length(token) < 3:
        return False
    if _ASCII_DIGITS.fullmatch(token):
        return False
    return not _PUNCT_OR_SYMBOL.fullmatch(token)


def _strip_korean_particle(token: str) -> str | None:
    for particle in KO_TRAILING_PARTICLES:
        if len(token) > len(particle) and token.endswith(particle):
            return token[: -len(particle)]
    return None


def _useful_korean_stem(stem: str) -> bool:
    if _HANGUL_SYLLABLE.search(stem):
        return js_length(stem) >= 2
    return _ASCII_WORD.fullmatch(stem) is not None


def _bigrams(chars: list[str] | str) -> list[str]:
    return [chars[i] + chars[i + 1] for i in range(len(chars) - 1)]


def query_tokens(text: str, *, trigram: bool = False) -> list[str]:
    """The `tokenize` of query-expansion.ts: candidate tokens before stop-word and validity filtering."""
    tokens: list[str] = []
    for segment in _SEGMENT_SPLIT.split(js_lower(js_trim(text))):
        if not segment:
            continue
        if _KANA.search(segment):
            # Kana-bearing segment: ASCII runs, katakana runs, kanji runs (+ bigrams), hiragana runs of 2+.
            for part in _JA_PARTS.findall(segment):
                tokens.append(part)
                if _ALL_HAN.fullmatch(part) and not trigram:
                    tokens.extend(_bigrams(part))
        elif _HAN.search(segment):
            # Chinese: the Han characters alone (everything else in the segment is dropped) and adjacent pairs of
            # them, or with trigram one block.
            chars = [c for c in segment if _HAN.match(c)]
            if trigram:
                if chars:
                    tokens.append("".join(chars))
            else:
                tokens.extend(chars)
                tokens.extend(_bigrams(chars))
        elif _HANGUL.search(segment):
            stem = _strip_korean_particle(segment)
            stem_is_stop = stem is not None and stem in STOP_WORDS_KO
            if segment not in STOP_WORDS_KO and not stem_is_stop:
                tokens.append(segment)
            if stem and stem not in STOP_WORDS_KO and _useful_korean_stem(stem):
                tokens.append(stem)
        else:
            tokens.append(segment)
    return tokens


def extract_keywords(query: str, *, fts_tokenizer: str = "unicode61") -> list[str]:
    """`extractKeywords(query, {ftsTokenizer})`: the fallback search terms, in query order, deduplicated."""
    keywords: list[str] = []
    seen: set[str] = set()
    for token in query_tokens(query, trigram=fts_tokenizer == "trigram"):
        if is_stop_word(token) or not is_valid_keyword(token) or token in seen:
            continue
        seen.add(token)
        keywords.append(token)
    return keywords


def raw_tokens(text: str, *, with_marks: bool = False) -> list[str]:
    """`normalizeStringEntries(text.match(/[\\p{L}\\p{N}_]+/gu))`: trimmed, non-empty matches (not deduplicated)."""
    pattern = _WORD_TOKEN_WITH_MARKS if with_marks else _WORD_TOKEN
    return [t for t in (js_trim(m) for m in pattern.findall(text)) if t]


def quote_terms(terms: list[str]) -> str | None:
    """Each term double-quoted (its own quotes removed), joined with ` AND `; None for no terms."""
    if not terms:
        return None
    return " AND ".join(f'"{t.replace(chr(34), "")}"' for t in terms)


def build_fts_query(raw: str) -> str | None:
    """`buildFtsQuery`: every word token of `raw`, quoted and AND-ed (stop words kept, case kept)."""
    return quote_terms(raw_tokens(raw))


def search_tokens(text: str) -> list[str]:
    """`normalizeSearchTokens`: the NFC word tokens of `text`, lowercased (duplicates kept)."""
    return [js_lower(t) for t in raw_tokens(unicodedata.normalize("NFC", text))]


def unique(values: list[str]) -> list[str]:
    """First-seen unique values, in order (`uniqueStrings`)."""
    return list(dict.fromkeys(values))
