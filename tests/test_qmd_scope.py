"""`memory.qmd.scope` (§9.4): first matching rule wins, default deny except direct chats (table-driven)."""

from __future__ import annotations

from typing import Any

import pytest

from memtui.errors import ConfigError
from memtui.qmd.scope import SessionScope, is_scope_allowed, parse_session_scope

TELEGRAM_ONLY = {"default": "deny", "rules": [{"action": "allow", "match": {"channel": "telegram"}}]}
ORDERED = {"rules": [{"action": "deny", "match": {"keyPrefix": "discord:group:ops"}},
                     {"action": "allow", "match": {"chatType": "group"}}]}
RAW = {"default": "deny", "rules": [{"action": "allow", "match": {"rawKeyPrefix": "agent:work:"}}]}

CASES: list[tuple[dict[str, Any] | None, str | None, bool]] = [
    (None, "agent:main:main", True),                                  # default scope: direct allowed
    (None, "agent:main:telegram:direct:42", True),
    (None, "agent:main:discord:group:ops", False),                   # group denied by default
    (None, "agent:main:slack:channel:c123", False),                  # channel denied (code, not the docs)
    (None, "agent:main:subagent:abc", False),                        # subagent → empty scope → denied
    (None, None, False),                                             # missing key → empty scope → denied
    (None, "", False),
    (TELEGRAM_ONLY, "agent:main:telegram:group:7", True),
    (TELEGRAM_ONLY, "agent:main:discord:direct:7", False),
    (ORDERED, "agent:main:discord:group:ops-room", False),            # first matching rule wins
    (ORDERED, "agent:main:discord:group:dev", True),
    (ORDERED, "agent:main:main", True),                              # no rule matches, no default → allow
    (RAW, "agent:work:main", True),
    (RAW, "agent:main:main", False),
    ({"default": "allow"}, None, True),
    ({"default": "deny", "rules": []}, "agent:main:main", False),
]


@pytest.mark.parametrize(("scope", "key", "allowed"), CASES)
def test_scope_rules(scope: dict[str, Any] | None, key: str | None, allowed: bool) -> None:
    assert is_scope_allowed(scope, key) is allowed


@pytest.mark.parametrize(("key", "expected"), [
    ("agent:main:telegram:group:9", SessionScope("telegram", "group", "telegram:group:9",
                                                 "agent:main:telegram:group:9")),
    ("agent:main:main", SessionScope(None, "direct", "main", "agent:main:main")),
    ("agent:main:subagent:x:group", SessionScope()),
    (None, SessionScope()),
])
def test_parse_session_scope(key: str | None, expected: SessionScope) -> None:
    assert parse_session_scope(key) == expected


@pytest.mark.parametrize("scope", [
    {"default": "maybe"},
    {"rules": {"action": "allow"}},
    {"rules": [{"action": "permit"}]},
    {"rules": [{"action": "allow", "match": {"chatType": "dm"}}]},
])
def test_bad_scope_is_a_config_error(scope: dict[str, Any]) -> None:
    with pytest.raises(ConfigError, match=r"memory\.qmd\.scope"):
        is_scope_allowed(scope, "agent:main:main")
