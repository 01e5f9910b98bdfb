"""The memtui terminal app (Textual). Nothing outside this package imports Textual."""
