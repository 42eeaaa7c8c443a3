"""`codemix recipes [NAME]`: the shipped build recipes, or one recipe's TOML to copy and edit."""

from __future__ import annotations

import typer
from rich.table import Table

from curation.commands import app, table_console

__all__ = ["recipes_command", "recipe_summary"]


def recipe_summary(text: str) -> str:
    """The recipe's leading comment, as one line."""
    lines = []
    for line in text.splitlines():
        if not line.startswith("#"):
            break
        lines.append(line.lstrip("#").strip())
    return " ".join(lines)


@app.command("recipes")
def recipes_command(
    name: str | None = typer.Argument(None, help="Print this recipe's TOML (to copy and edit) instead of the list."),
) -> None:
    """List the shipped build recipes (`codemix build --recipe NAME`), or print one."""
    from curation.recipe import RECIPES_DIR, load_recipe, recipe_path

    if name:
        typer.echo(recipe_path(name).read_text(encoding="utf-8"), nl=False)
        return
    t = Table(title="shipped recipes: codemix build --recipe NAME --out DIR  (codemix recipes NAME prints one)")
    for col in ("name", "sources", "description"):
        t.add_column(col, no_wrap=col != "description")
    for path in sorted(RECIPES_DIR.glob("*.toml")):
        cfg = load_recipe(str(path))
        t.add_row(path.stem, ", ".join(s.name for s in cfg.sources), recipe_summary(path.read_text(encoding="utf-8")))
    table_console().print(t)
