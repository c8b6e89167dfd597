# a float to an int power the argument check keeps >= 0: an integer power of a negative
# base is real; only OverflowError remains
def pow_guarded_int(xs: list[float], n: int) -> list[float]:
    if n < 0:
        raise ValueError("n must be >= 0")
    return [v**n for v in xs]
