"""The store interface names what the engine uses of a store, both stores implement it, and the config chooses
the driver."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import pytest

from memtui.errors import ConfigError, StoreError
from memtui.index.store import Store
from memtui.index.store.postgres import PostgresStore
from memtui.index.store.postgres.fleet_reads import FleetReads
from memtui.index.store.protocol import IndexStore, SearchReads
from memtui.settings.config import resolve_memory_search

PACKAGE = Path(__file__).resolve().parents[1] / "memtui"
# The store's users: searcher, indexer, manager, status, workspace identity, the in-memory accelerator.
USERS = ("search/engine.py", "index/indexer.py", "manager/facade.py", "manager/status.py", "index/identity.py",
         "search/accelerator.py", "search/fast_search.py")


def members(protocol: type) -> set[str]:
    """The public methods, properties and attributes a protocol names, its bases' included."""
    annotated = {name for klass in protocol.__mro__ for name in getattr(klass, "__annotations__", {})}
    return {name for name in dir(protocol) if not name.startswith("_")} | annotated


MEMBERS = members(IndexStore)


def used_members(path: Path) -> set[str]:
    """Names read off `store`, `self.store`, `temp` (a rebuild's store) in one module (not `settings.store`)."""
    used = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Attribute):
            owner = node.value
            if (isinstance(owner, ast.Name) and owner.id in ("store", "temp")) or (
                    isinstance(owner, ast.Attribute) and owner.attr == "store"
                    and not (isinstance(owner.value, ast.Attribute) and owner.value.attr == "settings")):
                used.add(node.attr)
    return used


def test_the_interface_names_everything_the_engine_uses() -> None:
    used = set().union(*(used_members(PACKAGE / name) for name in USERS))
    assert used - MEMBERS == set()
    assert used_members(PACKAGE / "search/engine.py") - members(SearchReads) == set()  # the fleet's reads suffice


@pytest.mark.parametrize(("store", "protocol"), [(Store, IndexStore), (PostgresStore, IndexStore),
                                                 (FleetReads, SearchReads)])
def test_every_store_implements_every_member(store: type, protocol: type) -> None:
    names = members(protocol)
    missing = [name for name in names if not hasattr(store, name) and name not in store.__init__.__code__.co_names]
    assert missing == []
    for name in names:
        wanted = getattr(protocol, name, None)
        if inspect.isfunction(wanted):
            assert list(inspect.signature(getattr(store, name)).parameters) == \
                list(inspect.signature(wanted).parameters), name


def _store(block: dict[str, object]) -> tuple[str, str | None]:
    settings = resolve_memory_search({"agents": {"defaults": {"memorySearch": {"store": block}}}}, "main")
    return settings.store.driver, settings.store.url


def test_driver_and_url_come_from_the_store_block() -> None:
    assert _store({}) == ("sqlite", None)
    assert _store({"driver": "postgres", "url": " postgresql://fleet@db/memory "}) == \
        ("postgres", "postgresql://fleet@db/memory")
    assert _store({"driver": "postgres"}) == ("postgres", None)  # the PG* environment variables


def test_a_wrong_driver_or_a_url_without_postgres_is_refused() -> None:
    with pytest.raises(ConfigError, match=r"store\.driver must be sqlite or postgres, got 'mysql'"):
        _store({"driver": "mysql"})
    with pytest.raises(ConfigError, match=r"store\.url is for the postgres driver"):
        _store({"url": "postgresql://db/memory"})


def test_an_unreachable_server_is_one_clear_error_without_the_password(tmp_path: Path) -> None:
    url = f"postgresql://fleet:s3cret@/memory?host={tmp_path}&port=1"
    with pytest.raises(StoreError) as failure:
        PostgresStore(url, agent="main", workspace=str(tmp_path), path=tmp_path / "main.sqlite", tokenizer=None)  # type: ignore[arg-type]
    assert f"cannot connect to PostgreSQL at fleet@{tmp_path}:1/memory" in failure.value.message
    assert "s3cret" not in str(failure.value) and "store.url" in (failure.value.hint or "")
