"""`codemix query DIR "SQL"`: DuckDB over the views `problems` and `rejected`, read-only.

Only SELECT statements run (DESCRIBE, SHOW and SUMMARIZE are SELECTs to DuckDB): `COPY ... TO`,
`CREATE`, `ATTACH`, `INSTALL`, `EXPLAIN ANALYZE` of a write and the like are refused before
anything runs, and no extension is downloaded.
"""

from __future__ import annotations

import json
from pathlib import Path

import typer
from rich.table import Table
from rich.text import Text

from curation.commands import app, console, table_console
from curation.store import duckdb_views
from filters.contracts import UserError

__all__ = ["query_command"]


@app.command("query")
def query_command(
    out: Path = typer.Argument(..., help="A build's output directory."),
    sql: str = typer.Argument(
        ...,
        help='SQL over the views `problems` and `rejected`, e.g. "SELECT source, count(*) FROM problems GROUP BY 1".',
    ),
    as_json: bool = typer.Option(False, "--json", help="Print JSON lines instead of a table."),
    max_width: int = typer.Option(
        60, "--max-width", help="Truncate table cells to this many characters."
    ),
) -> None:
    """Run SQL (SELECT statements only: the build is read, never written) over a build's shards."""
    import duckdb

    con = duckdb_views(out)
    try:
        con.execute("SET autoinstall_known_extensions = false")
        kinds = [s.type for s in con.extract_statements(sql)]
        writes = [k.name for k in kinds if k != duckdb.StatementType.SELECT]
        if writes:
            raise UserError(
                f"codemix query is read-only: only SELECT statements run, not {writes[0]}; "
                "to save a result, use --json and redirect it"
            )
        cur = con.execute(sql)
    except duckdb.Error as e:
        raise UserError(f"query failed: {str(e).splitlines()[0]}") from None
    names = [d[0] for d in cur.description] if cur.description else []
    rows = cur.fetchall()
    if as_json:
        for row in rows:
            print(json.dumps(dict(zip(names, row)), default=str, ensure_ascii=False))
        return
    t = Table()
    for n in names:
        t.add_column(n)
    for row in rows:
        cells = []
        for v in row:
            s = "NULL" if v is None else str(v)
            cells.append(s if len(s) <= max_width else s[: max_width - 1] + "…")
        t.add_row(*cells)
    table_console().print(t)
    console(stderr=True).print(Text(f"{len(rows)} rows", style="dim"))
