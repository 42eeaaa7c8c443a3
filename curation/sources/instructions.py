"""Strip the answer-format instructions that PrimeIntellect wraps around a problem statement.

PrimeIntellect's `prompt` (and DeepCoder's `primeintellect` rows, which copy it) read
"Solve the following coding problem using the programming language python:\\n\\n<statement>
\\n\\nThe input will be stdin and you should print your solution to stdout\\n\\n\\nNow solve the
problem and return the code." Function-call problems carry "Write your solution by modifying this
code: ```python ...```" and "Your solution should implemented in the function "f". ..." instead.
Exported prompts get their own instructions from the trainer, so the record keeps the statement
alone; the starter code in the instructions becomes `starter_code`.

Nothing is stripped unless the text starts with the header, so a statement that merely quotes
one of these sentences is left as it is.
"""

from __future__ import annotations

import re

__all__ = ["strip_instructions"]

_HEADER = re.compile(
    r"\A\s*Solve the following coding problem using the programming language [^\n:]{1,40}:\s*"
)
_FOOTER = re.compile(r"\s*Now solve the problem and return the code\.?\s*\Z")
_TAILS = [
    re.compile(
        r"\s*The input will be stdin and you should print your solution to stdout\.?"
        r"(?:\s*You should use input\(\) to input and print\(\) to output in your code\.)?\s*\Z"
    ),
    re.compile(
        r"\s*The input will be given via stdin and the output should be printed to stdout by your code\.?\s*\Z"
    ),
    re.compile(
        r"\s*Your solution should implemented in the function(?:\s+\"[^\"\n]*\")?\.\s*"
        r"The inputs will be passed to it and it should return the correct solution\.?\s*\Z"
    ),
]
_STARTER = re.compile(
    r"\s*Write your solution by modifying this code:\s*```[A-Za-z0-9_+-]*[ \t]*\n?(.*?)```\s*\Z",
    re.DOTALL,
)


def strip_instructions(text: str) -> tuple[str, str | None]:
    """(statement, starter code or None) of a prompt; the text unchanged when it has no header."""
    m = _HEADER.match(text)
    if not m:
        return text, None
    body = _FOOTER.sub("", text[m.end() :])
    starter = None
    changed = True
    while changed:
        changed = False
        for tail in _TAILS:
            new = tail.sub("", body)
            if new != body:
                body, changed = new, True
        sm = _STARTER.search(body)
        if sm:
            starter = sm.group(1).strip("\n") + "\n" if sm.group(1).strip() else None
            body, changed = body[: sm.start()], True
    body = body.strip()
    return (body if body else text), starter
