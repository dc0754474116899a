"""Per-key rate limits: a token bucket per API key, refilled at `rate_per_s` up to `rate_burst`."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field


@dataclass
class _Bucket:
    tokens: float
    at: float


@dataclass
class RateLimiter:
    """`take(key)` is None when a request may go ahead, else the seconds to wait before retrying."""

    rate_per_s: float
    burst: int
    clock: object = field(default=time.monotonic)
    _buckets: dict[str, _Bucket] = field(default_factory=dict)

    def take(self, key: str) -> float | None:
        now: float = self.clock()  # type: ignore[operator]
        b = self._buckets.get(key)
        if b is None:
            b = self._buckets[key] = _Bucket(float(self.burst), now)
        b.tokens = min(float(self.burst), b.tokens + (now - b.at) * self.rate_per_s)
        b.at = now
        if b.tokens >= 1.0:
            b.tokens -= 1.0
            return None
        return (1.0 - b.tokens) / self.rate_per_s

    @staticmethod
    def retry_after(wait_s: float) -> str:
        """`Retry-After` header value: whole seconds, at least 1."""
        return str(max(1, math.ceil(wait_s)))
