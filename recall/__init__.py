"""Recall: what `context` and `search` return, and why.

Candidate generation (through the repositories), query understanding, lexical scoring, fusion,
graph context, knowledge weights, diversity and token packing. The API (GraphQL, MCP) and
`remgraph eval` call it; it knows nothing of GraphQL.
"""
