"""llama softmax_part1: running maximum of the first max_pos entries."""


def softmax_part1(x, max_pos):
    max_val = x[0]
    for i in range(1, max_pos):
        if x[i] > max_val:
            max_val = x[i]
    return max_val
