"""`codemix sources`: the registry of problem sources as a table."""

from __future__ import annotations

from rich.table import Table

from curation.commands import app, table_console

__all__ = ["sources_command"]


@app.command("sources")
def sources_command() -> None:
    """List the known problem sources: name, kind, hub id or default file, test types."""
    from curation.sources import SOURCES, data_dirs, source_options

    table = Table(
        title="codemix sources  (use --source NAME, NAME:/local/path, or a canonical file path)"
    )
    for col in ("name", "kind", "hub id", "default path", "test types", "options", "description"):
        table.add_column(col, overflow="fold")
    for s in SOURCES.values():
        if s.kind == "local" and s.default_file:
            default = f"../shared/data/{s.default_file}"
        elif s.name == "lcb":
            default = "hub (version_tag release_v6)"
        elif s.kind == "hub":
            default = f"hub (split {s.split}" + (f", config {s.config})" if s.config else ")")
        else:
            default = "-" if s.kind == "local" else "built in (curation.demo)"
        opts = ", ".join(source_options(s)) or "-"
        types = ", ".join(s.test_types)
        table.add_row(s.name, s.kind, s.hub_id or "-", default, types, opts, s.description)
    console = table_console()
    console.print(table)
    console.print(
        "local files are looked up in: " + ", ".join(str(d) for d in data_dirs()), highlight=False
    )
