"""One `openai` SDK call with its exceptions turned into one-line, key-free ProviderErrors."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from memtui.embeddings.http_retry import connection_failure, http_failure, parse_retry_after, timeout_failure
from memtui.errors import ProviderError

KEY_HINT = "memorySearch.remote.apiKey, models.providers.openai.apiKey or OPENAI_API_KEY"

def call_sdk(call: Callable[[], Any], *, timeout: float, secrets: Sequence[str], what: str = "openai") -> Any:
    """Run one SDK call, turning SDK exceptions into one-line, key-free ProviderErrors."""
    import openai  # loaded by the client that makes the call

    try:
        return call()
    except openai.APITimeoutError:
        raise timeout_failure(what, timeout) from None
    except openai.APIConnectionError as exc:
        raise connection_failure(what, type(exc.__cause__ or exc).__name__, secrets) from None
    except openai.APIStatusError as exc:
        retry_after = parse_retry_after(exc.response.headers.get("retry-after"))
        raise http_failure(what, exc.status_code, exc.body, secrets, KEY_HINT, retry_after) from None
    except (openai.APIError, ValueError, TypeError, AttributeError, RecursionError) as exc:
        raise ProviderError(f"{what} embeddings failed: malformed response ({type(exc).__name__})",
                            "check memorySearch.remote.baseUrl points at an OpenAI-compatible embeddings API") from None
