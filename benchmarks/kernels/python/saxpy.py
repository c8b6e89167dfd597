"""blas saxpy: alpha * x + y as a new list."""


def saxpy(alpha, x, y):
    result = []
    for i in range(len(x)):
        result.append(alpha * x[i] + y[i])
    return result
