"""The `codemix` typer app. Each module in this package registers its commands on `app`.

Every command is wrapped so that a `UserError` becomes one red line on stderr and exit code 2,
however the app is invoked (console script or `typer.testing.CliRunner`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import typer
from rich.console import Console

from filters.errors import UserError

__all__ = ["app", "fail"]


def fail(message: str) -> typer.Exit:
    """Print a user error the standard way; return the Exit to raise."""
    Console(stderr=True).print(f"[bold red]error:[/] {message}", highlight=False, soft_wrap=True)
    return typer.Exit(2)


class _App(typer.Typer):
    def command(self, *args: Any, **kwargs: Any) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        register = super().command(*args, **kwargs)

        def decorator(fn: Callable[..., Any]) -> Callable[..., Any]:
            @functools.wraps(fn)
            def guarded(*a: Any, **k: Any) -> Any:
                try:
                    return fn(*a, **k)
                except UserError as e:
                    raise fail(str(e)) from None

            register(guarded)
            return fn

        return decorator


app = _App(
    name="codemix",
    help="Curate verified coding problems for RL with verifiable rewards, and mix their sources online.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
