# fuzz regression (VERIFIED-BUT-WRONG at abf8709; found by the smoke campaign of tests/test_fuzz.py;
# refused by name since tenspiler.loops.observed):
# the value of s0 is never used, but computing it raises ZeroDivisionError where a y is 0.0;
# the summary computes only the returned list, and the generated code returns a value
# (xs = [3.0], ys = [0.0]: Python raises, the generated code gives [3.0333...]).
def kern(xs: list[float], ys: list[float]):
    s0 = max((x / y) for x, y in zip(xs, ys))  # noqa: B905, F841
    return [((-3 if 100.0 < 0.1 else x) + (0.1 / x)) for x, y in zip(xs, ys)]  # noqa: B905
