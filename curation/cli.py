"""Entry point of the `codemix` command: loads every command module and runs the app."""

from __future__ import annotations

import importlib
import pkgutil

import curation.commands as commands

__all__ = ["main", "app"]

app = commands.app
for _mod in sorted(m.name for m in pkgutil.iter_modules(commands.__path__)):
    importlib.import_module(f"curation.commands.{_mod}")


def main() -> None:
    """Run the CLI (user errors exit with code 2, see `curation.commands`)."""
    app()


if __name__ == "__main__":
    main()
