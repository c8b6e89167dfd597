# ruff: noqa: B905, RUF059  (zip without strict= and unused unpacked names are the input under test)
# Argument checks that call helpers with lists (kept as Python text: the generated entry
# runs them first on the objects given) and zip(*m) over a list of lists.


def _is_grid(g: list[list[float]]) -> bool:
    return not isinstance(g, (int, float)) and not isinstance(g[0], (int, float))


def _dims(g: list[list[float]]) -> tuple[int, int]:
    return len(g), len(g[0])


def _conformable(a: list[list[float]], b: list[list[float]]) -> tuple[tuple[int, int], tuple[int, int]]:
    da = _dims(a)
    db = _dims(b)
    if da[1] != db[0]:
        raise ValueError(f"inner sizes differ: {da} and {db}")
    return da, db


def grid_diff(a: list[list[float]], b: list[list[float]]) -> list[list[float]]:
    if _is_grid(a) and _is_grid(b):
        return [[a[r][c] - b[r][c] for c in range(len(a[0]))] for r in range(len(a))]
    raise TypeError("expected two grids")


def product(a: list[list[float]], b: list[list[float]]) -> list[list[float]]:
    if _is_grid(a) and _is_grid(b):
        da, db = _conformable(a, b)
    if da[0] < 0:
        msg = f"bad shape {da}"
        raise ValueError(msg)
    return [[sum(x * y for x, y in zip(row, col)) for col in zip(*b)] for row in a]


def col_totals(m: list[list[float]]) -> list[float]:
    return [sum(col) for col in zip(*m)]


def col_heights(m: list[list[int]]) -> list[int]:
    return [len(col) for col in zip(*m)]


def pair_diff(a: list[list[float]], b: list[list[float]]) -> list[list[float]]:
    return [[x - y for x, y in zip(*m)] for m in zip(a, b)]
