"""The largest element of a (non-empty) list: max() of a list parameter."""


def maxval(xs: list[int]):
    return max(xs)
