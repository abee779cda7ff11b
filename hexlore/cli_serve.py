"""``hexlore serve``: the browser play server's command (hexlore/serve/, docs/serve.md).

Kept out of cli.py so that the CLI never imports the web stack: Starlette and uvicorn are the
``serve`` extra, and a missing one is a plain message, not a traceback.
"""

from __future__ import annotations

import click


@click.command(name="serve")
@click.argument("scenarios", nargs=-1, metavar="[SCENARIO...]")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True, help="Port to listen on.")
@click.option("--database", default="games.sqlite", show_default=True, type=click.Path(dir_okay=False),
              help="SQLite file keeping every game (made if missing); restarting on it resumes the games.")
def serve(scenarios: tuple[str, ...], host: str, port: int, database: str) -> None:
    """Play scenarios in the browser: hot-seat, against a player, or with a link per seat.

    With no SCENARIO, offers the bundled ones. Needs the serve extra: pip install 'hexlore[serve]'.
    """
    try:
        import uvicorn

        from .serve.app import create_app
        from .serve.hub import catalogue_of
        from .serve.store import Store
    except ImportError as missing:
        raise click.ClickException(f"hexlore serve needs Starlette and uvicorn ({missing}): "
                                   "pip install 'hexlore[serve]'") from None
    from .loading import resolve_scenario

    unknown = [s for s in scenarios if resolve_scenario(s) is None]
    if unknown:
        raise click.ClickException(f"no scenario file '{unknown[0]}' (a path, or a bundled name such as "
                                   "battlelore/spider_ford)")
    try:
        store = Store(database)
    except Exception as exc:  # sqlite3.Error: not a database, or not writable
        raise click.ClickException(f"cannot open the database '{database}': {exc}") from None
    app = create_app(store, catalogue_of(list(scenarios)))
    click.echo(f"hexlore serve: http://{host}:{port}/  (games kept in {database}; Ctrl-C stops)")
    uvicorn.run(app, host=host, port=port, ws_max_size=65536, log_level="warning")
