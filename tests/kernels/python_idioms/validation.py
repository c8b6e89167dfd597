# ruff: noqa: B905  (zip as people write it is the input under test)
# Validation helpers called before the body: they inspect the arguments and raise.
def _check_numbers(values: list[float], what) -> None:
    if not values:
        raise ValueError("no " + what)
    if not isinstance(values, list):
        raise TypeError(f"{what}: expected a list, got {type(values).__name__}")
    for v in values:
        if not isinstance(v, (int, float)):
            msg = f"{what}: {v!r} is not a number"
            raise TypeError(msg)


def total_distance(xs: list[float], ys: list[float], label: int) -> float:
    _check_numbers(xs, "xs")
    _check_numbers(ys, "ys")
    if len(xs) != len(ys):
        raise ValueError("different lengths")
    return sum(abs(x - y) for x, y in zip(xs, ys))
