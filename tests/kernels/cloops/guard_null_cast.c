/* the null test as <stddef.h> spells NULL */
void guard_null_cast(int N, const float *X, float *Y)
{
    if (X == ((void *) 0) || Y == ((void *) 0)) return;
    for (int i = 0; i < N; i++) Y[i] = X[i] * X[i];
}
