"""blend normal_blend (float): opacity-weighted mix of two flattened images, float opacity."""


def normal_blend(base, active, opacity):
    out = []
    for i in range(len(base)):
        out.append(opacity * active[i] + (1 - opacity) * base[i])
    return out
