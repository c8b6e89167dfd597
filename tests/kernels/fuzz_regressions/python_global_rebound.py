# fuzz guard (clean refusal at 65f3a7a, a known bug class): K is rebound after the
# function, so at call time K == 5; a lift must use 5 or refuse, never 3.
# input: {"xs": [1, -2]}
# Python: [5, -10]
K = 3


def f(xs: list[int]):
    out = []
    for i in range(len(xs)):
        out.append(xs[i] * K)
    return out


K = 5
