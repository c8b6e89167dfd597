"""dsp vscal: scale a list by a constant, written as a while loop with a counter."""


def vscal(x, s):
    out = []
    i = 0
    while i < len(x):
        out.append(s * x[i])
        i += 1
    return out
