"""Bootstrap ("Project Context") files as OpenClaw injects them: order, budgets, head/tail truncation (§1.3).

Lengths are JavaScript UTF-16 code units. One deliberate difference: OpenClaw cuts with a plain `slice`, which
can split an emoji and leave a lone surrogate; memtui never splits a pair, so it keeps one unit fewer at such
a cut (usually 2 per truncated file, head and tail). Each file reports that count (`surrogateUnitsDropped`),
and the budget left for the files after it is larger by as much.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memtui.context import bootstrap_2026_9
from memtui.context.bootstrap_files import (
    BOOTSTRAP_ORDER,
    MINIMAL_BOOTSTRAP_ALLOWLIST,
    is_minimal_session,
    load_bootstrap_files,
    read_within_workspace,
)
from memtui.context.utf16 import utf16_head, utf16_len, utf16_tail
from memtui.errors import ConfigError
from memtui.jscompat import js_trim_end
from memtui.settings.agent import AgentEnv
from memtui.settings.context import ContextSettings

MIN_BOOTSTRAP_FILE_BUDGET_CHARS = 64
MIN_TRIMMED_CONTENT_CHARS = 16
VARIANTS = ("2026.4", "2026.2", "2026.9")


@dataclass(frozen=True)
class BudgetVariant:
    """Defaults and head/tail ratios of one OpenClaw release line."""

    max_chars: int
    total_max_chars: int
    head_ratio: float
    tail_ratio: float


BUDGETS = {
    "2026.4": BudgetVariant(12000, 60000, 0.75, 0.25),
    "2026.2": BudgetVariant(20000, 150000, 0.7, 0.2),
    "2026.9": BudgetVariant(20000, 60000, 0.75, 0.25),  # USER.md and AGENTS.md: `bootstrap_2026_9`
}


def clamp_to_budget(content: str, budget: int, *, safe: bool = True) -> str:
    """Cut `content` to `budget` UTF-16 units, ending in `…` when something was cut (budget > 3)."""
    if budget <= 0:
        return ""
    if utf16_len(content) <= budget:
        return content
    if budget <= 3:
        return utf16_head(content, budget, safe=safe)
    return utf16_head(content, budget - 1, safe=safe) + "…"


def _long_marker(name: str, head: int, tail: int, original: int) -> str:
    return "\n".join([
        "",
        f"[...truncated, read {name} for full content...]",
        f"…(truncated {name}: kept {head}+{tail} chars of {original})…",
        "",
    ])


def _compact_marker(head: int, tail: int, original: int) -> str:
    return f"[…truncated {head}+{tail}/{original}]"


def _trim_2026_2(trimmed: str, name: str, max_chars: int, original: int) -> str:
    head_chars = math.floor(max_chars * BUDGETS["2026.2"].head_ratio)
    tail_chars = math.floor(max_chars * BUDGETS["2026.2"].tail_ratio)
    marker = _long_marker(name, head_chars, tail_chars, original)
    return "\n".join([utf16_head(trimmed, head_chars), marker, utf16_tail(trimmed, tail_chars)])


def _trim_2026_4(trimmed: str, name: str, max_chars: int, original: int, safe: bool) -> str:
    variant = BUDGETS["2026.4"]
    probe = _long_marker(name, 0, 0, original)
    use_long = max_chars - utf16_len(probe) - 2 >= MIN_TRIMMED_CONTENT_CHARS

    def marker_for(head: int, tail: int) -> str:
        return _long_marker(name, head, tail, original) if use_long else _compact_marker(head, tail, original)

    def separators(head: int, tail: int) -> int:
        return (int(head > 0) + int(tail > 0)) if use_long else 0

    head = tail = 0
    marker = marker_for(0, 0)
    for _ in range(3):
        budget = max(0, max_chars - utf16_len(marker) - separators(head, tail))
        next_head = math.floor(budget * variant.head_ratio)
        next_tail = math.floor(budget * variant.tail_ratio)
        next_marker = marker_for(next_head, next_tail)
        if (next_head, next_tail, utf16_len(next_marker)) == (head, tail, utf16_len(marker)):
            break
        head, tail, marker = next_head, next_tail, next_marker
    rendered = head + tail + utf16_len(marker) + separators(head, tail)
    while rendered > max_chars and (head > 0 or tail > 0):
        overflow = rendered - max_chars
        if tail > 0:
            tail = max(0, tail - overflow)
        else:
            head = max(0, head - overflow)
        marker = marker_for(head, tail)
        rendered = head + tail + utf16_len(marker) + separators(head, tail)
    if head == 0 and tail == 0 and original > 0:
        single = marker_for(1, 0)
        if 1 + utf16_len(single) + separators(1, 0) <= max_chars:
            head, marker = 1, single
    parts = [p for p in (utf16_head(trimmed, head, safe=safe), marker, utf16_tail(trimmed, tail, safe=safe)) if p]
    text = ("\n" if use_long else "").join(parts)
    return utf16_head(text, max_chars, safe=safe) if utf16_len(text) > max_chars else text


def trim_bootstrap_content(content: str, name: str, max_chars: int, variant: str = "2026.4", *,
                           safe: bool = True) -> tuple[str, bool]:
    """`trimEnd()`, then head + marker + tail when over `max_chars`; returns (text, truncated).

    `safe=False` cuts like OpenClaw's plain `slice` (the result may hold a lone surrogate)."""
    trimmed = js_trim_end(content)
    original = utf16_len(trimmed)
    if original <= max_chars:
        return trimmed, False
    if variant == "2026.2":
        return _trim_2026_2(trimmed, name, max_chars, original), True
    if variant == "2026.9":  # 2026.9.6 slices surrogate-safe (`sliceUtf16Safe`); AGENTS.md keeps a policy digest
        if name.lower() == "agents.md":
            return bootstrap_2026_9.trim_agents_md(trimmed, max_chars), True
        return _trim_2026_4(trimmed, name, max_chars, original, True), True
    return _trim_2026_4(trimmed, name, max_chars, original, safe), True


@dataclass(frozen=True)
class BootstrapSource:
    """One bootstrap file as loaded from the workspace (before budgeting)."""

    name: str
    path: str
    content: str | None
    missing: bool


@dataclass(frozen=True)
class BootstrapFile:
    """One bootstrap file's fate: its raw size, what was injected and whether it was cut or skipped."""

    name: str
    path: str
    missing: bool
    raw_chars: int
    injected_chars: int
    truncated: bool
    skipped: bool
    text: str
    file_max_chars: int
    surrogate_units_dropped: int = 0
    trimmed_end: str = ""  # the trailing whitespace OpenClaw's trimEnd() took off before injecting (or cutting)

    def to_json(self) -> dict[str, Any]:
        """camelCase shape, like OpenClaw's `systemPromptReport` entries."""
        return {
            "name": self.name,
            "path": self.path,
            "missing": self.missing,
            "rawChars": self.raw_chars,
            "injectedChars": self.injected_chars,
            "truncated": self.truncated,
            "skipped": self.skipped,
            "fileMaxChars": self.file_max_chars,
            "surrogateUnitsDropped": self.surrogate_units_dropped,
        }


@dataclass(frozen=True)
class BootstrapReport:
    """The whole Project Context of one session: per-file results, totals and the budgets used."""

    files: list[BootstrapFile]
    total_raw: int
    total_injected: int
    max_chars: int
    total_max_chars: int
    variant: str
    minimal: bool
    session_key: str | None
    warnings: list[str]

    def to_json(self, *, include_text: bool = False) -> dict[str, Any]:
        """camelCase shape; `include_text` adds each file's injected text."""
        files = []
        for f in self.files:
            data = f.to_json()
            if include_text:
                data["text"] = f.text
            files.append(data)
        return {
            "variant": self.variant,
            "sessionKey": self.session_key,
            "minimal": self.minimal,
            "maxChars": self.max_chars,
            "totalMaxChars": self.total_max_chars,
            "totalRawChars": self.total_raw,
            "totalInjectedChars": self.total_injected,
            "files": files,
            "warnings": list(self.warnings),
        }


def _sources_2026_2(workspace: Path) -> list[BootstrapSource]:
    """2026.2: every file by name; both `MEMORY.md` and `memory.md` (once per real file). Read as the 2026.4
    loader reads: a link leaving the workspace, a FIFO or a device is not read (marked missing)."""
    sources = []
    for name in BOOTSTRAP_ORDER[:-1]:
        path = workspace / name
        text, _ = read_within_workspace(path, workspace)
        sources.append(BootstrapSource(name, str(path), text, text is None))
    seen: set[str] = set()
    for name in ("MEMORY.md", "memory.md"):
        path = workspace / name
        real = os.path.realpath(path)
        if not path.exists() or real in seen:
            continue
        seen.add(real)
        text, _ = read_within_workspace(path, workspace)
        if text is not None:
            sources.append(BootstrapSource(name, str(path), text, False))
    return sources


def load_sources(workspace: Path, settings: ContextSettings, session_key: str | None,
                 variant: str = "2026.4") -> list[BootstrapSource]:
    """The bootstrap files of `session_key` in OpenClaw's order, missing ones marked."""
    if variant == "2026.2":
        sources = _sources_2026_2(workspace)
        if is_minimal_session(session_key):
            sources = [s for s in sources if s.name in MINIMAL_BOOTSTRAP_ALLOWLIST]
        return sources
    if variant == "2026.9":
        return [BootstrapSource(f.name, f.path, f.content, f.missing)
                for f in bootstrap_2026_9.load_sources(workspace, session_key)]
    return [BootstrapSource(f.name, f.path, f.content, f.missing)
            for f in load_bootstrap_files(workspace, settings, session_key)]


def build_bootstrap(sources: list[BootstrapSource], *, max_chars: int, total_max_chars: int,
                    variant: str = "2026.4") -> tuple[list[BootstrapFile], list[str]]:
    """Apply the per-file and total budgets in order; returns the per-file results and OpenClaw's warnings."""
    remaining = max(1, total_max_chars)
    results: list[BootstrapFile] = []
    warnings: list[str] = []
    stopped = False
    for source in sources:
        # 2026.9.6 reports a file's size after `trimEnd()` (`buildBootstrapInjectionStats`)
        raw = 0 if source.content is None else \
            utf16_len(js_trim_end(source.content) if variant == "2026.9" else source.content)
        if not stopped and remaining <= 0:
            stopped = True
        if not stopped and source.missing:
            text = clamp_to_budget(f"[MISSING] Expected at: {source.path}", remaining)
            if text:
                results.append(BootstrapFile(source.name, source.path, True, 0, utf16_len(text), False, False,
                                             text, remaining))
                remaining = max(0, remaining - utf16_len(text))
                continue
            stopped = True
        if not stopped and remaining < MIN_BOOTSTRAP_FILE_BUDGET_CHARS:
            warnings.append(f"remaining bootstrap budget is {remaining} chars "
                            f"(<{MIN_BOOTSTRAP_FILE_BUDGET_CHARS}); skipping additional bootstrap files")
            stopped = True
        if stopped:
            results.append(BootstrapFile(source.name, source.path, source.missing, raw, 0, False, True, "",
                                         0))
            continue
        file_max = max(1, min(_file_budget(source.name, max_chars, variant), remaining))
        trimmed, truncated = trim_bootstrap_content(source.content or "", source.name, file_max, variant)
        text = clamp_to_budget(trimmed, remaining)
        plain, _ = trim_bootstrap_content(source.content or "", source.name, file_max, variant, safe=False)
        dropped = 0 if variant == "2026.9" else \
            utf16_len(clamp_to_budget(plain, remaining, safe=False)) - utf16_len(text)
        if truncated or utf16_len(text) < utf16_len(trimmed):
            original = utf16_len(js_trim_end(source.content or ""))
            warnings.append(f"workspace bootstrap file {source.name} is {original} chars (limit {file_max}); "
                            "truncating in injected context")
        injected = utf16_len(text)
        remaining = max(0, remaining - injected)
        content = source.content or ""
        results.append(BootstrapFile(source.name, source.path, False, raw, injected,
                                     truncated or injected < utf16_len(trimmed), not text, text, file_max, dropped,
                                     content[len(js_trim_end(content)):]))
    return results, warnings


def _file_budget(name: str, max_chars: int, variant: str) -> int:
    return bootstrap_2026_9.file_budget(name, max_chars) if variant == "2026.9" else max_chars


def resolve_budgets(settings: ContextSettings, variant: str = "2026.4") -> tuple[int, int]:
    """Per-file and total caps: `agents.defaults` (2026.9: the agent's entry over them), then the variant's
    defaults."""
    defaults = BUDGETS[variant]
    per_file, total = (settings.agent_bootstrap_max_chars, settings.agent_bootstrap_total_max_chars) \
        if variant == "2026.9" else (settings.bootstrap_max_chars, settings.bootstrap_total_max_chars)
    return (defaults.max_chars if per_file is None else per_file,
            defaults.total_max_chars if total is None else total)


def bootstrap_report(env: AgentEnv, *, session_key: str | None = None,
                     variant: str | None = None) -> BootstrapReport:
    """What OpenClaw would inject as Project Context for `session_key` (the agent's main session when None), by
    the rules of `variant` (default: the agent's generation, 2026.9 or 2026.4)."""
    variant = variant or ("2026.9" if env.openclaw_layout == "2026.9" else "2026.4")
    if variant not in BUDGETS:
        raise ConfigError(f"unknown bootstrap variant {variant!r}; use one of {', '.join(VARIANTS)}")
    key = session_key or env.context.main_session_key
    minimal = is_minimal_session(key)
    max_chars, total_max = resolve_budgets(env.context, variant)
    sources = load_sources(env.workspace_dir, env.context, key, variant)
    files, warnings = build_bootstrap(sources, max_chars=max_chars, total_max_chars=total_max,
                                      variant=variant)
    return BootstrapReport(
        files=files,
        total_raw=sum(f.raw_chars for f in files),
        total_injected=sum(f.injected_chars for f in files),
        max_chars=max_chars,
        total_max_chars=total_max,
        variant=variant,
        minimal=minimal,
        session_key=session_key,
        warnings=warnings,
    )
