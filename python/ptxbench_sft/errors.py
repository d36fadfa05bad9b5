"""The one error type for bad user input across the ``ptxbench_sft`` commands.

A missing or unreadable file, a malformed row, an unknown config key: the command line prints
the message as one ``error:`` line on stderr and exits with status 2. Anything else escaping a
command is a bug in this package and keeps its traceback.
"""

from __future__ import annotations


class InputError(ValueError):
    """Bad user input: missing file, empty data, malformed row, bad or unknown config key."""
