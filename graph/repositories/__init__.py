"""Repositories: the only code that runs Cypher. One per aggregate, each over a `GraphDB`."""

from graph.repositories.base import TemporalRepository
from graph.repositories.projects import ProjectRepository
from graph.repositories.sessions import SessionRepository
from graph.repositories.turns import TurnRepository

__all__ = ["ProjectRepository", "SessionRepository", "TemporalRepository", "TurnRepository"]
