"""``python -m tenspiler``: the ``lift`` command (:mod:`tenspiler.cli`)."""

import sys

from tenspiler.cli import main

sys.exit(main())
