def float_into_ints(xs: list[int]) -> None:
    for i in range(len(xs)):
        xs[i] = xs[i] / 2


def int_into_floats(xs: list[float], k: int) -> None:
    for i in range(len(xs)):
        xs[i] = k


def writes_and_builds(xs: list[float]) -> list[float]:
    out = []
    for i in range(len(xs)):
        xs[i] = 0.0
        out.append(1.0)
    return out


def returns_nothing(xs: list[float]) -> None:
    s = 0.0
    for x in xs:
        s += x
