"""Weighted sum of the first n products, a generator expression over range."""


def sum_gen(a: list[int], b: list[int], n: int):
    return sum(a[i] * b[i] for i in range(n))
