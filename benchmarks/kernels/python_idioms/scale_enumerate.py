"""Each element scaled and offset by its position, walked with enumerate."""


def scale_enumerate(xs: list[float], scale: float):
    out = []
    for i, x in enumerate(xs):
        out.append(x * scale + i)
    return out
