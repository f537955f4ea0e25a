"""The coder's instructions hold no code fence of their own: a live 1.5B model echoed the
line "one ```python" / "fenced block." and the fence was read as its program."""

from __future__ import annotations

import pytest

from roles.coder.instructions import SYSTEM
from roles.structured import extract_code

pytestmark = pytest.mark.timeout(30)


def test_echoing_the_instructions_gives_no_program() -> None:
    echoed = f"{SYSTEM}\n```python\nprint(1229)\n```"
    assert extract_code(echoed) == "print(1229)\n"
    broken = "Answer in one ```python\nfenced block.\nprint(1229)\n```"
    assert extract_code(broken).startswith("fenced block.")  # what the old wording gave
