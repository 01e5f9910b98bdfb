"""Text boxes whose own key bindings run as their key arrives, in the order the keys were typed."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import events

if TYPE_CHECKING:
    from textual.app import App
    from textual.binding import BindingsMap


class KeysInOrder:
    """Mixin (before the Textual widget) for text boxes: the box's own bindings (backspace, arrows, delete...)
    run when the box handles the key, as a typed letter does. Textual runs them only once the key has bubbled
    back up to the app, so with `ab`, backspace and `c` typed at once the `c` could land before the backspace
    (`ab` instead of `ac`). Letters, and bindings that name an app action, keep Textual's way."""

    _bindings: BindingsMap
    app: App[object]

    async def _on_key(self, event: events.Key) -> None:
        if event.is_printable:  # a letter types (the widget's own handler does it, in place)
            return
        for binding in self._bindings.key_to_bindings.get(event.key, ()):
            if binding.priority:
                continue
            if binding.action.startswith("app."):
                return
            if await self.app.run_action(binding.action, self):  # type: ignore[arg-type]
                event.stop()
                event.prevent_default()
                return
