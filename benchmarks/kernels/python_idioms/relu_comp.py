"""ReLU of every element, written as a list comprehension."""


def relu_comp(xs: list[float]):
    return [max(x, 0.0) for x in xs]
