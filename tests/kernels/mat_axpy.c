void mat_axpy(float a, float *X, float *Y, float *Z, int rows, int cols)
{
    for (int i = 0; i < rows; ++i)
        for (int j = 0; j < cols; ++j)
            Z[i * cols + j] = a * X[i * cols + j] + Y[i * cols + j];
}
