"""The calls the memory recording makes: config variants, search queries and `memory_get` requests.

Config values may hold `<ROOT>` / `<WORKSPACE>` / `<HOME>` tokens; the recorder substitutes this run's
folders before OpenClaw reads them, and the recording keeps the tokens.
"""

from __future__ import annotations

from typing import Any

# name -> agents.defaults.memorySearch (None: the key is absent, OpenClaw's defaults apply).
VARIANTS: dict[str, dict[str, Any] | None] = {
    "default": None,
    "extra-paths": {"extraPaths": [
        "../outside/extra-notes", "../outside/extra-notes/", "~/notes", "linked-parent/notes", "direct-link",
        "<ROOT>/outside/single-extra.md", "  memory  ", "missing-folder",
    ]},
    "absolute-extra": {"extraPaths": ["/srv/team-notes/../shared-notes//", "/srv/shared-notes", "/srv/z-notes"]},
    "multimodal-off": {"multimodal": {"enabled": False, "modalities": ["image", "audio"], "maxFileBytes": 5000000}},
    "multimodal-on": {"multimodal": {"enabled": True, "modalities": ["all"], "maxFileBytes": 1234567}},
    "chunking-small": {"chunking": {"tokens": 50, "overlap": 10}},
    "trigram": {"store": {"fts": {"tokenizer": "trigram"}}},
}

# Each query runs through `openclaw memory search --json` (runMemorySearch) and the memory_search tool.
QUERIES: list[dict[str, Any]] = [{"query": q} for q in [
    # common words: low bm25, boosted scores below 1 (density = matched terms / unique words of the chunk)
    "the", "and", "of", "is", "we", "a", "with", "this", "memory", "notes", "day", "notebook", "status",
    "notebook status", "the notebook", "it is", "of the", "in the", "status of the notebook", "what is the status",
    # single rare words and words in one file
    "zebra", "quixotic", "longlinemarker", "bombastic", "clandestine", "hugeline", "ferry", "mulch",
    # AND hits
    "router vlan", "green tea", "connection pool timeout", "garden fence", "train Zurich",
    # AND misses: the per-keyword fallback
    "maybe zebra", "router banana", "what did we decide about the garden fence",
    "tell me about the postgres replica and the ferry", "basil cedar walrus", "quick fox zebra crossing",
    "zebra notebook", "xyzzy notebook", "maybe status", "notebook 🎉 walrus", "quixotic status zebra",
    # stop words only
    "the and of", "what is it", "to be or not to be",
    # skipped files must not answer
    "walruses", "obsolescent",
    # CJK, kana, Hangul, mixed, extension B
    "讨论", "方案", "之前讨论的那个方案", "缓存", "東京", "ミーティング", "회의는", "회의", "混合 text", "𠀀𠀁𠀂",
    # emoji, punctuation, empty-ish
    "🎉", "party 🎉", "...", "?!", "\"quoted\"",
    # accents and case
    "cafe", "café", "Zurich", "zürich", "ROUTER", "Router Vlan",
    # numbers, underscores, apostrophes, hyphens, FTS syntax words
    "2026", "42", "192.168.1.1", "v1.2.3", "snake_case_name", "snake", "don't", "e-mail", "follow-up",
    "NEAR", "OR", "NOT", "col:value",
    # path tokens (path boost)
    "alpha", "gamma", "router fix", "light", "projects", "design", "deepest",
    # CRLF, tabs, a long natural-language query
    "printer driver reboot", "indented tab", "remind me what the database timeout and the pool size were",
]] + [
    {"query": "the", "maxResults": 1},
    {"query": "the", "maxResults": 3},
    {"query": "the", "maxResults": 20},
    {"query": "router", "maxResults": 50},
    {"query": "the", "minScore": 0.99},
    {"query": "router vlan", "minScore": 0.99},
    {"query": "the", "minScore": 0},
    {"query": "the", "minScore": 1.5},
    {"query": "maybe zebra", "maxResults": 2, "minScore": 0.5},
]

# Tool-only calls: other session keys (citations), corpora, bad input.
TOOL_ONLY_SEARCHES: list[dict[str, Any]] = [
    {"sessionKey": "agent:main:telegram:group:123", "params": {"query": "router vlan"}},
    {"sessionKey": "agent:main:discord:channel:9", "params": {"query": "the"}},
    {"params": {"query": "green tea", "corpus": "memory"}},
    {"params": {"query": "green tea", "corpus": "sessions"}},
    {"params": {"query": "green tea", "corpus": "wiki"}},
    {"params": {"query": "green tea", "corpus": "all"}},
    {"params": {"query": "router", "maxResults": "2"}},
    {"params": {"query": "router", "maxResults": 0}},
    {"params": {"query": "  router  "}},
    {"params": {"query": ""}},
    {"params": {"query": "   "}},
    {"params": {}},
]

GETS: list[dict[str, Any]] = [
    {"path": "MEMORY.md"},
    {"path": "MEMORY.md", "from": 3, "lines": 5},
    {"path": "MEMORY.md", "lines": 0},
    {"path": "MEMORY.md", "from": 0},
    {"path": "MEMORY.md", "from": -5, "lines": 2},
    {"path": "MEMORY.md", "from": 10000},
    {"path": "MEMORY.md", "lines": -3},
    {"path": "MEMORY.md", "from": 2.7, "lines": 3.9},
    {"path": "MEMORY.md", "from": "4", "lines": "2"},
    {"path": "./MEMORY.md", "lines": 3},
    {"path": "memory/../MEMORY.md", "lines": 2},
    {"path": " MEMORY.md ", "lines": 1},
    {"path": ""},
    {"path": "   "},
    {},
    {"path": "<WORKSPACE>/MEMORY.md", "lines": 2},
    {"path": "/etc/hostname"},
    {"path": "../outside/single-extra.md"},
    {"path": "USER.md"},
    {"path": "DREAMS.md"},
    {"path": "dreams.md"},
    {"path": "memory.md"},
    {"path": "memory/2026-04-27.md"},
    {"path": "memory/2026-04-27.md", "from": 5, "lines": 1},
    {"path": "memory/big.md"},
    {"path": "memory/big.md", "from": 100, "lines": 50},
    {"path": "memory/big.md", "from": 240},
    {"path": "memory/emoji.md", "from": 2, "lines": 10},
    {"path": "memory/emoji.md", "from": 2, "lines": 8},
    {"path": "memory/emoji.md"},
    {"path": "memory/huge-line.md"},
    {"path": "memory/huge-line.md", "from": 2},
    {"path": "memory/long-line.md"},
    {"path": "memory/crlf.md"},
    {"path": "memory/bom.md", "lines": 1},
    {"path": "memory/empty.md"},
    {"path": "memory/blank.md"},
    {"path": "memory/blank.md", "from": 2, "lines": 1},
    {"path": "memory/2026-04-26.md"},
    {"path": "memory/trailing-newlines.md"},
    {"path": "memory/trailing-newlines.md", "from": 6},
    {"path": "memory/meeting notes.md"},
    {"path": "memory/cjk/中文笔记.md", "from": 3, "lines": 3},
    {"path": "memory/tabs.md"},
    {"path": "memory/.hidden/secret-notes.md"},
    {"path": "memory/link.md"},
    {"path": "memory/linkdir/inside.md"},
    {"path": "memory/notes.txt"},
    {"path": "memory/UPPER.MD"},
    {"path": "memory/missing.md"},
    {"path": "memory"},
    {"path": "memory\\2026-04-27.md"},
    {"path": "MEMORY.md", "corpus": "memory", "lines": 1},
    {"path": "MEMORY.md", "corpus": "wiki"},
]

EXTRA_GETS: list[dict[str, Any]] = [
    {"path": "../outside/extra-notes/a.md"},
    {"path": "../outside/extra-notes/nested/c.md", "lines": 1},
    {"path": "../outside/extra-notes/huge.md"},
    {"path": "../outside/extra-notes/skip.txt"},
    {"path": "../outside/single-extra.md"},
    {"path": "<ROOT>/outside/single-extra.md", "lines": 1},
    {"path": "linked-parent/notes/n.md"},
    {"path": "direct-link/d.md"},
    {"path": "~/notes/home-note.md"},
]

EXTRA_QUERIES = ["harbor", "harbor crane", "pilot boat", "tug", "home folder", "walruses"]
TRIGRAM_QUERIES = ["router vlan", "讨论", "方案", "之前讨论的那个方案", "회의", "東京", "ve", "zebra",
                   "maybe zebra", "the"]

# The update run: what changes on disk before OpenClaw's incremental sync of the default index.
UPDATE_WRITES = {
    "ws/memory/2026-04-29.md": "append:\n- Bought a xylophone for the train ride.\n",
    "ws/memory/2026-04-30.md": "write:# 2026-04-30\n\n- A brand new note about the xylophone recital.\n",
}
UPDATE_DELETES = ["ws/memory/2026-04-29-1430.md"]
UPDATE_QUERIES = ["xylophone", "green tea", "train"]
CLI_CHECK_QUERIES = [{"query": "the"}, {"query": "maybe zebra"}]
