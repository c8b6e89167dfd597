# refused: int ** int is exact integer arithmetic (a float for a negative exponent)
def int_pow(a: int, b: int) -> int:
    return a**b
