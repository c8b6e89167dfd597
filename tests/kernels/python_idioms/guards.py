# ruff: noqa: B905  (zip as people write it is the input under test)
# Argument checks before the body: raising ones and early returns.
def mean(nums: list) -> float:
    if not nums:
        raise ValueError("List is empty")
    return sum(nums) / len(nums)


def chebyshev(point_a: list[float], point_b: list[float]) -> float:
    if len(point_a) != len(point_b):
        raise ValueError("Both points must have the same dimension.")
    return max(abs(a - b) for a, b in zip(point_a, point_b))


def prefix_mean(xs: list[float], n: int) -> float:
    if n <= 0:
        return 0
    elif n > len(xs):
        raise IndexError("n is beyond the list")
    s = 0.0
    for i in range(n):
        s += xs[i]
    return s / n


def checked_scale(xs: list[float], k: int) -> float:
    m = len(xs) - k
    if m < 0 or k < 0:
        raise ValueError
    s = 0.0
    for x in xs:
        s += x * k
    return s


def message_first(xs: list[float], k: int) -> float:
    if k < 0:
        msg = f"k must not be negative, got {k}"
        raise ValueError(msg)
    s = 0.0
    for x in xs:
        s += x * k
    return s
