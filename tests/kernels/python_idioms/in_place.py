# Results written in place into list arguments.
def double_all(xs: list[float]) -> None:
    for i in range(len(xs)):
        xs[i] = xs[i] * 2


def axpy(a: float, xs: list[float], ys: list[float]):
    for i in range(len(ys)):
        ys[i] += a * xs[i]


def scale_matrix(matrix: list[list[float]], k: float) -> None:
    for i in range(len(matrix)):
        for j in range(len(matrix[0])):
            matrix[i][j] = matrix[i][j] * k


def normalize(xs: list[float]) -> float:
    total = 0.0
    for x in xs:
        total += x
    for i in range(len(xs)):
        xs[i] = xs[i] / total
    return total


def two_outputs(xs: list[float], lo: list[float], hi: list[float]) -> None:
    for i in range(len(xs)):
        lo[i] = xs[i] - 1.0
        hi[i] = xs[i] + 1.0


def zero_ints(counts: list[int]) -> None:
    for i in range(len(counts)):
        counts[i] = 0
