"""How the mixer speaks during a run: one logger, `codemix.mixer`, shown on stderr at INFO.

A trainer's own logging does not show a library's INFO lines, and a user needs to see that the
mixer is active (its start-up line) and when it guesses something it was not told (the run's
length). Like `transformers`' own logger, it gets a stderr handler unless the application has
configured one; `logging.getLogger("codemix.mixer").setLevel(logging.WARNING)` quiets it.
"""

from __future__ import annotations

import logging
import sys

__all__ = ["logger"]

logger = logging.getLogger("codemix.mixer")
if not logger.handlers:
    _handler = logging.StreamHandler(sys.stderr)
    _handler.setFormatter(logging.Formatter("%(name)s: %(message)s"))
    logger.addHandler(_handler)
    logger.setLevel(logging.INFO)
    logger.propagate = False
