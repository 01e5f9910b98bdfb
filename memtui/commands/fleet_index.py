"""`memtui fleet-index [--dims N] [--drop] [--memory SIZE]`: pack every agent's postings that a write has not packed
yet (`memtui.index.store.postgres.packs`), and build or drop the approximate vector index a fleet search reads
(`memtui.index.store.postgres.fleet_ann`)."""

from __future__ import annotations

import argparse
import time

from memtui.commands.args import agent_from_args
from memtui.commands.fleet import connection
from memtui.commands.output import print_json
from memtui.errors import ConfigError
from memtui.index.store.postgres.fleet_ann import ANN_BUILD_WIDTH, ANN_LINKS, build_ann, drop_ann, fleet_dims
from memtui.index.store.postgres.packs import pack_fleet


def register(subparsers: argparse._SubParsersAction, parents: list[argparse.ArgumentParser]) -> None:
    """Add the `fleet-index` subcommand."""
    parser = subparsers.add_parser(
        "fleet-index", parents=parents, help="pack the agents' postings a write has not packed yet (a database made "
        "by an older memtui), and build (or drop) the PostgreSQL store's approximate vector index for fleet searches: "
        "milliseconds instead of a scan of every agent's vectors, paid for on every write")
    parser.add_argument("--dims", type=int, metavar="N", help="the vector dimension to index (default: that of "
                        "most of the fleet's chunks)")
    parser.add_argument("--drop", action="store_true", help="drop the index instead")
    parser.add_argument("--memory", default="2GB", metavar="SIZE", help="maintenance_work_mem of the build (the "
                        "graph should fit: about 1.2 x dims x 4 bytes a vector; default 2GB)")
    parser.add_argument("--m", type=int, default=ANN_LINKS, metavar="M", help=f"hnsw links per vector (default "
                        f"{ANN_LINKS}: more is better recall, a slower build and bigger index)")
    parser.add_argument("--ef-construction", type=int, default=ANN_BUILD_WIDTH, metavar="N", help="hnsw candidates "
                        f"kept while linking (default {ANN_BUILD_WIDTH})")
    parser.add_argument("--json", action="store_true", help="print what was done as JSON")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Pack, then build or drop the vector index; the build runs concurrently with writers and can take minutes."""
    env = agent_from_args(args)
    if env.read_only:
        raise ConfigError("fleet-index writes to the database; --read-only forbids it", "drop --read-only")
    with connection(env) as conn:
        dims = args.dims
        if dims is None:
            known = fleet_dims(conn)
            if not known and args.drop:
                raise ConfigError("no agent in the database has vectors", "give --dims")
            dims = known[0] if known else None
        if args.drop:
            done = {"dims": dims, "dropped": drop_ann(conn, dims)}
        else:
            began = time.perf_counter()
            done = {"packed": pack_fleet(conn), "packSeconds": round(time.perf_counter() - began, 1), "dims": dims}
            seconds = None if dims is None else build_ann(conn, dims, args.memory, links=args.m,
                                                          candidates=args.ef_construction)
            done |= {"built": seconds is not None, "seconds": None if seconds is None else round(seconds, 1)}
    if args.json:
        print_json(done)
    elif args.drop:
        print(f"Dropped the fleet vector index for {dims} dimensions." if done["dropped"] else
              f"There was no fleet vector index for {dims} dimensions.")
    else:
        print(f"Packed the postings of {done['packed']} agents' indexes ({done['packSeconds']} s)." if done["packed"]
              else "Every agent's postings were packed already.")
        if dims is None:
            print("No agent in the database has vectors yet: no vector index to build.")
        elif done["built"]:
            print(f"Fleet vector index for {dims} dimensions ready ({done['seconds']} s): fleet searches of a "
                  f"{dims}-dimension model read it.")
        else:
            print(f"The fleet vector index for {dims} dimensions is already there (--drop it to build another).")
    return 0
