"""Functions of the generated Python code, as ordinary (linted, typed, tested) modules.

Generated modules stay self-contained: a backend emits the source of each helper it uses
(:func:`tenspiler.codegen.python_host.function_source`: the function's own text, with its
type annotations dropped, so the generated file imports only its array library).

* :mod:`.numpy_runtime`: the C- and Python-semantics helpers of the NumPy backend
  (``_c_div``, ``_c_idiv``, ``_c_imod``, ``_py_floordiv``, ``_py_mod``, ``_where``,
  ``_wrap64``, ``_div24``, ``_rem24``, ``_store``); the array backends' NumPy host code uses
  them too (renamed ``_np_*``).
* :mod:`.array_runtime`: the array backends' helpers that are the same code for every
  library (``_py_floordiv``, ``_py_mod``); those spelled per library stay templates of
  :class:`~tenspiler.codegen.array_backend.Spelling`.
"""
