"""Sphinx configuration of the privacy-problems documentation site.

Build (offline: no intersphinx inventory is fetched)::

    python -m pip install -e ".[docs]"
    python -m sphinx -W -b html docs docs/_build/html
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
sys.path.insert(0, str(ROOT))  # document this checkout, not an installed copy
sys.path.insert(0, str(DOCS / "_ext"))
os.environ.setdefault("OMP_NUM_THREADS", "1")  # the gallery's solvers share the build machine's cores

import sphinx.ext.autosummary  # noqa: E402

import problems  # noqa: E402

project = "privacy-problems"
author = "the privacy-problems authors"
copyright = "the privacy-problems authors"
release = problems.__version__
version = release

extensions = [
    "myst_parser",
    "numpydoc",
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "sphinx.ext.viewcode",
    "sphinx_gallery.gen_gallery",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = [
    "_build",
    "sg_execution_times.rst",
    "figures/**",  # images and generated tables that pages embed, not pages
    "gallery/**/*.ipynb",
    "gallery/**/*.py",
    "gallery/**/*.md5",
    "gallery/**/*.json",
    "gallery/**/*.zip",
]
templates_path = ["_templates"]

# --- Markdown (MyST): the existing pages use $…$ maths, GitHub tables and relative links to .md files.
myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence", "deflist"]
myst_heading_anchors = 3

# --- API reference: autosummary pages from the NumPy-style docstrings.
autosummary_generate = True
autosummary_imported_members = True
autosummary_ignore_module_all = False  # document exactly the names in __all__
autodoc_default_options = {"members": True, "show-inheritance": True}
autodoc_typehints = "none"  # the signature shows them; numpydoc renders the parameter sections
autodoc_mock_imports: list[str] = []
autosummary_context = {"top_level": set(problems.__all__)}  # class.rst: one indexed home per class
# A first sentence that ends inside a literal ("``min c'z s.t. Az = b``") is cut at the abbreviation's period.
sphinx.ext.autosummary.WELL_KNOWN_ABBREVIATIONS += (" s.t.", " e.g.")
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_validation_checks: set[str] = set()
numpydoc_xref_param_type = False

# --- No network at build time.
intersphinx_mapping: dict = {}

# --- Gallery: examples/plot_*.py, executed at build time, figures and printed output embedded.
sphinx_gallery_conf = {
    "examples_dirs": str(ROOT / "examples"),
    "gallery_dirs": "gallery",
    "filename_pattern": r"/plot_",
    "ignore_pattern": r"^(?!plot_)",
    "within_subsection_order": "FileNameSortKey",
    "download_all_examples": False,
    "remove_config_comments": True,
    "abort_on_example_error": True,
    "matplotlib_animations": False,
    "image_scrapers": ("matplotlib", "figure_scraper"),
    "reset_modules": ("matplotlib",),
    "show_memory": False,
    "plot_gallery": "True",
}

# --- HTML: the PyData theme.
html_theme = "pydata_sphinx_theme"
html_title = f"privacy-problems {release}"
html_theme_options = {
    "navbar_align": "left",
    "show_toc_level": 2,
    "navigation_with_keys": False,
    "header_links_before_dropdown": 6,
}
html_static_path: list[str] = []
html_show_sourcelink = False

#: Docstrings that docutils cannot parse (simple tables whose text runs into the column margin, a bare
#: ``|`` read as a substitution).  They are shown as preformatted text, exactly as written, until their
#: source is fixed; remove a name here once its docstring parses.
LITERAL_DOCSTRINGS = {"problems.measures", "problems.model.privacy", "problems.priors"}


def _literal_docstring(app, what, name, obj, options, lines):
    if name in LITERAL_DOCSTRINGS and lines:
        # the first line stays prose (it is the summary in the API tables) unless it has a bare "|" too
        head = [lines[0], ""] if "|" not in lines[0] else []
        rest = lines[len(head) // 2 :]
        lines[:] = head + ["::", ""] + [f"    {line}" if line else "" for line in rest] + [""]


def setup(app):
    app.connect("autodoc-process-docstring", _literal_docstring, priority=400)  # before numpydoc (500)
