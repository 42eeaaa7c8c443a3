"""The reference a scorer reads from an export's ground truth is in the language the prompt asks
for: a CodeContests record's first solution may be C++."""

from __future__ import annotations

import json

from mixer.problems.scorers import dataset_references

PY, CPP = "print(1)\n", "int main() {}\n"


def test_the_reference_is_in_the_prompts_language():
    gt = {"solutions": [CPP, PY], "solution_languages": ["cpp", "python"], "tests": []}
    rows = {
        "ground_truth": [
            json.dumps(gt),
            json.dumps(dict(gt, language="cpp")),
            json.dumps({"solutions": [PY]}),  # an export from before languages: Python
            json.dumps(dict(gt, solutions=[CPP], solution_languages=["cpp"])),
        ]
    }
    assert dataset_references(rows) == [PY, CPP, PY, None]
