"""Which sessions may search through QMD: `memory.qmd.scope` (the `session.sendPolicy` schema, §9.4)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from memtui.errors import ConfigError

DEFAULT_QMD_SCOPE: dict[str, Any] = {"default": "deny", "rules": [{"action": "allow", "match": {"chatType": "direct"}}]}
CHAT_TYPES = ("direct", "group", "channel")


@dataclass(frozen=True)
class SessionScope:
    """What a session key says about a chat: channel, chat type, the key after `agent:<id>:`, the raw key.
    Missing and subagent keys give an empty scope (every field None)."""

    channel: str | None = None
    chat_type: str | None = None
    key: str | None = None
    raw_key: str | None = None


def parse_session_scope(session_key: str | None) -> SessionScope:
    """`agent:<id>:<rest>` → scope; `rest` starting with `subagent:` and missing keys → empty scope."""
    raw = (session_key or "").strip()
    if not raw:
        return SessionScope()
    parts = raw.lower().split(":")
    rest = parts[2:] if len(parts) >= 3 and parts[0] == "agent" else parts
    if not rest or rest[0] == "subagent":
        return SessionScope()
    chat_type = "channel" if "channel" in rest else "group" if "group" in rest else "direct"
    channel = rest[0] if len(rest) > 1 else None
    return SessionScope(channel=channel, chat_type=chat_type, key=":".join(rest), raw_key=raw)


def _rule_matches(match: dict[str, Any], scope: SessionScope) -> bool:
    channel = match.get("channel")
    if channel is not None and (scope.channel is None or scope.channel != str(channel).lower()):
        return False
    chat_type = match.get("chatType")
    if chat_type is not None and scope.chat_type != chat_type:
        return False
    key_prefix = match.get("keyPrefix")
    if key_prefix is not None and (scope.key is None or not scope.key.startswith(str(key_prefix).lower())):
        return False
    raw_prefix = match.get("rawKeyPrefix")
    return raw_prefix is None or (scope.raw_key is not None and scope.raw_key.startswith(str(raw_prefix)))


def validate_scope(scope: dict[str, Any]) -> None:
    """Raise ConfigError for a scope that is not `{default?, rules?: [{action, match?}]}`."""
    if scope.get("default") not in (None, "allow", "deny"):
        raise ConfigError(f"memory.qmd.scope.default: use allow or deny, got {scope.get('default')!r}")
    rules = scope.get("rules", [])
    if not isinstance(rules, list):
        raise ConfigError(f"memory.qmd.scope.rules: expected a list, got {rules!r}")
    for index, rule in enumerate(rules):
        if not isinstance(rule, dict) or rule.get("action") not in ("allow", "deny"):
            raise ConfigError(f"memory.qmd.scope.rules[{index}]: expected {{action: allow|deny, match?}}, got {rule!r}")
        match = rule.get("match", {})
        if not isinstance(match, dict) or match.get("chatType", "direct") not in CHAT_TYPES:
            raise ConfigError(f"memory.qmd.scope.rules[{index}].match: chatType must be one of "
                              f"{', '.join(CHAT_TYPES)}, got {match!r}")


def is_scope_allowed(scope: dict[str, Any] | None, session_key: str | None) -> bool:
    """`isQmdScopeAllowed`: the first matching rule wins; else `default` (a missing default allows).
    No configured scope means DEFAULT_QMD_SCOPE (only direct chats)."""
    config = DEFAULT_QMD_SCOPE if scope is None else scope
    validate_scope(config)
    parsed = parse_session_scope(session_key)
    for rule in config.get("rules", []):
        if _rule_matches(rule.get("match") or {}, parsed):
            return rule["action"] == "allow"
    return config.get("default", "allow") != "deny"


def denial_message(session_key: str | None) -> str:
    """The log line of a denied search."""
    parsed = parse_session_scope(session_key)
    return (f"qmd search denied by scope (channel={parsed.channel or 'unknown'}, "
            f"chatType={parsed.chat_type or 'unknown'}, session={session_key or 'none'})")
