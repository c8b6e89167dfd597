// Observation (sound, stronger than necessary; counted as a discarded input, not a failure):
// with x of 2 planes and 0 rows the loops read nothing of y, and C++ returns an empty vector; the
// generated code raises "precondition violated (shapes): need y__cols == x__cols" because x's column
// count is 0 (a vector of empty planes has no columns) while y's rows have 3 elements.
// 38 of the 175 verified tensor3 kernels refused such an input (the oracle gives the second tensor one
// more plane / row than the first in 1 case of 8). Tool at c04ec39.
// input: {"x": [[], []], "y": [[[1, 2, 3]], [[4, 5, 6]]]}
#include <vector>
using namespace std;

vector<int> kern(const vector<vector<vector<int>>>& x, const vector<vector<vector<int>>>& y) {
  vector<int> out;
  for (int p = 0; p < x.size(); p++)
    for (int r = 0; r < x[p].size(); r++)
      for (int c = 0; c < x[p][r].size(); c++)
        out.push_back(x[p][r][c] + y[p][r][c]);
  return out;
}
