def after_division(xs: list[float], d: float) -> float:
    r = 1.0 / d
    if len(xs) == 0:
        raise ValueError("empty")
    s = 0.0
    for x in xs:
        s += x * r
    return s


def reads_element(xs: list[float]) -> float:
    if xs[0] < 0:
        raise ValueError("negative start")
    s = 0.0
    for x in xs:
        s += x
    return s


def after_loop(xs: list[float]) -> float:
    s = 0.0
    for x in xs:
        s += x
    if s < 0:
        raise ValueError("negative")
    return s


def custom_exception(xs: list[float]) -> float:
    if not xs:
        raise MyError("empty")
    return sum(xs)


class MyError(Exception):
    pass


def row_length_check(m: list[list[float]], v: list[float]) -> float:
    if len(m[0]) != len(v):
        raise ValueError("shapes")
    s = 0.0
    for i in range(len(m)):
        for j in range(len(v)):
            s += m[i][j] * v[j]
    return s
