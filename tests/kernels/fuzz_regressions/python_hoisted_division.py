# fuzz regression (VERIFIED-BUT-WRONG at 65f3a7a): 1 // c is evaluated only inside the loop;
# on an empty list Python never divides and returns [], but the generated NumPy hoists
# 1 // c out of the loop and raises ZeroDivisionError (the stated precondition is "divisors
# are non-zero wherever the source divides", which this input satisfies).
# Found by benchmarks/fuzz.py (seed 7, k7_174).
# input: {"xs": [], "c": 0}
# Python:           []
# generated NumPy:  ZeroDivisionError: integer division or modulo by zero


def f(xs: list[int], c: int):
    out = []
    for i in range(len(xs)):
        out.append(xs[i] + 1 // c)
    return out
