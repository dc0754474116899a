"""Knowledge extraction: topics, lessons, corrections and facts from ingested turns.

Entry points live in `ingest.extract.service` (`ExtractionHook`, `extract_session`); this package
init stays empty so importing `ingest.extract.config` from `ingest.config` has no side effects.
"""
