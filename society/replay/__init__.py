"""Replay: read a run log as a timeline, re-run it offline, compare, fork, bundle."""
