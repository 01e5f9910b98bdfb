"""Which store holds the index: `memorySearch.store.driver` — `sqlite` (OpenClaw's, the default: one file per
agent) or `postgres` (one PostgreSQL database for a fleet of agents) — and, for PostgreSQL, `store.url`: a libpq
connection URI or `key=value` string. Parts it leaves out (all of them when it is empty or unset) come from the
usual `PGHOST`, `PGPORT`, `PGDATABASE`, `PGUSER`, `PGPASSWORD` environment variables, as libpq reads them."""

from __future__ import annotations

from dataclasses import dataclass

from memtui.errors import ConfigError

DRIVERS = ("sqlite", "postgres")


@dataclass(frozen=True)
class StoreSettings:
    """Index store settings (`store`); `path` is OpenClaw's own index, reported but not used by default."""

    path: str = "~/.openclaw/memory/{agentId}.sqlite"
    fts_tokenizer: str = "unicode61"
    vector_enabled: bool = True
    vector_extension_path: str | None = None
    driver: str = "sqlite"
    url: str | None = None


def store_driver(driver: str | None, url: str | None, where: str) -> tuple[str, str | None]:
    """The validated (driver, url) of a `store` block: the driver defaults to sqlite, a url is for postgres."""
    chosen = (driver or "sqlite").strip().lower()
    if chosen not in DRIVERS:
        raise ConfigError(f"{where}: memorySearch.store.driver must be sqlite or postgres, got {driver!r}")
    if url is not None and chosen != "postgres":
        raise ConfigError(f"{where}: memorySearch.store.url is for the postgres driver; the driver is {chosen}")
    return chosen, url.strip() if url is not None else None
