"""What a goal's answer must be when it is not a statement of values: a Python function.

A goal with a `Deliverable` is answered by code (its signature and body), which the coder
checks against the examples its docstring states; the planner gives it one coding task.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from bus.payload_base import _Model

__all__ = ["Deliverable"]


class Deliverable(_Model):
    """The goal's answer is the Python function ``function``, completed from ``stub``."""

    kind: Literal["function"] = "function"
    function: str = Field(min_length=1, max_length=128, pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")
    """The function's name (the entry point a caller or a test uses)."""
    stub: str = ""
    """Its signature and docstring as given (the examples there are its checks)."""
