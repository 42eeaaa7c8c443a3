"""Errors that mean "the user asked for something we cannot do", shown as one clear line."""

from __future__ import annotations

__all__ = ["UserError"]


class UserError(Exception):
    """A problem with the user's input (unknown name, missing file, unreachable dataset).

    The command line prints its message on one line, without a traceback, and exits with code 2.
    The message says what is wrong and how to fix it.
    """
