"""``${VAR}`` in scenario values, replaced from the environment when a client is built."""

from __future__ import annotations

import os
import re
from typing import Any

from society.errors import ModelConfigError

__all__ = ["expand_env"]

_ENV = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


def expand_env(value: Any) -> Any:
    """Replace ``${VAR}`` in strings (recursively) with environment values."""
    if isinstance(value, str):

        def sub(m: re.Match[str]) -> str:
            name = m.group(1)
            if name not in os.environ:
                msg = f"environment variable {name} is not set (referenced as ${{{name}}})"
                raise ModelConfigError(msg)
            return os.environ[name]

        return _ENV.sub(sub, value)
    if isinstance(value, dict):
        return {k: expand_env(v) for k, v in value.items()}
    if isinstance(value, list):
        return [expand_env(v) for v in value]
    return value
