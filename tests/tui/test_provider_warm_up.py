"""The app loads its embedding provider (the OpenAI SDK, 0.4-0.6 s of imports) in a worker after its first frame,
not before it, and before the first query needs it."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from embedding_server import EmbeddingServer
from pilot import settle
from test_profile_parity import _classic_state

from memtui.embeddings.openai_provider import OpenAIEmbeddingProvider
from memtui.manager import MemoryManager
from memtui.settings.agent import resolve_agent


async def test_the_provider_is_loaded_after_the_first_frame(tmp_path: Path, make_app: Any) -> None:
    server = EmbeddingServer().start()
    try:
        state = _classic_state(tmp_path, server)
        with MemoryManager(resolve_agent(state_dir=str(state))) as indexer:
            indexer.sync()  # the index is built: the app's start-up sync embeds nothing
        with MemoryManager(resolve_agent(state_dir=str(state))) as manager:
            provider = manager.provider
            assert isinstance(provider, OpenAIEmbeddingProvider) and provider._client is None
            app = make_app(manager)
            async with app.run_test(size=(120, 36)) as pilot:
                await settle(app, pilot)
                for _ in range(100):
                    if provider._client is not None:
                        break
                    await asyncio.sleep(0.05)
                assert provider._client is not None
    finally:
        server.stop()
