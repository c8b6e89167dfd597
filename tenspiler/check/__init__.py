"""``--check``: translation validation of a lift against the original source.

The proof covers the model (the loop IR); ``--check`` ties the model and the generated code to
the source itself on random and adversarial inputs:

* :mod:`tenspiler.check.c` compiles a C / C++ kernel (``cc -O2``, UBSan) and runs it in a
  child process — the reference states;
* :mod:`tenspiler.check.python` runs a Python kernel's original function in a child;
* :mod:`tenspiler.check.generated` runs generated code (any backend);
* :mod:`tenspiler.check.values` reads outputs from a final state and formats inputs;
* :mod:`tenspiler.check.differential` compares them (``differential_check``,
  ``model_mismatch``, ``reference_states``).

This package only re-exports those names.
"""

from tenspiler.check.c import UB_MESSAGE, CKernel, compile_c, run_c
from tenspiler.check.differential import (
    CheckJob,
    CheckResult,
    check_job,
    differential_check,
    model_mismatch,
    reference_states,
)
from tenspiler.check.generated import run_generated
from tenspiler.check.values import (
    format_inputs,
    outputs_of,
    term_magnitude,
    vector_inputs,
)
from tenspiler.frontend.preprocess import can_check

__all__ = [
    "UB_MESSAGE",
    "CKernel",
    "CheckJob",
    "CheckResult",
    "can_check",
    "check_job",
    "compile_c",
    "differential_check",
    "format_inputs",
    "model_mismatch",
    "outputs_of",
    "reference_states",
    "run_c",
    "run_generated",
    "term_magnitude",
    "vector_inputs",
]
