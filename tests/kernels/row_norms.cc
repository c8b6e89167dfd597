// Squared norm of every row of a matrix given as a vector of rows.
#include <vector>
using namespace std;

vector<int> row_norms(vector<vector<int>> m)
{
    vector<int> out;
    for (int i = 0; i < m.size(); i++) {
        int s = 0;
        for (int j = 0; j < m[0].size(); j++)
            s += m[i][j] * m[i][j];
        out.push_back(s);
    }
    return out;
}
