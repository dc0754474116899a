from __future__ import annotations

import json
import logging

import pytest
from pydantic import BaseModel

from ai.config import LLMSettings
from ai.llm import (
    LLMClient,
    LLMError,
    LLMRequestError,
    LLMUnavailableError,
    Message,
    estimate_tokens,
)
from tests.openai_stub import run_stub


class Verdict(BaseModel):
    label: str
    score: float


def _client(base_url: str, **kw: int) -> LLMClient:
    settings = LLMSettings(
        base_url=base_url,
        model="stub-model",
        max_retries=kw.pop("max_retries", 3),
        input_cost_per_mtok=1.0,
        output_cost_per_mtok=2.0,
    )
    return LLMClient(settings, base_delay_s=0.01)


MSGS = [Message("system", "Classify."), Message("user", "hello")]


async def test_structured_with_json_schema() -> None:
    with run_stub() as stub:
        stub.chat_reply(
            json.dumps({"label": "greeting", "score": 0.9}), prompt_tokens=100, completion_tokens=20
        )
        c = _client(stub.base_url)
        out = await c.structured(MSGS, Verdict, purpose="t")
        await c.aclose()
    assert out == Verdict(label="greeting", score=0.9)
    path, body = stub.requests[0]
    assert path == "/v1/chat/completions"
    assert body["response_format"]["type"] == "json_schema"
    assert body["response_format"]["json_schema"]["name"] == "Verdict"
    assert body["temperature"] <= 0.2
    assert body["messages"] == [
        {"role": "system", "content": "Classify."},
        {"role": "user", "content": "hello"},
    ]
    assert c.ledger.as_dict() == {
        "calls": 1,
        "retries": 0,
        "fallbacks": 0,
        "failures": 0,
        "prompt_tokens": 100,
        "completion_tokens": 20,
        "cost_usd": 0.00014,
        "by_purpose": {
            "t": {
                "calls": 1,
                "prompt_tokens": 100,
                "completion_tokens": 20,
                "cost_usd": pytest.approx(0.00014),
            }
        },
    }


async def test_retries_on_429_and_500_then_succeeds() -> None:
    with run_stub() as stub:
        stub.reply(429, {"error": {"message": "rate limited"}})
        stub.reply(500, {"error": {"message": "boom"}})
        stub.reply(503, {"error": {"message": "busy"}})
        stub.chat_reply('{"label": "x", "score": 1}')
        c = _client(stub.base_url)
        out = await c.structured(MSGS, Verdict)
        await c.aclose()
    assert out.label == "x"
    assert len(stub.requests) == 4
    assert c.ledger.retries == 3
    assert c.ledger.calls == 1


async def test_gives_up_after_max_retries() -> None:
    with run_stub() as stub:
        for _ in range(3):
            stub.reply(500, {"error": {"message": "down"}})
        c = _client(stub.base_url, max_retries=2)
        with pytest.raises(LLMUnavailableError, match="after 3 attempts"):
            await c.structured(MSGS, Verdict)
        await c.aclose()
    assert len(stub.requests) == 3
    assert c.ledger.failures == 1


async def test_falls_back_to_json_mode_when_json_schema_refused() -> None:
    with run_stub() as stub:
        stub.reply(400, {"error": {"message": "response_format json_schema not supported"}})
        stub.chat_reply('```json\n{"label": "fb", "score": 0.5}\n```')
        stub.chat_reply('{"label": "again", "score": 0.1}')
        c = _client(stub.base_url)
        out = await c.structured(MSGS, Verdict)
        out2 = await c.structured(MSGS, Verdict)  # remembers: straight to JSON mode
        await c.aclose()
    assert out == Verdict(label="fb", score=0.5)
    assert out2.label == "again"
    formats = [b["response_format"]["type"] for _, b in stub.requests]
    assert formats == ["json_schema", "json_object", "json_object"]
    assert "JSON schema" in stub.requests[1][1]["messages"][0]["content"]
    assert c.ledger.fallbacks == 2


async def test_invalid_reply_is_reasked_with_the_error() -> None:
    with run_stub() as stub:
        stub.chat_reply('{"label": "no score"}')
        stub.chat_reply('{"label": "still no score"}')
        stub.chat_reply('{"label": "ok", "score": 2}')
        c = _client(stub.base_url)
        out = await c.structured(MSGS, Verdict)
        await c.aclose()
    assert out.score == 2
    last = stub.requests[2][1]["messages"]
    assert last[-1]["role"] == "user"
    assert "invalid" in last[-1]["content"]


async def test_never_validating_reply_raises() -> None:
    with run_stub() as stub:
        for _ in range(3):
            stub.chat_reply("not json at all")
        c = _client(stub.base_url)
        with pytest.raises(LLMError, match="did not validate as Verdict"):
            await c.structured(MSGS, Verdict)
        await c.aclose()


async def test_complete_returns_text() -> None:
    with run_stub() as stub:
        stub.chat_reply("A short summary.")
        c = _client(stub.base_url)
        assert await c.complete(MSGS, purpose="summary") == "A short summary."
        await c.aclose()
    assert "response_format" not in stub.requests[0][1]
    assert c.ledger.by_purpose["summary"].calls == 1


async def test_unconfigured_endpoint() -> None:
    c = LLMClient(LLMSettings())
    with pytest.raises(LLMUnavailableError, match="BASE_URL"):
        await c.complete(MSGS)


def test_estimate_tokens() -> None:
    assert estimate_tokens("") == 1
    assert estimate_tokens("x" * 400) == 100


KEY = "sk-test-0123456789abcdef"


async def test_the_key_never_shows_in_errors_or_logs(caplog: pytest.LogCaptureFixture) -> None:
    """Endpoints echo the key they refuse (OpenAI, proxies); remgraph must not repeat it."""
    caplog.set_level(logging.DEBUG)
    with run_stub() as stub:
        stub.reply(401, {"error": {"message": f"Incorrect API key provided: {KEY}"}})
        stub.reply(500, {"error": {"message": f"upstream rejected {KEY}"}})
        stub.reply(500, {"error": {"message": f"upstream rejected {KEY}"}})
        stub.reply(400, {"error": {"message": f"json_schema unsupported for key {KEY}"}})
        stub.chat_reply('{"label": "ok", "score": 1}')
        host = stub.base_url.removeprefix("http://")
        settings = LLMSettings(
            base_url=f"http://user:url-secret-pw@{host}",
            api_key=KEY,
            max_retries=1,
        )
        c = LLMClient(settings, base_delay_s=0.01)
        with pytest.raises(LLMRequestError) as refused:
            await c.structured(MSGS, Verdict)
        with pytest.raises(LLMUnavailableError) as down:
            await c.structured(MSGS, Verdict)
        assert (await c.structured(MSGS, Verdict)).label == "ok"  # after the refused json_schema
        await c.aclose()
    assert refused.value.status_code == 401
    assert f"LLM endpoint http://{host} refused the request (HTTP 401)" in str(refused.value)
    assert "Incorrect API key provided: ***" in str(refused.value)
    assert str(down.value).startswith(f"LLM endpoint http://{host} failed after 2 attempts")
    for e in (refused.value, down.value):
        assert e.__cause__ is None
        assert e.__suppress_context__
    shown = [str(refused.value), str(down.value), caplog.text]
    for secret in (KEY, "url-secret-pw"):
        assert not any(secret in text for text in shown), secret
    assert "***" in caplog.text  # the refused json_schema was logged, redacted
    assert c.ledger.failures == 2


async def test_structured_records_keeps_the_records_that_validate() -> None:
    class Item(BaseModel):
        name: str
        n: int = 0

    class Reply(BaseModel):
        items: list[Item] = []
        note: str = ""

    with run_stub() as stub:
        stub.chat_reply(json.dumps({"items": [{"name": "a"}, {"n": 2}, {"name": "c", "n": "x"}]}))
        c = _client(stub.base_url)
        out, issues = await c.structured_records(MSGS, Reply, purpose="r")
        await c.aclose()
    assert out == Reply(items=[Item(name="a")])
    assert [str(i) for i in issues] == [
        'items[1]: name: Field required in {"n": 2}',
        "items[2]: n: Input should be a valid integer, unable to parse string as an integer"
        ' (got "x") in {"name": "c", "n": "x"}',
    ]
    assert len(stub.requests) == 1  # a usable reply is not re-asked
