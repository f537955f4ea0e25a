"""One colour per role, so the live view, ``attach`` and ``replay`` read alike: each role's
registered style (`roles.registry`), a specialist's for the roles a scenario declares."""

from __future__ import annotations

from roles.registry import REGISTRY, style_of

__all__ = ["ROLE_STYLES", "role_style"]

ROLE_STYLES = {name: reg.style for name, reg in REGISTRY.items()}
"""rich styles of the built-in roles, by name."""


def role_style(role: str) -> str:
    """The style of ``role`` (a specialist's for a role not built in)."""
    return style_of(role)
