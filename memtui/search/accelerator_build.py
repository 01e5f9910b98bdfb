"""Child-process entry point of the accelerator build: `python -m memtui.search.accelerator_build` reads
`{"path": ..., "vectors": ..., <reader_args of the store>}` as JSON on stdin and writes the pickled FastIndex to stdout.
A stale or unreadable index exits 3 with the reason on stderr."""

from __future__ import annotations

import json
import pickle
import sys
from pathlib import Path
from typing import Any

from memtui.errors import StoreError
from memtui.index.store import DriverError, Store
from memtui.search.accelerator import StaleRead, build_index


def main() -> int:
    """Build the index named on stdin; the exit code says whether stdout holds it."""
    request = json.loads(sys.stdin.buffer.read())
    vectors = bool(request.pop("vectors"))
    request["path"] = Path(request["path"])
    postgres = request.pop("driver", "sqlite") == "postgres"
    if not postgres and not request["path"].is_file():
        print(f"cannot open the index: {request['path']} does not exist", file=sys.stderr)
        return 3
    try:
        store = _postgres(request) if postgres else Store(**request)
    except (StoreError, DriverError, OSError) as exc:
        print(f"cannot open the index: {exc}", file=sys.stderr)
        return 3
    try:
        index = build_index(store, vectors=vectors)
    except (StaleRead, DriverError) as exc:
        print(str(exc), file=sys.stderr)
        return 3
    finally:
        store.close()
    sys.stdout.buffer.write(pickle.dumps(index, protocol=pickle.HIGHEST_PROTOCOL))
    return 0


def _postgres(request: dict[str, Any]) -> Store:
    """The agent's index in PostgreSQL, opened read-only (`PostgresStore.reader_args`)."""
    from memtui.index.store.postgres import PostgresStore
    from memtui.search.tokenizer import PorterTokenizer

    return PostgresStore(tokenizer=PorterTokenizer(), **request)  # type: ignore[return-value]  # an IndexStore


if __name__ == "__main__":
    sys.exit(main())
