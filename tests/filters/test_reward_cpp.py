"""C++ completions as rewards: the fence or the export's ground truth says the language, and the
correctness and speed rewards (and the trainers' functions) grade C++ as strictly as Python."""

from __future__ import annotations

import json
import shutil

import pytest

from filters.judging.ground_truth import from_ground_truth, to_ground_truth
from filters.reward import extract_program, grade_many, measure_speed
from filters.reward.trainer_rewards import compute_score, trl_correctness_reward
from filters.sandbox import Sandbox

needs_gxx = pytest.mark.skipif(shutil.which("g++") is None, reason="no C++ compiler")

ADD_CPP = (
    "#include <bits/stdc++.h>\n"
    "int main() { long long a, b; std::cin >> a >> b; std::cout << a + b << '\\n'; }\n"
)
ADD_PY = "a, b = map(int, input().split())\nprint(a + b)\n"
RECORD = {
    "problem_id": "toy/add",
    "test_type": "stdio",
    "tests": [{"input": "2 3\n", "output": "5\n"}, {"input": "-7 3\n", "output": "-4\n"}],
    "solutions": [ADD_PY, ADD_CPP],
    "solution_languages": ["python", "cpp"],
}


def fenced(code: str, tag: str = "cpp") -> str:
    return f"Here is my solution.\n```{tag}\n{code}```\nIt adds the numbers."


# ---- which program, in which language -----------------------------------------------------------
def test_the_fence_says_the_language():
    assert extract_program(fenced(ADD_CPP)) == (ADD_CPP, "cpp")
    assert extract_program(fenced(ADD_CPP, "c++")) == (ADD_CPP, "cpp")
    assert extract_program(fenced(ADD_PY, "python"), "cpp") == (ADD_PY, "python")
    # the language the prompt asked for wins over a later block in another one
    both = fenced(ADD_CPP) + "\nOr in Python:\n" + fenced(ADD_PY, "python")
    assert extract_program(both, "cpp") == (ADD_CPP, "cpp")
    assert extract_program(both) == (ADD_PY, "python")
    assert extract_program(fenced("class Main {}", "java")) is None  # not a language we judge


def test_untagged_code_is_read_in_the_language_asked_for():
    assert extract_program(fenced(ADD_CPP, ""), "cpp") == (ADD_CPP, "cpp")
    assert extract_program(ADD_CPP, "cpp") == (ADD_CPP, "cpp")  # no fence at all
    assert extract_program(fenced(ADD_CPP, "")) is None  # not Python, and Python was asked for
    assert extract_program("No idea, sorry.", "cpp") is None


def test_the_ground_truth_carries_the_language_asked_for():
    assert from_ground_truth(to_ground_truth(RECORD))["language"] is None  # old exports: Python
    gt = from_ground_truth(to_ground_truth(RECORD, "cpp"))
    assert gt["language"] == "cpp" and gt["solution_languages"] == ["python", "cpp"]


# ---- grading ------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def sb():
    with Sandbox(workers=2, time_limit_s=2) as box:
        yield box


@needs_gxx
def test_correctness_grades_cpp_like_python(sb):
    gt = to_ground_truth(RECORD, "cpp")
    wrong = ADD_CPP.replace("a + b", "a - b")
    broken = ADD_CPP.replace("std::cin", "std::cinn")
    grades = grade_many(
        [(gt, fenced(ADD_CPP)), (gt, fenced(wrong)), (gt, fenced(broken)), (gt, ADD_CPP)],
        sandbox=sb,
    )
    assert [(g.score, g.verdict, g.language) for g in grades] == [
        (1.0, "AC", "cpp"),
        (0.0, "WA", "cpp"),
        (0.0, "CE", "cpp"),
        (1.0, "AC", "cpp"),
    ]
    # an export that asked for Python still grades a completion fenced as C++ as C++
    py = grade_many([(to_ground_truth(RECORD), fenced(ADD_CPP))], sandbox=sb)[0]
    assert (py.score, py.language) == (1.0, "cpp")


@needs_gxx
def test_a_cpp_completion_to_a_call_problem_scores_zero(sb):
    call = {
        "test_type": "call",
        "entry_point": "add",
        "tests": [{"input": "[2, 3]", "output": "5"}],
    }
    g = grade_many([(call, fenced(ADD_CPP))], sandbox=sb)[0]
    assert g.score == 0.0 and "stdio" in (g.error or "")


@needs_gxx
def test_trainer_functions_grade_cpp(sb, monkeypatch):
    monkeypatch.setattr("filters.reward.trainer_rewards.shared_sandbox", lambda: sb)
    monkeypatch.setattr("filters.reward.correctness.shared_sandbox", lambda: sb)
    gt = to_ground_truth(RECORD, "cpp")
    assert compute_score("toy", fenced(ADD_CPP), gt)["score"] == 1.0
    wrong = fenced(ADD_CPP.replace("a + b", "a * b"))
    out = trl_correctness_reward(
        prompts=["p", "p"],
        completions=[[{"role": "assistant", "content": fenced(ADD_CPP)}], wrong],
        ground_truth=[gt, gt],
    )
    assert out == [1.0, 0.0]


@needs_gxx
def test_speed_compares_cpp_with_cpp_references_only(sb):
    gt = to_ground_truth(RECORD, "cpp")
    r = measure_speed(gt, fenced(ADD_CPP), sandbox=sb, repeats=3, max_repeats=3, max_refs=3)
    assert r.correct and r.reward is not None
    assert len(r.reference_ms) == 1  # the C++ reference, not the Python one
    py_only = dict(RECORD, solutions=[ADD_PY], solution_languages=["python"])
    r = measure_speed(json.dumps(py_only | {"language": "cpp"}), fenced(ADD_CPP), sandbox=sb)
    assert r.reward == 0.0 and "no cpp reference" in (r.note or "")
