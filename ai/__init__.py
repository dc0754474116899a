"""Clients for models: local and OpenAI-compatible embedders, and the structured LLM client.

Above `graph`, below the apps that call models; its settings are `ai.config`.
"""
