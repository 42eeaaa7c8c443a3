"""How a problem's judge compares outputs, read from its statement (a stated float error, YES/NO in
any case, a returned list in any order) and from its source (tokens or lines).

Verify records the result per problem (the `comparison` column) and the sandbox uses that record for
verify and for rewards alike, so a statement that says "absolute or relative error does not exceed
10^{-6}" is judged with that error, and one that accepts YES/NO in any letter case is judged so.
Everything else stays strict (`filters.compare.STRICT`).

Any case is detected when the statement says so ("in any case", "any register", `yEs`...), or
when a Codeforces statement asks for a quoted YES/NO answer: Codeforces' yes/no checker ignores
case (its archive's expected outputs mix `Yes` and `YES` for one statement). Other judges (AtCoder)
are case-sensitive, so the quoted answer alone is not enough.

Any order (call and assert problems only): a sentence of the statement says the answer, output or
returned value may come "in any order" (LeetCode's "You may return the answer in any order"); the
returned list is then compared as a multiset. Several valid answers beyond their order ("return any
of them") is `several_valid_answers`: one reference cannot label new inputs of such a problem.

Tokens (stdio only): contest judges (Codeforces, AtCoder, CodeChef...) compare the output's
whitespace-separated tokens, so `1 3 2 4` on one line and one number a line are the same answer.
The stdio problems of sources taken from such judges (`TOKEN_JUDGED_SOURCES`: CodeContests,
Codeforces, TACO, APPS) are judged so; every other source keeps line-by-line comparison
(LiveCodeBench's grader compares lines, and a source we know nothing about stays strict).
"""

from __future__ import annotations

import re
from typing import Any

from filters.compare import STRICT, Comparison

__all__ = [
    "TOKEN_JUDGED_SOURCES",
    "detect_comparison",
    "comparison_of",
    "judged_by_tokens",
    "stated_tolerance",
    "allows_any_case",
    "allows_several_answers",
    "allows_any_order",
    "several_valid_answers",
]

_ERROR = re.compile(
    r"(absolute|relative)\s+(or\s+(absolute|relative)\s+)?(error|difference)"
    r"|error\s+(does\s+not|doesn't|doesn’t|should\s+not|must\s+not|will\s+not|not)\s+exceed"
    r"|(answer|output|result)s?\s+(is|are|will\s+be)\s+(considered\s+)?correct\s+if"
    r"|with(in)?\s+(an?\s+)?(absolute|relative)?\s*(error|precision|accuracy)",
    re.IGNORECASE,
)
_MINUS = r"\s*[-−–]\s*"
_POWER = re.compile(
    r"10\s*(?:\^|\*\*)\s*\{?\(?" + _MINUS + r"(\d{1,2})\)?\}?"  # 10^{-6}, 10^-6, 10^(-6)
    r"|10<sup>" + _MINUS + r"(\d{1,2})</sup>"  # 10<sup>-6</sup>
    r"|\b1(?:\.0*)?\s*[eE]" + _MINUS + r"0*(\d{1,2})\b"  # 1e-6, 1E-06, 1.0e-9
    r"|\b10 ?[-−] ?(\d{1,2})\b"  # "10 - 6" / "10-6": a superscript lost in conversion
    r"|\b(0\.0*1)\b"  # 0.000001
)
_ANY_CASE = re.compile(
    r"(letters?|print|output|answer|string)[^.\n]{0,60}\bin\s+any\s+(letter\s+)?case"
    r"|\bin\s+any\s+(letter\s+)?case\s*\(\s*(upper|lower)|\bany\s+register"
    r"|recogni[sz]ed\s+as\s+(a\s+)?positive",
    re.IGNORECASE,
)
_MIXED_YES = re.compile(r"\b(yEs|yES|YeS|yeS)\b")  # examples of accepted spellings
_QUOTED_YES = re.compile(r"[\"“'`]\s*(YES|Yes|yes)\s*[\"”'`]")
_CODEFORCES = re.compile(r"\bCodeforces\b", re.IGNORECASE)
_SEVERAL = re.compile(
    r"any of them|multiple (possible |valid |correct )?(answers|solutions)|print any|output any|"
    r"any (valid|correct|possible) (answer|solution)|any such|if there are (several|many|multiple)|"
    r"in any order|any special order|several (possible )?(answers|solutions)|"
    r"(answers|solutions)[^.]{0,40}(not unique|several|multiple)",
    re.IGNORECASE,
)


def stated_tolerance(statement: str | None) -> float | None:
    """The absolute/relative error a statement allows (`10^{-6}` -> 1e-6), or None if it states none."""
    if not statement:
        return None
    for m in _ERROR.finditer(statement):
        window = statement[m.start() : m.end() + 120]
        p = _POWER.search(window, m.end() - m.start())
        if p is None:
            continue
        exp = next((g for g in p.groups()[:4] if g), None)
        value = 10.0 ** -int(exp) if exp else float(p.group(5))
        if 0 < value <= 0.1:
            return value
    return None


def allows_any_case(statement: str | None) -> bool:
    """Whether YES/NO answers are accepted in any letter case (see the module docstring)."""
    if not statement:
        return False
    if _ANY_CASE.search(statement) or _MIXED_YES.search(statement):
        return True
    return bool(_QUOTED_YES.search(statement) and _CODEFORCES.search(statement))


def allows_several_answers(statement: str | None) -> bool:
    """Whether the statement accepts any of several valid answers ("print any of them", "in any order")."""
    return bool(statement and _SEVERAL.search(statement))


_ANY_ORDER = re.compile(r"\bany\s+(special\s+)?order\b", re.IGNORECASE)
_ANSWERED = re.compile(r"\b(return(s|ed)?|answers?|outputs?|results?)\b", re.IGNORECASE)
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n")


_ALL = re.compile(
    r"\breturn\s+(an?\s+(array|list|collection)\s+(of|containing)\s+)?all\s+(the\s+)?"
    r"([a-z'-]+\s+){0,3}[a-z'-]+s\b",  # a plural: "all the palindrome pairs", "all MHTs'"
    re.IGNORECASE,
)
_ORDERED = re.compile(
    r"order|sort|ascending|descending|increasing|decreasing|lexicograph|first|last|smallest"
    r"|largest|earliest|latest|index|position",
    re.IGNORECASE,
)
_TIE_BREAK = re.compile(r"smallest|largest|lexicograph|minimum|maximum|earliest|first", re.I)


def allows_any_order(statement: str | None) -> bool:
    """Whether a sentence says the answer may be returned in any order ("You may return the answer
    in any order"; not "visit them in any order"), or asks to return all of a collection without
    an order ("Return an array of all the palindrome pairs": LeetCode's judge takes any order)."""
    if not statement:
        return False
    for s in _SENTENCE.split(statement):
        if _ANY_ORDER.search(s) and _ANSWERED.search(s):
            return True
        if _ALL.search(s) and not _ORDERED.search(s):
            return True
    return False


def several_valid_answers(statement: str | None) -> bool:
    """Whether the statement accepts several answers other than one answer in another order
    ("If there are several solutions, return any of them"; not when the same sentence breaks
    the tie: "return the itinerary that has the smallest lexical order")."""
    if not statement:
        return False
    for m in _SEVERAL.finditer(statement):
        if _ANY_ORDER.search(m.group(0)):
            continue
        start = max(statement.rfind(".", 0, m.start()), statement.rfind("\n", 0, m.start()))
        end = statement.find(".", m.end())
        if not _TIE_BREAK.search(statement[start + 1 : end if end >= 0 else None]):
            return True
    return False


#: Sources whose stdio problems come from contest judges that compare tokens, not lines (the
#: registry's names, and a DeepCoder config's prefix of its ids: `deepcoder` rows are `<config>-<n>`).
TOKEN_JUDGED_SOURCES = frozenset(
    {"code-contests", "codecontests-subset", "codeforces", "taco", "taco-verified", "apps"}
)
_TOKEN_JUDGED_DEEPCODER = ("taco-", "codeforces-")


def judged_by_tokens(problem: dict[str, Any]) -> bool:
    """Whether the problem's own judge compares a stdio output's tokens whatever its line breaks:
    a stdio problem from one of `TOKEN_JUDGED_SOURCES` (DeepCoder's `taco` and `codeforces`
    configs too; its `lcbv5` and `primeintellect` ones keep lines)."""
    if (problem.get("test_type") or "stdio") != "stdio":
        return False
    source = problem.get("source")
    if source == "deepcoder":
        return str(problem.get("id") or "").startswith(_TOKEN_JUDGED_DEEPCODER)
    return source in TOKEN_JUDGED_SOURCES


def detect_comparison(
    statement: str | None, test_type: str | None = None, tokens: bool = False
) -> Comparison:
    """The comparison a statement asks for; strict when it says nothing. `any_order` only for
    `call` and `assert` problems (a stdio answer in any order needs a checker); `tokens` (the
    source's judge compares tokens, see `judged_by_tokens`) only for `stdio` ones."""
    tol = stated_tolerance(statement)
    case = allows_any_case(statement)
    order = test_type in ("call", "assert") and allows_any_order(statement)
    tokens = tokens and (test_type or "stdio") == "stdio"
    if tol is None and not case and not order and not tokens:
        return STRICT
    return Comparison(tol, case, order, tokens)


def comparison_of(problem: dict[str, Any]) -> str:
    """The problem's recorded `comparison`, else the one its statement and its source ask for
    (as text). The one place verify, amplify and the rewards take a problem's comparison from."""
    return problem.get("comparison") or str(
        detect_comparison(
            problem.get("statement"), problem.get("test_type"), judged_by_tokens(problem)
        )
    )
