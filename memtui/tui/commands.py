"""The command palette provider: the actions of the screen it is opened on, with their current keys (the main
screen's every user action; another screen's own keys)."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from textual.app import App
from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.screen import ModalScreen

from memtui.tui.actions import ACTIONS, SCREEN_INDEPENDENT, UserAction
from memtui.tui.keys import keys_display
from memtui.tui.screens.help import key_rows, live_bindings

Command = tuple[str, Callable[[], object], str]  # title, what it runs, help


def _escaped(text: str) -> str:
    # Every "[" escaped: textual.markup.escape leaves tags like "[W]" alone, which markup then swallows.
    return text.replace("[", "\\[")


def _action_command(app: App[object], keymap: dict[str, str], action: UserAction,
                    taken: frozenset[str] = frozenset()) -> Command:
    """An action with the keys it is bound to, less those the screen's own bindings take."""
    keys = keys_display(",".join(k for k in keymap.get(action.id, action.keys).split(",") if k not in taken))
    help_text = f"{action.help}  [{keys}]" if keys else action.help
    return action.title, partial(app.run_action, action.action), _escaped(help_text)


class MemtuiCommands(Provider):
    """On the main screen every memtui action, titled `category: action`; on another screen (sessions, dreams, a
    dialog) only what works there: its own keys, titled `<screen>: action`. Each with its keys after the user's
    keymap."""

    def _commands(self) -> list[Command]:
        app = self.app
        keymap: dict[str, str] = getattr(app, "keymap_overrides", {})
        if self.screen is app.screen_stack[0]:
            return [_action_command(app, keymap, action) for action in ACTIONS]
        name = type(self.screen).__name__.removesuffix("Screen").removesuffix("Modal").lower()
        commands = []
        own = live_bindings(self.screen, keymap)
        taken = frozenset(key for binding in own for key in binding.key.split(","))
        for binding in own:
            for keys, label, text, _id in key_rows([binding]):
                commands.append((f"{name}: {label}", partial(app.run_action, binding.action, self.screen),
                                 _escaped(f"{text or label}  [{keys}]")))
        if not isinstance(self.screen, ModalScreen):
            commands.extend(_action_command(app, keymap, action, taken) for action in ACTIONS
                            if action.name in SCREEN_INDEPENDENT)
        return commands

    async def discover(self) -> Hits:
        """All commands of the screen, in order."""
        for title, run, help_text in self._commands():
            yield DiscoveryHit(title, run, help=help_text)

    async def search(self, query: str) -> Hits:
        """Commands of the screen whose title matches `query`."""
        matcher = self.matcher(query)
        for title, run, help_text in self._commands():
            score = matcher.match(title)
            if score > 0:
                yield Hit(score, matcher.highlight(title), run, help=help_text)
