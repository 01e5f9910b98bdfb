"""The app in a real terminal (tmux): start it, drive it through the README's keys with `send-keys`, read the
screen with `capture-pane`. Skipped only where tmux is not installed (`.ci/install` installs it)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")


class Tmux:
    """One detached tmux session running a command at a fixed size."""

    def __init__(self, command: list[str], width: int, height: int, env: dict[str, str]) -> None:
        self.name = f"memtui-test-{uuid.uuid4().hex[:8]}"
        exports = " ".join(f"{k}={_quote(v)}" for k, v in env.items())
        shell = f"env {exports} {' '.join(_quote(c) for c in command)}; sleep 30"
        subprocess.run(["tmux", "new-session", "-d", "-s", self.name, "-x", str(width), "-y", str(height), shell],
                       check=True)
        # tmux holds Esc for 500 ms to see whether a key follows (Esc t would arrive as alt+t).
        subprocess.run(["tmux", "set-option", "-s", "-t", self.name, "escape-time", "0"], check=True)

    def screen(self) -> str:
        """What the terminal shows now."""
        return subprocess.run(["tmux", "capture-pane", "-p", "-t", self.name], check=True, capture_output=True,
                              text=True).stdout

    def keys(self, *keys: str) -> None:
        """Press keys (tmux key names, e.g. Escape, Enter, C-s), a person's pace apart."""
        for key in keys:
            subprocess.run(["tmux", "send-keys", "-t", self.name, key], check=True)
            time.sleep(0.15)

    def keys_at_once(self, *keys: str) -> None:
        """Press keys in one write, as a fast typist or a paste sends them."""
        subprocess.run(["tmux", "send-keys", "-t", self.name, *keys], check=True)

    def text(self, text: str) -> None:
        """Type literal text."""
        subprocess.run(["tmux", "send-keys", "-t", self.name, "-l", text], check=True)

    def wait_for(self, needle: str, timeout: float = 30.0) -> str:
        """The screen once it shows `needle`."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            shown = self.screen()
            if needle in shown:
                return shown
            time.sleep(0.1)
        raise AssertionError(f"{needle!r} not on the screen after {timeout} s:\n{self.screen()}")

    def wait_gone(self, needle: str, timeout: float = 30.0) -> None:
        """Wait until `needle` has left the screen (a dialog closed)."""
        deadline = time.monotonic() + timeout
        while needle in self.screen():
            if time.monotonic() > deadline:
                raise AssertionError(f"{needle!r} still on the screen after {timeout} s:\n{self.screen()}")
            time.sleep(0.1)

    def close(self) -> None:
        """End the session."""
        subprocess.run(["tmux", "kill-session", "-t", self.name], check=False, capture_output=True)


def _quote(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"


@pytest.fixture
def demo_app(tmp_path: Path):
    """The demo (keyword-only, no model) in tmux at 100x30, with $EDITOR recording what it was asked to open."""
    editor = tmp_path / "editor.sh"
    record = tmp_path / "editor-args"
    editor.write_text(f"#!/bin/sh\necho \"$@\" > {record}\n", encoding="utf-8")
    editor.chmod(0o755)
    env = {"PYTHONPATH": str(ROOT), "TERM": "xterm-256color", "EDITOR": str(editor), "HOME": str(tmp_path)}
    session = Tmux([sys.executable, "-m", "memtui", "demo", "--no-model", "--dir", str(tmp_path / "demo"),
                    "--query", ""], 100, 30, {**{k: v for k, v in os.environ.items() if k == "PATH"}, **env})
    try:
        yield session, record
    finally:
        session.close()


def test_the_readme_keys_in_a_real_terminal(demo_app) -> None:
    tmux, record = demo_app
    tmux.wait_for("3 Results")
    tmux.wait_for("clean", timeout=60)
    assert "2 Files" not in tmux.screen()  # 100 columns: the sidebar folds away; b brings it back
    tmux.keys("b")
    tmux.wait_for("2 Files")
    # `/` search: typing goes to the box, even keys that are commands elsewhere.
    tmux.keys("/")
    tmux.text("gateway 502")
    shown = tmux.wait_for("memory/")
    assert "gateway 502" in shown
    tmux.keys("Enter")  # to the results
    tmux.wait_for("w why")
    # `x` query explanation, closed by any key.
    tmux.keys("x")
    tmux.wait_for("Keyword query")
    tmux.keys("q")
    tmux.wait_gone("Keyword query")
    # Enter opens the hit at its lines; `v` toggles rendered / raw.
    tmux.keys("Enter")
    tmux.wait_for("· raw")
    tmux.keys("v")
    tmux.wait_for("· rendered")
    # `3` back to the results, `w` why-not for the hit.
    tmux.keys("3", "w")
    tmux.wait_for("Why (not)")
    tmux.keys("Escape")
    tmux.wait_gone("Why (not)")
    # `t` tuning; an arrow changes a knob; the status bar says tuned; ctrl+t resets.
    tmux.keys("t")
    tmux.wait_for("5 Tuning")
    tmux.keys("Down", "Down", "Down", "Down", "Right")
    tmux.wait_for("tuned")
    tmux.keys("C-t")
    time.sleep(0.5)
    assert "tuned" not in tmux.screen().splitlines()[-2]
    tmux.keys("t")
    # `E` opens $EDITOR at the hit's line (the app suspends, then comes back).
    tmux.keys("3", "E")
    deadline = time.monotonic() + 10
    while not record.exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    args = record.read_text(encoding="utf-8").split()
    assert args[0].startswith("+") and args[1].endswith(".md")
    tmux.wait_for("3 Results")
    # `s` sessions, `?` help for that screen, back with Esc.
    tmux.keys("s")
    tmux.wait_for("Bootstrap")
    tmux.keys("?")
    tmux.wait_for("memtui: sessions")
    tmux.keys("Escape")
    tmux.wait_gone("memtui: sessions")
    tmux.keys("Escape")
    tmux.wait_for("3 Results")
    # `?` on the main screen lists keys as people write them.
    tmux.keys("?")
    shown = tmux.wait_for("memtui: keys")
    assert "slash" not in shown and "question_mark" not in shown
    tmux.keys("Escape")
    tmux.wait_gone("memtui: keys")
    # `q` quits.
    tmux.keys("q")
    deadline = time.monotonic() + 10
    while "3 Results" in tmux.screen() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert "3 Results" not in tmux.screen()
