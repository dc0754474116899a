"""The token bucket behind per-key rate limits."""

from api.ratelimit import RateLimiter


def test_bucket_refills_at_the_rate() -> None:
    now = [0.0]
    rl = RateLimiter(rate_per_s=2.0, burst=2, clock=lambda: now[0])
    assert rl.take("k") is None
    assert rl.take("k") is None
    wait = rl.take("k")
    assert wait == 0.5
    assert rl.take("other") is None
    now[0] = 0.5
    assert rl.take("k") is None
    assert RateLimiter.retry_after(0.2) == "1"
