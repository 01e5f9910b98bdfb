"""`memory_get` against §9.2: allowed places, hostile paths, line windows and the character cap."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from memtui.errors import ToolInputError
from memtui.settings.context import resolve_context_settings
from memtui.tools import memory_get

ERROR_KEYS = {"path", "text", "disabled", "error"}


@pytest.fixture
def layout(tmp_path: Path) -> dict[str, Path]:
    ws = tmp_path / "ws"
    (ws / "memory" / "sub").mkdir(parents=True)
    (ws / "memory" / "dir.md").mkdir()
    (ws / "MEMORY.md").write_text("# Memory\n- tea\n", encoding="utf-8")
    (ws / "DREAMS.md").write_text("# Dream Diary\n", encoding="utf-8")
    (ws / "SOUL.md").write_text("soul\n", encoding="utf-8")
    (ws / "USER.md").write_text("user\n", encoding="utf-8")
    (ws / "memory.md").write_text("legacy\n", encoding="utf-8")
    (ws / "memory" / "2026-04-28.md").write_text("a\nb\nc\n", encoding="utf-8")
    (ws / "memory" / "sub" / "deep.md").write_text("deep\n", encoding="utf-8")
    (ws / "memory" / "with space #1.md").write_text("odd\n", encoding="utf-8")
    (ws / "memory" / "notes.txt").write_text("text\n", encoding="utf-8")
    (ws / "notes").mkdir()
    (ws / "notes" / "x.md").write_text("not configured\n", encoding="utf-8")
    (ws / "docs").mkdir()
    (ws / "docs" / "a.md").write_text("docs a\n", encoding="utf-8")
    (ws / "single.md").write_text("single\n", encoding="utf-8")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "o.md").write_text("outside extra\n", encoding="utf-8")
    secret = tmp_path / "secret"
    secret.mkdir()
    (secret / "s.md").write_text("secret\n", encoding="utf-8")
    os.symlink(secret / "s.md", ws / "memory" / "link.md")
    os.symlink(secret, ws / "memory" / "linkdir")
    os.symlink(secret / "s.md", ws / "docs" / "linked.md")
    return {"ws": ws, "outside": outside, "secret": secret, "tmp": tmp_path}


def _get(layout: dict[str, Path], path: str, **kwargs):
    extra = (str(layout["outside"]), "docs", "single.md")
    return memory_get(layout["ws"], path, extra_paths=extra, **kwargs)


HOSTILE = [
    "..",
    "../../etc/passwd.md",
    "/etc/passwd.md",
    "//etc/passwd.md",
    "~/x.md",
    "C:\\x.md",
    "c:/x.md",
    "memory/a\x00.md",
    "memory/link.md",
    "memory/linkdir/s.md",
    "docs/linked.md",
    "memory/notes.txt",
    "memory/../MEMORY.md",
    "memory/../../secret/s.md",
    "memory/sub/../../../secret/s.md",
    "SOUL.md",
    "USER.md",
    "memory.md",
    "MEMORY.MD",
    "file:///etc/passwd.md",
    "https://example.com/x.md",
    "memory\\..\\..\\secret\\s.md",
    "memory/dir.md",
    "memory",
    "memory/",
    "notes/x.md",
    "../secret/s.md",
    "../outside/../secret/s.md",
    "docs/../SOUL.md",
]


@pytest.mark.parametrize("path", HOSTILE, ids=[repr(p) for p in HOSTILE])
def test_hostile_paths_get_the_error_shape(layout: dict[str, Path], path: str) -> None:
    result = _get(layout, path)
    assert set(result) == ERROR_KEYS, result
    assert result["path"] == path
    assert result["text"] == ""
    assert result["disabled"] is True
    assert isinstance(result["error"], str) and result["error"]


@pytest.mark.parametrize("path", ["", "   ", "\t\n"], ids=repr)
def test_an_empty_path_is_a_tool_input_error(layout: dict[str, Path], path: str) -> None:
    with pytest.raises(ToolInputError, match="path required"):
        _get(layout, path)


def test_absolute_path_to_an_allowed_file_is_rejected(layout: dict[str, Path]) -> None:
    path = str(layout["ws"] / "MEMORY.md")
    result = _get(layout, path)
    assert set(result) == ERROR_KEYS and result["disabled"] is True


def test_symlinked_memory_dir_is_rejected(tmp_path: Path) -> None:
    ws = tmp_path / "ws2"
    ws.mkdir()
    real = tmp_path / "real-memory"
    real.mkdir()
    (real / "a.md").write_text("a\n")
    os.symlink(real, ws / "memory")
    result = memory_get(ws, "memory/a.md")
    assert set(result) == ERROR_KEYS and result["disabled"] is True


@pytest.mark.parametrize(
    ("path", "content"),
    [("MEMORY.md", "# Memory\n- tea\n"), ("DREAMS.md", "# Dream Diary\n"), ("memory/2026-04-28.md", "a\nb\nc\n"),
     ("memory/sub/deep.md", "deep\n"), ("memory/with space #1.md", "odd\n"), ("docs/a.md", "docs a\n"),
     ("single.md", "single\n"), ("../outside/o.md", "outside extra\n")],
)
def test_allowed_paths_return_the_whole_small_file(layout: dict[str, Path], path: str, content: str) -> None:
    result = _get(layout, path)
    assert result["path"] == path
    assert result["text"] == content
    assert result["from"] == 1
    assert "error" not in result and "disabled" not in result
    assert "nextFrom" not in result and not result.get("truncated")


def test_lowercase_dreams_md_is_allowed(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "dreams.md").write_text("lower diary\n")
    assert memory_get(ws, "dreams.md")["text"] == "lower diary\n"


def test_missing_allowed_file_gives_empty_text(layout: dict[str, Path]) -> None:
    assert _get(layout, "memory/2099-01-01.md") == {"text": "", "path": "memory/2099-01-01.md"}


def _numbered(ws: Path, count: int) -> str:
    content = "\n".join(f"line {i}" for i in range(1, count + 1))
    (ws / "memory" / "long.md").write_text(content, encoding="utf-8")
    return content


def test_default_window_is_120_lines_with_next_from(layout: dict[str, Path]) -> None:
    _numbered(layout["ws"], 300)
    result = _get(layout, "memory/long.md")
    body = "\n".join(f"line {i}" for i in range(1, 121))
    assert result["text"] == body + "\n\n[More content available. Use from=121 to continue.]"
    assert result["truncated"] is True
    assert result["nextFrom"] == 121
    assert result["from"] == 1


def test_explicit_window_and_last_window(layout: dict[str, Path]) -> None:
    _numbered(layout["ws"], 300)
    middle = _get(layout, "memory/long.md", from_line=121, lines=10)
    assert middle["text"] == "\n".join(f"line {i}" for i in range(121, 131)) + \
        "\n\n[More content available. Use from=131 to continue.]"
    assert middle["nextFrom"] == 131
    last = _get(layout, "memory/long.md", from_line=291)
    assert last["text"] == "\n".join(f"line {i}" for i in range(291, 301))
    assert "nextFrom" not in last and not last.get("truncated")


def test_character_cap_12000(layout: dict[str, Path]) -> None:
    # 149-char lines: 80 lines = 11920 chars (12000 with newlines would be 80·150−1 = 11999); 81 lines exceed 12000.
    line = "y" * 149
    (layout["ws"] / "memory" / "wide.md").write_text("\n".join([line] * 200), encoding="utf-8")
    result = _get(layout, "memory/wide.md", lines=200)
    assert result["text"] == "\n".join([line] * 80) + "\n\n[More content available. Use from=81 to continue.]"
    assert result["nextFrom"] == 81
    assert result["truncated"] is True


def test_single_line_over_budget_is_hard_cut_with_read_hint(layout: dict[str, Path]) -> None:
    (layout["ws"] / "memory" / "huge.md").write_text("z" * 13000 + "\nnext\n", encoding="utf-8")
    result = _get(layout, "memory/huge.md")
    assert result["text"].startswith("z" * 12000)
    assert not result["text"].startswith("z" * 12001)
    notice = result["text"][12000:]
    assert "read" in notice
    assert "Use from=" not in notice
    assert result["truncated"] is True


def test_context_limits_from_config() -> None:
    raw = {"agents": {"defaults": {"contextLimits": {"memoryGetMaxChars": 500, "memoryGetDefaultLines": 7}}}}
    configured, default = resolve_context_settings(raw, "main"), resolve_context_settings({}, "main")
    assert (configured.memory_get_max_chars, configured.memory_get_default_lines) == (500, 7)
    assert (default.memory_get_max_chars, default.memory_get_default_lines) == (12000, 120)


def test_the_streamed_window_is_the_window_of_the_whole_text(tmp_path: Path) -> None:
    """memory_get reads only the lines it returns; what it returns is `read_window` of the whole decoded file."""
    import random

    from memtui.tools import read_window

    rng = random.Random(15)
    pieces = ["a", "é", "€", "😀", "\n", "\n", "\r\n", "\xff", "\xe2\x82", "word ", "x" * 40]
    note = tmp_path / "memory" / "n.md"
    note.parent.mkdir()
    for _ in range(400):
        raw = "".join(rng.choice(pieces) for _ in range(rng.randrange(0, 120)))
        data = raw.encode("utf-8", errors="surrogateescape").replace(b"\xc3\xbf", b"\xff")
        note.write_bytes(data.replace("\xe2\x82".encode(), b"\xe2\x82"))
        start, count, budget = rng.choice([None, 1, 2, 5, 40]), rng.choice([None, 1, 3, 10]), rng.randrange(1, 60)
        got = memory_get(tmp_path, "memory/n.md", from_line=start, lines=count, max_chars=budget)
        expected = read_window(note.read_bytes().decode("utf-8", errors="replace"), "memory/n.md", from_line=start,
                               lines=count, default_lines=120, max_chars=budget, suggest_read=True)
        assert got == expected, (note.read_bytes(), start, count, budget)


@pytest.mark.parametrize("path", ["memory/" + "a/" * 100_000 + "x.md", "notes/" + "a/" * 100_000 + "x.md"])
def test_a_path_of_100000_folders_is_answered_at_once(tmp_path: Path, path: str) -> None:
    """A tool call's path costs time in proportion to its length (a query is capped; a path is not)."""
    import time

    (tmp_path / "memory").mkdir()
    started = time.perf_counter()
    got = memory_get(tmp_path, path, extra_paths=("notes",))
    assert time.perf_counter() - started < 2.0
    assert got["text"] == ""
