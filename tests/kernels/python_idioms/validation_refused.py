import math


def _sorts(xs: list[float]) -> None:
    xs.sort()


def _reads_element(xs: list[float]) -> None:
    if xs[0] < 0:
        raise ValueError("negative")


def _returns(xs: list[float]) -> bool:
    return True


def _global(xs: list[float]) -> None:
    if len(xs) > math.inf:
        raise ValueError("too long")


def sorts(xs: list[float]) -> float:
    _sorts(xs)
    return sum(xs)


def reads_element(xs: list[float]) -> float:
    _reads_element(xs)
    return sum(xs)


def returns(xs: list[float]) -> float:
    _returns(xs)
    return sum(xs)


def uses_global(xs: list[float]) -> float:
    _global(xs)
    return sum(xs)


def not_a_parameter(xs: list[float]) -> float:
    _returns([1.0])
    return sum(xs)
