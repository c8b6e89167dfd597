"""dsp vadd: elementwise sum of the first n entries of two int lists."""


def vadd(a: list[int], b: list[int], n: int) -> list[int]:
    out = []
    for i in range(n):
        out.append(a[i] + b[i])
    return out
