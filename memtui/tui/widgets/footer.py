"""The main screen's footer: the focused pane's keys and the screen's, then the hot keys (sessions, dreams, note,
why path, explain, status) as many as the width leaves room for, so no key is ever shown cut."""

from __future__ import annotations

from rich.cells import cell_len
from textual.widgets import Footer
from textual.widgets._footer import FooterKey

from memtui.tui.actions import ACTIONS_BY_ID, HOT_KEYS

HOT_ACTIONS = tuple(ACTIONS_BY_ID[action_id].action for action_id in HOT_KEYS)


def key_width(key: FooterKey) -> int:
    """The cells a compact footer key takes: key, space, label, its right margin and its border (the palette's)."""
    return cell_len(key.key_display) + 1 + cell_len(key.description) + 1 + key.styles.gutter.width


class HotKeysFooter(Footer):
    """A compact footer whose hot keys show, in `HOT_KEYS` order, while they fit."""

    def __init__(self) -> None:
        super().__init__(compact=True)

    async def recompose(self) -> None:
        """Build the keys for the focus (Textual does it when the bindings change), then fit the hot ones."""
        await super().recompose()
        self.fit_hot_keys()

    def on_resize(self) -> None:
        """Fit the hot keys to the new width."""
        self.fit_hot_keys()

    def fit_hot_keys(self) -> None:
        """Show the hot keys, in `HOT_KEYS` order, until one does not fit the width; hide the rest."""
        keys = list(self.query(FooterKey))
        free = self.size.width - sum(key_width(key) for key in keys if key.action not in HOT_ACTIONS)
        hot = sorted((key for key in keys if key.action in HOT_ACTIONS), key=lambda k: HOT_ACTIONS.index(k.action))
        for key in hot:
            key.display = key_width(key) <= free
            free = free - key_width(key) if key.display else -1
