"""A sphinx-gallery image scraper for figures that are not registered with pyplot.

The library draws on :class:`matplotlib.figure.Figure` objects made without pyplot (it never touches
matplotlib's global state), so sphinx-gallery's own matplotlib scraper, which asks pyplot for its open
figures, does not see them.  This scraper looks at the example's global names after each code block and
embeds every ``Figure`` it has not embedded yet (a name bound to a figure, or to a ``(fig, axes)`` pair).
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["figure_scraper"]


def _figures(value):
    from matplotlib.figure import Figure

    if isinstance(value, Figure):
        yield value
    elif isinstance(value, tuple | list) and len(value) <= 4:
        for item in value:
            if isinstance(item, Figure):
                yield item


def figure_scraper(block, block_vars, gallery_conf, **kwargs):
    """Save the example's new ``Figure`` objects and return the reST that embeds them."""
    from sphinx_gallery.scrapers import figure_rst

    seen = block_vars.setdefault("_figure_scraper_seen", set())
    image_paths = []
    for value in list(block_vars["example_globals"].values()):
        for fig in _figures(value):
            if id(fig) in seen:
                continue
            seen.add(id(fig))
            path = Path(next(block_vars["image_path_iterator"]))
            fig.savefig(path, dpi=110, bbox_inches="tight")
            image_paths.append(str(path))
    return figure_rst(image_paths, gallery_conf["src_dir"])


def _get_sg_image_scraper():
    return figure_scraper
