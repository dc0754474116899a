"""Clients for models: local and OpenAI-compatible embedders, and the structured LLM client.

Above `graph` (it reads its settings from `graph.config`), below the apps that call models.
"""
