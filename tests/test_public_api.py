"""The public API, pinned (httpx's habit): a change here is a deliberate change of the API."""

from __future__ import annotations

import importlib

import pytest

PUBLIC = {
    'curation': [
        'BuildConfig',
        'BuildResult',
        'FORMATS',
        'PROBLEM_FIELDS',
        'PROBLEM_SCHEMA',
        'RecordError',
        'SOURCES',
        'SourceSpec',
        'build',
        'export',
        'iter_source',
        'load_recipe',
        'normalize_record',
        'parse_source_arg',
        'write_report',
    ],
    'filters': [
        'AmplifyConfig',
        'AmplifyStage',
        'Decision',
        'DecontamConfig',
        'DecontamStage',
        'DedupConfig',
        'DedupStage',
        'DifficultyConfig',
        'DifficultyStage',
        'GlobalStage',
        'RowStage',
        'RunResult',
        'Sandbox',
        'Stage',
        'StageResult',
        'TestResult',
        'UserError',
        'VerifyConfig',
        'VerifyStage',
        'code_shingles',
        'code_tokens',
        'compare_call',
        'compare_stdio',
        'find_duplicates',
        'fit_irt',
        'from_ground_truth',
        'jaccard',
        'label_prior',
        'minhash_signatures',
        'plot_calibration',
        'to_ground_truth',
    ],
    'mixer': [
        'ACODM',
        'AdvantageBandit',
        'BetaPosteriorSampler',
        'DUMP',
        'DynamicSampling',
        'Feedback',
        'FrontierSampler',
        'GRESO',
        'GradientSketch',
        'GroupOutcome',
        'MixedDataset',
        'MixedSampler',
        'Mixer',
        'ODM',
        'POLICIES',
        'PROBLEM_SAMPLERS',
        'PassRateBand',
        'PassRateModel',
        'ProblemSampler',
        'ProxyACODM',
        'Static',
        'TransferBandit',
        'Uniform',
        'alignment_scores',
        'feedback_from_rewards',
        'grpo_advantages',
        'load_history',
        'make_mixer',
        'make_problem_sampler',
        'per_source_mean',
        'stochastic_round',
        'target_scores',
    ],
    'filters.contracts': [
        'KEPT_BASE_SCHEMA',
        'MANIFEST',
        'PROBLEMS_DIR',
        'PROBLEM_FIELDS',
        'PROBLEM_ID',
        'PROBLEM_SCHEMA',
        'REJECTED_DIR',
        'REJECTED_SCHEMA',
        'REJECT_DETAIL',
        'REJECT_REASON',
        'REJECT_STAGE',
        'ROW_COLUMN',
        'RecordError',
        'SCHEMA_VERSION',
        'TEST_STRUCT',
        'TEST_TYPES',
        'UserError',
        'problem_id',
    ],
    'filters.reward': [
        'CorrectnessConfig',
        'Decision',
        'Grade',
        'REWARD_OPTIONS',
        'RewardSystemError',
        'SpeedConfig',
        'SpeedResult',
        'as_problem',
        'close_shared_sandbox',
        'completion_text',
        'compute_score',
        'compute_score_batch',
        'correctness_reward',
        'count_instructions',
        'decide',
        'extract_code',
        'extract_program',
        'grade',
        'grade_many',
        'looks_like_code',
        'make_trl_reward',
        'measure_speed',
        'perf_works',
        'pick_tool',
        'reward_workers',
        'select_tests',
        'shared_sandbox',
        'speed_many',
        'speed_reward',
        'timing_tests',
        'trl_correctness_reward',
        'trl_speed_reward',
        'valgrind_works',
    ],
    'mixer.problems.scorers': [
        'Prompt',
        'ReferenceLikelihood',
        'chat_prompt_ids',
        'dataset_references',
        'reference_log_likelihood',
    ],
    'mixer.rows': [
        'ID_COLUMN',
        'RowMismatch',
        'check_rows',
        'dataset_column',
    ],
    'filters.sandbox': [
        'Limits',
        'Output',
        'RunResult',
        'Sandbox',
        'TestResult',
        'VERDICTS',
        'default_workers',
    ],
}


@pytest.mark.parametrize("module", sorted(PUBLIC))
def test_public_names_are_pinned_and_importable(module):
    mod = importlib.import_module(module)
    assert sorted(mod.__all__) == PUBLIC[module]
    for name in mod.__all__:
        assert getattr(mod, name) is not None, name


def defined_names(source: str) -> set[str]:
    """Names a module defines itself at top level (functions, classes, assignments, also under
    `if`/`try`, as `if TYPE_CHECKING:`), not those it imports."""
    import ast

    names: set[str] = set()

    def walk(body: list) -> None:
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.add(node.name)
            elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                names.update(n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name))
            elif isinstance(node, (ast.If, ast.Try)):
                walk(node.body)
                walk(node.orelse)
                for handler in getattr(node, "handlers", []):
                    walk(handler.body)
                walk(getattr(node, "finalbody", []))

    walk(ast.parse(source).body)
    return names


def test_defined_names_sees_what_a_module_defines():
    source = (
        "import os\nfrom typing import Any\nif True:\n    LIMIT: int = 3\n"
        "class Public: pass\ndef helper(): pass\n_private = 1\nA, (B, C) = 1, (2, 3)\n"
    )
    assert defined_names(source) == {"LIMIT", "Public", "helper", "_private", "A", "B", "C"}


@pytest.mark.parametrize("module", sorted(PUBLIC))
def test_nothing_public_is_left_out_of_all(module):
    """A name a pinned module defines without a leading underscore is in its `__all__` (the other
    way of httpx's exported-members test): a helper is `_named`, a public name is pinned."""
    from pathlib import Path

    mod = importlib.import_module(module)
    source = Path(mod.__file__).read_text()
    public = {n for n in defined_names(source) if not n.startswith("_")}
    assert sorted(public - set(mod.__all__)) == []


def test_filters_never_imports_curation_or_mixer():
    import ast
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    for package, forbidden in (("filters", ("curation", "mixer")), ("mixer", ("curation",))):
        for path in (root / package).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text())):
                names = []
                if isinstance(node, ast.Import):
                    names = [a.name for a in node.names]
                elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                    names = [node.module]
                for n in names:
                    assert n.split(".")[0] not in forbidden, f"{path.relative_to(root)} imports {n}"


RENAMED = [  # old module -> new module, and a name each must give
    ("filters.errors", "filters.contracts", "UserError"),
    ("filters.benchmarks", "filters.decontam_refs", "load_benchmark"),
    ("filters.reward.adapters", "filters.reward.trainer_rewards", "compute_score"),
    ("filters.difficulty.stage", "filters.difficulty.difficulty_stage", "DifficultyStage"),
]


@pytest.mark.parametrize(("old", "new", "name"), RENAMED)
def test_renamed_modules_still_import_with_a_deprecation_warning(old, new, name):
    import sys
    import warnings

    sys.modules.pop(old, None)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        module = importlib.import_module(old)
    from filters.renamed import REMOVED_IN

    assert any(issubclass(w.category, DeprecationWarning) and new in str(w.message) for w in caught)
    assert getattr(module, name) is getattr(importlib.import_module(new), name)
    assert any(f"removed in {REMOVED_IN}" in str(w.message) for w in caught)
    assert REMOVED_IN in (module.__doc__ or "")


def test_every_deprecation_names_the_one_removal_release():
    """Issue 44: six shims promised removal in three different versions. Every "removed in" of
    the three packages now says `filters.renamed.REMOVED_IN`, written out or by name."""
    import re
    from pathlib import Path

    from filters.renamed import REMOVED_IN

    root = Path(__file__).resolve().parents[1]
    version = REMOVED_IN.removeprefix("codemix ")
    bad = []
    for pkg in ("curation", "filters", "mixer"):
        for path in (root / pkg).rglob("*.py"):
            for n, line in enumerate(path.read_text().splitlines(), 1):
                said = re.findall(r"removed in (?:codemix )?(\d+(?:\.\d+)*)", line)
                vague = re.search(r"(next|one) release", line)
                if vague or any(v != version for v in said):
                    bad.append(f"{path.relative_to(root)}:{n}: {line.strip()}")
    assert bad == []


def test_verl_can_still_load_the_old_reward_file_by_path():
    """verl loads `reward.custom_reward_function.path` as a file: the old path keeps working."""
    import importlib.util
    from pathlib import Path

    import filters.reward.trainer_rewards as new

    path = Path(__file__).resolve().parents[1] / "filters" / "reward" / "adapters.py"
    spec = importlib.util.spec_from_file_location("custom_module", path)
    module = importlib.util.module_from_spec(spec)
    with pytest.warns(DeprecationWarning):
        spec.loader.exec_module(module)
    assert module.compute_score is new.compute_score
