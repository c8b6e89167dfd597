"""llama softmax_part4: normalise the first max_pos entries by their sum."""


def softmax_part4(unnormalized, max_pos, total):
    out = []
    for i in range(max_pos):
        out.append(unnormalized[i] / total)
    return out
