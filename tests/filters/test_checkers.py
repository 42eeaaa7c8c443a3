"""Special judges in the sandbox: testlib's 21 standard checkers, a C++ testlib checker's own
source, and attacks through the checker (issue 54).

Each standard checker judges a hand-made right, wrong and malformed output as its name says
(`filters/data/testlib/checkers`, identical to ../shared/testlib/checkers). The checkers are
compiled once per machine (`checkers.CheckerCache`, on disk) and every program here runs in one
module-scoped sandbox, all at once (`run_many`)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from filters.sandbox import Sandbox, checkers

pytestmark = pytest.mark.skipif(shutil.which("g++") is None, reason="no C++ compiler")

SHARED_TESTLIB = Path(__file__).resolve().parents[3] / "shared" / "testlib"

#: checker: (the jury's answer, a right output, a wrong one, a malformed one, what the malformed
#: one is: testlib's PE, wrong output format, or WA)
CASES = {
    "wcmp": ("1 2\n3\n", "1\n2   3", "1 2 4\n", "1 2 3 4\n", "WA"),  # extra token
    "lcmp": ("1 2\n3\n", "1  2\n3", "1\n2 3\n", "1 2\n3\n4\n", "PE"),  # an extra line
    "fcmp": ("1 2\n3\n", "1 2\n3\n", "1  2\n3\n", "1 2\n", "WA"),
    "ncmp": ("1 -2 3\n", "1\n-2\n3\n", "1 -2 4\n", "1 -2 x\n", "PE"),
    "uncmp": ("3 1 2\n", "1 2 3\n", "1 2 2\n", "1 2 x\n", "PE"),
    "icmp": ("42\n", " 42\n", "43\n", "42.0\n", "PE"),
    "hcmp": ("-123456789012345678901234567890\n", "-123456789012345678901234567890",
             "-123456789012345678901234567891\n", "12x\n", "PE"),
    "rcmp4": ("1.0 2.0\n", "1.00005 2\n", "1.001 2\n", "1.0 abc\n", "PE"),
    "rcmp6": ("1.0 2.0\n", "1.0000005 2\n", "1.00001 2\n", "1.0 abc\n", "PE"),
    "rcmp9": ("1.0 2.0\n", "1.0000000005 2\n", "1.00000001 2\n", "1.0 abc\n", "PE"),
    "rcmp": ("0.5\n", "0.5000010\n", "0.50001\n", "half\n", "PE"),
    "acmp": ("0.5\n", "0.4999990\n", "0.49999\n", "half\n", "PE"),
    "dcmp": ("1000000\n", "1000000.5\n", "1000002\n", "a million\n", "PE"),
    "rncmp": ("1 2 3\n", "1.00001 2 3\n", "1.0001 2 3\n", "1 2 three\n", "PE"),
    "yesno": ("YES\n", "yes\n", "NO\n", "maybe\n", "PE"),
    "nyesno": ("YES NO\n", "yes\nno\n", "YES YES\n", "YES maybe\n", "PE"),
    "caseicmp": ("Case 1: 5\nCase 2: 7\n", "Case 1: 5\nCase 2: 7", "Case 1: 5\nCase 2: 8\n",
                 "5\n7\n", "PE"),
    "casencmp": ("Case 1: 1 2\nCase 2: 3\n", "Case 1: 1 2\nCase 2: 3\n",
                 "Case 1: 1 3\nCase 2: 3\n", "Case 1 1 2\nCase 2 3\n", "PE"),
    "casewcmp": ("Case 1: a b\nCase 2: c\n", "Case 1: a b\nCase 2: c\n",
                 "Case 1: a c\nCase 2: c\n", "Case one: a b\n", "PE"),
    # scored checkers: their points are never a pass (POINTS), a malformed output is PE
    "pointscmp": ("1.5\n", "1.5\n", "2.0\n", "one and a half\n", "PE"),
    "pointsinfo": ("1.5\n", "1.5\n", "2.0\n", "one and a half\n", "PE"),
}  # fmt: skip


def printer(output: str | bytes) -> str:
    """A Python program that prints exactly `output`."""
    data = output.encode() if isinstance(output, str) else output
    return f"import sys\nsys.stdout.buffer.write({data!r})\n"


def problem(checker: str, answer: str, time_limit_s: float = 1.0) -> dict:
    return {"test_type": "stdio", "checker": checker, "time_limit_s": time_limit_s,
            "tests": [{"input": "1\n", "output": answer}]}  # fmt: skip


def name_of(r) -> str:
    """What the checker said: OK, or testlib's name (WA, PE, POINTS) from the reason."""
    if r.verdict == "AC":
        return "OK"
    reason = (r.first_failure or {}).get("reason") or ""
    return reason.split(":")[1].strip() if reason.startswith("checker:") else r.verdict


@pytest.fixture(scope="module")
def sb():
    with Sandbox(workers=2) as box:
        yield box


@pytest.fixture(scope="module")
def judged(sb):
    """Every standard checker on its right, wrong and malformed output: (verdict, name, reason)."""
    jobs, keys = [], []
    for name, (answer, *outputs, _) in CASES.items():
        for which, out in zip(("right", "wrong", "malformed"), outputs):
            jobs.append((problem(name, answer), printer(out)))
            keys.append((name, which))
    return {
        k: (r.verdict, name_of(r), (r.first_failure or {}).get("reason"))
        for k, r in zip(keys, sb.run_many(jobs))
    }


def test_the_shipped_testlib_is_the_shared_one():
    """testlib.h and the 21 checkers ship inside the package unchanged, with the licence."""
    shipped = checkers.testlib_dir()
    assert (shipped / "LICENSE").read_text().startswith("The MIT License")
    assert sorted(p.stem for p in (shipped / "checkers").glob("*.cpp")) == sorted(checkers.STANDARD)
    if not SHARED_TESTLIB.is_dir():
        pytest.skip("../shared/testlib is absent")
    assert (shipped / "testlib.h").read_bytes() == (SHARED_TESTLIB / "testlib.h").read_bytes()
    for name in checkers.STANDARD:
        assert (shipped / "checkers" / f"{name}.cpp").read_bytes() == (
            SHARED_TESTLIB / "checkers" / f"{name}.cpp"
        ).read_bytes()


def test_checker_kinds():
    assert checkers.checker_kind(None) is None and checkers.checker_kind("  ") is None
    assert checkers.checker_kind("rcmp6") == checkers.checker_kind("testlib:wcmp") == "standard"
    assert checkers.checker_kind('#include "testlib.h"\nint main() {}') == "testlib"
    assert checkers.checker_kind("def check(i, e, a):\n    return True\n") == "python"


@pytest.mark.parametrize("name", checkers.STANDARD)
def test_standard_checker(judged, name):
    malformed = CASES[name][-1]
    right, wrong, bad = (judged[name, w] for w in ("right", "wrong", "malformed"))
    if name.startswith("points"):  # scored: the points, never a pass
        assert right[:2] == ("WA", "POINTS") and wrong[:2] == ("WA", "POINTS"), (right, wrong)
        assert "0.5" in wrong[2] or "2.0" in wrong[2], wrong
    else:
        assert right[:2] == ("AC", "OK"), right
        assert wrong[:2] == ("WA", "WA"), wrong
    assert bad[:2] == ("WA", malformed), bad


TESTLIB_SUM = r"""#include "testlib.h"
int main(int argc, char* argv[]) {
    registerTestlibCmd(argc, argv);
    long long a = inf.readLong(), b = inf.readLong();
    long long p = ouf.readLong(), j = ans.readLong();
    if (j != a + b) quitf(_fail, "the jury's answer %lld is not %lld", j, a + b);
    if (p != a + b) quitf(_wa, "expected %lld, found %lld", a + b, p);
    quitf(_ok, "the sum");
}
"""
ADD_PY = "a, b = map(int, input().split())\nprint(a + b)\n"
ADD_CPP = '#include <cstdio>\nint main() { long long a, b; scanf("%lld %lld", &a, &b); printf("%lld\\n", a + b); }\n'
SUM = {
    "test_type": "stdio",
    "checker": TESTLIB_SUM,
    "tests": [{"input": f"{a} {b}\n", "output": f"{a + b}\n"} for a, b in [(1, 2), (-5, 3), (10**12, 1)]],
}


def test_a_testlib_checker_judges_python_and_cpp_programs(sb):
    right, wrong, cpp, cpp_wrong = sb.run_many([
        (SUM, ADD_PY), (SUM, ADD_PY.replace("a + b", "a - b")),
        (SUM, ADD_CPP, {"language": "cpp"}), (SUM, ADD_CPP.replace("a + b", "a * b"), {"language": "cpp"}),
    ])  # fmt: skip
    assert (right.verdict, right.tests_passed) == ("AC", 3), right.first_failure
    assert (cpp.verdict, cpp.tests_passed) == ("AC", 3), cpp.first_failure
    assert wrong.verdict == cpp_wrong.verdict == "WA"
    assert "expected 3, found -1" in wrong.first_failure["reason"]


def test_a_failing_checker_is_a_sandbox_error_never_a_verdict(sb):
    """FAIL (a wrong jury answer), a crash, a checker past its memory or its time, a checker that
    does not compile: SE, whatever the program printed."""
    bad_answer = dict(SUM, tests=[{"input": "1 2\n", "output": "4\n"}])
    crash = '#include "testlib.h"\n#include <cstdlib>\nint main(int c, char* v[]) { registerTestlibCmd(c, v); abort(); }\n'
    hog = ('#include "testlib.h"\n#include <vector>\nint main(int c, char* v[]) { registerTestlibCmd(c, v);'
           ' std::vector<char> a; for (;;) { a.resize(a.size() + (64 << 20), 1); } }\n')
    loop = ('#include "testlib.h"\nint main(int c, char* v[]) { registerTestlibCmd(c, v);'
            ' volatile unsigned long x = 0; for (;;) x++; }\n')
    broken = '#include "testlib.h"\nint main() { this is not C++ }\n'
    runs = sb.run_many([
        (bad_answer, ADD_PY),
        *((dict(SUM, checker=c, time_limit_s=0.5), ADD_PY) for c in (crash, hog, loop, broken)),
    ])  # fmt: skip
    for r in runs:
        assert r.verdict == "SE" and r.tests_passed == 0, (r.verdict, r.first_failure, r.error)
    assert "FAIL" in runs[0].first_failure["reason"]
    assert "does not compile" in runs[4].error


CONTAINED = r"""#include "testlib.h"
#include <cstdio>
#include <unistd.h>
int main(int argc, char* argv[]) {
    registerTestlibCmd(argc, argv);
    ouf.readLong();
    if (geteuid() == 0) quitf(_wa, "the checker runs as root");
    if (std::fopen("/etc/shadow", "r")) quitf(_wa, "it reads /etc/shadow");
    if (std::fopen(argv[3], "w") || std::fopen(argv[2], "a")) quitf(_wa, "it may write its files");
    if (std::fopen("../.cmio/chk_ans", "r")) quitf(_wa, "it reads the I/O directory");
    quitf(_ok, "contained");
}
"""


def test_the_checker_is_as_contained_as_the_program(sb):
    r = sb.run(dict(SUM, checker=CONTAINED), ADD_PY)
    assert r.verdict == "AC", r.first_failure


@pytest.mark.parametrize(
    "name, answer, output",
    [
        ("rcmp6", "1.5\n", "nan\n"),
        ("rcmp6", "1.5\n", "inf\n"),
        ("rcmp6", "1.5\n", "-inf\n"),
        ("dcmp", "1e300\n", "inf\n"),
        ("rcmp9", "1.5\n", "1.5 2.5\n"),  # extra tokens
        ("yesno", "YES\n", "YES\nNO\n"),
        ("wcmp", "1 2 3\n", "1 2\n"),  # reads past the end of the output
        ("wcmp", "1 2 3\n", ""),
        ("ncmp", "1 2 3\n", "ok\n"),
        ("wcmp", "1 2 3\n", "ok\nok 3 tokens\n"),
        ("wcmp", "1 2 3\n", b"1 2 3\x00\xff\xfe\n"),  # binary bytes
        ("wcmp", "1 2 3\n", b"\x00" * 100000),
        ("hcmp", "12\n", "1" * 200000 + "\n"),
        ("lcmp", "1 2 3\n", "1 2 3\n" * 200000),  # a large output, within the limit
    ],
)
def test_attacks_through_the_output_get_no_reward(sb, name, answer, output):
    r = sb.run(problem(name, answer), printer(output))
    assert r.verdict == "WA" and r.tests_passed == 0, (r.verdict, r.first_failure, r.error)


def test_an_ok_on_stderr_and_a_huge_output_get_no_reward(sb):
    ok = "import sys\nsys.stderr.write('ok 3 tokens\\n')\nprint(7)\n"
    huge = "import sys\nw = sys.stdout.write\nfor _ in range(10**6):\n    w('1 2 3 ' * 100)\n"
    r1, r2 = sb.run_many([(problem("wcmp", "1 2 3\n"), ok), (problem("wcmp", "1 2 3\n"), huge)])
    assert r1.verdict == "WA" and r2.verdict == "OLE", (r1.first_failure, r2.verdict)


def test_a_python_checker_that_dies_is_a_sandbox_error(sb):
    """As for a C++ checker: a Python checker whose process dies (or runs out of its time or
    memory) is SE; one that raises on the output rejects it (it cannot say FAIL)."""
    loops = "import os, signal\ndef check(input, expected, actual):\n    os.kill(os.getpid(), signal.SIGKILL)\n"
    raises = "def check(input, expected, actual):\n    return int(actual) == int(expected)\n"
    looped, raised = sb.run_many([
        (dict(SUM, checker=loops, tests=SUM["tests"][:1]), ADD_PY),
        (dict(SUM, checker=raises), "print('three')"),
    ])  # fmt: skip
    assert looped.verdict == "SE" and "the checker failed (RE, signal SIGKILL)" in looped.first_failure["reason"]
    assert raised.verdict == "WA" and "ValueError" in raised.first_failure["reason"]
