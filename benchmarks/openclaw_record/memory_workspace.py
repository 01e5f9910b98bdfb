"""The deterministic workspace the memory recording is made on.

`entries()` lists every file, folder and symlink under a root folder: the workspace is `ws/`, the
extra-path material lives in `outside/`, and `home/` is the HOME of the OpenClaw run (for `~/…` extra
paths). Paths are root-relative with `/`; symlink targets are relative. The same list is written into the
recording (`workspace.json`) so tests rebuild the tree without this module.

What it holds, and why: long daily logs and a 24 KB file (chunk overlap), a 5,000-character line and a
13,000-character line (segment cuts, the `memory_get` budget), CJK / kana / Hangul and extension-B text
(the CJK size estimate, surrogate pairs at segment and fine-split boundaries), emoji lines (UTF-16
budgets), CRLF, a BOM, empty and blank files, slug files, nested and dot folders under `memory/`, and
files OpenClaw must skip (lower-case `memory.md`, `.MD`, `.txt`, `.openclaw-repair/`, symlinks).
"""

from __future__ import annotations

import os
import random
from pathlib import Path
from typing import Any

TOPICS = {
    "network": "router vlan switch firewall subnet gateway dns dhcp latency packet bandwidth ethernet wifi mesh uplink",
    "garden": "tomato basil compost fence seedling soil mulch watering trellis harvest pepper squash lettuce",
    "db": "postgres connection pool timeout index vacuum replica migration query schema transaction deadlock",
    "travel": "train ticket hotel passport luggage itinerary museum airport taxi ferry platform",
    "cooking": "risotto saffron broth simmer garlic onion butter parmesan oven recipe",
}
# Stop words, plus two that are not ("notebook", "status"): frequent non-stop words give the boosted
# keyword scores below 1 that the per-keyword fallback and the density term are checked on.
COMMON = ["the", "and", "of", "to", "a", "in", "we", "it", "is", "that", "for", "on", "with", "was", "as", "at",
          "by", "this", "be", "notebook", "status"]
EMOJI = "😀😁😂🤣😃😄😅😆😉😊"


def _sentence(rng: random.Random, topic: str) -> str:
    words = TOPICS[topic].split()
    picked = [rng.choice(words) if rng.random() < 0.55 else rng.choice(COMMON) for _ in range(rng.randint(6, 14))]
    return " ".join(picked).capitalize() + "."


def _paragraphs(rng: random.Random, topics: list[str], count: int) -> list[str]:
    lines: list[str] = []
    for index in range(count):
        topic = topics[index % len(topics)]
        if index % 5 == 0:
            lines += ["", f"## {topic.capitalize()} notes {index // 5 + 1}", ""]
        if index % 3 == 0:
            lines.append(" ".join(_sentence(rng, topic) for _ in range(rng.randint(2, 4))))
        else:
            lines.append("- " + _sentence(rng, topic))
    return lines


def _daily(day: str, seed: int, topics: list[str], count: int, facts: list[str]) -> str:
    rng = random.Random(seed)
    lines = [f"# {day}", ""]
    body = _paragraphs(rng, topics, count)
    step = max(1, len(body) // (len(facts) + 1))
    for index, fact in enumerate(facts):
        body.insert((index + 1) * step, f"- {fact}")
    return "\n".join(lines + body) + "\n"


def _memory_md() -> str:
    rng = random.Random(7)
    head = [
        "# Long-Term Memory",
        "",
        "## Preferences",
        "- Likes green tea, not coffee.",
        "- Prefers the router vlan 42 for the lab network.",
        "- The garden fence is painted blue; repaint it every spring.",
        "- Uses postgres with a connection pool of 20 and a timeout of 30s.",
        "",
        "## People",
        "- Ana runs the database migration on Fridays.",
        "- Bo keeps the itinerary for the Zurich trip.",
        "",
    ]
    return "\n".join(head + _paragraphs(rng, ["network", "db", "garden"], 30)) + "\n"


def _big() -> str:
    rng = random.Random(11)
    lines = ["# Big notebook", ""]
    for index in range(240):
        topic = list(TOPICS)[index % len(TOPICS)]
        lines.append(f"{index + 1:03d}. " + _sentence(rng, topic) + " " + _sentence(rng, topic))
    lines.insert(130, "- The unique marker quixotic appears once, deep in the big notebook.")
    return "\n".join(lines) + "\n"


def _long_line() -> str:
    rng = random.Random(13)
    words: list[str] = []
    while len(" ".join(words)) < 4900:
        words.append(rng.choice(TOPICS["travel"].split() + COMMON))
    line = " ".join(words)[:4950]
    line = line + " longlinemarker " + "x" * (5000 - len(line) - len(" longlinemarker "))
    assert len(line) == 5000
    return "# A file with one very long line\n\n" + line + "\nAfter the long line comes a short one.\n"


def _huge_line() -> str:
    # 11,999 ASCII characters, then an emoji whose UTF-16 pair straddles the 12,000-unit budget.
    line = ("hugeline " * 1400)[:11999] + "😀" + "tail " * 200
    return line + "\nSecond line after the huge one.\nThird line.\n"


def _emoji() -> str:
    lines = ["# Emoji log 🎉"]
    lines += [EMOJI * 70 for _ in range(10)]  # 10 lines of 700 emoji: 1,400 UTF-16 units each
    lines += ["party time 🎉 with friends and cake 🎂", "x" + "🎈" * 1000, ""]
    return "\n".join(lines)


def _cjk() -> str:
    long_zh = "我们之前讨论的那个方案是使用缓存来减少数据库的压力" * 40
    return "\n".join([
        "# 中文笔记",
        "",
        "之前讨论的那个方案是使用缓存。",
        "会议记录：明天上午十点在东京开会。",
        long_zh,
        "日本語のメモ：ミーティングは明日です。東京で会いましょう。",
        "한국어 메모: 회의는 내일 오전에 있습니다.",
        "Mixed 中文 and English words 混合 text.",
        "",
    ])


def _ext_b() -> str:
    chars = "".join(chr(0x20000 + i) for i in range(64))
    return "\n".join([
        "# Extension B",
        "𠀀𠀁𠀂 rare characters",
        chars * 8,
        "x" + chars * 8,
        "",
    ])


def _quotes() -> str:
    return "\n".join([
        "# Quotes",
        "",
        "The best of the day is the end of the day.",
        "A zebra in the garden is the talk of the town.",
        "The quick fox and the lazy dog went to the park.",
        "It is what it is, and that is the way of the world.",
        "",
    ])


def _session_slug() -> str:
    return "\n".join([
        "# Session: 2026-04-28 14:30:00 UTC",
        "",
        "- **Session Key**: agent:main:main",
        "- **Session ID**: 0f6c1c2e-8e1a-4b9e-9d57-3a1f7a0d2b11",
        "- **Source**: telegram",
        "",
        "## Conversation Summary",
        "",
        "user: the router keeps dropping the vlan after a reboot",
        "assistant: I pinned the vlan 42 config and saved it to flash; the router fix holds now.",
        "",
    ])


def _design() -> str:
    return "\n".join([
        "# Alpha design",
        "",
        "The service uses snake_case_name identifiers and ships as v1.2.3.",
        "It listens on 192.168.1.1 port 8080; don't expose it to the e-mail gateway.",
        "Follow-up: add a follow-up ticket for the NEAR/OR/NOT parser quirks.",
        "",
        "```python",
        "def connection_pool(size=20, timeout=30):",
        "    return Pool(size=size, timeout=timeout)",
        "```",
        "",
        *_paragraphs(random.Random(17), ["db", "network"], 18),
        "",
    ])


def _files() -> dict[str, str]:
    return {
        "ws/MEMORY.md": _memory_md(),
        "ws/memory/2026-04-26.md": "One line, no trailing newline, about the ferry timetable.",
        "ws/memory/2026-04-27.md": _daily("2026-04-27", 1, ["network", "db"], 40,
                                          ["Fixed the router vlan 42 after the firmware update.",
                                           "The connection pool timeout was raised to 30s."]),
        "ws/memory/2026-04-28.md": _daily("2026-04-28", 2, ["garden", "cooking"], 34,
                                          ["Maybe plant basil next to the tomato trellis.",
                                           "Decided to build the garden fence out of cedar."]),
        "ws/memory/2026-04-29.md": _daily("2026-04-29", 3, ["travel", "db"], 22,
                                          ["Booked the train to Zurich; the hotel is near the museum."]),
        "ws/memory/2026-04-28-router-fix.md": _session_slug(),
        "ws/memory/2026-04-29-1430.md": "# Session: 2026-04-29 14:30:00 UTC\n\nuser: remind me about green tea\n",
        "ws/memory/projects/alpha/design.md": _design(),
        "ws/memory/projects/beta/2026-03-01.md": "# Beta kickoff\n\n- Beta uses the same postgres replica as alpha.\n",
        "ws/memory/sub/deeper/deepest/2026-01-01.md": "# Deep\n\nA deeply nested note about mulch.\n",
        "ws/memory/dreaming/light/2026-04-29.md": "# Light Sleep\n\n- Candidate: green tea every morning\n"
                                                   "  - confidence: 0.62\n"
                                                   "  - evidence: memory/2026-04-29-1430.md:3-3\n",
        "ws/memory/.hidden/secret-notes.md": "# Hidden\n\nA clandestine note in a dot folder.\n",
        "ws/memory/.openclaw-repair/old.md": "# Repair\n\nAn obsolescent note that must not be indexed.\n",
        "ws/memory/.dreams/notes.txt": "dreaming state, not markdown\n",
        "ws/memory/cjk/中文笔记.md": _cjk(),
        "ws/memory/ext-b.md": _ext_b(),
        "ws/memory/emoji.md": _emoji(),
        "ws/memory/crlf.md": "# Windows notes\r\n\r\nLine endings here are CRLF.\r\n"
                             "The printer driver needs a reboot.\r\n",
        "ws/memory/bom.md": "\ufeffbombastic first word after a byte order mark\nsecond line of the BOM file\n",
        "ws/memory/empty.md": "",
        "ws/memory/blank.md": "\n\n   \n\t\n",
        "ws/memory/long-line.md": _long_line(),
        "ws/memory/huge-line.md": _huge_line(),
        "ws/memory/quotes.md": _quotes(),
        "ws/memory/diacritics.md": "# Accents\n\nThe café in Zürich serves a naïve résumé of façade history.\n",
        "ws/memory/tabs.md": "# Tabs\n\n\tIndented with a tab.   \n    \n  trailing spaces here   \n\t\t\nend\n",
        "ws/memory/numbers.md": "# Numbers\n\n2026 budget: 42 units at 3.14 each; ticket #1234 closed.\n",
        "ws/memory/big.md": _big(),
        "ws/memory/meeting notes.md": "# Meeting notes\n\nThe meeting about the garden fence ran long.\n",
        "ws/memory/Projects-Gamma.md": "# Gamma\n\nGamma is the third project and has no deadline.\n",
        "ws/memory/fts-syntax.md": '# FTS syntax\n\nNEAR AND OR NOT "quoted" col:value * ^ are plain words here.\n',
        "ws/memory/trailing-newlines.md": "text before many newlines\n\n\n\n\n",
        "ws/memory/UPPER.MD": "# Upper\n\nAn uppercase extension note about walruses.\n",
        "ws/memory/notes.txt": "a text file about walruses\n",
        "ws/memory.md": "# legacy lower-case memory file about walruses\n",
        "ws/DREAMS.md": "# Dream Diary\n\nA dream about walruses.\n",
        "ws/USER.md": "# User\n\nThe user likes walruses.\n",
        "ws/AGENTS.md": "# Agents\n\nInstructions.\n",
        "outside/extra-notes/a.md": "# Extra A\n\nAn extra note about the harbor crane.\n",
        "outside/extra-notes/nested/c.md": "# Extra C\n\nA nested extra note about the harbor lighthouse.\n",
        "outside/extra-notes/skip.txt": "not markdown\n",
        "outside/extra-notes/huge.md": ("harbor " * 2000) + "\nsecond\n",
        "outside/single-extra.md": "# Single extra\n\nA single extra file about the harbor ferry.\n",
        "outside/linked-parent/notes/n.md": "# Behind a symlinked parent\n\nThe harbor pilot boat.\n",
        "outside/direct/d.md": "# Direct link target\n\nThe harbor tug.\n",
        "outside/linked-dir/inside.md": "# Inside a symlinked folder\n\nwalruses again\n",
        "home/notes/home-note.md": "# Home note\n\nThe harbor in the home folder.\n",
    }


SYMLINKS = {
    "ws/memory/link.md": "../USER.md",
    "ws/memory/linkdir": "../../outside/linked-dir",
    "ws/linked-parent": "../outside/linked-parent",
    "ws/direct-link": "../outside/direct",
}


def entries() -> list[dict[str, Any]]:
    """Every file (path, text) and symlink (path, target), root-relative, in a fixed order."""
    files = [{"path": path, "kind": "file", "text": text} for path, text in sorted(_files().items())]
    links = [{"path": path, "kind": "symlink", "target": target} for path, target in sorted(SYMLINKS.items())]
    return files + links


def build(root: Path, manifest: list[dict[str, Any]]) -> None:
    """Create the tree of `manifest` under `root` (bytes exactly as listed: no newline translation)."""
    for entry in manifest:
        target = root / entry["path"]
        target.parent.mkdir(parents=True, exist_ok=True)
        if entry["kind"] == "file":
            target.write_bytes(entry["text"].encode("utf-8"))
        else:
            os.symlink(entry["target"], target)
