/* Darknet-style image struct passed by value: every pixel becomes pixel * gain + bias,
   written through the row pointers (visible to the caller). */
typedef struct image {
    float **data;
    int h;
    float gain;
    int w;
} image;

void struct_scale(image im, float bias)
{
    for (int y = 0; y < im.h; ++y) {
        for (int x = 0; x < im.w; ++x) {
            im.data[y][x] = im.data[y][x] * im.gain + bias;
        }
    }
}
