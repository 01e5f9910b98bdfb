"""Secret redaction for text that goes into the memory index (OpenClaw's `redactSensitiveText`, "tools" mode).

Marker format (stable, deterministic and idempotent: redacting twice gives the same text):

* vendor API keys and JWTs keep only their public vendor prefix, then `…[REDACTED]`:
  `sk-…[REDACTED]`, `sk-ant-…[REDACTED]`, `AIza…[REDACTED]`, `ghp_…[REDACTED]`,
  `github_pat_…[REDACTED]`, `xoxb-…[REDACTED]`, `AKIA…[REDACTED]`, `eyJ…[REDACTED]`;
* headers, assignments and URL passwords keep the name and separator and replace only the value:
  `Authorization: Bearer [REDACTED]`, `password=[REDACTED]`, `"api_key": "[REDACTED]"`,
  `https://user:[REDACTED]@host`;
* PEM private keys keep their BEGIN/END lines: `-----BEGIN RSA PRIVATE KEY-----[REDACTED]-----END …-----`.

Not a character of the secret itself is kept. Known limit: a `name: value` pair without quotes is only
redacted when the value has at least 8 characters and a digit, so prose such as "the secret: be kind"
stays readable.
"""

from __future__ import annotations

import re
from collections.abc import Callable

REDACTED = "[REDACTED]"

_NOT_TOKEN_BEFORE = r"(?<![A-Za-z0-9_-])"
_NOT_TOKEN_AFTER = r"(?![A-Za-z0-9_-])"
# Random key material: long, and mixes digits with upper-case letters (rules out hyphenated prose).
_RANDOM_BODY = r"(?=[A-Za-z0-9_-]*\d)(?=[A-Za-z0-9_-]*[A-Z])[A-Za-z0-9_-]{20,}"

_SECRET_WORD = (
    r"(?:password|passwd|passphrase|secret|api[_-]?key|access[_-]?key|"
    r"access[_-]?token|auth[_-]?token|refresh[_-]?token|session[_-]?token|token|private[_-]?key)"
)
# A quoted name may carry any prefix (`"OPENAI_API_KEY"`); unquoted names only need to end in a secret word,
# and the prefix is left out of the pattern because the name is kept verbatim anyway.
_SECRET_NAME = r"[A-Za-z0-9_.-]*?" + _SECRET_WORD


_Group = Callable[[str], str | None]


def _prefix_marker(group: _Group) -> str:
    return f"{group('prefix')}…{REDACTED}"


def _keep_head(group: _Group) -> str:
    return f"{group('head')}{REDACTED}"


def _keep_head_and_scheme(group: _Group) -> str:
    return f"{group('head')}{group('scheme') or ''}{REDACTED}"


def _keep_head_tail(group: _Group) -> str:
    return f"{group('head')}{REDACTED}{group('tail')}"


class _Rule:
    """One secret shape: its pattern, how to rewrite a match, and cheap substring hints that gate it."""

    def __init__(
        self,
        pattern: re.Pattern[str],
        replace: Callable[[_Group], str],
        any_of: tuple[str, ...],
        all_of: tuple[str, ...],
    ) -> None:
        self.pattern = pattern
        self.replace = replace
        self.any_of = any_of
        self.all_of = all_of
        # Case-insensitive alternations are slow in `re`; they run case-sensitively on a lower-cased copy.
        self.folded = (
            re.compile(pattern.pattern.removeprefix("(?i)"), pattern.flags & ~re.IGNORECASE)
            if pattern.flags & re.IGNORECASE
            else None
        )

    def apply(self, text: str, lowered: str) -> str:
        if self.folded is None or len(lowered) != len(text):
            return self.pattern.sub(lambda m: self.replace(m.group), text)
        out: list[str] = []
        pos = 0
        for match in self.folded.finditer(lowered):

            def group(name: str, match: re.Match[str] = match) -> str | None:
                start, end = match.span(name)
                return None if start < 0 else text[start:end]

            out.append(text[pos : match.start()])
            out.append(self.replace(group))
            pos = match.end()
        out.append(text[pos:])
        return "".join(out)


_NAME_HINTS = ("pass", "secret", "key", "token")
_RULES: list[_Rule] = [
    _Rule(
        re.compile(
            r"(?P<head>-----BEGIN (?P<kind>[A-Z0-9 ]*?)PRIVATE KEY-----)[\s\S]*?"
            r"(?P<tail>-----END (?P=kind)PRIVATE KEY-----)"
        ),
        _keep_head_tail,
        ("private key",),
        (),
    ),
    _Rule(
        re.compile(_NOT_TOKEN_BEFORE + r"(?P<prefix>sk-ant-)[A-Za-z0-9_-]{16,}" + _NOT_TOKEN_AFTER),
        _prefix_marker,
        ("sk-ant-",),
        (),
    ),
    _Rule(
        re.compile(_NOT_TOKEN_BEFORE + r"(?P<prefix>sk-)(?:proj-|svcacct-|admin-)?" + _RANDOM_BODY + _NOT_TOKEN_AFTER),
        _prefix_marker,
        ("sk-",),
        (),
    ),
    _Rule(
        re.compile(_NOT_TOKEN_BEFORE + r"(?P<prefix>AIza)[0-9A-Za-z_-]{35}" + _NOT_TOKEN_AFTER),
        _prefix_marker,
        ("aiza",),
        (),
    ),
    _Rule(
        re.compile(r"\b(?P<prefix>gh[pousr]_)[A-Za-z0-9]{36,}\b"),
        _prefix_marker,
        ("ghp_", "gho_", "ghu_", "ghs_", "ghr_"),
        (),
    ),
    _Rule(re.compile(r"\b(?P<prefix>github_pat_)[A-Za-z0-9_]{22,}\b"), _prefix_marker, ("github_pat_",), ()),
    _Rule(re.compile(r"\b(?P<prefix>xox[abprs]-)[A-Za-z0-9-]{10,}"), _prefix_marker, ("xox",), ()),
    _Rule(re.compile(r"\b(?P<prefix>AKIA|ASIA)[0-9A-Z]{16}\b"), _prefix_marker, ("akia", "asia"), ()),
    _Rule(
        re.compile(_NOT_TOKEN_BEFORE + r"(?P<prefix>eyJ)[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"),
        _prefix_marker,
        ("eyj",),
        (),
    ),
    _Rule(
        re.compile(
            r"(?i)(?P<head>\b(?:proxy-)?authorization[\"']?\s*[:=]\s*[\"']?)"
            r"(?:(?P<scheme>(?:bearer|basic|token|digest)\s+)[^\s\"',;\[]+"
            r"|(?!(?:bearer|basic|token|digest)\b)(?=[^\s\"',;\[]*\d)[^\s\"',;\[]{8,})"
        ),
        _keep_head_and_scheme,
        ("authorization",),
        (),
    ),
    _Rule(re.compile(r"(?P<head>\bBearer\s+)(?=\S*\d)[A-Za-z0-9._~+/=-]{8,}"), _keep_head, ("bearer",), ()),
    _Rule(
        re.compile(r"(?P<head>\b[a-z][a-z0-9+.-]*://[^/\s:@\[]+:)[^/\s@\[]+(?P<tail>@)", re.IGNORECASE),
        _keep_head_tail,
        ("://",),
        ("@",),
    ),
    _Rule(
        re.compile(
            r"(?i)(?P<head>(?P<q>[\"'])" + _SECRET_NAME + r"(?P=q)\s*:\s*(?P<v>[\"']))"
            r"(?:\\.|(?!(?P=v)).)+(?P<tail>(?P=v))"
        ),
        _keep_head_tail,
        _NAME_HINTS,
        (":",),
    ),
    _Rule(
        re.compile(
            r"(?i)(?P<head>" + _SECRET_WORD + r"\b\s*=\s*)"
            r"(?:\"[^\"]*\"|'[^']*'|[^\s&,;\"'\[]+)"
        ),
        _keep_head,
        _NAME_HINTS,
        ("=",),
    ),
    _Rule(
        re.compile(
            r"(?i)(?P<head>--(?:password|passwd|passphrase|secret|token|api-key|apikey|auth-token)(?:=|\s+))"
            r"[^\s\[-][^\s]*"
        ),
        _keep_head,
        ("--",),
        (),
    ),
    _Rule(
        re.compile(r"(?i)(?P<head>" + _SECRET_WORD + r"\b\s*:\s*)(?=\S*\d)[^\s\[\"',;]{8,}"),
        _keep_head,
        _NAME_HINTS,
        (":",),
    ),
]


def redact_sensitive_text(text: str) -> str:
    """Replace API keys, tokens, passwords, private keys and JWTs in `text` with stable markers."""
    lowered = text.lower()
    for rule in _RULES:
        if any(h in lowered for h in rule.any_of) and all(h in lowered for h in rule.all_of):
            text = rule.apply(text, lowered)
            lowered = text.lower()
    return text
