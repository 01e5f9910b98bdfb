"""The main screen's controllers, one per screen area; `MemtuiApp` composes them.

Each controller is a mixin over `MemtuiBase` holding one area's state, actions and message handlers.
Textual dispatches a message to the handler of every class in the app's MRO, so an engine message such as
`IndexFinished` reaches each area that cares about it, and each area reacts on its own.
"""

from memtui.tui.controllers.base import MemtuiBase
from memtui.tui.controllers.browsing import BrowserController
from memtui.tui.controllers.curation import CurationController
from memtui.tui.controllers.indexing import IndexController
from memtui.tui.controllers.panes import PaneController
from memtui.tui.controllers.search import SearchController
from memtui.tui.controllers.tuning import TuningController

__all__ = ["BrowserController", "CurationController", "IndexController", "MemtuiBase", "PaneController",
           "SearchController",
           "TuningController"]
