"""The base of every error that is the user's to fix, shared by the ISA, the compiler and the simulator.

The command line prints a `UserError` as its message and exits with its `exit_code` (1: a bad
config, a kernel that fails; 2: bad usage); anything else reaching it is an internal error. Messages
quote what the user gave through `bounded_repr`, so a huge value (a YAML alias bomb, a 10 MB string)
never makes a huge message.
"""
from __future__ import annotations

import reprlib


class UserError(Exception):
    """An error in what the user gave (a file, an argument, a kernel), stated in the user's terms."""

    exit_code = 1          # what `mtiasim` exits with
    one_line = False       # True: the CLI joins a multi-line message into one line (no caret, no report)


_REPR = reprlib.Repr()
_REPR.maxlevel, _REPR.maxlist, _REPR.maxtuple, _REPR.maxdict, _REPR.maxset = 3, 6, 6, 6, 6
_REPR.maxstring, _REPR.maxother = 80, 80


def bounded_repr(value, limit: int = 120) -> str:
    """`repr(value)` cut to about `limit` characters, in time bounded by the cut, not by the value:
    nested containers stop at depth 3 and 6 items, long strings and numbers are elided."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 200:
        return f"<an integer of about {value.bit_length() * 30103 // 100000 + 1:,} digits>"   # repr() may refuse
    text = _REPR.repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def bounded_text(text: str, limit: int = 300) -> str:
    """`text` cut to `limit` characters (a message of another library quoting a huge input)."""
    return text if len(text) <= limit else text[: limit - 3] + "..."
