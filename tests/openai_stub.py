"""A tiny OpenAI-compatible HTTP server on 127.0.0.1 for tests: the only fake remgraph allows.

It is a real HTTP server (stdlib `http.server` in a thread), so the openai SDK, httpx, retries and
JSON (de)serialisation all run for real. Tests script it with a queue of responses and/or a handler
function; every request body is recorded.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Handler = Callable[[str, dict[str, Any]], tuple[int, dict[str, Any]]]


@dataclass
class StubOpenAI:
    """State of a running stub: scripted replies, a fallback handler, and the request log."""

    base_url: str = ""
    script: deque[tuple[int, dict[str, Any]]] = field(default_factory=deque)
    handler: Handler | None = None
    requests: list[tuple[str, dict[str, Any]]] = field(default_factory=list)

    def reply(self, status: int, body: dict[str, Any]) -> None:
        """Queue one reply (served before the handler is consulted)."""
        self.script.append((status, body))

    def chat_reply(
        self, content: str, *, prompt_tokens: int = 10, completion_tokens: int = 5
    ) -> None:
        """Queue a successful chat completion whose message content is `content`."""
        self.reply(200, chat_completion(content, prompt_tokens, completion_tokens))

    def paths(self) -> list[str]:
        return [p for p, _ in self.requests]


def chat_completion(
    content: str, prompt_tokens: int = 10, completion_tokens: int = 5
) -> dict[str, Any]:
    """A minimal OpenAI chat.completion body."""
    return {
        "id": "chatcmpl-stub",
        "object": "chat.completion",
        "created": 0,
        "model": "stub-model",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "finish_reason": "stop",
            }
        ],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    }


def hash_embedding(text: str, dim: int) -> list[float]:
    """A deterministic pseudo-embedding of `text` (not normalised, so callers must normalise)."""
    out: list[float] = []
    i = 0
    while len(out) < dim:
        h = hashlib.sha256(f"{i}:{text}".encode()).digest()
        out.extend((b - 127.5) for b in h)
        i += 1
    return out[:dim]


def embeddings_handler(dim: int) -> Handler:
    """A handler answering `/embeddings` with `hash_embedding` vectors."""

    def handle(path: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        if not path.endswith("/embeddings"):
            return 404, {"error": {"message": f"no route {path}"}}
        inputs = body["input"]
        if isinstance(inputs, str):
            inputs = [inputs]
        data = [
            {"object": "embedding", "index": i, "embedding": hash_embedding(t, dim)}
            for i, t in enumerate(inputs)
        ]
        data.reverse()  # endpoints may answer out of order; clients must sort by index
        return 200, {
            "object": "list",
            "data": data,
            "model": body.get("model", "stub"),
            "usage": {"prompt_tokens": len(inputs), "total_tokens": len(inputs)},
        }

    return handle


@contextmanager
def run_stub(handler: Handler | None = None) -> Iterator[StubOpenAI]:
    """Start a stub server on a free 127.0.0.1 port; yields its state with `base_url` set."""
    state = StubOpenAI(handler=handler)
    lock = threading.Lock()

    class _H(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:  # stdlib signature
            return

        def do_POST(self) -> None:  # stdlib naming
            n = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(n) if n else b"{}"
            body = json.loads(raw or b"{}")
            path = self.path.split("?")[0]
            with lock:
                state.requests.append((path, body))
                scripted = state.script.popleft() if state.script else None
            if scripted is not None:
                status, payload = scripted
            elif state.handler is not None:
                status, payload = state.handler(path, body)
            else:
                status, payload = 500, {"error": {"message": "stub has no reply scripted"}}
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            if status == 429:
                self.send_header("Retry-After-Ms", "10")
            self.end_headers()
            self.wfile.write(data)

    server = ThreadingHTTPServer(("127.0.0.1", 0), _H)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    state.base_url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
