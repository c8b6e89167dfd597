"""tenspiler: verified lifting of legacy sequential kernels to tensor code.

Pipeline (see docs/ARCHITECTURE.md): frontend → loop IR → VCs → synthesis of a TensIR
program summary → cvc5 proof → code generation.
"""

from tenspiler.errors import CodegenError, LiftError, NotLiftable, VerificationError

__version__ = "0.1.0"

# the API imports the pipeline, which reads __version__
from tenspiler.api import Lifted, LiftWarning, lift, lifted

__all__ = [
    "CodegenError",
    "LiftError",
    "LiftWarning",
    "Lifted",
    "NotLiftable",
    "VerificationError",
    "__version__",
    "lift",
    "lifted",
]
