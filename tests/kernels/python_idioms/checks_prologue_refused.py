# ruff: noqa: B905, RUF059  (zip without strict= and unused unpacked names are the input under test)
# Argument checks calling helpers with lists that cannot be kept as Python text.


def _dims(g: list[list[float]]) -> tuple[int, int]:
    return len(g), len(g[0])


def _sorts(g: list[float]) -> bool:
    g.sort()
    return True


def _prints(g: list[float]) -> bool:
    print(g)
    return True


def dims_used_later(m: list[list[float]]) -> float:
    rows, cols = _dims(m)
    t = 0.0
    for r in range(rows):
        t += m[r][0]
    return t


def sorts_first(xs: list[float]) -> float:
    if not _sorts(xs):
        raise ValueError("unsorted")
    return sum(xs)


def prints_first(xs: list[float]) -> float:
    if _prints(xs):
        return sum(xs)
    raise ValueError("never")


def column_element(m: list[list[float]]) -> list[float]:
    return [col[0] for col in zip(*m)]


def star_of_local(xs: list[float]) -> float:
    t = 0.0
    for p in zip(*[xs, xs]):
        t += p[0]
    return t
