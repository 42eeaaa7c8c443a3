"""The `codemix` typer app. Each module in this package registers its commands on `app`."""

from __future__ import annotations

import typer

__all__ = ["app"]

app = typer.Typer(
    name="codemix",
    help="Curate verified coding problems for RL with verifiable rewards, and mix their sources online.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
