# refused: a base that may be negative to a float power is a complex number in Python
def pow_complex(xs: list[float], p: float) -> list[float]:
    return [v**p for v in xs]
