"""Daily-log workspaces with a realistic vocabulary, and varied queries over it, for the scale benchmark.

The words follow Zipf's law (exponent 1.07, as measured for English text) over a vocabulary of `--vocab`
generated words (default 30,000): a few words are in most notes, most words are in few. So a query term
matches a realistic share of the chunks instead of half of them (the template corpus of `notes.py` has a
~150-word vocabulary, where a typical query matched 52–76 % of all chunks). Queries are cut from the
notes themselves (2–8 consecutive words of a random line, so each has an answer) plus free word
combinations drawn from the same distribution (which may have none), in several lengths.
"""

from __future__ import annotations

import argparse
import random
from datetime import date, timedelta
from itertools import accumulate
from pathlib import Path

ONSETS = ["b", "br", "c", "ch", "d", "dr", "f", "g", "gr", "h", "j", "k", "l", "m", "n", "p", "pl", "qu", "r",
          "s", "sh", "st", "t", "th", "tr", "v", "w", "z"]
VOWELS = ["a", "e", "i", "o", "u", "ai", "ea", "ou", "io"]
CODAS = ["", "", "n", "r", "s", "t", "l", "m", "nd", "st", "ck", "x"]
ZIPF_EXPONENT = 1.07


def vocabulary(size: int, seed: int = 11) -> list[str]:
    """`size` distinct pronounceable words of 1–4 syllables (rank order = frequency order)."""
    rng = random.Random(seed)
    words: list[str] = []
    seen: set[str] = set()
    while len(words) < size:
        syllables = rng.choice((1, 2, 2, 2, 3, 3, 4))
        word = "".join(rng.choice(ONSETS) + rng.choice(VOWELS) + rng.choice(CODAS) for _ in range(syllables))
        if word not in seen and len(word) > 2:
            seen.add(word)
            words.append(word)
    return words


class ZipfWords:
    """Draws words with probability ∝ 1 / rank^s."""

    def __init__(self, words: list[str], exponent: float = ZIPF_EXPONENT):
        self.words = words
        self.cumulative = list(accumulate(1 / (rank ** exponent) for rank in range(1, len(words) + 1)))

    def draw(self, rng: random.Random, count: int) -> list[str]:
        """`count` words (with repetition)."""
        return rng.choices(self.words, cum_weights=self.cumulative, k=count)


def daily_log(rng: random.Random, words: ZipfWords, day: date) -> str:
    """One day: 3–7 headed entries of 1–4 bullet lines of 6–22 words."""
    lines = [f"# {day.isoformat()}", ""]
    for _ in range(rng.randint(3, 7)):
        lines.append("## " + " ".join(words.draw(rng, rng.randint(2, 4))))
        lines.extend("- " + " ".join(words.draw(rng, rng.randint(6, 22))) for _ in range(rng.randint(1, 4)))
        lines.append("")
    return "\n".join(lines) + "\n"


def generate(out: Path, notes: int, *, vocab: int = 30_000, seed: int = 7) -> list[str]:
    """Write `notes` daily logs under `out/memory`; returns the file names' workspace-relative paths."""
    rng = random.Random(seed)
    words = ZipfWords(vocabulary(vocab))
    (out / "memory").mkdir(parents=True, exist_ok=True)
    start = date(2026, 11, 30) - timedelta(days=notes - 1)
    paths = []
    for i in range(notes):
        day = start + timedelta(days=i)
        rel = f"memory/{day.isoformat()}.md"
        (out / rel).write_text(daily_log(rng, words, day), encoding="utf-8")
        paths.append(rel)
    return paths


def queries(workspace: Path, count: int, *, vocab: int = 30_000, seed: int = 5) -> list[str]:
    """`count` distinct queries: three in four cut from random lines of the notes, one in four free draws."""
    rng = random.Random(seed)
    words = ZipfWords(vocabulary(vocab))
    files = sorted((workspace / "memory").glob("*.md"))
    found: list[str] = []
    while len(found) < count:
        if len(found) % 4 == 3:
            query = " ".join(words.draw(rng, rng.randint(1, 6)))
        else:
            lines = [ln[2:].split() for ln in rng.choice(files).read_text(encoding="utf-8").splitlines()
                     if ln.startswith("- ")]
            line = rng.choice(lines)
            length = min(len(line), rng.choice((2, 2, 3, 3, 4, 5, 8)))
            start = rng.randint(0, len(line) - length)
            query = " ".join(line[start : start + length])
        if query not in found:
            found.append(query)
    return found


def main() -> None:
    """CLI: `python benchmarks/zipf_notes.py OUT N`."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("notes", type=int)
    parser.add_argument("--vocab", type=int, default=30_000)
    args = parser.parse_args()
    generate(args.out, args.notes, vocab=args.vocab)
    print(f"wrote {args.notes} notes to {args.out}")


if __name__ == "__main__":
    main()
