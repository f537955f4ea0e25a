"""Untrusted text made safe for a terminal: control characters are shown, never obeyed.

Everything a run prints about text it did not write itself (model answers, program output,
file names, notes, reasons) goes through here first. An escape sequence could clear the
screen, recolour it or retitle the window; a carriage return or backspace could hide what
came before; C1 controls act like ESC on some terminals; bidi overrides reorder what is
shown. Each becomes a visible escape (``\\x1b``, ``\\r``, ``\\u202e``). Rich markup is a
second, separate danger: print the result as a `rich.text.Text` (``line`` and ``block``
give one), or through `rich.markup.escape` when it must go into a markup string.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.text import Text

__all__ = ["block", "line", "safe_block", "safe_line"]

_CONTROLS = "\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069"
_IN_BLOCK = re.compile(f"[{_CONTROLS}]")
"""What a block may not hold: every control but newline and tab."""
_IN_LINE = re.compile(f"[\t\n{_CONTROLS}]")
"""What a line may not hold: every control, newline and tab included."""
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(match: re.Match[str]) -> str:
    char = match[0]
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def safe_line(text: str) -> str:
    """One line (a file name, a reason, a status): every control character escaped,
    newlines and tabs too, so it cannot break the line it is printed in."""
    return _IN_LINE.sub(_escape, text)


def safe_block(text: str) -> str:
    """Several lines (an answer, a program's output): newlines and tabs kept, CRLF read as
    a newline, every other control character escaped."""
    return _IN_BLOCK.sub(_escape, text.replace("\r\n", "\n"))


def line(text: str, style: str = "") -> Text:
    """``safe_line`` as a rich Text (no markup, no emoji codes)."""
    from rich.text import Text

    return Text(safe_line(text), style=style)


def block(text: str, style: str = "") -> Text:
    """``safe_block`` as a rich Text (no markup, no emoji codes)."""
    from rich.text import Text

    return Text(safe_block(text), style=style)
