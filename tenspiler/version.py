"""The package version: the one place it is written (``pyproject.toml`` reads it from here,
``[tool.setuptools.dynamic]``; CHANGELOG.md lists what each version changed)."""

__version__ = "0.2.0"
