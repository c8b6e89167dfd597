"""The package version: the one place it is written (``pyproject.toml`` reads it from here,
``[tool.setuptools.dynamic]``; CHANGELOG.md lists what each version changed)."""

__version__ = "0.2.0"

#: The version of the ``--json`` object (``LiftResult.to_json()``) and of ``lift bench``'s
#: ``report.json``: raised when a field changes meaning or disappears (adding one keeps it).
SCHEMA_VERSION = 2
