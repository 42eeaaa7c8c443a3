"""The public API, pinned (httpx's habit): a change here is a deliberate change of the API."""

from __future__ import annotations

import importlib
import importlib.util
import re

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
        'ProblemRow',
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
        'ACODMSettings',
        'AdvantageBandit',
        'BetaPosteriorSampler',
        'DUMP',
        'DynamicSampling',
        'Feedback',
        'FrontierSampler',
        'FrontierSettings',
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
        'PassRateSettings',
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
        'IOCase',
        'KEPT_BASE_SCHEMA',
        'MANIFEST',
        'PROBLEMS_DIR',
        'PROBLEM_FIELDS',
        'PROBLEM_ID',
        'PROBLEM_SCHEMA',
        'ProblemRecord',
        'ProblemRow',
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
    'curation.export': [
        'FORMATS',
        'LANGUAGES',
        'TRL_SCHEMA',
        'VERL_SCHEMA',
        'check_out',
        'export',
        'never_solved',
        'parse_split',
        'prompt_text',
        'split_name',
        'split_of',
        'trl_row',
        'verl_row',
    ],
    'curation.pipeline': [
        'PART_AFTER_S',
        'Pipeline',
        'ProblemListener',
        'Progress',
        'SLICES_PER_CPU',
        'StageRerun',
        'StageRun',
        'UnitDone',
        'UnitStats',
        'WIDE_SHARE',
        'WorkerStage',
        'finished_units',
        'merge_row_slices',
        'parts_dir',
        'process_row_slice',
        'process_unit',
        'read_parts',
        'reason_kind',
        'rejected_rows',
        'rerun_stage',
        'row_bytes',
    ],
    'curation.record_files': [
        'iter_canonical_file',
        'parquet_batches',
        'read_jsonl',
        'read_parquet',
        'records_to_table',
        'table_to_records',
        'text_lines',
        'write_jsonl',
        'write_parquet',
    ],
    'curation.schema': [
        'BIG_INT_DIGITS',
        'RecordError',
        'big_ints',
        'blank_record',
        'normalize_record',
        'validate_record',
    ],
    'curation.sources': [
        'Converter',
        'SOURCES',
        'Source',
        'data_dirs',
        'default_path',
        'get_source',
        'how_read',
        'how_read_locally',
        'iter_source',
        'parse_source_arg',
        'source_options',
    ],
    'curation.sources.columns': [
        'Columns',
        'kind_of_arrow',
        'kind_of_value',
        'kinds_of_row',
        'kinds_of_schema',
    ],
    'curation.sources.fields': [
        'dumps',
        'json_field',
        'loads',
        'number_in',
        'solution_list',
        'str_list',
        'text_or_none',
    ],
    'curation.store': [
        'EXPORT_MARKER',
        'MANIFEST',
        'PROBLEMS_DIR',
        'REJECTED_DIR',
        'REPORT_DIR',
        'WORK_DIR',
        'atomic_write_text',
        'clear_outputs',
        'duckdb_views',
        'iter_shard_batches',
        'read_export_marker',
        'read_manifest',
        'read_table',
        'require_build',
        'sha256_file',
        'shard_files',
        'write_json',
        'write_shards',
    ],
    'mixer.adapters.torch': [
        'DrawnBatch',
        'DrawnRows',
        'FlatIndexSampler',
        'MIXER_STATE_FILE',
        'MixerRepeatSampler',
        'ROW_KEY',
        'WEIGHTS_ID_KEY',
        'drawn_fields',
        'load_mixer_state',
        'loss_feedback',
        'mixed_dataloader',
        'per_source_loss',
        'per_source_sketches',
        'save_mixer_state',
        'start_run',
    ],
    'mixer.adapters.trl': [
        'EMPTY_KEY',
        'EVAL_REWARD_KEY',
        'MIXER_STATE_FILE',
        'MixerGRPOTrainer',
        'MixerRepeatSampler',
        'REFILL_FALLBACKS',
        'ROLLOUT_COUNTS',
        'SKIP_KEY',
        'TESTED_TRL',
        'TRL_CALLS',
        'TRL_OVERRIDES',
        'check_trl_seams',
        'reward_eval_loss',
    ],
    'filters.reward.trainer_rewards': [
        'REWARD_OPTIONS',
        'compute_score',
        'compute_score_batch',
        'make_trl_reward',
        'trl_correctness_reward',
        'trl_speed_reward',
    ],
    'mixer.adapters.hf': [
        'MIXER_STATE_FILE',
        'MixerCallback',
        'MixerTrainer',
        'causal_lm_sample_loss',
        'merge_feedback',
    ],
    'mixer.adapters.verl': [
        'HAS_CURRICULUM_API',
        'MIXER_STATE_FILE',
        'MixerCurriculumSampler',
        'MixerRLHFDataset',
        'PROBLEM_STATE_FILE',
        'dataset_labels',
        'dataset_numbers',
        'feed_tensordict',
        'feedback_from_batch',
        'feedback_from_rows',
        'feedback_from_tensordict',
        'load_sampler_learning',
        'mixer_trainer_class',
        'rows_of_tensordict',
        'save_sampler_learning',
        'tag_row',
        'validation_eval_loss',
    ],
    'mixer.adapters.verl_main': [
        'ConfigError',
        'MIXER_V1_MODE',
        'MixerTaskRunner',
        'MixerTaskRunnerV1',
        'check_config',
        'main',
        'mixer_sampler',
        'mixer_v1_trainer_class',
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


#: pinned modules that need an optional package to import (their tests skip without it)
NEEDS_EXTRA = {
    "mixer.adapters.trl": "trl",
    "mixer.adapters.hf": "transformers",
    "mixer.adapters.verl_main": "verl",
}
#: pinned names a module exports only when an optional package is installed: module -> name -> it
ONLY_WITH = {"mixer.adapters.verl": {"MixerRLHFDataset": "verl"}}


def _import(module: str):
    if module in NEEDS_EXTRA:
        pytest.importorskip(NEEDS_EXTRA[module], reason=f"{module} needs {NEEDS_EXTRA[module]}")
    return importlib.import_module(module)


def _installed(package: str | None) -> bool:
    return package is None or importlib.util.find_spec(package) is not None


def _pinned_here(module: str) -> list[str]:
    """The pinned names this environment's module exports (`ONLY_WITH`: some need a package)."""
    needs = ONLY_WITH.get(module, {})
    return [n for n in PUBLIC[module] if _installed(needs.get(n))]


@pytest.mark.parametrize("module", sorted(PUBLIC))
def test_public_names_are_pinned_and_importable(module):
    """Both ways: what the module exports (`__all__`, and so `import *`) is the pinned list, and
    every pinned name imports."""
    mod = _import(module)
    pinned = _pinned_here(module)
    assert sorted(mod.__all__) == pinned
    star: dict[str, object] = {}
    exec(f"from {module} import *", star)
    assert sorted(set(star) - {"__builtins__"}) == pinned
    for name in pinned:
        assert getattr(mod, name) is not None, name


def _written_all(source: str) -> set[str]:
    """The names a module's source puts in `__all__` (its list, and any `__all__.append`)."""
    import ast

    names: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
                assert node.value is not None
                names |= set(ast.literal_eval(node.value))
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id == "__all__"
        ):
            names |= {a.value for a in node.args if isinstance(a, ast.Constant)}
    return names


@pytest.mark.parametrize("module", sorted(PUBLIC))
def test_the_pin_is_what_the_source_writes_in_every_environment(module):
    """The pin read against the module's source, so a module that needs a package this
    environment lacks (trl, transformers, verl) is held to its pin here too."""
    from pathlib import Path

    spec = importlib.util.find_spec(module)
    assert spec is not None and spec.origin is not None
    assert sorted(_written_all(Path(spec.origin).read_text())) == PUBLIC[module]


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

    spec = importlib.util.find_spec(module)  # the source: no optional package needed
    assert spec is not None and spec.origin is not None
    public = {n for n in defined_names(Path(spec.origin).read_text()) if not n.startswith("_")}
    assert sorted(public - set(PUBLIC[module])) == []


#: Other ways the docs name a module a user loads: `import m as a`, `python -m m`, verl's
#: `pkg://m`, and a module's own entry in a list of modules (`- \`m\`: ...`).
_NAMED_MODULE = re.compile(
    r"(?:\bimport\s+|python\s+-m\s+|pkg://|^- `)((?:curation|filters|mixer)(?:\.\w+)+)", re.M
)


def doc_imports() -> dict[str, set[str]]:
    """Module -> the names README.md, docs/ and examples/ import from it (`from m import a, b`);
    a module they name in another way (`_NAMED_MODULE`) with no names."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    files = [root / "README.md", *sorted((root / "docs").rglob("*.md"))]
    files += sorted((root / "examples").rglob("*.py"))
    pattern = re.compile(
        r"^[ \t]*from\s+((?:curation|filters|mixer)[\w.]*)\s+import\s+(\([^)]*\)|[^\n]+)", re.M
    )
    used: dict[str, set[str]] = {}
    for path in files:
        for module in _NAMED_MODULE.findall(path.read_text()):
            used.setdefault(module, set())
        for module, names in pattern.findall(path.read_text()):
            for name in names.strip("()").replace("\n", ",").split(","):
                name = name.split("#")[0].split(" as ")[0].strip()
                if name:
                    used.setdefault(module, set()).add(name)
    return used


def test_doc_imports_reads_every_form():
    """The reader the next test relies on sees one-line, parenthesised and aliased imports."""
    used = doc_imports()
    assert {"build", "BuildConfig"} <= used["curation"]  # README's and docs' one-line imports
    assert "mixed_dataloader" in used["mixer.adapters.torch"]  # docs/ and examples/
    # `import m as a`, `python -m m`, `pkg://m`, `- \`m\`:` (issue 51: these four were unpinned)
    assert {"filters.reward.trainer_rewards", "mixer.adapters.verl_main", "mixer.adapters.verl",
            "mixer.adapters.hf"} <= set(used)  # fmt: skip
    assert _NAMED_MODULE.findall("x = pkg://mixer.adapters.verl y") == ["mixer.adapters.verl"]


def test_every_module_the_docs_import_from_is_pinned():
    """Issue 44: the docs imported from 19 modules and 4 were pinned. Every module README.md,
    docs/ and examples/ import from is in PUBLIC, and every name they import is in its pinned
    `__all__`: a doc that imports something else fails here, not on a user's machine."""
    used = doc_imports()
    assert sorted(set(used) - set(PUBLIC)) == []
    unpinned = {m: sorted(names - set(PUBLIC[m])) for m, names in used.items()}
    assert {m: n for m, n in unpinned.items() if n} == {}


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


def test_curation_imports_mixer_in_the_one_place_the_docs_name():
    """README.md and docs/pipeline.md: `curation -> mixer` only for `codemix plot-mix`."""
    import ast
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    importers = set()
    for path in (root / "curation").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module]
            else:
                continue
            if any(n.split(".")[0] == "mixer" for n in names):
                importers.add(path.relative_to(root).as_posix())
    assert importers == {"curation/commands/plot_mix.py"}
