"""Memory file listing against §1.2 and §5.5."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from memtui.index.workspace import list_memory_files


def _write(path: Path, text: str = "note\n") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def _rels(workspace: Path, extra: list[str] | tuple[str, ...] = ()) -> list[str]:
    return [f.rel_path for f in list_memory_files(workspace, extra)]


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    return workspace


def test_order_root_then_memory_tree_then_extra(ws: Path, tmp_path: Path) -> None:
    _write(ws / "MEMORY.md")
    _write(ws / "memory" / "2026-04-28.md")
    _write(ws / "notes" / "x.md")
    files = list_memory_files(ws, ["notes"])
    assert [f.rel_path for f in files] == ["MEMORY.md", "memory/2026-04-28.md", "notes/x.md"]
    assert files[0].abs_path.resolve() == (ws / "MEMORY.md").resolve()


def test_lowercase_memory_md_is_not_listed(ws: Path) -> None:
    _write(ws / "memory.md")
    _write(ws / "memory" / "a.md")
    assert _rels(ws) == ["memory/a.md"]


def test_mixed_case_root_file_is_not_listed(ws: Path) -> None:
    _write(ws / "Memory.md")
    assert _rels(ws) == []


def test_root_memory_symlink_is_skipped(ws: Path, tmp_path: Path) -> None:
    target = _write(tmp_path / "elsewhere" / "real.md")
    os.symlink(target, ws / "MEMORY.md")
    _write(ws / "memory" / "a.md")
    assert _rels(ws) == ["memory/a.md"]


def test_root_memory_directory_is_skipped(ws: Path) -> None:
    (ws / "MEMORY.md").mkdir()
    assert _rels(ws) == []


def test_symlinked_files_and_dirs_under_memory_are_skipped(ws: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    _write(outside / "linked.md")
    _write(ws / "memory" / "real.md")
    os.symlink(outside / "linked.md", ws / "memory" / "alias.md")
    os.symlink(outside, ws / "memory" / "linkdir")
    assert _rels(ws) == ["memory/real.md"]


def test_symlinked_memory_dir_contributes_nothing(ws: Path, tmp_path: Path) -> None:
    _write(tmp_path / "real-memory" / "a.md")
    os.symlink(tmp_path / "real-memory", ws / "memory")
    assert _rels(ws) == []


def test_repair_dir_skipped_dot_dirs_walked_non_md_ignored(ws: Path) -> None:
    _write(ws / "memory" / ".openclaw-repair" / "root-memory" / "memory.md")
    _write(ws / "memory" / ".hidden" / "kept.md")
    _write(ws / "memory" / ".dreams" / "short-term-recall.json", "{}")
    _write(ws / "memory" / ".dreams" / "events.txt")
    _write(ws / "memory" / "dreaming" / "deep" / "2026-04-01.md")
    _write(ws / "memory" / "notes.txt")
    _write(ws / "memory" / "README.MD")
    _write(ws / "memory" / "noext")
    assert sorted(_rels(ws)) == ["memory/.hidden/kept.md", "memory/dreaming/deep/2026-04-01.md"]


def test_root_bootstrap_files_are_not_listed(ws: Path) -> None:
    for name in ("USER.md", "SOUL.md", "AGENTS.md", "DREAMS.md", "TOOLS.md"):
        _write(ws / name)
    assert _rels(ws) == []


def test_odd_names_keep_their_exact_spelling(ws: Path) -> None:
    names = ["with space.md", "ünïcödé 日本.md", "hash#tag.md", "semi;colon.md", "2026-04-28-a b.md"]
    for name in names:
        _write(ws / "memory" / name)
    assert sorted(_rels(ws)) == sorted(f"memory/{n}" for n in names)


def test_extra_paths_absolute_relative_dir_and_single_file(ws: Path, tmp_path: Path) -> None:
    _write(ws / "docs" / "a.md")
    _write(ws / "docs" / "deep" / "b.md")
    _write(ws / "single.md")
    outside = tmp_path / "outside"
    _write(outside / "c.md")
    _write(outside / "skip.txt")
    rels = _rels(ws, ["docs", "single.md", str(outside)])
    assert sorted(rels) == sorted(["docs/a.md", "docs/deep/b.md", "single.md", "../outside/c.md"])


def test_extra_single_file_must_be_markdown(ws: Path, tmp_path: Path) -> None:
    _write(ws / "notes.txt")
    _write(tmp_path / "x.json", "{}")
    assert _rels(ws, ["notes.txt", str(tmp_path / "x.json")]) == []


def test_extra_symlink_paths_are_skipped(ws: Path, tmp_path: Path) -> None:
    _write(tmp_path / "target" / "t.md")
    os.symlink(tmp_path / "target", ws / "linked-dir")
    os.symlink(tmp_path / "target" / "t.md", ws / "linked.md")
    assert _rels(ws, ["linked-dir", "linked.md"]) == []


def test_missing_extra_path_is_ignored(ws: Path) -> None:
    _write(ws / "memory" / "a.md")
    assert _rels(ws, ["does-not-exist", "/no/such/dir"]) == ["memory/a.md"]


def test_deduplicated_by_real_path(ws: Path) -> None:
    _write(ws / "MEMORY.md")
    _write(ws / "memory" / "a.md")
    rels = _rels(ws, ["MEMORY.md", "memory", str(ws / "memory" / "a.md"), "./memory/a.md"])
    assert rels == ["MEMORY.md", "memory/a.md"]


def test_extra_dir_inside_memory_walk_is_not_repeated(ws: Path) -> None:
    _write(ws / "memory" / "sub" / "a.md")
    assert _rels(ws, ["memory/sub"]) == ["memory/sub/a.md"]


def test_relative_paths_use_forward_slashes_at_any_depth(ws: Path) -> None:
    _write(ws / "memory" / "a" / "b" / "c" / "d.md")
    assert _rels(ws) == ["memory/a/b/c/d.md"]


def test_workspace_itself_as_extra_path_adds_only_what_memory_did_not(ws: Path) -> None:
    _write(ws / "MEMORY.md")
    _write(ws / "memory" / "a.md")
    _write(ws / "top.md")
    assert _rels(ws, ["."]) == ["MEMORY.md", "memory/a.md", "top.md"]


def test_extra_dir_through_a_symlinked_parent_is_deduplicated_by_real_path(ws: Path, tmp_path: Path) -> None:
    """The real path of a walked file is its folder's real path plus the walked names: a folder reached through
    a symlinked parent still names the files `memory/` already listed."""
    _write(ws / "memory" / "team" / "a.md")
    _write(ws / "memory" / "team" / "deep" / "b.md")
    os.symlink(ws / "memory", tmp_path / "alias")
    assert _rels(ws, [str(tmp_path / "alias" / "team")]) == ["memory/team/a.md", "memory/team/deep/b.md"]
