"""The Python API: lift a legacy function, a source file or source text.

```python
import tenspiler

res = tenspiler.lift(normal_blend, to="numpy")   # a function object, a path, or source text
res.status, res.summary, res.invariants, res.timings, res.certificate
fast = res.compile()                             # a callable running the generated code

@tenspiler.lifted(to="numpy")
def legacy(...): ...
```

* :func:`lift` raises one exception class per outcome when the target is not lifted:
  :class:`~tenspiler.errors.BadInput` (the source cannot be read as a supported kernel),
  :class:`~tenspiler.errors.NotLiftable` (no verified summary: the message says why) or
  :class:`~tenspiler.errors.InternalError` (a bug of tenspiler's); the exception's ``result``
  attribute holds the full :class:`~tenspiler.pipeline.LiftResult`.
* :func:`lifted` lifts **at decoration time** (so a module's import fails fast, and the
  second import is served from the cache): on success the decorated name calls the
  verified generated code (NumPy arrays in and out, see the generated docstring); on failure
  the original function stays in place and one :class:`LiftWarning` says why — never a
  silent wrong answer.
* Results are cached (:mod:`tenspiler.cache`) unless ``cache=False``; a hit still carries
  the certificate, which ``recheck=True`` re-proves with cvc5.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import os
import textwrap
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, overload

from tenspiler.budget import PROOF_RLIMIT
from tenspiler.cache import ResultCache, cache_key
from tenspiler.errors import (
    BadInput,
    InternalError,
    NotLiftable,
    TenspilerError,
    WallClockTimeout,
    read_utf8,
)
from tenspiler.paths import NO_LIFT_ENV, certificate_dir, write_text_atomic
from tenspiler.reference import ReferenceRunStop, in_reference_run, live_reference
from tenspiler.result import LiftResult

if TYPE_CHECKING:
    from tenspiler.loops.ir import Function

# The compiler (tenspiler.pipeline: sympy, the solver, the backends) is imported only when a
# lift runs: a cache hit needs the parse of a Python kernel's module and the cache entry.

__all__ = ["LiftWarning", "Lifted", "lift", "lifted"]

_F = TypeVar("_F", bound=Callable[..., Any])

_CXX = (".cc", ".cpp", ".cxx", ".c++")



class LiftWarning(UserWarning):
    """A decorated function was not lifted; the original Python function is used."""


@dataclass
class Lifted:
    """A verified lift: the :class:`~tenspiler.pipeline.LiftResult` fields plus
    ``from_cache`` and :meth:`compile`."""

    result: LiftResult
    from_cache: bool = False

    @property
    def status(self) -> str:
        """``"verified"`` (a :class:`Lifted` is only made for verified results)."""
        return self.result.status

    @property
    def function(self) -> str | None:
        """The lifted function's name."""
        return self.result.function

    @property
    def summary(self) -> str | None:
        """TensIR program summary, one line per output."""
        return self.result.summary

    @property
    def invariants(self) -> list[str]:
        """The loop invariants that prove the summary, in TensIR syntax."""
        return self.result.invariants

    @property
    def assumptions(self) -> list[str]:
        """The preconditions the proof relies on (checked by the generated code)."""
        return self.result.assumptions

    @property
    def timings(self) -> dict[str, float]:
        """Phase → seconds (those of the original run for a cached result)."""
        return self.result.timings

    @property
    def certificate(self) -> str | None:
        """Path of the SMT-LIB certificate (every ``check-sat`` answers unsat)."""
        return self.result.certificate

    @property
    def code(self) -> dict[str, str]:
        """Backend → generated source text."""
        return self.result.code

    def compile(self, backend: str | None = None) -> Callable[..., Any]:
        """The generated function of ``backend`` (default: the first one lifted to), as a
        callable; its calling convention is in its docstring.

        Raises:
            ValueError: ``backend`` was not generated (also: it declined the summary,
                ``LiftResult.declined``), or its code is not Python.
        """
        name = backend or next(iter(self.result.code), None)
        if name is not None and name in self.result.declined:
            raise ValueError(f"backend {name!r} did not emit the summary: {self.result.declined[name]}")
        if name is None or name not in self.result.code:
            raise ValueError(f"no code for backend {backend!r}; generated: {', '.join(self.result.code)}")
        namespace: dict[str, Any] = {"__name__": f"tenspiler_generated_{self.result.function}"}
        try:
            exec(compile(self.result.code[name], f"<tenspiler {name}: {self.result.function}>", "exec"), namespace)
        except SyntaxError as e:
            raise ValueError(f"the {name} code is not Python: {e}") from None
        entry = namespace.get(self.result.function or "")
        if not callable(entry):
            raise ValueError(f"the {name} code defines no function {self.result.function!r}")
        return entry


@dataclass(frozen=True)
class _Target:
    source: str
    language: str  # "c", "cxx" or "python"
    function: str | None
    filename: str
    parse: Callable[[], Function]
    live: Callable[..., Any] | None = None  # the function object lifted, if one was given


def _target(target: object, function: str | None, language: str | None) -> _Target:
    if callable(target) and not isinstance(target, str | Path):
        return _function_target(target, function)
    if isinstance(target, Path) or (isinstance(target, str) and "\n" not in target and Path(target).is_file()):
        path = Path(target)
        lang = language or ("python" if path.suffix == ".py" else "cxx" if path.suffix.lower() in _CXX else "c")
        text = read_utf8(path)
        return _Target(text, lang, function, str(path), _parser(text, str(path), function, lang))
    if isinstance(target, str) and _looks_like_path(target):
        raise BadInput(f"no such file: {target} (relative to {Path.cwd()})")
    if isinstance(target, str):
        lang = language or "c"
        return _Target(target, lang, function, "<string>", _parser(target, "<string>", function, lang))
    raise TypeError(f"cannot lift {type(target).__name__}: give a function, a path or source text")


#: Suffixes that make a one-line string a path, not source text (:func:`_looks_like_path`).
_SOURCE_SUFFIXES = (".c", ".h", ".py", *_CXX, ".hpp")


def _looks_like_path(text: str) -> bool:
    """A string that names no file is still meant as a path, not as source text, when it
    is one line ending in a source suffix, or one line with a path separator and neither
    ``;`` nor ``{`` (``"examples/saxpy.c"`` lifted from another directory)."""
    if "\n" in text:
        return False
    t = text.strip()
    if t.lower().endswith(_SOURCE_SUFFIXES):
        return True
    return ("/" in t or os.sep in t) and not any(c in t for c in ";{")


def _parser(text: str, filename: str, function: str | None, language: str) -> Callable[[], Function]:
    if language == "python":
        from tenspiler.frontend.python import parse_python_source

        return lambda: parse_python_source(text, filename, function)
    if language not in ("c", "cxx"):
        raise BadInput(f"unknown language {language!r} (known: c, cxx, python)")
    from tenspiler.frontend.c import parse_c_source

    return lambda: parse_c_source(text, filename, function, cxx=language == "cxx")


def _function_target(f: Callable[..., Any], function: str | None) -> _Target:
    name = function or getattr(f, "__name__", None)
    if not name:
        raise BadInput(f"cannot lift {f!r}: it has no name")
    try:
        filename = inspect.getsourcefile(f) or "<unknown>"
        module_text = read_utf8(filename) if Path(filename).is_file() else None
    except (TypeError, OSError, BadInput):
        filename, module_text = "<unknown>", None
    if module_text is not None:
        # the whole module: helpers the function calls are read from it
        return _Target(module_text, "python", name, filename, _parser(module_text, filename, name, "python"), f)
    try:
        text = textwrap.dedent(inspect.getsource(f))
    except (OSError, TypeError) as e:
        raise BadInput(f"cannot read the source of {name}: {e}") from None
    return _Target(text, "python", name, filename, _parser(text, filename, name, "python"), f)


def lift(
    target: Callable[..., Any] | str | Path,
    to: str | Sequence[str] = "numpy",
    *,
    function: str | None = None,
    language: str | None = None,
    timeout: float = 600.0,
    proof_timeout: float = 300.0,
    check: bool | None = None,
    seed: int = 0,
    cache: bool = True,
    cache_dir: str | Path | None = None,
    recheck: bool = False,
    proof_rlimit: int | None = None,
) -> Lifted:
    """Lift ``target`` to verified code for the backends ``to``.

    Args:
        target: a Python function object (its module source is read), a path of a
            ``.c`` / ``.cc`` / ``.py`` file, or source text (C unless ``language``). A
            one-line string that names no file but looks like a path (a source suffix, or
            a ``/`` and neither ``;`` nor ``{``) is :class:`BadInput` ``no such file``.
        to: backend name(s): ``"numpy"`` or a list / comma-separated string.
        function: the function to lift (default: the function object's name, else the
            last one defined).
        language: ``"c"``, ``"cxx"`` or ``"python"`` for source text (files: by suffix).
        timeout: wall-clock safety net of synthesis and proofs, in seconds (the verdict's
            budget is counted in work, so it does not depend on the machine's load; when
            the safety net fires, :class:`~tenspiler.errors.WallClockTimeout` is raised).
        proof_timeout: wall-clock safety net of one VC clause, in seconds.
        check: translation validation: compare the loop IR and the generated code with the
            original (C compiled with UBSan, or the Python function) on random and
            adversarial inputs; a disagreement means "not lifted". Default (``None``): on
            when it can run (a C / C++ compiler exists; always for Python).
        seed: seed of the random program states.
        cache: use the persistent result cache (:mod:`tenspiler.cache`).
        cache_dir: the cache's folder (default: :meth:`ResultCache.default`).
        recheck: on a cache hit, re-prove the stored certificate with cvc5 first.
        proof_rlimit: cvc5 resource units per VC clause (default
            :data:`tenspiler.verify.solver.PROOF_RLIMIT`).

    Returns:
        The verified :class:`Lifted` result.

    Raises:
        BadInput: bad input (``err.result`` is the :class:`~tenspiler.pipeline.LiftResult`).
        NotLiftable: no verified summary (the message gives the reason; ``err.result``).
        WallClockTimeout: a wall-clock safety net fired before a verdict (``err.result``).
        InternalError: an unexpected exception inside tenspiler (``err.result``).
        TypeError: ``target`` is neither a function, a path nor text.
        ReferenceRunStop: called while tenspiler runs this module as the reference of a
            differential check (:mod:`tenspiler.check.python`): the module's top-level code
            does not lift again.
    """
    if in_reference_run():
        raise ReferenceRunStop("tenspiler.lift inside a reference run")
    backends = [b.strip() for b in to.split(",")] if isinstance(to, str) else list(to)
    t = _target(target, function, language)
    if check is None:
        from tenspiler.frontend.preprocess import can_check

        check = can_check(t.language)
    store = ResultCache(Path(cache_dir)) if cache_dir is not None else ResultCache.default()
    key = cache_key(t.source, t.language, t.function, backends, check, seed)
    if cache:
        usable = True
        if t.language == "python":
            # the running module's globals are part of a Python kernel's meaning (a folded
            # constant may have been rebound since the result was cached): parse again,
            # which refuses a global whose value differs from the source's
            try:
                t.parse()
            except BadInput:
                usable = False  # reported by the uncached lift below, with its result
        hit = store.get(key) if usable else None
        if hit is not None and _certificate_ok(hit, recheck):
            return Lifted(_result_from(hit), from_cache=True)
    from tenspiler.pipeline import lift_parsed

    # the differential check calls the live function object, never the user's module again
    live = live_reference(t.filename, t.function, t.live) if t.live is not None and t.function else contextlib.nullcontext()
    with live:
        res = lift_parsed(t.parse, backends, timeout=timeout, proof_timeout=proof_timeout, check=check, seed=seed,
                          proof_rlimit=PROOF_RLIMIT if proof_rlimit is None else proof_rlimit)
    if res.status != "verified":
        what = f"{res.function or t.function or t.filename}"
        kind = {"error": BadInput, "internal_error": InternalError, "timeout": WallClockTimeout}.get(
            res.status, NotLiftable
        )
        err = kind(f"{what} was not lifted ({res.status}): {res.message}")
        err.result = res
        raise err
    if cache and res.certificate is not None:
        payload = res.to_json()
        payload["certificate_text"] = Path(res.certificate).read_text(encoding="utf-8")
        try:
            store.put(key, payload)
        except OSError as e:  # a read-only cache must not break lifting
            warnings.warn(f"tenspiler: cannot write the result cache {store.root}: {e}", LiftWarning, stacklevel=2)
    return Lifted(res)


def _result_from(payload: dict[str, Any]) -> LiftResult:
    """A :class:`LiftResult` from a cache entry; the certificate is written back to the
    certificate folder if its file is gone."""
    fields = {k: v for k, v in payload.items() if k in LiftResult.__dataclass_fields__}
    res = LiftResult(**fields)
    cert = Path(res.certificate) if res.certificate else None
    text = payload["certificate_text"]
    if cert is None or not cert.is_file() or cert.read_text(encoding="utf-8") != text:
        import hashlib

        digest = hashlib.sha256(text.encode()).hexdigest()[:16]
        cert = write_text_atomic(certificate_dir() / f"{res.function}-{digest}.smt2", text)
        res.certificate = str(cert)
    return res


def _certificate_ok(payload: dict[str, Any], recheck: bool) -> bool:
    if not recheck:
        return True
    from tenspiler.verify.certificate import is_valid, recheck_text

    return is_valid(recheck_text(payload["certificate_text"]))


def _folded(f: Callable[..., Any]) -> dict[str, int | float]:
    """The module constants the lifted version of ``f`` folded (``{}`` if unknown)."""
    try:
        t = _function_target(f, None)
        from tenspiler.frontend.python import folded_globals

        return folded_globals(t.source, t.filename, t.function)
    except (TenspilerError, OSError, TypeError):
        return {}


@overload
def lifted(fn: _F) -> _F: ...


@overload
def lifted(fn: None = None, **options: Any) -> Callable[[_F], _F]: ...


def lifted(fn: _F | None = None, **options: Any) -> _F | Callable[[_F], _F]:
    """Decorator: replace a legacy function by its verified lifted version.

    ``@lifted`` or ``@lifted(to="numpy", timeout=30, ...)`` (options of :func:`lift`).
    Lifting happens when the decorator runs (at import), through the cache. On success
    the returned function calls the generated code (attributes ``lifted``: the
    :class:`Lifted` result, ``original``: the legacy function); on failure the original
    function is returned unchanged, after one :class:`LiftWarning` with the reason.
    With ``$TENSPILER_NO_LIFT`` set, and in the child process that runs the original functions
    for the differential check, functions are returned unchanged (no lifting).
    """

    def wrap(f: _F) -> _F:
        if in_reference_run() or os.environ.get(NO_LIFT_ENV):
            return f
        try:
            res = lift(f, **options)
            fast = res.compile()
        except (TenspilerError, ValueError) as e:
            warnings.warn(
                f"tenspiler: {getattr(f, '__qualname__', f)} was not lifted, the original function is used: {e}",
                LiftWarning,
                stacklevel=3,
            )
            return f

        folded = _folded(f)
        namespace = getattr(f, "__globals__", {})
        missing = object()

        @functools.wraps(f)
        def call(*args: Any, **kwargs: Any) -> Any:
            # a module constant folded into the lifted code may have been rebound since:
            # then only the original function means what the caller wrote
            for name, value in folded.items():
                now = namespace.get(name, missing)
                if type(now) is not type(value) or now != value:
                    return f(*args, **kwargs)
            return fast(*args, **kwargs)

        call.lifted = res  # type: ignore[attr-defined]
        call.original = f  # type: ignore[attr-defined]
        return call  # type: ignore[return-value]

    return wrap(fn) if fn is not None else wrap
