"""Rules about knowledge items, pure and shared: weights, phases, graduation, decay, quality.

Extraction (`ingest`), the REM cycle (`consolidate`) and ranking call these functions, so a rule
has one owner and the layers agree on what a weight means.
"""
