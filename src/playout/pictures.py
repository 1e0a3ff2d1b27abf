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
