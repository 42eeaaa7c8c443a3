"""The build: sources -> stages -> Parquet shards, with the CLI, store, report and exports."""

__all__: list[str] = []
