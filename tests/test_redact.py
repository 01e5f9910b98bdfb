"""Secret redaction: every supported secret shape is masked, ordinary text is left alone."""

from __future__ import annotations

import pytest

from memtui.index.redact import redact_sensitive_text

OPENAI_KEY = "sk-proj-" + "Ab3dE5gH7jK9mN1pQ3sT5vW7yZ9b"
LEGACY_OPENAI_KEY = "sk-" + "T3BlbkFJ" + "x9Yz" * 10
ANTHROPIC_KEY = "sk-ant-api03-" + "Zx8_Yw7-Vu6Ts5Rq4Po3Nm2Lk1"
GOOGLE_KEY = "AIza" + "SyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q"
GITHUB_TOKEN = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
GITHUB_PAT = "github_pat_" + "11ABCDEFG0" + "a1b2c3d4e5f6g7h8i9j0"
SLACK_TOKEN = "xoxb-" + "1234567890-0987654321-AbCdEfGhIjKl"
AWS_KEY_ID = "AKIA" + "IOSFODNN7EXAMPLE"
JWT = (
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9"
    ".eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ"
    ".SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
)
PEM = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7x1Q\nq8Zr0Yw2\n-----END RSA PRIVATE KEY-----"

REDACTED_CASES = [
    ("OpenAI project key", f"use {OPENAI_KEY} today", "use sk-…[REDACTED] today"),
    ("OpenAI legacy key", f"key={LEGACY_OPENAI_KEY}", "key=sk-…[REDACTED]"),
    ("OpenAI key in prose", f"my key is {LEGACY_OPENAI_KEY}.", "my key is sk-…[REDACTED]."),
    ("Anthropic key", f"ANTHROPIC: {ANTHROPIC_KEY}", "ANTHROPIC: sk-ant-…[REDACTED]"),
    ("Google key", f"maps {GOOGLE_KEY} ok", "maps AIza…[REDACTED] ok"),
    ("GitHub classic token", f"git push with {GITHUB_TOKEN}", "git push with ghp_…[REDACTED]"),
    ("GitHub fine-grained PAT", f"{GITHUB_PAT} expires", "github_pat_…[REDACTED] expires"),
    ("Slack bot token", f"slack {SLACK_TOKEN}", "slack xoxb-…[REDACTED]"),
    ("AWS access key id", f"id {AWS_KEY_ID} in us-east-1", "id AKIA…[REDACTED] in us-east-1"),
    ("JWT", f"cookie {JWT} set", "cookie eyJ…[REDACTED] set"),
    ("Bearer token", "curl -H 'x' Bearer abc123DEF456ghi789", "curl -H 'x' Bearer [REDACTED]"),
    ("Authorization header", "Authorization: Bearer abc.def.123", "Authorization: Bearer [REDACTED]"),
    ("Authorization basic", "authorization: Basic dXNlcjpwYXNz", "authorization: Basic [REDACTED]"),
    ("password assignment", "login password=hunter2 done", "login password=[REDACTED] done"),
    ("passwd assignment", "PASSWD = 'correct horse'", "PASSWD = [REDACTED]"),
    (
        "JSON password",
        '{"user": "ann", "password": "p@ss w0rd"}',
        '{"user": "ann", "password": "[REDACTED]"}',
    ),
    ("JSON api key", "{'api_key': 'abc'}", "{'api_key': '[REDACTED]'}"),
    ("env api key", "export OPENAI_API_KEY=whatever", "export OPENAI_API_KEY=[REDACTED]"),
    ("query token", "GET /cb?token=abc123&page=2", "GET /cb?token=[REDACTED]&page=2"),
    ("client secret", "client_secret=s3cr3t,next", "client_secret=[REDACTED],next"),
    (
        "yaml secret with digits",
        "aws_secret_access_key: wJalrXUtnFEMI7K",
        "aws_secret_access_key: [REDACTED]",
    ),
    ("case folding changes length", "İstanbul DB_Password=hunter2", "İstanbul DB_Password=[REDACTED]"),
    ("cli flag", "mysql --password s3cret -u root", "mysql --password [REDACTED] -u root"),
    (
        "url credentials",
        "clone https://bot:tok3n@git.example.com/r.git",
        "clone https://bot:[REDACTED]@git.example.com/r.git",
    ),
    (
        "PEM private key",
        f"key:\n{PEM}\nthanks",
        "key:\n-----BEGIN RSA PRIVATE KEY-----[REDACTED]-----END RSA PRIVATE KEY-----\nthanks",
    ),
    (
        "PEM after whitespace collapse",
        "-----BEGIN PRIVATE KEY----- MIIEvQIBADANBg -----END PRIVATE KEY-----",
        "-----BEGIN PRIVATE KEY-----[REDACTED]-----END PRIVATE KEY-----",
    ),
]

UNCHANGED_CASES = [
    "We need a password reset flow for the web app.",
    "The secret to good pasta is salt.",
    "Set the token budget to 400 and the overlap to 80.",
    "Fixed in commit 3f2a9c1d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a39 and 9fceb02.",
    "Session 0b7a6f0e-2c2d-4f55-9a51-2f1e6f7c9d11 resumed.",
    "See https://docs.example.com:8443/guide?page=2#auth for details.",
    "pip install scikit-learn; sk-learn-is-a-great-library-name is not a key",
    "Bearer authentication is described in RFC 6750.",
    "Authorization: required for admin routes",
    "max_tokens=512 and num_secrets=3",
    "",
]


@pytest.mark.parametrize(("label", "text", "expected"), REDACTED_CASES, ids=[c[0] for c in REDACTED_CASES])
def test_secret_is_redacted(label: str, text: str, expected: str) -> None:
    assert redact_sensitive_text(text) == expected


@pytest.mark.parametrize(("label", "text", "expected"), REDACTED_CASES, ids=[c[0] for c in REDACTED_CASES])
def test_redaction_is_stable(label: str, text: str, expected: str) -> None:
    once = redact_sensitive_text(text)
    assert redact_sensitive_text(once) == once


@pytest.mark.parametrize("text", UNCHANGED_CASES)
def test_ordinary_text_untouched(text: str) -> None:
    assert redact_sensitive_text(text) == text


def test_no_secret_characters_survive() -> None:
    text = " ".join([OPENAI_KEY, ANTHROPIC_KEY, GOOGLE_KEY, GITHUB_TOKEN, SLACK_TOKEN, AWS_KEY_ID, JWT])
    out = redact_sensitive_text(text)
    for secret in (OPENAI_KEY, ANTHROPIC_KEY, GOOGLE_KEY, GITHUB_TOKEN, SLACK_TOKEN, AWS_KEY_ID, JWT):
        assert secret[8:] not in out
    assert out.count("[REDACTED]") == 7
