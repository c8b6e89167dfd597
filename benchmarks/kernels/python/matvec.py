"""llama matmul: weight (d x n, a list of rows) times input (n) -> a list of d sums."""


def matvec(weight, input):
    output = []
    d = len(weight)
    n = len(input)
    for i in range(d):
        val = 0.0
        for j in range(n):
            val += weight[i][j] * input[j]
        output.append(val)
    return output
