"""running maximum with max() over the first n entries."""


def running_max(a: list[int], n: int):
    best = a[0]
    for i in range(1, n):
        best = max(best, a[i])
    return best
