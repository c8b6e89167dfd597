"""A kernel fuzzer: a red team for the claim "verified => correct".

* :mod:`tenspiler.fuzz.generate` writes small C and Python kernels (hypothesis strategies
  and a plain seeded generator, both driving the same code).
* :mod:`tenspiler.fuzz.oracle` is an independent differential oracle: it lifts a kernel
  through the public API and, when it is verified, runs the C source compiled by ``gcc``
  (``-O0 -fwrapv``, ``-O2`` and a sanitizer build that rules out inputs with undefined
  behaviour) -- or the original Python function -- against the generated NumPy code on
  adversarial inputs. It does not use :mod:`tenspiler.check`.
* :mod:`tenspiler.fuzz.campaign` runs many kernels (each lift in a worker process with a
  hard wall limit), classifies them and writes a summary.
"""
