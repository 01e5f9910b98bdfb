"""Keys written as people write them: `/`, `?`, `F1`, `ctrl+s`, `Enter`, `Esc`, `↑`."""

from __future__ import annotations

from textual.keys import format_key

_NAMES = {
    "escape": "Esc", "enter": "Enter", "tab": "Tab", "space": "Space", "backspace": "Backspace",
    "delete": "Del", "up": "↑", "down": "↓", "left": "←", "right": "→", "pageup": "PgUp", "pagedown": "PgDn",
    "home": "Home", "end": "End", "insert": "Ins",
}


def key_display(key: str) -> str:
    """One key: `slash` → `/`, `f1` → `F1`, `ctrl+s` → `ctrl+s`, `escape` → `Esc`."""
    *modifiers, base = key.split("+")
    if base in _NAMES:
        shown = _NAMES[base]
    elif len(base) > 1 and base[0] == "f" and base[1:].isdigit():
        shown = base.upper()
    else:
        shown = format_key(base)
    return "+".join([*modifiers, shown])


def keys_display(keys: str, *, first: bool = False) -> str:
    """A comma-separated key list (`question_mark,f1` → `? F1`); `first` keeps only the first key."""
    parts = [key_display(k.strip()) for k in keys.split(",") if k.strip()]
    return parts[0] if first and parts else " ".join(parts)
