"""llama softmax_part3: sum of the first max_pos entries."""


def softmax_part3(x, max_pos):
    total = 0.0
    for i in range(max_pos):
        total = total + x[i]
    return total
