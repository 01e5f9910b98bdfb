"""Generate realistic OpenClaw-style workspaces: dated daily logs with entries, and a long MEMORY.md."""

from __future__ import annotations

import argparse
import random
from datetime import date, timedelta
from pathlib import Path

PEOPLE = ["Alice", "Bob", "Carol", "Dave", "Erin", "Farid", "Grace", "Hiro", "Ines", "Jonas"]
SERVICES = ["billing-api", "auth-gateway", "search-indexer", "payments-webhook", "notifier", "ledger",
            "media-resizer", "report-cron", "session-store", "feature-flags"]
ERRORS = ["HTTP 502 Bad Gateway", "ECONNRESET", "pq: too many connections", "OOMKilled", "TLS handshake timeout",
          "deadlock detected", "429 Too Many Requests", "disk quota exceeded", "certificate has expired",
          "segfault in libvips"]
TOPICS = {
    "decision": ["We decided to {verb} {service} behind {tool} after comparing it with {alt}.",
                 "Agreed with {person} to keep {service} on {tool} until the {quarter} review.",
                 "Decision: {service} retries move to exponential backoff capped at {n} seconds."],
    "incident": ["Incident {ticket}: {service} returned {error} for {n} minutes; rolled back build {build}.",
                 "Paged at {hh}:{mm} for {service}: {error}. Root cause was a stale config in {tool}.",
                 "{person} found {error} in {service} logs; mitigation was raising the pool size to {n}."],
    "preference": ["{person} prefers {tool} over {alt} for {service} dashboards.",
                   "User likes short status updates with ticket ids first, then the details.",
                   "{person} asked to never deploy {service} on Fridays after {hh}:00."],
    "todo": ["Follow up with {person} about {ticket} ({service}).",
             "TODO: rotate the {service} credentials before {quarter}.",
             "Check whether {service} still logs {error} after the {tool} upgrade."],
}
TOOLS = ["nginx", "envoy", "pgbouncer", "Redis", "Kafka", "Terraform", "Helm", "Grafana", "Sentry", "Vault"]
VERBS = ["put", "move", "keep", "migrate", "pin"]


def _fill(rng: random.Random, template: str) -> str:
    return template.format(
        verb=rng.choice(VERBS), service=rng.choice(SERVICES), tool=rng.choice(TOOLS), alt=rng.choice(TOOLS),
        person=rng.choice(PEOPLE), quarter=f"Q{rng.randint(1, 4)}", n=rng.randint(2, 90),
        ticket=f"OPS-{rng.randint(100, 9999)}", error=rng.choice(ERRORS), build=f"b{rng.randint(1000, 99999)}",
        hh=f"{rng.randint(0, 23):02d}", mm=f"{rng.randint(0, 59):02d}",
    )


def daily_log(rng: random.Random, day: date, needle: str | None) -> str:
    """One day's log: 3–7 timed entries, each a heading and 1–4 bullet lines."""
    lines = [f"# {day.isoformat()}", ""]
    minute = rng.randint(7 * 60, 10 * 60)
    for _ in range(rng.randint(3, 7)):
        minute += rng.randint(20, 140)
        kind = rng.choice(list(TOPICS))
        lines.append(f"## {minute // 60 % 24:02d}:{minute % 60:02d} — {kind}")
        lines.extend(f"- {_fill(rng, rng.choice(TOPICS[kind]))}" for _ in range(rng.randint(1, 4)))
        lines.append("")
    if needle:
        lines.append(f"- {needle}")
    return "\n".join(lines) + "\n"


def long_memory(rng: random.Random, sections: int = 40) -> str:
    """A curated MEMORY.md with many headed sections of bullet facts."""
    lines = ["# Long-Term Memory", ""]
    for index in range(sections):
        lines.append(f"## {rng.choice(SERVICES)} notes {index + 1}")
        lines.extend(f"- {_fill(rng, rng.choice(TOPICS[k]))}" for k in rng.sample(list(TOPICS), 3))
        lines.append("")
    return "\n".join(lines) + "\n"


def generate(out: Path, notes: int, seed: int = 7) -> list[tuple[str, str]]:
    """Write `notes` daily logs + MEMORY.md under `out`; returns (query, expected path) needles."""
    rng = random.Random(seed)
    (out / "memory").mkdir(parents=True, exist_ok=True)
    start = date(2026, 11, 30) - timedelta(days=notes - 1)
    needles: list[tuple[str, str]] = []
    for i in range(notes):
        day = start + timedelta(days=i)
        needle = None
        if i % max(1, notes // 20) == 0:
            code = f"zx{i:05d}q"
            needle = f"Incident {code}: the payment webhook returned HTTP 502 for order batch {i}."
            needles.append((f"incident {code}", f"memory/{day.isoformat()}.md"))
        (out / "memory" / f"{day.isoformat()}.md").write_text(daily_log(rng, day, needle), encoding="utf-8")
    (out / "MEMORY.md").write_text(long_memory(rng), encoding="utf-8")
    return needles


def main() -> None:
    """CLI: `python benchmarks/notes.py OUT N`."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("out", type=Path)
    parser.add_argument("notes", type=int)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    needles = generate(args.out, args.notes, args.seed)
    print(f"wrote {args.notes} notes and MEMORY.md to {args.out} ({len(needles)} needle queries)")


if __name__ == "__main__":
    main()
