"""Modal dialogs and secondary screens."""

from memtui.tui.screens.help import HelpScreen
from memtui.tui.screens.modals import ChoiceModal, ErrorModal, PromptModal, TextModal

__all__ = ["ChoiceModal", "ErrorModal", "HelpScreen", "PromptModal", "TextModal"]
