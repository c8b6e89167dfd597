# Two exception classes inside one loop (ValueError, ZeroDivisionError): which one Python
# raises depends on the element order, which a summary does not keep: refused by name.
import math


def inv_sqrt_loop(x: list[float]) -> list[float]:
    out = []
    for i in range(len(x)):
        out.append(1.0 / math.sqrt(x[i]))
    return out
