"""Grounded REM evidence of one daily note, as OpenClaw 2026.4.29's `rem-evidence.ts` extracts it for
`rem-backfill`: sections, facts, reflections, durable candidates and possible lasting updates, rendered as the
Markdown that becomes a backfilled diary entry (`previewGroundedRemForFile`)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_I = re.IGNORECASE | re.ASCII


def _rx(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, _I)


BLOCKED_SECTION = _rx(r"\b(morning reminders|tasks? for today|to-?do|pickups?|action items?|next steps?|open questions?|stats|setup tasks?|priority contacts|visitors?|top priority candidates|timeline coverage|action items for morning review|test .* skill|heartbeat checks?|date semantics guardrail|still broken|last message (?:&|and) status|plugin \/ service warning|email triage cron)\b")  # noqa: E501
GENERIC_SECTION = _rx(r"^(setup|session notes?|notes|summary|major accomplishments?|infrastructure|process improvements?)$")  # noqa: E501
MEMORY = _rx(r"\b(always use|prefers?|preference|preferences|standing rule|rule:|use .* calendar|durable|remember)\b")
BUILD = _rx(r"\b(set up|setup|created|built|rewrite|rewrote|implemented|installed|configured|added|updated|exported|documented)\b")  # noqa: E501
INCIDENT = _rx(r"\b(fail(?:ed|ing)?|error|issue|problem|auth|expired|broken|unable|missing|required|root cause|consecutive failures?)\b")  # noqa: E501
LOGISTICS = _rx(r"\b(visitor|arriv(?:e|al|ing)|flight|calendar|reservation|schedule|coordinate|travel|pickup)\b")
TASK = _rx(r"\b(reminder|task|to-?do|action item|next step|need to|follow up|respond to|call\b|check\b)\b")
ROUTING = _rx(r"\b(categor(?:ize|ized|ization)|route|routing|workflow|processor|read later|auto-implement|codex|razor)\b")  # noqa: E501
OPERATOR_RULE = _rx(r"\b(learned:|rule:|always [a-z])\b")
EXTERNALIZATION = _rx(r"\b(obsidian|memory|tracker|notes captured|committed to memory|updated .*md|documented|file comparison table)\b")  # noqa: E501
RETRY = _rx(r"\b(repeat(?:ed|edly)?|again|retry|root cause|third attempt|fourth|fifth|consecutive failures?)\b")
PERSON_PATTERN = _rx(r"\b(relationship|who:|patterns?:|failure modes?:|best stance:|space|boundaries|timing|family quick reference)\b")  # noqa: E501
SITUATIONAL = _rx(r"\b(hotel|address|phone|reservation|check-?in|check-?out|flight|arrival|departure|terminal|price shown|invoice|pending items|screenshot|butler)\b")  # noqa: E501
PERSISTENCE = _rx(r"\b(always|preference|prefers?|standing rule|best stance|failure modes?|key patterns?|relationship|who:|important .* keep track|people in .* life|partner|wife|husband|boyfriend|girlfriend)\b")  # noqa: E501
TRANSIENT = _rx(r"\b(today|this session|in progress|installed|booked|confirmed|pending|status:|action pending|open items?|next steps?|issue:|diagnostics|screenshot|source file|insight files|thread\b|ticket|price shown|calendar fix|cron fixes|security audit|updates? this session|bought:|order\b)\b")  # noqa: E501
SECTION_PERSISTENCE_TITLE = _rx(r"\b(preferences? learned|preference|people update|relationship|standing|patterns?|identity|memory)\b")  # noqa: E501
SECTION_TRANSIENT_TITLE = _rx(r"\b(setup|fix|fixes|audit|booked|call|today|session|updates?|file paths|open items?|next steps?|research pipeline|info gathered|calendar|tickets?)\b")  # noqa: E501
METADATA_HEAVY = _rx(r"\b(address|phone|email|website|google maps|source file|insight files|conversation id|thread has|order\b|reservation\b|price\b|cost\b|ticket|uuid|url:|model:|workspace:|bindings:|accountid|config change|path:)\b")  # noqa: E501
PROJECT_META = _rx(r"\b(strategy|audit|discussion|research|topic|candidate|north star|pipeline|data dump|export|draft|insights? draft|weekly|analysis|findings)\b")  # noqa: E501
PROCESS_FRAME = _rx(r"\b(dossier|registry|cadence|framework|facts,\s*timeline|open loops|next actions|auto preference rollups?|insights? draft created)\b")  # noqa: E501
TOOLING_META = _rx(r"\b(cli|tool|tools\.md|agents\.md|sessionssend|subagents?|spawn|tmux|xurl|bird|codex exec|interactive codex)\b")  # noqa: E501
TRAVEL_DECISION = _rx(r"\b(routing|cabin|business class|trip brief|departure|arrival|hotel|reservation|tickets?|show tonight|cheaper alternatives?|venue timing)\b")  # noqa: E501
STABLE_PERSON = _rx(r"\b(partner|wife|husband|boyfriend|girlfriend|relationship interest|lives in)\b")
EXPLICIT_PREFERENCE = _rx(r"\b(explicitly|wants?|does not want|don't want|default .* should|should default to|likes?|dislikes?|treat .* as|prefers?)\b")  # noqa: E501
MONITORING = _rx(r"\b(heartbeat|ariston|collect-temps|low pressure|exit code|invalid[_-]?grant|token expired|token revoked|warning\/error|warning|alert(?:ing)?|checkpoint at|daily note file already existed|header creation|local time verified|calendar access failed|gmail .* failed|no proactive .* sent|silent log only|gateway restarted successfully|still no response|no reply yet|blocked\b|passkey|credential|password in bws|working correctly|catchup completed)\b")  # noqa: E501
SPECIFICITY_BURDEN = _rx(r"\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)\b|€|\$\d|→|\b\d{1,2}:\d{2}\b|\+\d{6,}")
TIME_PREFIX = re.compile(r"^\d{1,2}:\d{2}\s*-\s*")
CODE_FENCE = re.compile(r"^\s*```")
TABLE = re.compile(r"^\s*\|.*\|\s*$")
TABLE_DIVIDER = re.compile(r"^\s*\|?[\s:-]+\|[\s|:-]*$")
FACT_LIMIT, REFLECTION_LIMIT, MEMORY_LIMIT = 4, 4, 3
_WS = "[\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]"
_WS_RUN = re.compile(f"{_WS}+")
_WS_EDGES = re.compile(f"^{_WS}+|{_WS}+$")


def _units(text: str) -> int:
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def squash(value: str) -> str:
    """JavaScript `trim()` then every whitespace run to one space."""
    return _WS_RUN.sub(" ", _WS_EDGES.sub("", value))


def strip_markdown(text: str) -> str:
    """Images dropped, links to their text, emphasis and heading marks removed."""
    text = re.sub(r"!\[[^\]]*]\([^)]*\)", "", text)
    text = re.sub(r"\[([^\]]+)]\([^)]*\)", r"\1", text)
    return squash(_WS_RUN.sub(" ", re.sub(r"[`*_~>#]", "", text)))


def section_title(title: str) -> str:
    """A heading's text without Markdown and a leading `HH:MM -`."""
    return squash(TIME_PREFIX.sub("", strip_markdown(title)))


def ref(path: str, start: int, end: int | None = None) -> str:
    """`path:line` or `path:start-end`."""
    return f"{path}:{start}" if end is None or start == end else f"{path}:{start}-{end}"


@dataclass
class Section:
    """A `##`–`######` section of a note with its meaningful lines."""

    title: str
    start_line: int
    end_line: int
    lines: list[tuple[int, str]] = field(default_factory=list)


def parse_sections(content: str) -> list[Section]:
    """Sections under level-2+ headings; code fences, rules and tables skipped; empty sections dropped."""
    sections: list[Section] = []
    current: Section | None = None
    in_fence = False

    def flush() -> None:
        if current is None:
            return
        meaningful = [(n, t) for n, t in current.lines if squash(t)]
        if meaningful:
            current.end_line, current.lines = meaningful[-1][0], meaningful
            sections.append(current)

    for index, raw in enumerate(re.split(r"\r?\n", content)):
        number = index + 1
        if CODE_FENCE.search(raw):
            in_fence = not in_fence
            continue
        if in_fence:
            continue
        heading = re.match(r"^\s{0,3}(#{2,6})\s+(.+)$", raw)
        if heading:
            flush()
            current = Section(section_title(heading.group(2)), number, number)
            continue
        if current is None:
            continue
        current.end_line = number
        trimmed = raw.strip()
        if not trimmed or re.fullmatch(r"---+", trimmed) or TABLE.search(trimmed) or TABLE_DIVIDER.search(trimmed):
            continue
        current.lines.append((number, raw))
    flush()
    return sections


def section_snippets(section: Section) -> list[tuple[str, int]]:
    """(text, line) of each list item or line of at least 10 characters, de-duplicated case-insensitively."""
    found: list[tuple[str, int]] = []
    seen: set[str] = set()
    for number, raw in section.lines:
        trimmed = raw.strip()
        if not trimmed:
            continue
        item = re.match(r"^(?:[-*+]|\d+\.)\s+(?:\[[ xX]\]\s*)?(.*)$", trimmed)
        text = squash(strip_markdown(item.group(1) if item else trimmed))
        if _units(text) < 10 or text.lower() in seen:
            continue
        seen.add(text.lower())
        found.append((text, number))
    return found


def _count(snippets: list[tuple[str, int]], pattern: re.Pattern[str]) -> int:
    return sum(1 for text, _ in snippets if pattern.search(text))


def section_scores(section: Section, snippets: list[tuple[str, int]]) -> dict[str, float]:
    """Signal counts of a section (its title counts once more) and their weighted `overall`."""
    def signal(pattern: re.Pattern[str]) -> int:
        return _count(snippets, pattern) + (1 if pattern.search(section.title) else 0)

    scores = {"preference": signal(MEMORY), "build": signal(BUILD), "incident": signal(INCIDENT),
              "logistics": signal(LOGISTICS), "tasks": signal(TASK), "routing": signal(ROUTING),
              "externalization": signal(EXTERNALIZATION), "retries": signal(RETRY)}
    scores["overall"] = (scores["preference"] * 2 + scores["build"] * 1.6 + scores["incident"] * 1.6
                         + scores["logistics"] * 1.2 + scores["routing"] * 1.8 + scores["externalization"] * 1.4
                         + min(len(snippets), 3) * 0.3 - (0.8 if GENERIC_SECTION.search(section.title) else 0))
    return scores


def _snippet_score(text: str, title: str) -> float:
    score = 1.0
    for pattern, weight in ((MEMORY, 2.2), (BUILD, 1.2), (INCIDENT, 1.2), (LOGISTICS, 0.9), (ROUTING, 1.4),
                            (EXTERNALIZATION, 1.1), (RETRY, 0.9)):
        if pattern.search(text):
            score += weight
    if TASK.search(text) and not BUILD.search(text):
        score -= 0.8
    if title and not GENERIC_SECTION.search(title):
        score += 0.25
    return score


def _join(parts: list[str]) -> str:
    if len(parts) <= 1:
        return parts[0] if parts else ""
    if len(parts) == 2:
        return f"{parts[0]} and {parts[1]}"
    return f"{'; '.join(parts[:-1])}; and {parts[-1]}"


@dataclass(frozen=True)
class Summary:
    """A section condensed to its best lines."""

    title: str
    text: str
    refs: list[str]
    scores: dict[str, float]


def summarize(path: str, section: Section) -> Summary | None:
    """The section's two or three best snippets joined, prefixed by its title unless generic."""
    if BLOCKED_SECTION.search(section.title):
        return None
    snippets = section_snippets(section)
    if not snippets:
        return None
    limit = 2 if GENERIC_SECTION.search(section.title) else 3
    chosen = sorted(snippets, key=lambda s: (-_snippet_score(s[0], section.title), s[1]))[:limit]
    chosen.sort(key=lambda s: s[1])
    title = section_title(section.title)
    body = _join([t for t, _ in chosen])
    text = body if not title or GENERIC_SECTION.search(title) else f"{title}: {body}"
    return Summary(title, text, [ref(path, n) for _, n in chosen], section_scores(section, snippets))


def _compact_title(title: str) -> str:
    compact = re.sub(r"\s*\((?:via:|from qmd \+ memory|this session)[^)]+\)\s*", " ", section_title(title), flags=_I)
    compact = re.sub(r"\s*[—-]\s*(?:research results.*|in progress.*|working.*|installed.*|booked.*|proposed.*|"
                     r"clarified.*|candidate.*|fixes.*|updates?.*)$", "", compact, flags=_I).strip()
    if re.fullmatch(r"preferences? learned|candidate facts?", compact, _I):
        return ""
    return re.sub(r"^preference:\s*", "", compact, flags=_I)


def _compact_text(text: str, title: str) -> str:
    normalized = squash(text)
    both = f"{title} {normalized}"
    if MONITORING.search(both):
        for noise in (r"\b(?:local time verified[^.;]*[.;]?\s*)",
                      r"\b(?:daily note file already existed[^.;]*[.;]?\s*)",
                      r"\b(?:header creation[^.;]*[.;]?\s*)"):
            normalized = re.sub(noise, "", normalized, flags=_I)
        return normalized.strip()
    if STABLE_PERSON.search(both):
        return re.split(r"(?<=[.?!])\s+", normalized)[0].strip()
    return normalized


def _durable(text: str, title: str) -> bool:
    return bool(MEMORY.search(text) or PERSISTENCE.search(text) or EXPLICIT_PREFERENCE.search(text)
                or STABLE_PERSON.search(f"{title} {text}") or PERSON_PATTERN.search(text))


def candidate_score(text: str, title: str) -> float:
    """How durable a claim reads: persistence and preference up, metadata, logistics and incidents down.

    The terms are added in OpenClaw's order, so thresholds compare on the same floating-point sums."""
    both = f"{title} {text}"
    terms = (
        (PERSISTENCE.search(text), 3.2), (MEMORY.search(text), 2.4), (EXPLICIT_PREFERENCE.search(text), 1.8),
        (PERSON_PATTERN.search(text), 2.3), (OPERATOR_RULE.search(text), 1.6),
        (SECTION_PERSISTENCE_TITLE.search(title), 1.2), (STABLE_PERSON.search(text), 1.5),
        (METADATA_HEAVY.search(text), -2.4), (PROJECT_META.search(both), -2.2), (PROCESS_FRAME.search(text), -2.4),
        (TOOLING_META.search(text) and not STABLE_PERSON.search(text), -2.1),
        (MONITORING.search(both) and not MEMORY.search(text), -4.2), (TRAVEL_DECISION.search(text), -2.6),
        (SPECIFICITY_BURDEN.search(text) and not STABLE_PERSON.search(text), -1.2),
        (SITUATIONAL.search(text), -2.8), (TRANSIENT.search(text), -2.0), (INCIDENT.search(text), -1.6),
        (TASK.search(text), -1.2), (LOGISTICS.search(text) and not MEMORY.search(text), -1.4),
        (BUILD.search(text) and not MEMORY.search(text), -0.8),
        (SECTION_TRANSIENT_TITLE.search(title) and not SECTION_PERSISTENCE_TITLE.search(title), -1.2),
        (re.search(r"[`/]", text) or re.search(r"https?://", text, _I), -0.8),
    )
    score = 0.0
    for hit, weight in terms:
        if hit:
            score += weight
    return score


def _pick(section: Section, snippets: list[tuple[str, int]], floor: float, claims: bool) -> list[tuple[str, int]]:
    scored = []
    for text, line in snippets:
        compact = _compact_text(text, section.title)
        score = candidate_score(compact, section.title)
        if claims:
            score = max([score, *(candidate_score(c, section.title) for c in atomize(compact))])
        else:
            score += 0.6 if MEMORY.search(compact) else 0
        if MONITORING.search(f"{section.title} {compact}") and not _durable(compact, section.title):
            continue
        if _units(compact) >= 18 and score >= floor:
            scored.append((compact, line, score))
    scored.sort(key=lambda s: (-s[2], s[1]))
    return sorted(((t, n) for t, n, _ in scored[:2]), key=lambda s: s[1])


def fact_text(title: str, text: str) -> str:
    """A fact, prefixed by its section title when that title names something lasting."""
    compact = _compact_title(title)
    if compact and (SECTION_PERSISTENCE_TITLE.search(compact) or STABLE_PERSON.search(compact)
                    or re.search(r"\b(relationship|people mentioned|people update|identity)\b", compact, _I)):
        return f"{compact}: {text}"
    return text


def _top_level(text: str, delimiter: str) -> int:
    depth_round = depth_square = 0
    for index, char in enumerate(text):
        if char == "(":
            depth_round += 1
        elif char == ")":
            depth_round = max(0, depth_round - 1)
        elif char == "[":
            depth_square += 1
        elif char == "]":
            depth_square = max(0, depth_square - 1)
        elif char == delimiter and depth_round == 0 and depth_square == 0:
            return index
    return -1


def _clauses(text: str, delimiter: str) -> list[str]:
    parts = []
    rest = text
    while rest:
        at = _top_level(rest, delimiter)
        if at < 0:
            parts.append(rest)
            break
        parts.append(rest[:at])
        rest = rest[at + 1:]
    return [p for p in (squash(p) for p in parts) if p]


def _subject_lead(text: str) -> list[str]:
    match = re.match(r"^(?P<subject>.+?(?:—|–|\s-\s))\s*(?P<rest>.+)$", text)
    if not match:
        return [text]
    subject, rest = squash(match.group("subject")), squash(match.group("rest"))
    comma = _top_level(rest, ",") if subject and rest else -1
    if comma < 0:
        return [text]
    first, remainder = squash(rest[:comma]), squash(rest[comma + 1:])
    if _units(first) < 3 or _units(remainder) < 6:
        return [text]
    return [f"{subject} {first}", f"{subject} {remainder}"]


def atomize(text: str) -> list[str]:
    """Up to three atomic claims: top-level `;` clauses, a `Subject — a, b` lead split in two."""
    normalized = squash(text)
    if not normalized:
        return []
    parts = [squash(p) for clause in _clauses(normalized, ";") for p in _subject_lead(clause)]
    return list(dict.fromkeys(p for p in parts if p))[:3]


def lean(text: str, title: str) -> str:
    """`likely_durable`, `likely_situational` or `unclear`."""
    score = candidate_score(text, title)
    if score >= 4:
        return "likely_durable"
    if score <= 0.25 or SITUATIONAL.search(text) or TRANSIENT.search(text):
        return "likely_situational"
    return "unclear"


@dataclass(frozen=True)
class Item:
    """A fact, reflection, candidate or lasting update with its `path:line` references."""

    text: str
    refs: list[str]
    lean: str | None = None
    score: float = 0.0


@dataclass(frozen=True)
class GroundedFile:
    """`previewGroundedRemForFile`'s result for one note."""

    path: str
    facts: list[Item]
    reflections: list[Item]
    memory_implications: list[Item]
    candidates: list[Item]
    rendered_markdown: str


def _unique_text(items: list[Item]) -> list[Item]:
    seen: set[str] = set()
    out = []
    for item in items:
        if item.text not in seen:
            seen.add(item.text)
            out.append(item)
    return out


_REFLECTIONS = {
    "monitoring": "This day reads mostly as monitoring and operational state, not as durable memory. It should be "
                  "treated as current-state exhaust unless a clearer rule or preference appears.",
    "rule": "A stable rule or preference was stated explicitly, which suggests operating choices are being made "
            "legible instead of left implicit.",
    "people": "More than one active relationship thread appears in the same day, which means person-memory matters "
              "operationally: who each person is should be kept separate from the transient date or venue details "
              "attached to them.",
    "routing": "The strongest pattern here is a preference for converting messy inbound information into routed "
               "workflows with different downstream actions, instead of handling each case manually.",
    "external": "Important context tends to get externalized quickly into notes, trackers, or memory surfaces, which "
                "suggests a preference for explicit systems over holding context informally.",
    "build": "The day leaned toward building operator infrastructure, which suggests the interaction is often used to "
             "reshape the system around recurring needs rather than just complete isolated tasks.",
    "retry": "When something breaks repeatedly, the response is systematic: retries, root-cause narrowing, and "
             "preserving enough state to resume once the blocker is fixed.",
    "friction": "A meaningful share of the day went into friction, and the interaction pattern looks pragmatic rather "
                "than emotional: diagnose the blocker, preserve state, and move on.",
    "logistics": "Personal logistics and operating-system work are being managed in the same surface, which suggests "
                 "a preference for one integrated control plane rather than separate personal and technical loops.",
    "tasks": "The raw note is mostly task and current-state material, so it should not be over-read as memory.",
}


def _strongest(summaries: list[Summary], keep) -> Summary | None:
    best = None
    for summary in summaries:
        if keep(summary) and (best is None or summary.scores["overall"] > best.scores["overall"]):
            best = summary
    return best


def _facts(path: str, sections: list[Section], summaries: list[Summary], monitoring: int) -> list[Item]:
    scored = []
    for section in sections:
        snippets = section_snippets(section) if not BLOCKED_SECTION.search(section.title) else []
        for text, line in _pick(section, snippets, 1.4, claims=False) if snippets else []:
            scored.append(Item(fact_text(section.title, text), [ref(path, line)],
                               score=candidate_score(text, section.title)))
    facts: list[Item] = []
    used: set[str] = set()
    for item in sorted(scored, key=lambda i: -i.score):
        if item.text.lower() not in used:
            used.add(item.text.lower())
            facts.append(Item(item.text, item.refs))
        if len(facts) >= FACT_LIMIT:
            return facts
    if facts or monitoring >= 3:
        return facts

    def best(metric: str) -> Summary | None:
        ranked = sorted((s for s in summaries if s.scores[metric] > 0),
                        key=lambda s: (-s.scores[metric], -s.scores["overall"]))
        return ranked[0] if ranked else None

    fallback = [best("preference"), best("routing"), best("externalization"),
                *sorted(summaries, key=lambda s: -s.scores["overall"])]
    for summary in fallback:
        if summary is None or summary.text.lower() in used:
            continue
        used.add(summary.text.lower())
        facts.append(Item(summary.text, summary.refs))
        if len(facts) >= FACT_LIMIT:
            break
    return facts


def _candidates(path: str, sections: list[Section]) -> list[Item]:
    found = []
    for section in sections:
        snippets = section_snippets(section) if not BLOCKED_SECTION.search(section.title) else []
        for text, line in _pick(section, snippets, 1.8, claims=True) if snippets else []:
            for claim in atomize(text):
                score = candidate_score(claim, section.title)
                item = Item(fact_text(section.title, claim), [ref(path, line)], lean(claim, section.title), score)
                if _units(item.text) >= 12 and score >= 1.8:
                    found.append(item)
    return found


def preview_file(path: str, content: str) -> GroundedFile:
    """Facts, reflections, candidates and lasting updates of one note, and their Markdown."""
    sections = parse_sections(content)
    scored = [(s, section_snippets(s)) for s in sections]
    monitoring = sum(_count(snips, MONITORING) + (1 if MONITORING.search(s.title) else 0) for s, snips in scored)
    summaries = [x for x in (summarize(path, s) for s in sections) if x is not None]
    facts = _facts(path, sections, summaries, monitoring)
    stated = _unique_text([Item(re.sub(r"^[^:]+:\s*", "", s.text, count=1), s.refs) for s in summaries
                           if s.scores["preference"] > 0 or re.search(r"process improvements?", s.title, _I)
                           or OPERATOR_RULE.search(s.text)])[:MEMORY_LIMIT]
    found = _candidates(path, sections)
    rank = {"likely_durable": 0, "unclear": 1, "likely_situational": 2}
    candidates = _unique_text(sorted(found, key=lambda c: (rank[c.lean or "unclear"], -c.score)))[:4]
    durable = sorted(_unique_text([c for c in found if c.lean == "likely_durable" or c.score >= 4]),
                     key=lambda c: -c.score)[:MEMORY_LIMIT]
    driven = sorted(_unique_text([c for c in found if c.lean != "likely_situational" and c.score >= 2.2]),
                    key=lambda c: -c.score)[:MEMORY_LIMIT]
    lasting = [Item(c.text, c.refs) for c in (durable or driven)] or stated
    reflections = _reflections(path, sections, summaries, scored, facts, lasting, monitoring)
    limit = 1 if not facts else 2 if len(facts) == 1 else min(REFLECTION_LIMIT, len(facts) + 1)
    shown = reflections[:limit]
    lines = ["## What Happened"]
    lines += [f"{i}. {f.text} [{', '.join(f.refs)}]" for i, f in enumerate(facts, 1)] \
        or ["1. No grounded facts were extracted."]
    lines += ["", "## Reflections"]
    lines += [f"{i}. {r.text} [{', '.join(r.refs)}]" for i, r in enumerate(shown, 1)] \
        or ["1. No grounded reflections emerged from this note yet."]
    if candidates:
        lines += ["", "## Candidates", *(f"- [{c.lean}] {c.text} [{', '.join(c.refs)}]" for c in candidates)]
    if lasting:
        lines += ["", "## Possible Lasting Updates", *(f"- {m.text} [{', '.join(m.refs)}]" for m in lasting)]
    return GroundedFile(path, facts, shown, lasting, candidates, "\n".join(lines))


def _reflections(path: str, sections: list[Section], summaries: list[Summary], scored, facts: list[Item],
                 lasting: list[Item], monitoring: int) -> list[Item]:
    out: list[Item] = []
    seen: set[str] = set()

    def add(kind: str, refs: list[str]) -> None:
        text = squash(_REFLECTIONS[kind])
        if text.lower() not in seen:
            seen.add(text.lower())
            out.append(Item(text, refs))

    whole = [ref(path, sections[0].start_line if sections else 1, sections[-1].end_line if sections else 1)]
    people = [f for f in facts if STABLE_PERSON.search(f.text)]
    several = len(people) >= 2
    total = {k: sum(s.scores[k] for s in summaries) for k in ("build", "incident", "logistics", "routing",
                                                              "externalization", "retries")}
    tasks = sum(section_scores(s, snips)["tasks"] for s, snips in scored)
    routing = _strongest(summaries, lambda s: s.scores["routing"] > 0 or ROUTING.search(s.text))
    incident = _strongest(summaries, lambda s: s.scores["incident"] > 0)
    external = _strongest(summaries, lambda s: s.scores["externalization"] > 0)
    if not facts and monitoring >= 3:
        add("monitoring", whole)
    if lasting:
        add("rule", [r for m in lasting for r in m.refs][:3])
    if several:
        add("people", [r for f in people for r in f.refs][:3])
    if not several and facts and total["routing"] >= 2 and routing and total["build"] >= total["incident"]:
        add("routing", routing.refs)
    if not several and facts and total["externalization"] >= 2 and external:
        add("external", external.refs)
    if not several and facts and total["build"] >= 2:
        refs = [r for f in facts if BUILD.search(f.text) for r in f.refs][:3]
        if refs:
            add("build", refs)
    if facts and total["incident"] >= 2 and incident:
        add("retry" if total["retries"] >= 2 else "friction", incident.refs)
    if not several and facts and total["logistics"] >= 2:
        refs = [r for f in facts if LOGISTICS.search(f.text) for r in f.refs][:3]
        if refs:
            add("logistics", refs)
    if tasks >= 3 and not out:
        add("tasks", whole)
    return out
