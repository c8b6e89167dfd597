/* The plain GEMM with literal sizes, as users write it: one run is 40^3 = 64,000 iterations,
 * so the literal sizes are generalised to a size parameter for the synthesis and the proof
 * (tenspiler/vc/generalize.py) and the summary is stated at 40. */
void gemm_literal(const int *A, const int *B, int *C) {
    for (int i = 0; i < 40; i++)
        for (int j = 0; j < 40; j++) {
            int s = 0;
            for (int k = 0; k < 40; k++)
                s += A[i * 40 + k] * B[k * 40 + j];
            C[i * 40 + j] = s;
        }
}
