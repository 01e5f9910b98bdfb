"""What can be said of a copy sent to the terminal's clipboard (OSC 52): a terminal never answers it, but tmux,
which sits in between, says whether it lets programs set the clipboard (`set-clipboard`)."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping

TMUX_TIMEOUT = 0.5  # seconds; the copy's toast waits for the answer


def tmux_set_clipboard(environ: Mapping[str, str] | None = None) -> str | None:
    """tmux's `set-clipboard` option (`on`, `external`, `off`) when running inside tmux; None outside tmux or when
    tmux does not answer."""
    env = os.environ if environ is None else environ
    if not env.get("TMUX"):
        return None
    try:
        answer = subprocess.run(["tmux", "show-options", "-gv", "set-clipboard"], capture_output=True, text=True,
                                timeout=TMUX_TIMEOUT, env=dict(env), check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return (answer.stdout.strip() or None) if answer.returncode == 0 else None


def osc52_outcome(what: str, environ: Mapping[str, str] | None = None) -> tuple[str, bool]:
    """The toast for `what` sent by OSC 52, and whether it is a warning: never "copied" (the terminal does not
    say whether it took it), and when tmux's `set-clipboard` drops what programs send, that and how to change it."""
    setting = tmux_set_clipboard(environ)
    if setting is not None and setting != "on":
        return (f"{what[:1].upper()}{what[1:]} did not reach the terminal clipboard (OSC 52): tmux drops what "
                f"programs send it while its set-clipboard is {setting}; `tmux set -g set-clipboard on` lets it "
                "through", True)
    through = " through tmux" if setting == "on" else ""
    return (f"Sent {what} to the terminal clipboard (OSC 52{through}); your terminal may ignore it "
            "(some do, or ask first)", False)
