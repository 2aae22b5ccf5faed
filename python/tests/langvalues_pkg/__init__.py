"""A package for test_language_values.py: pkg.sub.CONST, and a kernel that reads a sibling module imported with
`from . import consts`."""
from . import sub  # noqa: F401
