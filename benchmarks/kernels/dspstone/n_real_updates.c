/* dspstone n_real_updates: D[k] = C[k] + A[k] * B[k] for k < N, with four walking pointers. */
void n_real_updates(int N, int *A, int *B, int *C, int *D)
{
    int *pa = A, *pb = B;
    int *pc = C, *pd = D;
    int k;

    for (k = 0; k < N; ++k) {
        *pd = *pa++ * *pb++ + *pc++;
        pd++;
    }
}
