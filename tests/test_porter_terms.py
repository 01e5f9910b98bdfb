"""The Python tokenizer behind the in-memory accelerator and the postgres store's postings makes the terms FTS5's
`porter unicode61` tokenizer makes (the SQLite store's memtui keyword table): same terms, same BM25."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import sqlean

from memtui.index.terms import index_text
from memtui.search.tokenizer import PorterTokenizer

DEMO = Path(__file__).resolve().parents[1] / "memtui" / "demo" / "data" / "state" / "workspace"
# Step 1b after -ed / -ing: Snowball undoes a doubled b d f g m n p r t, FTS5 every doubled consonant but l s z.
DOUBLED = ["trekked", "trekking", "trekkings", "revved", "revving", "hajjed", "taxxed", "aahhed", "bacced",
           "bawwed", "bayyed", "hiccupped", "yelled", "passed", "buzzed", "skiing", "booked", "checking"]


@pytest.fixture(scope="module")
def fts5() -> sqlean.Connection:
    conn = sqlean.connect(":memory:")
    conn.execute("CREATE VIRTUAL TABLE t USING fts5(x, tokenize='porter unicode61')")
    conn.execute("CREATE VIRTUAL TABLE v USING fts5vocab(t, 'instance')")
    return conn


def fts5_terms(conn: sqlean.Connection, text: str) -> list[str]:
    conn.execute("DELETE FROM t")
    conn.execute("INSERT INTO t VALUES (?)", (index_text(text),))
    return [row[0] for row in conn.execute("SELECT term FROM v ORDER BY offset")]


@pytest.mark.parametrize("word", DOUBLED)
def test_a_doubled_consonant_before_ed_or_ing_is_undone_as_fts5_does(fts5: sqlean.Connection, word: str) -> None:
    assert [PorterTokenizer().term(word)] == fts5_terms(fts5, word)


def test_every_line_of_the_demo_workspace(fts5: sqlean.Connection) -> None:
    tokenizer = PorterTokenizer()
    lines = [line for path in sorted(DEMO.rglob("*.md")) for line in path.read_text(encoding="utf-8").splitlines()
             if re.search(r"\w", line)]
    assert len(lines) > 300
    assert [tokenizer.terms(line) for line in lines] == [fts5_terms(fts5, line) for line in lines]
