"""Fixtures for the TUI tests: a realistic workspace + state dir, a frozen clock, managers, apps."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from textual.widgets import Input, TextArea

from memtui.manager import MemoryManager
from memtui.settings.agent import AgentEnv, resolve_agent
from memtui.tui.app import MemtuiApp

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from hashed_provider import HashedProvider

NOW = datetime(2026, 4, 29, 15, 0, tzinfo=UTC)
SIZE = (120, 36)

MEMORY_MD = """# Long-Term Memory

## People
- Dana Okafor owns the billing service; prefers async updates in #billing, not DMs.
- Priya is the on-call lead for April; escalate paging issues to her.

## Preferences
- The user prefers Postgres over MySQL for new services.
- Keep commit messages in the imperative mood.
- Answer in British English.

## Infrastructure
- Production database: pg-prod-eu-1 (Postgres 16), read replica pg-prod-eu-2.
- Deploys go through ArgoCD; never kubectl apply by hand in prod.
"""

DAILY = {
    "2026-04-29.md": """# 2026-04-29

- Decided to move the nightly export job from cron to Temporal.
- User asked to remember: staging API key rotates every 30 days.
""",
    "2026-04-28.md": """# 2026-04-28

- Incident INC-4412: checkout latency spiked to 4s after the Redis upgrade.
- Root cause: Redis maxmemory-policy reset to noeviction; fixed with allkeys-lru.
- Error string seen: `OOM command not allowed when used memory > 'maxmemory'`.
""",
    "2026-04-28-deploy-incident.md": """# Deploy incident notes

- Rollback of billing-api v2.14.0 took 11 minutes because the ArgoCD sync hook hung.
- Follow-up: add a timeout to the pre-sync migration job.
""",
    "2026-04-20.md": """# 2026-04-20

- The user prefers Postgres for the analytics service too; MySQL was ruled out.
- Meeting with Dana: billing invoices must be idempotent by invoice_id.
""",
    "2026-04-10.md": """# 2026-04-10

- Chose Redis Streams over Kafka for the notifications queue (smaller ops burden).
- Ticket OPS-1187 tracks the Redis cluster resize.
""",
    "2026-03-30.md": """# 2026-03-30

- First week on the project. Repo lives at github.com/acme/platform.
- Postgres connection pool size set to 40 after load testing.
""",
}

PROJECTS_MD = """# Projects

- platform: monorepo, Python 3.12, deployed with ArgoCD.
- notifications: Redis Streams consumer, owned by Priya.
"""

DREAMS_MD = """# Dream Diary

<!-- openclaw:dreaming:diary:start -->
---

*April 28, 2026 at 3:00 AM UTC*

The Redis incident kept coming back: eviction policies matter more than memory size.

<!-- openclaw:dreaming:diary:end -->
"""


def _line(record: dict) -> str:
    return json.dumps(record, separators=(",", ":")) + "\n"


def _assistant(usage: dict) -> dict:
    return {"type": "message", "id": "a1", "parentId": "u1", "timestamp": "2026-04-29T10:00:00Z",
            "message": {"role": "assistant", "content": [{"type": "text", "text": "ok"}], "usage": usage}}


def build_workspace(root: Path) -> tuple[Path, Path]:
    """(state dir, workspace dir) with MEMORY.md, daily logs, a slug file, DREAMS.md and two sessions."""
    state = root / "state"
    workspace = root / "workspace"
    memory = workspace / "memory"
    memory.mkdir(parents=True)
    (workspace / "MEMORY.md").write_text(MEMORY_MD, encoding="utf-8")
    (workspace / "DREAMS.md").write_text(DREAMS_MD, encoding="utf-8")
    (memory / "projects.md").write_text(PROJECTS_MD, encoding="utf-8")
    for name, text in DAILY.items():
        (memory / name).write_text(text, encoding="utf-8")
    sessions = state / "agents" / "main" / "sessions"
    sessions.mkdir(parents=True)
    config = {"agents": {"defaults": {"userTimezone": "UTC", "compaction": {
        "reserveTokensFloor": 20000, "memoryFlush": {"softThresholdTokens": 4000}}}}}
    (state / "openclaw.json").write_text(json.dumps(config), encoding="utf-8")
    header = {"type": "session", "version": 3, "id": "x", "timestamp": "2026-04-29T09:00:00Z", "cwd": "/w"}
    (sessions / "s-main.jsonl").write_text(
        _line(header) + _line(_assistant({"input": 170000, "output": 900, "cacheRead": 2000, "cacheWrite": 500})),
        encoding="utf-8")
    (sessions / "s-side.jsonl").write_text(_line(header) + _line(_assistant({"input": 12000, "output": 300})),
                                           encoding="utf-8")
    entries = {
        "agent:main:main": {"sessionId": "s-main", "updatedAt": 5000, "compactionCount": 1},
        "agent:main:telegram:direct:42": {"sessionId": "s-side", "updatedAt": 4000},
    }
    (sessions / "sessions.json").write_text(json.dumps(entries), encoding="utf-8")
    return state, workspace


def agent_at(root: Path) -> AgentEnv:
    """A resolved agent on a fresh fixture workspace under `root` (FTS-only unless a provider is injected)."""
    state, workspace = build_workspace(root)
    return resolve_agent(state_dir=str(state), workspace=str(workspace), provider="none", env={})


@pytest.fixture
def workspace_env(tmp_path: Path) -> AgentEnv:
    """A resolved agent on the fixture workspace."""
    return agent_at(tmp_path)


@pytest.fixture
def env_at() -> Callable[[Path], AgentEnv]:
    """Build a fixture workspace under a given folder (to compare runs at different paths)."""
    return agent_at


@pytest.fixture
def manager(workspace_env: AgentEnv) -> Iterator[MemoryManager]:
    """An FTS-only manager, already indexed."""
    with MemoryManager(workspace_env, provider=None) as memory:
        memory.sync(reason="test")
        yield memory


@pytest.fixture
def hybrid_manager(workspace_env: AgentEnv) -> Iterator[MemoryManager]:
    """A manager with the deterministic hashed-trigram provider, already indexed."""
    with MemoryManager(workspace_env, provider=HashedProvider()) as memory:
        memory.sync(reason="test")
        yield memory


@pytest.fixture
def make_app() -> Callable[..., MemtuiApp]:
    """Build an app with a frozen clock, no system clipboard and no debounce delay."""

    def build(memory: MemoryManager, **kwargs: object) -> MemtuiApp:
        options: dict[str, object] = {"now": NOW, "system_clipboard": False, "debounce": 0.05}
        options.update(kwargs)
        return MemtuiApp(memory, **options)  # type: ignore[arg-type]

    return build


@pytest.fixture(autouse=True)
def no_cursor_blink(monkeypatch: pytest.MonkeyPatch) -> None:
    """Cursor blinking makes snapshots flaky: keep every cursor steadily visible."""
    monkeypatch.setattr(Input, "_toggle_cursor", lambda self: None)
    monkeypatch.setattr(TextArea, "_toggle_cursor_blink_visible", lambda self: None)
