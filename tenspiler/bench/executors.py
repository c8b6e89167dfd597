"""Where the per-kernel tasks run: local worker processes, or Ray.

Both executors run :func:`tenspiler.bench.task.run_kernel` once per kernel and yield the
records as the tasks finish (in completion order).

``local`` — ``--jobs`` kernels at a time, each in its own fresh child process (started and
hard-killed by :func:`~tenspiler.bench.task.run_child`). A thread pool only waits on the
children: a ``ProcessPoolExecutor`` cannot kill one hung task, and one crashed worker
breaks the whole pool (every pending future fails with ``BrokenProcessPool``), so the
process boundary is one child per kernel instead.

``ray`` — the same function as a Ray task (``num_cpus=1``, no retries), on a local Ray
instance (``ray.init()``, ``--jobs`` CPUs) or on an existing cluster (``--address``);
Ray schedules, :func:`ray.wait` streams the results back. Ray is an optional dependency
(``pip install 'tenspiler[ray]'``), imported only here and only when asked for.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor, as_completed
from typing import Any

from tenspiler.bench.task import allow_start, failed_record, run_kernel, stop_all

EXECUTORS = ("local", "ray")


class ExecutorUnavailable(Exception):
    """The chosen executor cannot be used here (e.g. Ray is not installed)."""


def run_local(specs: list[dict[str, Any]], jobs: int) -> Iterator[dict[str, Any]]:
    """Run the kernels ``jobs`` at a time; yield each record when it is ready."""
    allow_start()
    pool = ThreadPoolExecutor(max_workers=max(1, jobs), thread_name_prefix="lift-bench")
    futures: dict[Future[dict[str, Any]], dict[str, Any]] = {pool.submit(run_kernel, s): s for s in specs}
    finished = False
    try:
        for fut in as_completed(futures):
            try:
                yield fut.result()
            except Exception as err:  # a bug in the task itself: record it, keep going
                yield failed_record(futures[fut], "crashed", f"internal error in the task ({type(err).__name__}: {err})")
        finished = True
    finally:
        if not finished:  # interrupted (Ctrl-C, or the consumer stopped early)
            for fut in futures:
                fut.cancel()
            stop_all()
        pool.shutdown(wait=True)


def _import_ray() -> Any:
    try:
        import ray
    except ImportError as err:
        raise ExecutorUnavailable(
            f"--executor ray needs Ray, which is not installed ({err}); "
            "install it with: pip install 'tenspiler[ray]'"
        ) from None
    return ray


def check_ray() -> None:
    """Raise :class:`ExecutorUnavailable` if Ray cannot be imported."""
    _import_ray()


def run_ray(specs: list[dict[str, Any]], jobs: int, address: str | None = None) -> Iterator[dict[str, Any]]:
    """Run the kernels as Ray tasks; yield each record when it is ready.

    Without ``address`` a local Ray instance with ``jobs`` CPUs is started (and shut down
    at the end); with it, the driver connects to that cluster, whose nodes need the same
    tenspiler installed. An already initialized Ray (``ray.is_initialized()``) is used
    as it is and left running.
    """
    ray = _import_ray()
    started = False
    if not ray.is_initialized():
        common = {"log_to_driver": False, "logging_level": logging.WARNING}
        if address:
            ray.init(address=address, **common)
        else:
            ray.init(num_cpus=max(1, jobs), include_dashboard=False, **common)
        started = True
    task = ray.remote(num_cpus=1, max_retries=0)(run_kernel)
    refs = {task.remote(s): s for s in specs}
    pending = list(refs)
    try:
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            for ref in done:
                try:
                    yield ray.get(ref)
                except Exception as err:  # RayTaskError, WorkerCrashedError, ...
                    first = str(err).strip().splitlines()[0] if str(err).strip() else ""
                    yield failed_record(refs[ref], "crashed", f"Ray task failed ({type(err).__name__}: {first})")
    finally:
        for ref in pending:
            with contextlib.suppress(Exception):
                ray.cancel(ref, force=True)
        if started:
            ray.shutdown()
