"""`codemix sources`: the registry of problem sources, one block per source (readable at any width)."""

from __future__ import annotations

from curation.commands import app, console, styled

__all__ = ["sources_command"]


def _splits(source) -> str:  # noqa: ANN001 (a curation.sources.Source)
    if source.configs:
        return "; ".join(f"{c}: {', '.join(s)}" for c, s in source.configs.items())
    return ", ".join(source.splits)


@app.command("sources")
def sources_command() -> None:
    """List the known problem sources: what each is, how its rows are read, its options."""
    from curation.sources import SOURCES, data_dirs, how_read, how_read_locally, source_options

    out = console()
    out.print(
        "codemix sources: use --source NAME, NAME:/local/path, or a canonical file path\n"
    )
    for s in SOURCES.values():
        out.print(styled(s.name, "bold", f" ({s.kind}; tests: {', '.join(s.test_types)})  {s.description}"))
        if s.kind == "hub":
            out.print(f"  hub      {how_read(s)}")
            default = f" (default {s.config})" if s.configs else ""
            out.print(f"  splits   {_splits(s)}{default}")
            out.print(f"  local    --source {s.name}:PATH: {how_read_locally(s)}")
        else:
            out.print(f"  reads    {how_read(s)}")
        opts = ", ".join(source_options(s))
        if opts:
            out.print(f"  options  {opts}")
    out.print(
        "\nlocal files are looked up in: " + ", ".join(str(d) for d in data_dirs())
    )
