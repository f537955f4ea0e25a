"""Traces of runs: spans folded from the messages, exported over OTLP (live or afterwards)."""
