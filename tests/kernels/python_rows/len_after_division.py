# refused: len(m[0]) after a statement that may raise first (ZeroDivisionError)
def len_after_division(m: list[list[float]], a: float, b: float) -> float:
    q = a / b
    c = len(m[0])
    return q * c
