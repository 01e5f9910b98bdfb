"""Text gauges: token use against the flush threshold (soft band marked) and transcript size."""

from __future__ import annotations

from rich.text import Text

WARN_AT = 0.9  # share of the flush threshold from which the fill turns yellow (red once it is reached)


def usage_style(tokens: int, threshold: int) -> str:
    """green below 90 % of the threshold, yellow from 90 %, red at or over it."""
    if threshold <= 0:
        return "dim"
    ratio = tokens / threshold
    return "bold red" if ratio >= 1 else "bold yellow" if ratio >= WARN_AT else "green"


def token_gauge(tokens: int, window: int, threshold: int, soft_tokens: int, width: int = 60) -> Text:
    """A bar over the context window: filled to `tokens`, `┃` at the threshold, `░` over the soft band
    (threshold … threshold + soft), `▒` over the compaction reserve beyond it."""
    window = max(1, window)

    def cell(value: int) -> int:
        return max(0, min(width, round(value / window * width)))

    fill, mark, band_end = cell(tokens), cell(threshold), cell(threshold + soft_tokens)
    fill_style = usage_style(tokens, threshold).removeprefix("bold ")
    bar = Text()
    for index in range(width):
        if index == mark and threshold > 0:
            bar.append("┃", style="bold red")
        elif index < fill:
            bar.append("█", style=fill_style)
        elif mark <= index < band_end:
            bar.append("░", style="yellow")
        elif index >= band_end:
            bar.append("▒", style="dim")
        else:
            bar.append("·", style="dim")
    return bar


def bytes_gauge(size: int, limit: int, width: int = 60) -> Text:
    """A bar of the transcript's size against the force-flush size."""
    limit = max(1, limit)
    fill = max(0, min(width, round(size / limit * width)))
    bar = Text("█" * fill, style="red" if size >= limit else "cyan")
    bar.append("·" * (width - fill), style="dim")
    return bar


def human_bytes(size: int) -> str:
    """1536 → `1.5 KiB`."""
    value = float(size)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if value < 1024 or unit == "GiB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{size} B"
