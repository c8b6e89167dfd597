#include <stdint.h>
typedef float float32_t;
void dot_blk(const float32_t *pSrcA, const float32_t *pSrcB, uint32_t blockSize, float32_t *result)
{
    uint32_t blkCnt;
    float32_t sum = 0.0f;
    blkCnt = blockSize;
    while (blkCnt > 0U) {
        sum += (*pSrcA++) * (*pSrcB++);
        blkCnt--;
    }
    *result = sum;
}
