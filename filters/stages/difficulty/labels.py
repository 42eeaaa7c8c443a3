"""Label prior: each source's own difficulty label mapped onto one scale, `difficulty` in [0, 1].

Every label is first turned into an approximate Codeforces rating (the one public scale that is
itself an item-response scale), then mapped linearly: 800 -> 0.0, 3500 -> 1.0. The rating
equivalents of coarse labels are rough, so each comes with a spread (`std`, same [0, 1] units)
that the item-response fit uses as the prior's width.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = [
    "RATING_MIN",
    "RATING_MAX",
    "LabelPrior",
    "label_prior",
    "rating_to_unit",
    "letter_rating",
]

RATING_MIN = 800.0
RATING_MAX = 3500.0

# Rating equivalents (mean, spread) of each family's classes.
_GENERIC3 = {"easy": (1000.0, 300.0), "medium": (1500.0, 350.0), "hard": (2100.0, 400.0)}
_TACO = {
    "easy": (1000.0, 300.0),
    "medium": (1400.0, 300.0),
    "medium_hard": (1800.0, 300.0),
    "hard": (2200.0, 350.0),
    "very_hard": (2700.0, 400.0),
}
_APPS = {
    "introductory": (1000.0, 300.0),
    "interview": (1500.0, 400.0),
    "competition": (2200.0, 450.0),
}
# CodeContests `difficulty` enum 1..5 (EASY, MEDIUM, HARD, HARDER, HARDEST); 0 unknown, 6 external.
_CC_COARSE = {
    1: (1000.0, 350.0),
    2: (1400.0, 350.0),
    3: (1800.0, 350.0),
    4: (2200.0, 400.0),
    5: (2600.0, 450.0),
}
_CC_NAMES = {"harder": 4, "hardest": 5}
# Problem letters within a Codeforces-style round: A is the easiest, later letters are harder.
_LETTER_RATING = [1000.0, 1300.0, 1600.0, 1900.0, 2200.0, 2450.0, 2650.0, 2850.0, 3000.0]
_UNKNOWN = {
    "",
    "unknown",
    "unknown_difficulty",
    "none",
    "null",
    "nan",
    "n/a",
    "na",
    "external",
    "-",
    "?",
}
_LETTER_RE = re.compile(r"^(?:div\.?\s*\d\s*)?([a-v])\d?$")
_RATING_RE = re.compile(r"^(?:cf_?)?(?:rating)?[:=\s]*(\d{3,4})(?:\.0+)?$")


@dataclass(frozen=True)
class LabelPrior:
    """A label's place on the unit scale, its spread, and which family of labels it was read as."""

    difficulty: float
    std: float
    family: str


def rating_to_unit(rating: float) -> float:
    """Codeforces-like rating to [0, 1], clipped."""
    return min(1.0, max(0.0, (rating - RATING_MIN) / (RATING_MAX - RATING_MIN)))


def _spread_to_unit(spread: float) -> float:
    return spread / (RATING_MAX - RATING_MIN)


def letter_rating(index: int) -> float:
    """Approximate rating of the problem at position `index` (A = 0) of a round."""
    if index < len(_LETTER_RATING):
        return _LETTER_RATING[index]
    return min(RATING_MAX, _LETTER_RATING[-1] + 100.0 * (index - len(_LETTER_RATING) + 1))


def _prior(rating: float, spread: float, family: str) -> LabelPrior:
    return LabelPrior(rating_to_unit(rating), _spread_to_unit(spread), family)


def _from_number(value: float, source: str) -> LabelPrior | None:
    if RATING_MIN - 200 <= value <= 4000:
        return _prior(value, 100.0, "rating")
    if value != int(value):
        return LabelPrior(value, 0.1, "unit") if 0.0 <= value <= 1.0 else None
    v = int(value)
    if "contest" not in source and source:
        return None  # small integers mean different things in different sources
    if 7 <= v <= 28:  # CodeContests enum: 7 = A, 8 = B, ...
        return _prior(letter_rating(v - 7), 400.0, "letter")
    if 1 <= v <= 5:
        r, s = _CC_COARSE[v]
        return _prior(r, s, "codecontests")
    return None


def label_prior(label: str | int | float | None, source: str | None = None) -> LabelPrior | None:
    """Map one raw `difficulty_label` (with its source's name as a hint) to the unit scale.

    Understood: TACO EASY..VERY_HARD, APPS introductory/interview/competition, LeetCode and
    LiveCodeBench easy/medium/hard, Codeforces ratings (800..3500), CodeContests' difficulty enum
    (1..5 coarse, 7 = A .. 28 = V; read so only for a source named like *contest* or no source
    name, as small integers mean other things elsewhere), problem letters A..V (optionally with a digit, "B2"), and
    values already in [0, 1]. Anything else, or an unknown marker, gives None.
    """
    if label is None or isinstance(label, bool):
        return None
    src = (source or "").lower()
    if isinstance(label, (int, float)):
        return _from_number(float(label), src)
    text = str(label).strip().lower().replace("-", "_").replace(" ", "_")
    if text in _UNKNOWN:
        return None
    try:
        return _from_number(float(text), src)
    except ValueError:
        pass
    m = _RATING_RE.match(text)
    if m:
        return _from_number(float(m.group(1)), src)
    if "contest" in src and text in ("easy", "medium", "hard"):
        r, s = _CC_COARSE[{"easy": 1, "medium": 2, "hard": 3}[text]]
        return _prior(r, s, "codecontests")
    if "taco" in src and text in _TACO:
        r, s = _TACO[text]
        return _prior(r, s, "taco")
    if text in ("medium_hard", "very_hard"):
        r, s = _TACO[text]
        return _prior(r, s, "taco")
    if text in _GENERIC3:
        r, s = _GENERIC3[text]
        return _prior(r, s, "easy/medium/hard")
    if text in _APPS:
        r, s = _APPS[text]
        return _prior(r, s, "apps")
    if text in _CC_NAMES:
        r, s = _CC_COARSE[_CC_NAMES[text]]
        return _prior(r, s, "codecontests")
    m = _LETTER_RE.match(text.replace("_", " ").strip())
    if m:
        return _prior(letter_rating(ord(m.group(1)) - ord("a")), 400.0, "letter")
    return None
