"""The command palette provider: one entry per user action."""

from __future__ import annotations

from functools import partial

from textual.command import DiscoveryHit, Hit, Hits, Provider

from memtui.tui.actions import ACTIONS


class MemtuiCommands(Provider):
    """Every memtui action, titled `category: action`, with its current keys."""

    def _keys(self, binding_id: str, default: str) -> str:
        keymap = getattr(self.app, "keymap_overrides", {})
        return keymap.get(binding_id, default)

    async def discover(self) -> Hits:
        """All actions, in registry order."""
        for action in ACTIONS:
            yield DiscoveryHit(action.title, partial(self.app.run_action, action.action),
                               help=f"{action.help}  [{self._keys(action.id, action.keys)}]")

    async def search(self, query: str) -> Hits:
        """Actions whose title matches `query`."""
        matcher = self.matcher(query)
        for action in ACTIONS:
            score = matcher.match(action.title)
            if score > 0:
                yield Hit(score, matcher.highlight(action.title), partial(self.app.run_action, action.action),
                          help=f"{action.help}  [{self._keys(action.id, action.keys)}]")
