// Average of two 8-bit images given as rows, (a + b) / 2 per pixel.
#include <cstdint>
#include <vector>

std::vector<std::vector<uint8_t>> img_avg(std::vector<std::vector<uint8_t>> a, std::vector<std::vector<uint8_t>> b)
{
    std::vector<std::vector<uint8_t>> out;
    int rows = a.size();
    int cols = a[0].size();
    for (int r = 0; r < rows; r++) {
        std::vector<uint8_t> line;
        for (int c = 0; c < cols; c++)
            line.push_back((a[r][c] + b[r][c]) / 2);
        out.push_back(line);
    }
    return out;
}
