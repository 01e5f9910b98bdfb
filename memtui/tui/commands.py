"""The command palette provider: one entry per user action, with its current keys."""

from __future__ import annotations

from functools import partial

from textual.command import DiscoveryHit, Hit, Hits, Provider

from memtui.tui.actions import ACTIONS, UserAction
from memtui.tui.keys import keys_display


class MemtuiCommands(Provider):
    """Every memtui action, titled `category: action`, with its keys (after the user's keymap)."""

    def _help(self, action: UserAction) -> str:
        keymap = getattr(self.app, "keymap_overrides", {})
        # Every "[" escaped: textual.markup.escape leaves tags like "[W]" alone, which markup then swallows.
        return f"{action.help}  [{keys_display(keymap.get(action.id, action.keys))}]".replace("[", "\\[")

    async def discover(self) -> Hits:
        """All actions, in registry order."""
        for action in ACTIONS:
            yield DiscoveryHit(action.title, partial(self.app.run_action, action.action), help=self._help(action))

    async def search(self, query: str) -> Hits:
        """Actions whose title matches `query`."""
        matcher = self.matcher(query)
        for action in ACTIONS:
            score = matcher.match(action.title)
            if score > 0:
                yield Hit(score, matcher.highlight(action.title), partial(self.app.run_action, action.action),
                          help=self._help(action))
