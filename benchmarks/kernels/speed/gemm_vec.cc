#include <vector>
using namespace std;

vector<float> gemm_vec(vector<float> A, vector<float> B, int M, int N, int K) {
  vector<float> C;
  for (int i = 0; i < M; i++) {
    for (int j = 0; j < N; j++) {
      float s = 0;
      for (int k = 0; k < K; k++) {
        s += A[i * K + k] * B[k * N + j];
      }
      C.push_back(s);
    }
  }
  return C;
}
