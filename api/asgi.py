"""Uvicorn factory entry: `uvicorn --factory api.asgi:app_from_env` (no ingest or REM ports)."""

from __future__ import annotations

from fastapi import FastAPI

from api.app import create_app
from api.config import ApiSettings


def app_from_env() -> FastAPI:
    """The API app configured from `REMGRAPH_*` variables."""
    return create_app(ApiSettings())
