# refused: 0.0 ** p (p < 0) raises ZeroDivisionError, a large result OverflowError: which one
# Python raises first depends on the order of the elements
def pow_two_classes(xs: list[float], p: float) -> list[float]:
    return [abs(v) ** p for v in xs]
