def stepped(xs: list[float]) -> float:
    return sum(xs[::2])


def writes_while_slicing(xs: list[float]) -> float:
    s = 0.0
    for x in xs[1:]:
        xs[0] = x
        s += x
    return s
