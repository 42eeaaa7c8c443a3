"""The `codemix` typer app. Each module in this package registers its commands on `app`.

Every command is wrapped so that a `UserError` becomes one red line on stderr and exit code 2,
however the app is invoked (console script or `typer.testing.CliRunner`); so does an `OSError` (the
path, the reason and what to do: `os_error_line`) and an `EOFError` (an input that ends early),
which would otherwise be a traceback or click's bare `Aborted!` (`CODEMIX_TRACEBACK=1` shows it).

Every message goes through `console` (and `table_console`): text is printed as it is, never read as
Rich markup, so user text, paths and advice with brackets (`pip install 'codemix[ray]'`, a
statement's `a[i]`) come out whole. Styles are given apart, with `styled` or `rich.text.Text`.
"""

from __future__ import annotations

import errno
import functools
import os
from collections.abc import Callable
from typing import Any, TypeVar

import typer
from rich.console import Console
from rich.text import Text

from filters.contracts import UserError

__all__ = ["app", "console", "fail", "os_error_line", "styled", "table_console"]

#: What to do about an OSError, by its errno (`os_error_line`).
_FIX = {
    errno.EACCES: "choose a path you may read and write, or change its permissions",
    errno.EPERM: "choose a path you may read and write, or change its permissions",
    errno.EROFS: "the file system is read-only: choose a path on a writable one",
    errno.ENOSPC: "the disk is full: free some space or choose a path on another disk",
    errno.EDQUOT: "the disk quota is used up: free some space or choose a path on another disk",
    errno.ENOENT: "check the path",
    errno.ENOTDIR: "a part of the path is a file, not a directory: check the path",
    errno.EISDIR: "it is a directory: pass a file path",
    errno.EEXIST: "it exists already: choose a new path",
    errno.EBUSY: "it is in use (a mount point?): choose another path",
    errno.ENAMETOOLONG: "the name is too long: choose a shorter path",
    errno.EMFILE: "too many open files: raise the limit (ulimit -n) or use fewer --workers",
}


def console(stderr: bool = False, **options: Any) -> Console:
    """A console for the command line's messages: strings are printed as they are (no markup, no
    highlighting, lines not wrapped, so paths stay whole); style with `styled` or `Text`."""
    return Console(stderr=stderr, **{"markup": False, "highlight": False, "soft_wrap": True, **options})


def styled(label: str, style: str, text: str = "") -> Text:
    """`label` in `style`, then `text` as it is: `styled("error:", "bold red", message)`."""
    return Text.assemble((label, style), (" " + text) if text else "")


def table_console(stderr: bool = False) -> Console:
    """A console for tables: the terminal's width on a terminal, wide enough for whole columns when
    piped (rich falls back to 80 columns there, which cut an 8-column table to 8 characters each)."""
    probe = console(stderr, soft_wrap=False)
    if probe.is_terminal:
        return probe
    return console(stderr, soft_wrap=False, width=max(160, probe.width))  # probe.width: $COLUMNS or 80


def os_error_line(e: OSError) -> str:
    """An OSError as one line: the path(s), what went wrong and what to do."""
    paths = " -> ".join(str(p) for p in (e.filename, e.filename2) if p is not None)
    what = e.strerror or str(e) or type(e).__name__
    fix = _FIX.get(e.errno or -1, "check the path and try again")
    return f"{paths}: {what}; {fix}" if paths else f"{what}; {fix}"


def fail(message: str) -> typer.Exit:
    """Print a user error the standard way; return the Exit to raise."""
    console(stderr=True).print(styled("error:", "bold red", message))
    return typer.Exit(2)


_Command = TypeVar("_Command", bound=Callable[..., Any])


class _App(typer.Typer):
    def command(self, name: str | None = None, **kwargs: Any) -> Callable[[_Command], _Command]:
        register = super().command(name, **kwargs)

        def decorator(fn: _Command) -> _Command:
            @functools.wraps(fn)
            def guarded(*a: Any, **k: Any) -> Any:
                try:
                    return fn(*a, **k)
                except UserError as e:
                    raise fail(str(e)) from None
                except OSError as e:  # a path the command could not read or write: one line, never a traceback
                    if os.environ.get("CODEMIX_TRACEBACK"):
                        raise
                    raise fail(os_error_line(e)) from None
                except EOFError as e:
                    if os.environ.get("CODEMIX_TRACEBACK"):
                        raise
                    raise fail(f"an input ended early ({e or 'EOFError'}); is a compressed file cut short? "
                               "download it again") from None

            register(guarded)
            return fn

        return decorator


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("codemix")
    except PackageNotFoundError:
        return "0+unknown"


app = _App(
    name="codemix",
    help="Curate verified coding problems for RL with verifiable rewards, and mix their sources online.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,  # plain help: flags shown as flags (`--force`, not `--force <bool>`), no boxes when piped
)


def _print_version(value: bool) -> None:
    if value:
        typer.echo(f"codemix {_version()}")
        raise typer.Exit()


@app.callback()
def _main(
    version: bool = typer.Option(
        False,
        "--version",
        callback=_print_version,
        is_eager=True,
        help="Print the version and exit.",
    ),
) -> None:
    """Curate verified coding problems for RL with verifiable rewards, and mix their sources online."""
