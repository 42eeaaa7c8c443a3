"""The build: sources -> stages -> Parquet shards, with the CLI, store, report and exports."""

from curation.build import BuildConfig, BuildResult, SourceSpec, build
from curation.export import FORMATS, export
from curation.recipe import load_recipe
from curation.report import write_report
from curation.schema import RecordError, normalize_record
from curation.sources import SOURCES, iter_source, parse_source_arg
from filters.contracts import PROBLEM_FIELDS, PROBLEM_SCHEMA

__all__ = [
    "BuildConfig",
    "BuildResult",
    "SourceSpec",
    "build",
    "FORMATS",
    "export",
    "load_recipe",
    "write_report",
    "PROBLEM_FIELDS",
    "PROBLEM_SCHEMA",
    "RecordError",
    "normalize_record",
    "SOURCES",
    "iter_source",
    "parse_source_arg",
]
