"""Token mutants of a correct C++ program, to measure how strong a test suite is (the C++ side of
`filters.stages.verify.mutants`, which makes Python's from the AST).

Each mutant changes one token: a flipped comparison, a swapped arithmetic operator, `++` for
`--`, `&&` for `||`, an off-by-one integer literal, `break` for `continue`, `true` for `false`.
Comments, string and character literals and preprocessor lines are never touched, nor the angle
brackets of a template argument list (`vector<int>`) or the stream operators `<<` and `>>`.

As in Python, mutants are made only in code that can run: the bodies of `main` and of the
functions it names, transitively, and of the structs and classes it names (contest solutions
carry template helpers they never call, whose mutants no test could kill). A token mutant can
still fail to compile (a `*` that was a pointer declarator); the sandbox judges it `CE`, and the
callers leave such mutants out of the score, as they leave out `SE`.
"""

from __future__ import annotations

import random
import re

__all__ = ["generate_cpp_mutants", "cpp_tokens", "cpp_mutation_sites"]

_TOKEN = re.compile(
    r"""
    (?P<space>\s+)
  | (?P<comment>//[^\n]*|/\*.*?\*/)
  | (?P<pre>(?<![^\n])[ \t]*\#(?:\\\n|[^\n])*)
  | (?P<string>(?:u8|[uUL])?R"(?P<delim>[^(\s]*)\(.*?\)(?P=delim)"|(?:u8|[uUL])?"(?:\\.|[^"\\\n])*")
  | (?P<char>(?:u8|[uUL])?'(?:\\.|[^'\\\n])+')
  | (?P<number>(?:0[xX][0-9a-fA-F']+|0[bB][01']+|\d[\d']*(?:\.\d*)?(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?)[uUlLfF]*)
  | (?P<ident>[A-Za-z_]\w*)
  | (?P<op><<=|>>=|<=>|->\*|\.\.\.|::|\+\+|--|&&|\|\||<<|>>|<=|>=|==|!=|\+=|-=|\*=|/=|%=|&=|\|=|\^=|->|.)
    """,
    re.VERBOSE | re.DOTALL,
)

#: names whose `<` opens a template argument list (the common ones in contest code)
_TEMPLATES = {
    "template", "vector", "array", "map", "set", "multiset", "multimap", "unordered_map",
    "unordered_set", "pair", "tuple", "deque", "queue", "priority_queue", "stack", "list",
    "bitset", "greater", "less", "function", "static_cast", "dynamic_cast", "reinterpret_cast",
    "const_cast", "numeric_limits", "basic_string", "string_view", "optional", "valarray",
    "complex", "span", "hash", "make_pair", "make_tuple", "get", "tree", "gp_hash_table",
}  # fmt: skip
_SWAP = {
    "<": "<=", "<=": "<", ">": ">=", ">=": ">", "==": "!=", "!=": "==",
    "+": "-", "-": "+", "*": "+", "/": "*", "%": "/",
    "++": "--", "--": "++", "+=": "-=", "-=": "+=", "*=": "+=",
    "&&": "||", "||": "&&",
    "break": "continue", "continue": "break", "true": "false", "false": "true",
}  # fmt: skip
#: `+ - * / %` are binary after one of these (else unary, or a declarator: `*p`, `-1`)
_OPERAND_END = {")", "]"}
_KEYWORDS_NOT_FUNCTIONS = {"if", "for", "while", "switch", "return", "sizeof", "catch", "do"}


def cpp_tokens(code: str) -> list[tuple[str, str, int]]:
    """(kind, text, offset) of every token of `code`, whitespace left out; kinds: comment, pre
    (a preprocessor line), string, char, number, ident, op."""
    out = []
    for m in _TOKEN.finditer(code):
        kind = m.lastgroup if m.lastgroup != "delim" else "string"
        if kind == "space":
            continue
        if m.group("string") is not None:
            kind = "string"
        out.append((str(kind), m.group(0), m.start()))
    return out


def _template_brackets(toks: list[tuple[str, str, int]]) -> set[int]:
    """Indices of the `<` `>` `>>` tokens that delimit template argument lists."""
    marked: set[int] = set()
    for i, (_, text, _) in enumerate(toks):
        if text != "<" or i == 0 or toks[i - 1][0] != "ident" or toks[i - 1][1] not in _TEMPLATES:
            continue
        depth, j = 0, i
        while j < len(toks):
            t = toks[j][1]
            if t == "<":
                depth += 1
            elif t in (">", ">>"):
                depth -= 1 if t == ">" else 2
            elif t in (";", "{", "}"):
                break
            if t in ("<", ">", ">>"):
                marked.add(j)
            if depth <= 0:
                break
            j += 1
    return marked


def _blocks(toks: list[tuple[str, str, int]]) -> list[tuple[str, int, int]]:
    """(name, first, last) token indices of each top-level function or type body; name is the
    function's or the type's name ('' when none is found)."""
    out = []
    depth, header_start, i = 0, 0, 0
    while i < len(toks):
        text = toks[i][1]
        if text == "{" and depth == 0:
            header = [t for k, t, _ in toks[header_start:i] if k in ("ident", "op")]
            name = ""
            if "struct" in header or "class" in header or "namespace" in header:
                k = next(k for k, t in enumerate(header) if t in ("struct", "class", "namespace"))
                name = header[k + 1] if k + 1 < len(header) else ""
            elif "(" in header:
                k = header.index("(")
                name = header[k - 1] if k > 0 else ""
            start = i
            depth = 1
            while i + 1 < len(toks) and depth:
                i += 1
                depth += {"{": 1, "}": -1}.get(toks[i][1], 0)
            out.append((name, start, i))
            header_start = i + 1
        elif text in (";", "}") and depth == 0:
            header_start = i + 1
        i += 1
    return out


def _reachable(toks: list[tuple[str, str, int]]) -> set[int] | None:
    """Token indices inside the bodies `main` reaches (None: no `main`, every token)."""
    blocks = _blocks(toks)
    names = {name for name, _, _ in blocks}
    if "main" not in names:
        return None
    seen: set[str] = set()
    todo = ["main"]
    allowed: set[int] = set()
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        for bname, a, b in blocks:
            if bname != name:
                continue
            allowed.update(range(a, b + 1))
            for kind, text, _ in toks[a : b + 1]:
                if kind == "ident" and text in names and text not in seen:
                    todo.append(text)
    return allowed


def cpp_mutation_sites(code: str) -> list[tuple[int, str, str]]:
    """(token offset, original token, replacement) of every site a mutant may change."""
    toks = cpp_tokens(code)
    templates = _template_brackets(toks)
    allowed = _reachable(toks)
    sites = []
    for i, (kind, text, offset) in enumerate(toks):
        if allowed is not None and i not in allowed:
            continue
        if kind == "number":
            if re.fullmatch(r"\d+", text):
                sites.append((offset, text, str(int(text) + 1)))
            continue
        if kind not in ("op", "ident") or text not in _SWAP or i in templates:
            continue
        if text in ("+", "-", "*", "/", "%") and i > 0:
            prev_kind, prev = toks[i - 1][0], toks[i - 1][1]
            binary = prev_kind in ("number", "string", "char") or prev in _OPERAND_END
            binary = binary or (prev_kind == "ident" and prev not in _KEYWORDS_NOT_FUNCTIONS)
            if not binary:
                continue
        if text == "*" and i > 0 and toks[i - 1][0] == "ident" and _looks_like_type(toks, i - 1):
            continue  # `int *p`, `Node* n`: a declarator, not a product
        sites.append((offset, text, _SWAP[text]))
    return sites


def _looks_like_type(toks: list[tuple[str, str, int]], i: int) -> bool:
    """Whether the identifier at `i` starts a declaration (`int`, `auto`, a capitalised name)."""
    name = toks[i][1]
    basic = {"int", "long", "char", "double", "float", "bool", "void", "auto", "short", "unsigned",
             "signed", "const", "string", "size_t", "ll"}  # fmt: skip
    return name in basic or (
        name[:1].isupper() and (i == 0 or toks[i - 1][1] in (";", "{", "}", "(", ","))
    )


def generate_cpp_mutants(code: str, n: int = 8, seed: int = 0) -> list[str]:
    """Up to `n` distinct single-token variants of `code`, chosen deterministically by `seed`, in
    the code `main` reaches."""
    sites = cpp_mutation_sites(code)
    random.Random(seed).shuffle(sites)
    out: list[str] = []
    seen = {code}
    for offset, old, new in sites:
        if len(out) >= n:
            break
        src = code[:offset] + new + code[offset + len(old) :]
        if src not in seen:
            seen.add(src)
            out.append(src)
    return out
