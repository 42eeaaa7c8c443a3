"""The documentation a clone has is the documentation: no doc or docstring sends the reader to a
file outside the repository, every relative link resolves inside it, and the signatures the docs
write out are the code's."""

from __future__ import annotations

import ast
import inspect
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("curation", "filters", "mixer", "benchmarks", "examples")
#: `../shared/<this>` is optional data, which the code and tests look for and skip without.
SHARED_DATA = ("data", "hub-samples")


def _doc_files() -> list[Path]:
    return [
        ROOT / "README.md",
        *sorted((ROOT / "docs").rglob("*.md")),
        *sorted((ROOT / "benchmarks").rglob("*.md")),
    ]


def _docstrings(path: Path) -> list[tuple[int, str]]:
    """(line, text) of a module's docstring and of each class's and function's."""
    tree = ast.parse(path.read_text(), str(path))
    out = []
    for node in [tree, *ast.walk(tree)]:
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            doc = ast.get_docstring(node, clean=False)
            if doc:
                out.append((getattr(node, "lineno", 1), doc))
    return out


def _texts() -> list[tuple[str, str]]:
    """(where, text) of every doc page and every docstring of the packages."""
    out = [(str(p.relative_to(ROOT)), p.read_text()) for p in _doc_files()]
    for pkg in PACKAGES:
        for p in sorted((ROOT / pkg).rglob("*.py")):
            out.extend((f"{p.relative_to(ROOT)}:{line}", doc) for line, doc in _docstrings(p))
    return out


def outside_references(text: str) -> list[str]:
    """What in `text` names a file outside the repository as something to read."""
    found = re.findall(r"\S*DESIGN\.md\S*", text)
    found += re.findall(r"/work/\S+", text)
    for m in re.finditer(r"\.\./shared(/[\w.-]+)?\S*", text):
        sub = (m.group(1) or "/").lstrip("/")
        if sub not in SHARED_DATA:
            found.append(m.group(0))
    return found


def test_the_check_finds_outside_files() -> None:
    assert outside_references("the record (DESIGN.md, 'The problem record')") == ["(DESIGN.md,"]
    assert outside_references("see ../shared/DESIGN.md") != []
    assert outside_references("read ../shared/notes.txt first") != []
    assert outside_references("real data in ../shared/data, skipped when absent") == []
    assert outside_references("rows from ../shared/hub-samples/x.json.gz") == []


def test_no_doc_or_docstring_names_a_file_outside_the_repository() -> None:
    bad = [(where, ref) for where, text in _texts() for ref in outside_references(text)]
    assert bad == []


def test_relative_links_resolve_inside_the_repository() -> None:
    bad = []
    for page in _doc_files():
        for target in re.findall(r"\]\(([^)\s]+)\)", page.read_text()):
            if re.match(r"[a-z]+:", target) or target.startswith("#"):
                continue  # a web address, an anchor
            path = (page.parent / target.split("#", 1)[0]).resolve()
            if not path.is_relative_to(ROOT) or not path.exists():
                bad.append((str(page.relative_to(ROOT)), target))
    assert bad == []


def _documented_signature(section: str, name: str) -> list[tuple[str, str | None]]:
    """(parameter, default text or None) of `name(...)` as the section writes it."""
    m = re.search(rf"`{name}\(([^`]*)\)`", section)
    assert m, f"docs/mixer.md, Feedback: no signature of {name}"
    params = []
    for part in re.split(r",\s*", " ".join(m.group(1).split())):
        key, eq, default = part.partition("=")
        params.append((key.strip(), default.strip() if eq else None))
    return params


@pytest.mark.parametrize(
    "name",
    ["Feedback", "feedback_from_rewards", "grpo_advantages", "per_source_mean", "weights_id_of"],
)
def test_mixer_feedback_signatures_match_the_code(name: str) -> None:
    import mixer.feedback

    text = (ROOT / "docs" / "mixer.md").read_text()
    section = text[text.index("## Feedback\n") : text.index("\n## ", text.index("## Feedback\n"))]
    documented = _documented_signature(section, name)
    empty = inspect.Parameter.empty
    code = [
        (p.name, p.default)
        for p in inspect.signature(getattr(mixer.feedback, name)).parameters.values()
    ]
    assert [k for k, _ in documented] == [k for k, _ in code]
    for (key, default), (_, value) in zip(documented, code):
        assert (default is None) == (value is empty), (
            f"{name}({key}): a default in one of doc and code only"
        )
        if default is not None:
            assert eval(default) == value, (
                f"{name}({key}=...): documented {default}, code {value!r}"
            )
