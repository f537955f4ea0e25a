"""The critic: deterministic detectors of loops, stalls and drift, plus an optional model review."""
