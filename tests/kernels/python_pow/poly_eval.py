# a polynomial: x ** i with the index of enumerate (>= 0: ZeroDivisionError impossible)
def poly_eval(coeffs: list[float], x: float) -> float:
    return sum(c * x**i for i, c in enumerate(coeffs))
