# the Euclidean distance written with ** (1 / 2): a non-negative base to a float power
def root_sum_squares(a: list[float], b: list[float]) -> float:
    return sum((x - y) ** 2 for x, y in zip(a, b)) ** (1 / 2)  # noqa: B905
