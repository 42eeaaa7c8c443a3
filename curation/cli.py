"""Entry point of the `codemix` command: loads every command module, maps user errors to exit 2."""

from __future__ import annotations

import importlib
import pkgutil
import sys

from rich.console import Console

import curation.commands as commands
from filters.errors import UserError

__all__ = ["main", "app"]

app = commands.app
for _mod in sorted(m.name for m in pkgutil.iter_modules(commands.__path__)):
    importlib.import_module(f"curation.commands.{_mod}")


def main() -> None:
    """Run the CLI; a UserError becomes one red line and exit code 2."""
    try:
        app()
    except UserError as e:
        Console(stderr=True).print(f"[bold red]error:[/] {e}", highlight=False, soft_wrap=True)
        sys.exit(2)
