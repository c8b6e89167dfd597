; C[32x16] = A[32x64] . B[64x16] (20x3x35 padded)
.isa gemmini dim=16 config=int8
.region A 0x1000 2048 int8
.region B 0x1800 1024 int8
.region C 0x1c00 2048 int32
config_ex 1, 0, 0, 1.0, 0, 1, 0, 0
config_st 64
config_ld 64, 1.0, 0, 0
config_ld 16, 1.0, 0, 1
mvin2 0x1800, 0x80, 16, 16
mvin2 0x1900, 0x90, 16, 16
mvin2 0x1a00, 0xa0, 16, 16
mvin2 0x1b00, 0xb0, 16, 16
mvin 0x1000, 0x0, 64, 16
preload 0x80, 0x80000000, 16, 16, 16, 16
compute_preloaded 0x0, 0xffffffff, 16, 16, 16, 16
mvin 0x1400, 0x40, 64, 16
preload 0x90, 0xc0000000, 16, 16, 16, 16
compute_preloaded 0x10, 0xffffffff, 16, 16, 16, 16
preload 0xa0, 0xc0000000, 16, 16, 16, 16
compute_preloaded 0x20, 0xffffffff, 16, 16, 16, 16
preload 0xb0, 0xc0000000, 16, 16, 16, 16
compute_preloaded 0x30, 0xffffffff, 16, 16, 16, 16
preload 0x80, 0x80000010, 16, 16, 16, 16
compute_preloaded 0x40, 0xffffffff, 16, 16, 16, 16
mvout 0x1c00, 0xa0000000, 16, 16
preload 0x90, 0xc0000010, 16, 16, 16, 16
compute_preloaded 0x50, 0xffffffff, 16, 16, 16, 16
preload 0xa0, 0xc0000010, 16, 16, 16, 16
compute_preloaded 0x60, 0xffffffff, 16, 16, 16, 16
preload 0xb0, 0xc0000010, 16, 16, 16, 16
compute_preloaded 0x70, 0xffffffff, 16, 16, 16, 16
mvout 0x2000, 0xa0000010, 16, 16
fence
