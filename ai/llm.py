"""The chat-model client shared by extraction (issue 4) and consolidation (community summaries).

It talks to any OpenAI-compatible `/chat/completions` endpoint (OpenAI, Ollama, vLLM, LiteLLM)
through the `openai` SDK's `AsyncOpenAI`, and:

- returns pydantic models: it asks for `response_format={"type": "json_schema", ...}` first and,
  when the endpoint refuses that (HTTP 400/422) or answers with something that does not validate,
  falls back to JSON mode (`{"type": "json_object"}`) with the schema in the prompt, validating the
  reply and re-asking once with the validation error;
- keeps temperature ≤ 0.2 (settings refuse more);
- retries 429, 5xx, timeouts and connection errors with exponential backoff (the SDK's own retries
  are off, so every attempt is counted);
- records tokens, calls, retries and cost per run in a `UsageLedger`;
- never shows the API key: error messages and log lines have it (and any credentials in the
  endpoint URL) replaced by `***`, and the SDK's exceptions are not chained onto ours.

`structured_records` validates the reply record by record (`ai.records.validate_records`): a
record that does not validate is left out and reported, the rest is kept.
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar
from urllib.parse import urlsplit

from pydantic import BaseModel, ValidationError

from ai.config import LLMSettings
from ai.records import RecordIssue, describe_error, validate_records
from core.text import estimate_tokens as text_tokens

__all__ = [
    "LLMClient",
    "LLMError",
    "LLMRequestError",
    "LLMUnavailableError",
    "Message",
    "UsageLedger",
    "estimate_tokens",
]

log = logging.getLogger(__name__)

T = TypeVar("T", bound=BaseModel)

Role = Literal["system", "user", "assistant"]


@dataclass(frozen=True)
class Message:
    """One chat message."""

    role: Role
    content: str

    def as_dict(self) -> dict[str, str]:
        return {"role": self.role, "content": self.content}


class LLMError(Exception):
    """Raised when the model's reply cannot be turned into the requested schema."""


class LLMUnavailableError(LLMError):
    """Raised when the endpoint keeps failing (429/5xx/network) after all retries, or is unset."""


class LLMRequestError(LLMError):
    """Raised when the endpoint refuses a request for good (HTTP 4xx other than 429).

    A bad key, an unknown model, a bad request: `status_code` says which.
    """

    def __init__(self, message: str, status_code: int) -> None:
        super().__init__(message)
        self.status_code = status_code


def estimate_tokens(text: str) -> int:
    """Rough token count for routing and budgets: `core.text.estimate_tokens`, at least 1."""
    return max(1, text_tokens(text))


@dataclass
class LedgerEntry:
    """Usage of one purpose (e.g. `extract.pass1`) within a run."""

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0


@dataclass
class UsageLedger:
    """Tokens, calls, retries and cost of one run, in total and per purpose."""

    input_cost_per_mtok: float = 0.0
    output_cost_per_mtok: float = 0.0
    calls: int = 0
    retries: int = 0
    fallbacks: int = 0
    failures: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    by_purpose: dict[str, LedgerEntry] = field(default_factory=dict)

    def record(self, purpose: str, prompt_tokens: int, completion_tokens: int) -> None:
        """Add one successful call's usage."""
        cost = (
            prompt_tokens * self.input_cost_per_mtok + completion_tokens * self.output_cost_per_mtok
        ) / 1_000_000
        self.calls += 1
        self.prompt_tokens += prompt_tokens
        self.completion_tokens += completion_tokens
        self.cost_usd += cost
        e = self.by_purpose.setdefault(purpose, LedgerEntry())
        e.calls += 1
        e.prompt_tokens += prompt_tokens
        e.completion_tokens += completion_tokens
        e.cost_usd += cost

    def as_dict(self) -> dict[str, Any]:
        """Plain-data view for reports and JSON output."""
        return {
            "calls": self.calls,
            "retries": self.retries,
            "fallbacks": self.fallbacks,
            "failures": self.failures,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "cost_usd": round(self.cost_usd, 6),
            "by_purpose": {k: vars(v).copy() for k, v in sorted(self.by_purpose.items())},
        }


# The HTTP libraries under the SDK log each request's URL (with any credentials in it) at INFO.
_HTTP_LOGGERS = ("httpx", "httpx2", "openai", "openai._base_client")


class _Redact(logging.Filter):
    """Rewrites a record whose message holds a secret, with the secret replaced."""

    def __init__(self, redact: Callable[[str], str]) -> None:
        super().__init__()
        self.redact = redact

    def filter(self, record: logging.LogRecord) -> bool:
        msg = record.getMessage()
        clean = self.redact(msg)
        if clean != msg:
            record.msg, record.args = clean, ()
        return True


_FENCE = re.compile(r"^```(?:json)?\s*|\s*```$", re.MULTILINE)


def _parse_json(text: str) -> Any:
    """Parse a JSON reply, tolerating code fences and prose around one top-level object."""
    t = _FENCE.sub("", text.strip()).strip()
    try:
        return json.loads(t)
    except json.JSONDecodeError:
        start, end = t.find("{"), t.rfind("}")
        if start >= 0 and end > start:
            return json.loads(t[start : end + 1])
        raise


class LLMClient:
    """Async chat client with structured output, retries and a usage ledger.

    Args:
        settings: endpoint, model, key, temperature, retries, timeout and prices.
        ledger: where usage is recorded; a fresh one per client when omitted.
        base_delay_s: first backoff delay; doubles per retry, with jitter, capped at 20 s.
    """

    def __init__(
        self,
        settings: LLMSettings,
        *,
        ledger: UsageLedger | None = None,
        base_delay_s: float = 0.5,
    ) -> None:
        self.settings = settings
        self.ledger = ledger or UsageLedger(
            input_cost_per_mtok=settings.input_cost_per_mtok,
            output_cost_per_mtok=settings.output_cost_per_mtok,
        )
        self._base_delay_s = base_delay_s
        self._client: Any = None
        self._json_schema_supported: bool | None = None
        self._log_filter: _Redact | None = None  # while the HTTP client is open

    def _get_client(self) -> Any:
        if self._client is None:
            if not self.settings.base_url:
                raise LLMUnavailableError("no LLM endpoint configured (REMGRAPH_LLM__BASE_URL)")
            from openai import AsyncOpenAI  # deferred: the SDK is only needed when used

            key = self.settings.api_key.get_secret_value() if self.settings.api_key else "unused"
            self._log_filter = _Redact(self.redact)
            for name in _HTTP_LOGGERS:
                logging.getLogger(name).addFilter(self._log_filter)
            self._client = AsyncOpenAI(
                base_url=self.settings.base_url,
                api_key=key,
                max_retries=0,  # retries are ours, so the ledger sees every attempt
                timeout=self.settings.timeout_s,
            )
        return self._client

    def redact(self, text: str) -> str:
        """`text` without the API key or credentials of the endpoint URL."""
        secrets = []
        if self.settings.api_key is not None:
            secrets.append(self.settings.api_key.get_secret_value())
        if self.settings.base_url:
            url = urlsplit(self.settings.base_url)
            secrets += [url.password or "", url.query]
        for secret in secrets:
            if len(secret) >= 4:
                text = text.replace(secret, "***")
        return text

    @property
    def endpoint(self) -> str:
        """The endpoint URL as it may be shown: without credentials or query."""
        url = urlsplit(self.settings.base_url or "")
        host = url.hostname or ""
        port = f":{url.port}" if url.port else ""
        return f"{url.scheme}://{host}{port}{url.path}" if url.scheme else "(unset)"

    async def aclose(self) -> None:
        """Close the HTTP client."""
        if self._client is not None:
            await self._client.close()
            self._client = None
        if self._log_filter is not None:
            for name in _HTTP_LOGGERS:
                logging.getLogger(name).removeFilter(self._log_filter)
            self._log_filter = None

    async def _create(self, purpose: str, **kwargs: Any) -> str:
        """One chat completion with retries on 429/5xx/network; returns the message text."""
        import openai  # deferred import, as above

        client = self._get_client()
        attempt = 0
        while True:
            started = time.perf_counter()
            try:
                resp = await client.chat.completions.create(
                    model=self.settings.model,
                    temperature=min(self.settings.temperature, 0.2),
                    **kwargs,
                )
            except (openai.RateLimitError, openai.InternalServerError) as e:
                err: Exception = e
            except openai.APIStatusError as e:
                if e.status_code < 500 and e.status_code != 429:
                    raise LLMRequestError(
                        f"LLM endpoint {self.endpoint} refused the request "
                        f"(HTTP {e.status_code}): {self.redact(str(e))[:500]}",
                        e.status_code,
                    ) from None  # the SDK's exception carries the request and its headers
                err = e
            except (openai.APIConnectionError, openai.APITimeoutError) as e:
                err = e
            else:
                usage = getattr(resp, "usage", None)
                pt = int(getattr(usage, "prompt_tokens", 0) or 0)
                ct = int(getattr(usage, "completion_tokens", 0) or 0)
                self.ledger.record(purpose, pt, ct)
                log.debug(
                    "llm %s: %d+%d tokens in %.2fs",
                    purpose,
                    pt,
                    ct,
                    time.perf_counter() - started,
                )
                content = resp.choices[0].message.content if resp.choices else None
                return content or ""
            if attempt >= self.settings.max_retries:
                self.ledger.failures += 1
                raise LLMUnavailableError(
                    f"LLM endpoint {self.endpoint} failed after {attempt + 1} attempts: "
                    f"{self.redact(str(err))[:500]}"
                ) from None  # the SDK's exception carries the request and its headers
            delay = min(20.0, self._base_delay_s * (2**attempt)) * (0.5 + random.random() / 2)
            attempt += 1
            self.ledger.retries += 1
            log.info("llm %s: %s; retry %d in %.2fs", purpose, type(err).__name__, attempt, delay)
            await asyncio.sleep(delay)

    async def complete(
        self, messages: Sequence[Message], *, purpose: str = "complete", max_tokens: int = 1024
    ) -> str:
        """Plain text completion (e.g. a community summary)."""
        try:
            return await self._create(
                purpose, messages=[m.as_dict() for m in messages], max_tokens=max_tokens
            )
        except LLMRequestError:
            self.ledger.failures += 1
            raise

    async def structured(
        self,
        messages: Sequence[Message],
        schema: type[T],
        *,
        purpose: str = "structured",
        max_tokens: int = 4096,
    ) -> T:
        """Ask for a reply that validates as `schema`.

        Tries `json_schema` structured output first; falls back to JSON mode with the schema in
        the prompt, and re-asks once with the validation error if the reply does not validate.

        Raises:
            LLMError: the reply never validated.
            LLMUnavailableError: the endpoint kept failing.
        """
        value, _ = await self._structured(
            messages, schema, lambda d: (schema.model_validate(d), []), purpose, max_tokens
        )
        return value

    async def structured_records(
        self,
        messages: Sequence[Message],
        schema: type[T],
        *,
        purpose: str = "structured",
        max_tokens: int = 4096,
    ) -> tuple[T, list[RecordIssue]]:
        """Like `structured`, but validated record by record (`ai.records.validate_records`).

        Returns the reply with the records that validated, and one issue per record left out.
        Only a reply that is not a JSON object, or misses a required top-level field, is
        re-asked and, failing again, raises `LLMError`.
        """
        return await self._structured(
            messages, schema, lambda d: validate_records(schema, d), purpose, max_tokens
        )

    async def _structured(
        self,
        messages: Sequence[Message],
        schema: type[T],
        validate: Callable[[Any], tuple[T, list[RecordIssue]]],
        purpose: str,
        max_tokens: int,
    ) -> tuple[T, list[RecordIssue]]:
        try:
            return await self._ask_structured(messages, schema, validate, purpose, max_tokens)
        except LLMRequestError:
            self.ledger.failures += 1
            raise

    async def _ask_structured(
        self,
        messages: Sequence[Message],
        schema: type[T],
        validate: Callable[[Any], tuple[T, list[RecordIssue]]],
        purpose: str,
        max_tokens: int,
    ) -> tuple[T, list[RecordIssue]]:
        msgs = [m.as_dict() for m in messages]
        json_schema = schema.model_json_schema()
        if self._json_schema_supported is not False:
            try:
                text = await self._create(
                    purpose,
                    messages=msgs,
                    max_tokens=max_tokens,
                    response_format={
                        "type": "json_schema",
                        "json_schema": {
                            "name": schema.__name__,
                            "schema": json_schema,
                            "strict": False,
                        },
                    },
                )
                self._json_schema_supported = True
                try:
                    return validate(_parse_json(text))
                except (ValidationError, ValueError) as e:
                    log.info("llm %s: json_schema reply did not validate: %s", purpose, _why(e))
            except LLMRequestError as e:
                if e.status_code not in (400, 422):
                    raise
                log.info("llm %s: endpoint refused json_schema (%s); using JSON mode", purpose, e)
                self._json_schema_supported = False
        self.ledger.fallbacks += 1
        instruction = (
            "Reply with one JSON object only, no prose, that validates against this JSON schema:\n"
            + json.dumps(json_schema, separators=(",", ":"))
        )
        fallback = [{"role": "system", "content": instruction}, *msgs]
        last_error = ""
        for _ in range(2):
            text = await self._create(
                purpose,
                messages=fallback,
                max_tokens=max_tokens,
                response_format={"type": "json_object"},
            )
            try:
                return validate(_parse_json(text))
            except (ValidationError, ValueError) as e:
                last_error = _why(e)
                fallback = [
                    *fallback,
                    {"role": "assistant", "content": text},
                    {
                        "role": "user",
                        "content": f"That reply was invalid: {last_error[:1500]}. "
                        "Answer again with corrected JSON only.",
                    },
                ]
        self.ledger.failures += 1
        raise LLMError(
            f"{purpose}: the model's reply did not validate as {schema.__name__}: {last_error}"
        )


def _why(e: Exception) -> str:
    """A validation or JSON error in one line."""
    if isinstance(e, ValidationError):
        return describe_error(e)
    if isinstance(e, json.JSONDecodeError):
        return f"not JSON ({e.msg} at line {e.lineno} column {e.colno})"
    return str(e)
