"""One colour per role, so the live view, ``attach`` and ``replay`` read alike."""

from __future__ import annotations

__all__ = ["ROLE_STYLES", "role_style"]

ROLE_STYLES = {
    "manager": "bold blue",
    "planner": "magenta",
    "researcher": "cyan",
    "coder": "green",
    "critic": "yellow",
    "reflector": "bright_black",
    "human": "bold bright_white",
    "runner": "dim",
}
"""rich styles by role name."""


def role_style(role: str) -> str:
    """The style of ``role`` (none for a role not listed)."""
    return ROLE_STYLES.get(role, "")
