"""Sphinx configuration: the user guide (reStructuredText pages here, Markdown
through MyST) and the API reference from myModule's docstrings (numpydoc).

Built by `make docs` against the in-place build (make build), with -W: a warning
fails the build."""
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

import myModule  # noqa: E402

project = "myModule"
author = "myModule authors"
copyright = "2026, myModule authors"
release = myModule.__version__
version = ".".join(release.split(".")[:2])

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.intersphinx",
    "numpydoc",
    "myst_parser",
]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
# adding-a-kernel.md is pulled into adding-a-kernel.rst (below), not a page of its own.
exclude_patterns = ["_build", "adding-a-kernel.md"]
templates_path = []
html_static_path = []
html_theme = "alabaster"
html_title = "myModule %s" % release
html_theme_options = {"description": "CUDA kernels on NumPy and GPU arrays", "fixed_sidebar": True}

# The docstrings are NumPy style; class members are listed by autodoc itself.
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
autodoc_member_order = "bysource"
# `# doctest: +GPU` and the like are for the doctest runner, not for readers.
trim_doctest_flags = True

myst_heading_anchors = 3
suppress_warnings = ["myst.header"]

# No network at build time on CI machines: references to NumPy stay plain text
# unless an inventory is at hand (MYMODULE_DOCS_INTERSPHINX=1).
intersphinx_mapping = {}
if os.environ.get("MYMODULE_DOCS_INTERSPHINX") == "1":
    intersphinx_mapping = {"python": ("https://docs.python.org/3", None),
                           "numpy": ("https://numpy.org/doc/stable", None)}

KERNEL_GUIDE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "adding-a-kernel.md")


def _include_kernel_guide(app, docname, source):
    """adding-a-kernel.rst is docs/adding-a-kernel.md (its "# " heading the page's
    title) when that exists, else a stub that says it is coming."""
    if docname != "adding-a-kernel":
        return
    if os.path.isfile(KERNEL_GUIDE):
        source[0] = ".. include:: adding-a-kernel.md\n   :parser: myst_parser.sphinx_\n"
    else:
        source[0] += ("\n.. note::\n\n   The step-by-step tutorial (``docs/adding-a-kernel.md``) "
                      "is being written.\n")


def setup(app):
    app.connect("source-read", _include_kernel_guide)
