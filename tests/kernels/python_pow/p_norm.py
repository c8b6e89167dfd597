# the p-norm of a difference: '**' with an int parameter the argument check keeps >= 1,
# then its root by a float power
def p_norm(a: list[float], b: list[float], p: int) -> float:
    if p < 1:
        raise ValueError("p must be at least 1")
    return sum(abs(x - y) ** p for x, y in zip(a, b)) ** (1 / p)  # noqa: B905
