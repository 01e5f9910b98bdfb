"""The command that opens a file in the user's editor at a line ($VISUAL, then $EDITOR)."""

from __future__ import annotations

import os
import shlex
from collections.abc import Mapping
from pathlib import Path

from memtui.errors import MemtuiError

# Editors that take the line another way than `+N FILE` (vi, vim, nvim, nano, emacs, micro, kak, ...).
_COLON_STYLE = {"code", "codium", "subl", "zed", "hx", "helix"}


def editor_command(path: Path, line: int, environ: Mapping[str, str] | None = None) -> list[str]:
    """argv opening `path` at `line`; a clear error when neither $VISUAL nor $EDITOR is set."""
    env = os.environ if environ is None else environ
    spec = (env.get("VISUAL") or env.get("EDITOR") or "").strip()
    if not spec:
        raise MemtuiError("no editor configured", "set $EDITOR (or $VISUAL), e.g. export EDITOR=vim")
    try:
        argv = shlex.split(spec)
    except ValueError as exc:
        raise MemtuiError(f"cannot read $EDITOR {spec!r}: {exc}") from None
    name = Path(argv[0]).name
    if name in _COLON_STYLE:
        return [*argv, *(["-g"] if name in ("code", "codium") else []), f"{path}:{max(1, line)}"]
    return [*argv, f"+{max(1, line)}", str(path)]
