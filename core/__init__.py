"""Pure primitives every other package shares: deterministic ids and UTC epoch-millisecond time.

No I/O and no imports from the rest of the repository: this is the bottom layer.
"""
