"""Writing board pictures: SVG text to a ``.svg`` file, or rendered to ``.png`` by cairosvg.

The drawings themselves are SVG text built by hand (:mod:`playout.backgammon.svg`,
:mod:`playout.go.svg`), as python-chess's ``chess.svg`` builds them; only PNG output needs a
library: ``cairosvg`` (PyPI), which loads the system's ``libcairo.so.2`` (Debian/Ubuntu
package ``libcairo2``).
"""

from __future__ import annotations

from pathlib import Path


class PictureError(ValueError):
    """A picture could not be written; the one-line message names the file or the missing
    library."""


PNG_NEEDS = ("PNG output needs cairosvg and the cairo library: pip install cairosvg "
             "(and apt-get install libcairo2)")


def svg_to_png(svg: str, *, scale: float = 1.0) -> bytes:
    """PNG bytes of ``svg`` rendered by cairosvg at ``scale`` x its own size (pixels = SVG
    user units when the SVG has no width/height).

    Raises :class:`PictureError` (:data:`PNG_NEEDS`) when cairosvg or libcairo is missing.
    """
    try:
        import cairosvg  # noqa: PLC0415 - optional at run time, only for PNG
    except (ImportError, OSError):  # OSError: cairocffi found no libcairo.so.2
        raise PictureError(PNG_NEEDS) from None
    return cairosvg.svg2png(bytestring=svg.encode("utf-8"), scale=scale)


def write_picture(svg: str, svg_path: str | None = None, png_path: str | None = None, *,
                  scale: float = 1.0) -> list[str]:
    """Write ``svg`` as text to ``svg_path`` and/or rendered to ``png_path``; the paths
    written, in that order.

    Raises :class:`PictureError` with one line ``PATH: cannot write: REASON`` (a missing
    folder, a directory, no permission) or :data:`PNG_NEEDS`.
    """
    done = []
    for path, kind in ((svg_path, "svg"), (png_path, "png")):
        if path is None:
            continue
        data = svg.encode("utf-8") if kind == "svg" else svg_to_png(svg, scale=scale)
        try:
            Path(path).write_bytes(data)
        except OSError as exc:
            raise PictureError(f"{path}: cannot write: {exc.strerror or exc}") from None
        done.append(str(path))
    return done


def picture_options(f):
    """``--svg FILE`` and ``--png FILE`` for a command that draws a board (click)."""
    import click

    f = click.option("--png", "png_path", type=click.Path(dir_okay=False), default=None,
                     help="also draw the board to this PNG file (needs cairosvg)")(f)
    return click.option("--svg", "svg_path", type=click.Path(dir_okay=False), default=None,
                        help="also draw the board to this SVG file")(f)


def cli_write(svg_text, svg_path: str | None, png_path: str | None, scale: float = 1.5) -> None:
    """:func:`write_picture` for a command line: a :class:`PictureError` becomes one line on
    stderr and exit code 2 (a ``click.ClickException``).  ``svg_text`` may be a callable, called
    only when a path is given."""
    import click

    if svg_path is None and png_path is None:
        return
    text = svg_text() if callable(svg_text) else svg_text
    try:
        write_picture(text, svg_path, png_path, scale=scale)
    except PictureError as exc:
        err = click.ClickException(str(exc))
        err.exit_code = 2
        raise err from None
