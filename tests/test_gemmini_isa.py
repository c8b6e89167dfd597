"""Tests of the Gemmini ISA description (``tenspiler.act.isa.gemmini``), the oracle generated
from it (``tenspiler.act.oracle``) and the assembly text format (``tenspiler.act.assembly``).

Expected values are written by hand (literal numbers, or an obvious NumPy expression such as
``A @ B``), never by calling the semantics bodies. Most hand cases use a 4x4 array
(``gemmini_isa(dim=4)``) to keep the numbers small.

Reference for the fused multiply-add: exact rational arithmetic (``fractions.Fraction``) and an
explicit round-to-nearest-even to float32.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from tenspiler.act.assembly import AssemblyError, Region, format_program, parse_program
from tenspiler.act.isa import Inst, IsaError
from tenspiler.act.isa.gemmini import (
    ACC_BIT,
    ACCUMULATE_BIT,
    GARBAGE,
    OUTPUT_STATIONARY,
    RAW_BIT,
    WEIGHT_STATIONARY,
    fma32,
    gemmini_isa,
)
from tenspiler.act.oracle import HbmBuffer, MachineState, Oracle

ISA4 = gemmini_isa(dim=4)
ISA16 = gemmini_isa(dim=16)
ISA4F = gemmini_isa(dim=4, config="fp32")
BASE = 0x1000
I32_MAX = 2**31 - 1
I32_MIN = -(2**31)

def hyp(n: int) -> settings:
    return settings(max_examples=n, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# ---------------------------------------------------------------------------- helpers


def ins(name: str, *args: int | float) -> Inst:
    return Inst(name, tuple(args))


def cfg_ex(dataflow: int = WEIGHT_STATIONARY, act: int = 0, sys_shift: int = 0, acc_scale: float = 1.0,
           a_stride: int = 1, a_transpose: int = 0, b_transpose: int = 0) -> Inst:
    return ins("config_ex", dataflow, act, sys_shift, acc_scale, 0, a_stride, a_transpose, b_transpose)


def machine(isa=ISA4, size: int = 1 << 14) -> MachineState:
    """A reset machine with an HBM of ``size`` bytes at ``BASE``."""
    return Oracle(isa).new_state(HbmBuffer(size, base=BASE))


def run(state: MachineState, *program: Inst) -> MachineState:
    return Oracle(state.isa).run(program, state.memory, state)


def put(buf: np.ndarray, row: int, values) -> None:
    """Write a small matrix into a buffer at ``row``, column 0 (test setup, not an instruction)."""
    v = np.asarray(values)
    buf[row:row + v.shape[0], :v.shape[1]] = v


def i8(x) -> np.ndarray:
    return np.array(x, dtype=np.int8)


def i32(x) -> np.ndarray:
    return np.array(x, dtype=np.int32)


def f32(x) -> np.ndarray:
    return np.array(x, dtype=np.float32)


def snapshot(state: MachineState) -> dict:
    return {"buffers": {k: v.copy() for k, v in state.buffers.items()},
            "mem": state.memory.data.copy(), "regs": repr(state.regs)}


def same_state(a: dict, b: dict) -> bool:
    return (a["regs"] == b["regs"] and np.array_equal(a["mem"], b["mem"])
            and all(np.array_equal(a["buffers"][k], b["buffers"][k]) for k in a["buffers"]))


# ============================================================================ mvin (scratchpad)


def test_mvin_full_tile_default_stride():
    s = machine()
    a = i8(np.arange(-8, 8).reshape(4, 4))
    s.memory.place(BASE, a)
    run(s, ins("mvin", BASE, 8, 4, 4))  # reset stride: DIM bytes
    sp = s.buffers["spad"]
    assert np.array_equal(sp[8:12], a)
    assert not sp[:8].any() and not sp[12:].any()


def test_mvin_partial_tile_leaves_other_elements():
    s = machine()
    s.buffers["spad"][0:4] = 9
    s.memory.place(BASE, i8([[1, 2, 3, 4], [5, 6, 7, 8]]))
    run(s, ins("mvin", BASE, 1, 3, 2))
    assert s.buffers["spad"][0:4].tolist() == [[9, 9, 9, 9],
                                              [1, 2, 3, 9],
                                              [5, 6, 7, 9],
                                              [9, 9, 9, 9]]
    assert not s.buffers["spad"][4:].any()


def test_mvin_dram_stride_from_config_ld():
    s = machine()
    s.memory.place(BASE, i8(np.arange(24).reshape(3, 8)))
    run(s, ins("config_ld", 8, 1.0, 0, 0), ins("mvin", BASE + 4, 0, 4, 3))
    assert s.buffers["spad"][0:3].tolist() == [[4, 5, 6, 7], [12, 13, 14, 15], [20, 21, 22, 23]]


def test_mvin2_mvin3_use_config_ids_1_and_2():
    s = machine()
    s.memory.place(BASE, i8(np.arange(48)))
    run(s,
        ins("config_ld", 8, 2.0, 0, 1),   # id 1: stride 8, scale 2
        ins("config_ld", 12, 1.0, 0, 2),  # id 2: stride 12
        ins("mvin", BASE, 0, 2, 2),       # id 0 untouched: stride 4, scale 1
        ins("mvin2", BASE, 4, 2, 2),
        ins("mvin3", BASE, 8, 2, 2))
    sp = s.buffers["spad"]
    assert sp[0:2, :2].tolist() == [[0, 1], [4, 5]]
    assert sp[4:6, :2].tolist() == [[0, 2], [16, 18]]
    assert sp[8:10, :2].tolist() == [[0, 1], [12, 13]]


def test_mvin_address_zero_moves_zeros():
    s = machine()
    s.buffers["spad"][0:4] = 9
    s.buffers["acc"][0:2] = 5
    run(s, ins("mvin", 0, 1, 2, 2),
        ins("mvin", 0, ACC_BIT | ACCUMULATE_BIT | 0, 4, 1),  # accumulate zeros: unchanged
        ins("mvin", 0, ACC_BIT | 1, 3, 1))                  # overwrite with zeros
    assert s.buffers["spad"][0:4].tolist() == [[9, 9, 9, 9], [0, 0, 9, 9], [0, 0, 9, 9], [9, 9, 9, 9]]
    assert s.buffers["acc"][0:2].tolist() == [[5, 5, 5, 5], [0, 0, 0, 5]]


def test_mvin_wider_than_dim_goes_to_block_rows():
    s = machine()
    s.buffers["spad"][0:12] = -1
    s.memory.place(BASE, i8(np.arange(20).reshape(2, 10)))
    run(s, ins("config_ld", 10, 1.0, 0, 0), ins("mvin", BASE, 0, 10, 2))
    x = -1
    assert s.buffers["spad"][0:12].tolist() == [
        [0, 1, 2, 3], [10, 11, 12, 13], [x, x, x, x], [x, x, x, x],
        [4, 5, 6, 7], [14, 15, 16, 17], [x, x, x, x], [x, x, x, x],
        [8, 9, x, x], [18, 19, x, x], [x, x, x, x], [x, x, x, x],
    ]
    assert not s.buffers["spad"][12:].any()


def test_mvin_dim16_wide_block_rows():
    s = machine(ISA16)
    data = i8(np.arange(128).reshape(2, 64))
    s.memory.place(BASE, data)
    run(s, ins("config_ld", 64, 1.0, 0, 0), ins("mvin", BASE, 32, 64, 2))
    sp = s.buffers["spad"]
    for b in range(4):
        assert np.array_equal(sp[32 + 16 * b:32 + 16 * b + 2], data[:, 16 * b:16 * (b + 1)])
        assert not sp[32 + 16 * b + 2:32 + 16 * (b + 1)].any()
    assert not sp[:32].any() and not sp[96:].any()


# ============================================================================ mvin (accumulator)


def test_mvin_acc_reads_int32():
    s = machine()
    s.memory.place(BASE, i32([[I32_MAX, I32_MIN, 100000, -7], [1, 2, 3, 4]]))
    run(s, ins("config_ld", 16, 1.0, 0, 0), ins("mvin", BASE, ACC_BIT | 3, 4, 2))
    assert s.buffers["acc"][3:5].tolist() == [[I32_MAX, I32_MIN, 100000, -7], [1, 2, 3, 4]]
    assert not s.buffers["acc"][:3].any() and not s.buffers["acc"][5:].any()
    assert not s.buffers["spad"].any()


def test_mvin_acc_wider_than_dim_goes_to_block_rows():
    s = machine()
    s.memory.place(BASE, i32([[1, 2, 3, 4, 5, 6, 7, 8]]))
    run(s, ins("config_ld", 32, 1.0, 0, 0), ins("mvin", BASE, ACC_BIT | 2, 8, 1))
    acc = s.buffers["acc"]
    assert acc[2].tolist() == [1, 2, 3, 4]
    assert acc[6].tolist() == [5, 6, 7, 8]
    assert not acc[3:6].any()


def test_mvin_acc_accumulate_bit_adds_and_wraps():
    s = machine()
    s.memory.place(BASE, i32([[10, 20, 30, 40], [1, -2, 3, -4],
                              [I32_MAX, I32_MIN, -1, 5], [1, -1, I32_MIN, 0]]))
    run(s, ins("config_ld", 16, 1.0, 0, 0),
        ins("mvin", BASE, ACC_BIT | 0, 4, 1),
        ins("mvin", BASE + 16, ACC_BIT | ACCUMULATE_BIT | 0, 4, 1),
        ins("mvin", BASE + 32, ACC_BIT | 1, 4, 1),
        ins("mvin", BASE + 48, ACC_BIT | ACCUMULATE_BIT | 1, 4, 1))
    assert s.buffers["acc"][0].tolist() == [11, 18, 33, 36]
    # int32 wrap: 2**31-1 + 1 == -2**31, -2**31 - 1 == 2**31-1, -1 + -2**31 == 2**31-1
    assert s.buffers["acc"][1].tolist() == [I32_MIN, I32_MAX, I32_MAX, 5]


def test_mvin_acc_overwrite_without_accumulate_bit():
    s = machine()
    s.buffers["acc"][0] = 1000
    s.memory.place(BASE, i32([[1, 2, 3, 4]]))
    run(s, ins("config_ld", 16, 1.0, 0, 0), ins("mvin", BASE, ACC_BIT | 0, 4, 1))
    assert s.buffers["acc"][0].tolist() == [1, 2, 3, 4]


def test_mvin_acc_shrunk_reads_int8():
    s = machine()
    s.memory.place(BASE, i8([[-128, 127, -1, 0], [1, 2, 3, 4]]))
    run(s, ins("config_ld", 4, 1.0, 1, 0), ins("mvin", BASE, ACC_BIT | 0, 4, 2))
    assert s.buffers["acc"][0:2].tolist() == [[-128, 127, -1, 0], [1, 2, 3, 4]]
    # scaled int8 into the int32 accumulator is not saturated to int8
    run(s, ins("config_ld", 4, 100.0, 1, 0), ins("mvin", BASE, ACC_BIT | 4, 4, 1))
    assert s.buffers["acc"][4].tolist() == [-12800, 12700, -100, 0]


# ============================================================================ mvin scale


def test_mvin_scale_rounds_half_to_even():
    s = machine()
    s.memory.place(BASE, i8([[3, 5, -3, -5], [1, -1, 7, 2]]))
    run(s, ins("config_ld", 4, 0.5, 0, 0), ins("mvin", BASE, 0, 4, 2))
    assert s.buffers["spad"][0:2].tolist() == [[2, 2, -2, -2], [0, 0, 4, 1]]


def test_mvin_scale_is_a_float32_product():
    # float32(0.1) = 0.100000001490116...; 5 * that = 0.50000000745 rounds to float32 0.5 -> 0
    # (a float64 product would round to 1); 25 * 0.1f -> 2.5 -> 2; 127 * 0.1f = 12.7 -> 13
    s = machine()
    s.memory.place(BASE, i8([[127, -127, 5, 25]]))
    run(s, ins("config_ld", 4, 0.1, 0, 0), ins("mvin", BASE, 0, 4, 1))
    assert s.buffers["spad"][0].tolist() == [13, -13, 0, 2]


def test_mvin_scale_saturates_into_scratchpad():
    s = machine()
    s.memory.place(BASE, i8([[100, -100, 63, -64], [64, -65, 0, 1]]))
    run(s, ins("config_ld", 4, 2.0, 0, 0), ins("mvin", BASE, 0, 4, 2))
    assert s.buffers["spad"][0:2].tolist() == [[127, -128, 126, -128], [127, -128, 0, 2]]


def test_mvin_scale_into_accumulator_saturates_to_int32():
    s = machine()
    s.memory.place(BASE, i32([[2**30, -(2**30), 3, -3], [2**24 + 1, 7, 0, 0]]))
    run(s, ins("config_ld", 16, 4.0, 0, 0), ins("mvin", BASE, ACC_BIT | 0, 4, 1),
        ins("config_ld", 16, 2.0, 0, 0), ins("mvin", BASE + 16, ACC_BIT | 1, 2, 1),
        ins("config_ld", 16, 1.0, 0, 0), ins("mvin", BASE + 16, ACC_BIT | 2, 2, 1))
    assert s.buffers["acc"][0].tolist() == [I32_MAX, I32_MIN, 12, -12]
    # float32(2**24 + 1) == 2**24, so scale 2 gives 2**25; scale exactly 1 is the identity
    assert s.buffers["acc"][1, :2].tolist() == [2**25, 14]
    assert s.buffers["acc"][2, :2].tolist() == [2**24 + 1, 7]


def test_mvin_scale_into_accumulator_with_accumulate():
    s = machine()
    s.buffers["acc"][0] = [I32_MAX - 1, 10, 0, 0]
    s.memory.place(BASE, i32([[3, 3, -3, 5]]))
    run(s, ins("config_ld", 16, 0.5, 0, 0), ins("mvin", BASE, ACC_BIT | ACCUMULATE_BIT | 0, 4, 1))
    # 1.5 -> 2, 1.5 -> 2, -1.5 -> -2, 2.5 -> 2; then the int32 add wraps
    assert s.buffers["acc"][0].tolist() == [I32_MIN, 12, -2, 2]


# ============================================================================ mvout


def test_mvout_raw_from_accumulator_writes_int32_with_stride():
    s = machine()
    s.memory.data[:] = 0x55
    put(s.buffers["acc"], 2, [[I32_MAX, I32_MIN, 300, -300], [1, 2, 3, 4]])
    run(s, ins("config_st", 32), ins("mvout", BASE, ACC_BIT | RAW_BIT | 2, 4, 2))
    mem = s.memory
    assert mem.read(BASE, 4, np.int32).tolist() == [I32_MAX, I32_MIN, 300, -300]
    assert mem.read(BASE + 32, 4, np.int32).tolist() == [1, 2, 3, 4]
    assert (mem.data[16:32] == 0x55).all() and (mem.data[48:] == 0x55).all()


def test_mvout_scaled_applies_acc_scale_and_saturates():
    s = machine()
    put(s.buffers["acc"], 0, [[3, 5, -3, -5], [300, -300, 127, -129]])
    run(s, cfg_ex(acc_scale=0.5), ins("mvout", BASE, ACC_BIT | 0, 4, 2))
    assert s.memory.read(BASE, 8, np.int8).reshape(2, 4).tolist() == [[2, 2, -2, -2], [127, -128, 64, -64]]


def test_mvout_scaled_relu():
    s = machine()
    put(s.buffers["acc"], 0, [[3, 5, -3, -5], [300, -300, 127, -129]])
    run(s, cfg_ex(acc_scale=0.5, act=1), ins("mvout", BASE, ACC_BIT | 0, 4, 2))
    assert s.memory.read(BASE, 8, np.int8).reshape(2, 4).tolist() == [[2, 2, 0, 0], [127, 0, 64, 0]]


def test_mvout_scale_one_only_saturates():
    s = machine()
    put(s.buffers["acc"], 0, [[300, -300, 127, -129]])
    run(s, ins("mvout", BASE, ACC_BIT | 0, 4, 1))
    assert s.memory.read(BASE, 4, np.int8).tolist() == [127, -128, 127, -128]


def test_mvout_huge_acc_scale_saturates_with_the_right_sign():
    # x * 2**40 exceeds int64 for these accumulator values: still saturates to the int8 bounds
    s = machine()
    put(s.buffers["acc"], 0, [[I32_MAX, I32_MIN, 1, -1]])
    run(s, cfg_ex(acc_scale=2.0**40), ins("mvout", BASE, ACC_BIT | 0, 4, 1),
        cfg_ex(acc_scale=2.0**40, act=1), ins("mvout", BASE + 4, ACC_BIT | 0, 4, 1))
    assert s.memory.read(BASE, 4, np.int8).tolist() == [127, -128, 127, -128]
    assert s.memory.read(BASE + 4, 4, np.int8).tolist() == [127, 0, 127, 0]


def test_mvout_from_scratchpad_respects_config_st_stride():
    s = machine()
    s.memory.data[:] = 0x55
    put(s.buffers["spad"], 5, [[1, 2, 3, 4], [5, 6, 7, 8], [-1, -2, -3, -4]])
    run(s, ins("config_st", 7), ins("mvout", BASE, 5, 3, 3))
    u = 0x55
    assert s.memory.read(BASE, 20, np.int8).tolist() == [1, 2, 3, u, u, u, u,
                                                         5, 6, 7, u, u, u, u,
                                                         -1, -2, -3, u, u, u]


# ============================================================================ compute: weight-stationary

A1 = [[1, 2, 0, 0], [3, 4, 0, 0], [0, 0, 1, 0], [0, 0, 0, -1]]
B1 = [[5, 6, 0, 0], [7, 8, 0, 0], [0, 0, 2, 3], [0, 0, 4, 5]]
A1B1 = [[19, 22, 0, 0], [43, 50, 0, 0], [0, 0, 2, 3], [0, 0, -4, -5]]


def ws_machine(isa=ISA4, **spad_tiles) -> MachineState:
    s = machine(isa)
    rows = {"A": 0, "B": 4, "D": 8, "A2": 12, "B2": 16}
    for name, m in spad_tiles.items():
        put(s.buffers["spad"], rows[name], m)
    return s


def test_ws_preload_compute_into_accumulator():
    s = ws_machine(A=A1, B=B1)
    run(s, cfg_ex(), ins("preload", 4, ACC_BIT | 0, 4, 4, 4, 4), ins("compute_preloaded", 0, GARBAGE, 4, 4, 4, 4))
    assert s.buffers["acc"][0:4].tolist() == A1B1
    assert not s.buffers["acc"][4:].any()


def test_ws_bias_d_is_added():
    d = [[1, 1, 1, 1], [0, 0, 0, 0], [-1, -1, -1, -1], [100, 0, 0, -100]]
    s = ws_machine(A=A1, B=B1, D=d)
    run(s, cfg_ex(), ins("preload", 4, ACC_BIT | 0, 4, 4, 4, 4), ins("compute_preloaded", 0, 8, 4, 4, 4, 4))
    assert s.buffers["acc"][0:4].tolist() == [[20, 23, 1, 1], [43, 50, 0, 0], [-1, -1, 1, 2], [100, 0, -4, -105]]


def test_ws_accumulate_bit_adds_onto_accumulator():
    s = ws_machine(A=A1, B=B1)
    s.buffers["acc"][0:4] = 1000
    s.buffers["acc"][3, 3] = I32_MIN  # wraps: -2**31 + -5
    run(s, cfg_ex(), ins("preload", 4, ACC_BIT | ACCUMULATE_BIT | 0, 4, 4, 4, 4),
        ins("compute_preloaded", 0, GARBAGE, 4, 4, 4, 4))
    assert s.buffers["acc"][0:4].tolist() == [[1019, 1022, 1000, 1000], [1043, 1050, 1000, 1000],
                                              [1000, 1000, 1002, 1003], [1000, 1000, 996, I32_MAX - 4]]


def test_ws_output_into_scratchpad_saturates():
    a = [[127, 127, 127, 127]] * 4
    b = [[127, -128, 1, 0], [127, -128, 0, 0], [127, -128, 0, 0], [127, -128, 0, -1]]
    s = ws_machine(A=a, B=b)
    run(s, cfg_ex(), ins("preload", 4, 20, 4, 4, 4, 4), ins("compute_preloaded", 0, GARBAGE, 4, 4, 4, 4))
    assert s.buffers["spad"][20:24].tolist() == [[127, -128, 127, -127]] * 4


def test_ws_sys_shift_rounds_half_to_even_then_saturates():
    eye = np.eye(4, dtype=np.int8)
    b = [[6, 10, -6, -10], [14, 5, 7, -7], [2, -2, 3, -3], [1, -1, 4, -4]]
    s = ws_machine(A=eye, B=b)
    run(s, cfg_ex(sys_shift=2), ins("preload", 4, 20, 4, 4, 4, 4), ins("compute_preloaded", 0, GARBAGE, 4, 4, 4, 4))
    assert s.buffers["spad"][20:24].tolist() == [[2, 2, -2, -2], [4, 1, 2, -2], [0, 0, 1, -1], [0, 0, 1, -1]]
    # a row of ones times columns summing to 400, 508, -512, 253: >> 2 -> 100, 127 (sat), -128, 63
    s = ws_machine(A=[[1, 1, 1, 1]], B=[[100, 127, -128, 127], [100, 127, -128, 127],
                                        [100, 127, -128, 127], [100, 127, -128, -128]])
    run(s, cfg_ex(sys_shift=2), ins("preload", 4, 20, 4, 4, 4, 1), ins("compute_preloaded", 0, GARBAGE, 4, 1, 4, 4))
    assert s.buffers["spad"][20].tolist() == [100, 127, -128, 63]


def test_ws_sys_shift_not_applied_to_accumulator_output():
    s = ws_machine(A=A1, B=B1)
    run(s, cfg_ex(sys_shift=3), ins("preload", 4, ACC_BIT | 0, 4, 4, 4, 4), ins("compute_preloaded", 0, GARBAGE, 4, 4, 4, 4))
    assert s.buffers["acc"][0:4].tolist() == A1B1


@pytest.mark.parametrize("second", ["compute_accumulated", "compute_preloaded"])
def test_ws_garbage_preload_reuses_weights(second):
    b = [[1, 0, 0, 0], [0, 2, 0, 0], [0, 0, 3, 0], [0, 0, 0, 4]]
    a2 = [[1, 1, 1, 1], [2, 0, 0, 0], [0, 0, 0, -1], [0, 1, 0, 1]]
    s = ws_machine(A=A1, B=b, A2=a2)
    run(s, cfg_ex(),
        ins("preload", 4, ACC_BIT | 0, 4, 4, 4, 4), ins("compute_preloaded", 0, GARBAGE, 4, 4, 4, 4),
        ins("mvin", 0, 4, 4, 4),  # B's scratchpad rows are zeroed: the weights live in the array
        ins("preload", GARBAGE, ACC_BIT | 4, 4, 4, 4, 4), ins(second, 12, GARBAGE, 4, 4, 4, 4))
    assert s.buffers["acc"][4:8].tolist() == [[1, 2, 3, 4], [2, 0, 0, 0], [0, 0, 0, -4], [0, 2, 0, 4]]


def test_ws_compute_accumulated_ignores_a_new_preloaded_b():
    b = [[1, 0, 0, 0], [0, 2, 0, 0], [0, 0, 3, 0], [0, 0, 0, 4]]
    s = ws_machine(A=np.eye(4, dtype=np.int8), B=b, B2=B1)
    run(s, cfg_ex(),
        ins("preload", 4, ACC_BIT | 0, 4, 4, 4, 4), ins("compute_preloaded", 0, GARBAGE, 4, 4, 4, 4),
        ins("preload", 16, ACC_BIT | 4, 4, 4, 4, 4), ins("compute_accumulated", 0, GARBAGE, 4, 4, 4, 4))
    assert s.buffers["acc"][4:8].tolist() == b


def test_ws_compute_without_new_preload_writes_nothing():
    s = ws_machine(A=A1, B=B1, A2=[[1, 1, 1, 1]] * 4)
    run(s, cfg_ex(), ins("preload", 4, ACC_BIT | 0, 4, 4, 4, 4), ins("compute_preloaded", 0, GARBAGE, 4, 4, 4, 4))
    before = snapshot(s)
    run(s, ins("compute_accumulated", 12, GARBAGE, 4, 4, 4, 4), ins("compute_preloaded", 12, 0, 4, 4, 4, 4))
    after = snapshot(s)
    assert np.array_equal(before["buffers"]["acc"], after["buffers"]["acc"])
    assert np.array_equal(before["buffers"]["spad"], after["buffers"]["spad"])
    assert s.buffers["acc"][0:4].tolist() == A1B1


def test_ws_partial_tiles_are_zero_padded():
    s = machine()
    s.buffers["spad"][0:16] = 9
    s.buffers["acc"][0:4] = -7
    put(s.buffers["spad"], 0, [[1, 2], [3, 4], [5, 6]])           # A: 3 rows x 2 cols
    put(s.buffers["spad"], 4, [[1, 0, -1], [2, 1, 0]])           # B: 2 rows x 3 cols
    put(s.buffers["spad"], 8, [[10], [20]])                      # D: 2 rows x 1 col
    run(s, cfg_ex(), ins("preload", 4, ACC_BIT | 0, 3, 2, 3, 3), ins("compute_preloaded", 0, 8, 2, 3, 1, 2))
    assert s.buffers["acc"][0:4].tolist() == [[15, 2, -1, -7], [31, 4, -3, -7], [17, 6, -5, -7], [-7, -7, -7, -7]]


def test_ws_a_stride():
    s = machine()
    s.buffers["spad"][0:8] = 100
    a = [[1, 2, 3, 4], [5, 6, 7, 8], [-1, -2, -3, -4], [0, 1, 0, 1]]
    for r, row in enumerate(a):
        s.buffers["spad"][2 * r] = row
    put(s.buffers["spad"], 8, np.eye(4, dtype=np.int8))
    run(s, cfg_ex(a_stride=2), ins("preload", 8, ACC_BIT | 0, 4, 4, 4, 4), ins("compute_preloaded", 0, GARBAGE, 4, 4, 4, 4))
    assert s.buffers["acc"][0:4].tolist() == a


def test_ws_a_transpose_and_b_transpose():
    at = np.array([[1, 2, 0, 3], [0, 1, 4, 0], [2, 0, 1, 1], [5, 0, 0, 1]], dtype=np.int8)
    bt = np.array([[1, 0, 2, 0], [3, 1, 0, 0], [0, 0, 1, 6], [1, 1, 1, 1]], dtype=np.int8)
    a, b = at.astype(np.int32), bt.astype(np.int32)
    for a_t, b_t, expected in [(1, 0, a.T @ b), (0, 1, a @ b.T), (1, 1, a.T @ b.T)]:
        s = machine()
        put(s.buffers["spad"], 0, at)
        put(s.buffers["spad"], 4, bt)
        run(s, cfg_ex(a_transpose=a_t, b_transpose=b_t),
            ins("preload", 4, ACC_BIT | 0, 4, 4, 4, 4), ins("compute_preloaded", 0, GARBAGE, 4, 4, 4, 4))
        assert np.array_equal(s.buffers["acc"][0:4], expected), (a_t, b_t)
        assert not np.array_equal(expected, a @ b)


def test_dim16_full_tiles_wide_b():
    rng = np.random.default_rng(1)
    a = rng.integers(-128, 128, (16, 16), dtype=np.int8)
    b = rng.integers(-128, 128, (16, 64), dtype=np.int8)
    s = machine(ISA16, 1 << 16)
    s.memory.place(BASE, a)
    s.memory.place(BASE + 0x1000, b)
    prog = [cfg_ex(), ins("config_ld", 16, 1.0, 0, 0), ins("mvin", BASE, 0, 16, 16),
            ins("config_ld", 64, 1.0, 0, 1), ins("mvin2", BASE + 0x1000, 64, 64, 16),
            ins("config_st", 256)]
    for j in range(4):
        prog += [ins("preload", 64 + 16 * j, ACC_BIT | 16 * j, 16, 16, 16, 16),
                 ins("compute_preloaded", 0, GARBAGE, 16, 16, 16, 16),
                 ins("mvout", BASE + 0x4000 + 64 * j, ACC_BIT | RAW_BIT | 16 * j, 16, 16)]
    run(s, *prog)
    out = s.memory.read(BASE + 0x4000, 16 * 64, np.int32).reshape(16, 64)
    assert np.array_equal(out, a.astype(np.int32) @ b.astype(np.int32))


# ============================================================================ compute: output-stationary


def test_os_preload_bias_compute_writes_c():
    d = [[1, 1, 1, 1], [0, 0, 0, 0], [-1, -1, -1, -1], [100, 0, 0, -100]]
    s = ws_machine(A=A1, B=B1, D=d)
    run(s, cfg_ex(dataflow=OUTPUT_STATIONARY),
        ins("preload", 8, ACC_BIT | 0, 4, 4, 4, 4), ins("compute_preloaded", 0, 4, 4, 4, 4, 4))
    assert s.buffers["acc"][0:4].tolist() == [[20, 23, 1, 1], [43, 50, 0, 0], [-1, -1, 1, 2], [100, 0, -4, -105]]


def test_os_compute_accumulated_keeps_accumulating():
    d = [[1, 0, 0, 0]] * 4
    eye = np.eye(4, dtype=np.int8)
    s = ws_machine(A=A1, B=B1, D=d, A2=eye, B2=eye)
    run(s, cfg_ex(dataflow=OUTPUT_STATIONARY),
        ins("preload", 8, ACC_BIT | 0, 4, 4, 4, 4), ins("compute_preloaded", 0, 4, 4, 4, 4, 4),
        # no new preload: the partial sums keep accumulating, but nothing is written
        ins("compute_accumulated", 12, 16, 4, 4, 4, 4),
        ins("preload", GARBAGE, ACC_BIT | 4, 4, 4, 4, 4), ins("compute_accumulated", 12, 16, 4, 4, 4, 4))
    first = np.array(A1B1) + np.array(d)
    assert s.buffers["acc"][0:4].tolist() == first.tolist()
    assert s.buffers["acc"][4:8].tolist() == (first + 2 * np.eye(4, dtype=int)).tolist()


def test_os_sp_tiled_matmul_pattern_accumulates_over_k():
    # gemmini.h's sp_tiled_matmul_os issues preload(GARBAGE, k == K-1 ? C : GARBAGE) before
    # every compute: compute_preloaded for k == 0, compute_accumulated after
    eye = np.eye(4, dtype=np.int8)
    s = ws_machine(A=A1, B=B1, A2=eye, B2=[[1, 2, 3, 4]] * 4)
    run(s, cfg_ex(dataflow=OUTPUT_STATIONARY),
        ins("preload", GARBAGE, GARBAGE, 4, 4, 4, 4), ins("compute_preloaded", 0, 4, 4, 4, 4, 4),
        ins("preload", GARBAGE, ACC_BIT | 0, 4, 4, 4, 4), ins("compute_accumulated", 12, 16, 4, 4, 4, 4))
    assert s.buffers["acc"][0:4].tolist() == (np.array(A1B1) + [[1, 2, 3, 4]] * 4).tolist()


def test_os_output_into_scratchpad_with_shift():
    s = ws_machine(A=[[127, 127, 127, 127], [1, 1, 0, 0]], B=[[127, -128, 3, 1]] * 4)
    run(s, cfg_ex(dataflow=OUTPUT_STATIONARY, sys_shift=1),
        ins("preload", GARBAGE, 20, 4, 4, 4, 2), ins("compute_preloaded", 0, 4, 4, 2, 4, 4))
    # row 1: 254 >> 1 = 127, -256 >> 1 = -128, 6 >> 1 = 3, 2 >> 1 = 1
    assert s.buffers["spad"][20:22].tolist() == [[127, -128, 127, 127], [127, -128, 3, 1]]


# ============================================================================ invalid uses


@pytest.mark.parametrize("program", [
    [ins("mvin", BASE, 0, 4, 5)],                             # rows > DIM
    [ins("mvin", BASE, 0, 65, 1)],                            # cols > MAX_BYTES into the scratchpad
    [ins("mvin", BASE, ACC_BIT, 17, 1)],                      # cols > 16 into the accumulator
    [ins("mvout", BASE, 0, 5, 1)],                            # mvout wider than DIM
    [ins("config_ld", 4, 1.0, 0, 3)],                         # unknown config id
    [ins("config_ex", 2, 0, 0, 1.0, 0, 1, 0, 0)],             # unknown dataflow
    [ins("config_ex", 1, 7, 0, 1.0, 0, 1, 0, 0)],             # undescribed activation
    [ins("config_ex", 1, 0, 0, 1.0, 0, 0, 0, 0)],             # A stride 0
    [ins("config_ex", 1, 0, -1, 1.0, 0, 1, 0, 0)],            # negative sys_shift
    [ins("mvin", 0, ACC_BIT | 1022, 4, 4)],                   # accumulator rows out of range
    [ins("mvout", BASE, ACC_BIT | 1023, 4, 2)],               # accumulator rows out of range
    [ins("mvin", 0, 16383, 4, 2)],                            # scratchpad rows out of range
    [cfg_ex(), ins("preload", GARBAGE, ACC_BIT | 1022, 4, 4, 4, 4), ins("compute_preloaded", 0, GARBAGE, 4, 4, 4, 4)],
    [cfg_ex(), ins("preload", GARBAGE, ACC_BIT, 4, 4, 4, 4), ins("compute_preloaded", ACC_BIT | 0, GARBAGE, 4, 4, 4, 4)],
    [cfg_ex(), ins("preload", ACC_BIT | 0, ACC_BIT, 4, 4, 4, 4), ins("compute_preloaded", 0, GARBAGE, 4, 4, 4, 4)],
    [cfg_ex(), ins("preload", GARBAGE, ACC_BIT, 4, 4, 4, 4), ins("compute_preloaded", 0, ACC_BIT | 0, 4, 4, 4, 4)],
    [cfg_ex(dataflow=0), ins("preload", GARBAGE, ACC_BIT, 4, 4, 4, 4), ins("compute_preloaded", 0, ACC_BIT | 8, 4, 4, 4, 4)],
    [cfg_ex(dataflow=0), ins("preload", ACC_BIT | 8, ACC_BIT, 4, 4, 4, 4), ins("compute_preloaded", 0, 4, 4, 4, 4, 4)],
    [cfg_ex(), ins("preload", 4, ACC_BIT, 4, 5, 4, 4), ins("compute_preloaded", 0, GARBAGE, 4, 4, 4, 4)],
    [ins("preload", GARBAGE, ACC_BIT, 4, 4, 4, 5)],           # C rows > DIM
    [ins("mvin", BASE, 0)],                                   # wrong number of attributes
    [ins("fence", 0)],                                        # wrong number of attributes
    [ins("mvin", BASE, 0, 2.5, 1)],                           # non-integer integer attribute
    [ins("matmul", 0, 0)],                                    # unknown mnemonic
    [ins("mvin", 0x10, 0, 4, 1)],                             # HBM below its base
], ids=lambda p: " / ".join(i.name for i in p))
def test_invalid_uses_raise(program):
    s = machine()
    with pytest.raises(IsaError, match=rf"instruction {len(program) - 1} \({program[-1].name}"):
        run(s, *program)


def test_fence_and_flush_have_no_effect():
    def setup() -> MachineState:
        s = ws_machine(A=A1, B=B1)
        s.memory.place(BASE, i8(np.arange(16)))
        return s

    prog = [cfg_ex(acc_scale=0.5), ins("mvin", BASE, 20, 4, 4), ins("preload", 4, ACC_BIT | 0, 4, 4, 4, 4)]
    tail = [ins("compute_preloaded", 0, GARBAGE, 4, 4, 4, 4), ins("mvout", BASE + 64, ACC_BIT, 4, 4)]
    s1, s2 = setup(), setup()
    run(s1, *prog, *tail)
    run(s2, *prog, ins("fence"), ins("flush", 0), ins("flush", 1), ins("fence"), *tail)
    assert same_state(snapshot(s1), snapshot(s2))
    assert s2.executed == s1.executed + 4


# ============================================================================ fp32 configuration


def test_fp32_mvin_mvout_roundtrip():
    vals = f32([[1.5, -2.25, 1e-30, 3.4e38], [-0.0, 2.0**-149, -1e10, 7.0]])
    s = machine(ISA4F)
    s.memory.place(BASE, vals)
    run(s, ins("mvin", BASE, 0, 4, 2), ins("mvin", BASE, ACC_BIT | 0, 4, 2),
        ins("mvout", BASE + 0x100, 0, 4, 2), ins("mvout", BASE + 0x200, ACC_BIT | RAW_BIT | 0, 4, 2))
    assert s.buffers["spad"].dtype == np.float32 and s.buffers["acc"].dtype == np.float32
    for addr in (BASE + 0x100, BASE + 0x200):  # reset strides: DIM * 4 bytes
        out = s.memory.read(addr, 8, np.float32)
        assert np.array_equal(out.view(np.uint32), vals.reshape(-1).view(np.uint32))


def test_fp32_accumulate_is_a_float32_add():
    s = machine(ISA4F)
    s.memory.place(BASE, f32([[1.0, 1.0, 3.0, -1.0], [2.0**-24, 2.0**-23, 0.25, 1.0]]))
    run(s, ins("mvin", BASE, ACC_BIT | 0, 4, 1), ins("mvin", BASE + 16, ACC_BIT | ACCUMULATE_BIT | 0, 4, 1))
    assert s.buffers["acc"][0].tolist() == [1.0, 1.0 + 2.0**-23, 3.25, 0.0]


def test_fp32_scales_and_relu():
    s = machine(ISA4F)
    s.memory.place(BASE, f32([[3.0, -3.0, 1.0, 0.5]]))
    run(s, ins("config_ld", 16, 0.1, 0, 0), ins("mvin", BASE, 0, 4, 1))
    tenth = np.float32(0.1)
    assert s.buffers["spad"][0].tolist() == [np.float32(3) * tenth, np.float32(-3) * tenth, tenth, np.float32(0.5) * tenth]
    put(s.buffers["acc"], 0, [[3.0, -3.0, 1e30, -1.5]])
    run(s, cfg_ex(acc_scale=0.5), ins("mvout", BASE + 0x100, ACC_BIT | 0, 4, 1),
        cfg_ex(acc_scale=0.5, act=1), ins("mvout", BASE + 0x200, ACC_BIT | 0, 4, 1))
    assert s.memory.read(BASE + 0x100, 4, np.float32).tolist() == [1.5, -1.5, float(np.float32(5e29)), -0.75]
    assert s.memory.read(BASE + 0x200, 4, np.float32).tolist() == [1.5, 0.0, float(np.float32(5e29)), 0.0]


def test_fp32_compute_ws_and_os():
    a = f32([[0.5, 2.0, 0, 0], [1.0, -1.0, 0, 0], [0, 0, 0.25, 0], [0, 0, 0, 3.0]])
    b = f32([[2.0, 4.0, 0, 0], [0.5, 0.25, 0, 0], [0, 0, 8.0, 1.0], [0, 0, 0, -2.0]])
    expected = [[2.0, 2.5, 0, 0], [1.5, 3.75, 0, 0], [0, 0, 2.0, 0.25], [0, 0, 0, -6.0]]
    for dataflow in (WEIGHT_STATIONARY, OUTPUT_STATIONARY):
        s = ws_machine(ISA4F, A=a, B=b)
        if dataflow == WEIGHT_STATIONARY:
            prog = [ins("preload", 4, ACC_BIT | 0, 4, 4, 4, 4), ins("compute_preloaded", 0, GARBAGE, 4, 4, 4, 4),
                    ins("preload", 4, 20, 4, 4, 4, 4), ins("compute_preloaded", 0, GARBAGE, 4, 4, 4, 4)]
        else:
            prog = [ins("preload", GARBAGE, ACC_BIT | 0, 4, 4, 4, 4), ins("compute_preloaded", 0, 4, 4, 4, 4, 4),
                    ins("preload", GARBAGE, 20, 4, 4, 4, 4), ins("compute_preloaded", 0, 4, 4, 4, 4, 4)]
        run(s, cfg_ex(dataflow=dataflow), *prog)
        assert s.buffers["acc"][0:4].tolist() == expected
        assert s.buffers["spad"][20:24].tolist() == expected  # no saturation for floats


def test_fp32_compute_uses_fused_multiply_add():
    # D + a*w with D = -1, a = 1 + 2**-23, w = 1 - 2**-23: exactly -2**-46 when fused
    # (an unfused float32 product rounds to 1.0 and gives 0)
    s = ws_machine(ISA4F, A=[[1 + 2.0**-23]], B=[[1 - 2.0**-23]], D=[[-1.0]])
    run(s, cfg_ex(), ins("preload", 4, ACC_BIT | 0, 4, 4, 4, 4), ins("compute_preloaded", 0, 8, 4, 4, 4, 4))
    assert s.buffers["acc"][0, 0] == np.float32(-(2.0**-46))


def test_fp32_compute_accumulates_in_k_order():
    # k = 0: 0 + 2**12 * 2**12 = 2**24; k = 1: 2**24 + 1 -> 2**24 (ties to even); k = 2: - 2**24 -> 0
    s = ws_machine(ISA4F, A=[[2.0**12, 1.0, 1.0, 0.0]], B=[[2.0**12], [1.0], [-(2.0**24)], [0.0]])
    run(s, cfg_ex(), ins("preload", 4, ACC_BIT | 0, 1, 4, 1, 1), ins("compute_preloaded", 0, GARBAGE, 4, 1, 4, 4))
    assert s.buffers["acc"][0, 0] == 0.0


# ============================================================================ fma32 vs an exact reference

_TWO128 = Fraction(2) ** 128  # where float32 would continue after its largest finite value


def _ref_round_f32(x: Fraction) -> float:
    """``x`` (nonzero) rounded to the nearest float32, ties to even, overflowing to infinity;
    returned as a Python float (exact) so that signed zeros and infinities survive."""
    assert x != 0
    sign = -1.0 if x < 0 else 1.0
    m = abs(x)
    fmax = np.finfo(np.float32).max
    if m >= _TWO128:
        return math.copysign(math.inf, sign)
    # lo: the largest float32 <= m (a starting guess within a few ulps, then exact steps)
    lo = np.float32(min(float(m), float(fmax)))
    while Fraction(float(lo)) > m:
        lo = np.nextafter(lo, np.float32(0))
    while lo < fmax and Fraction(float(np.nextafter(lo, np.float32(np.inf)))) <= m:
        lo = np.nextafter(lo, np.float32(np.inf))
    # hi: the next float32 above lo; past the largest finite value float32 continues at 2**128
    hi_val = _TWO128 if lo == fmax else Fraction(float(np.nextafter(lo, np.float32(np.inf))))
    lo_val = Fraction(float(lo))
    assert lo_val <= m < hi_val
    d_lo, d_hi = m - lo_val, hi_val - m
    lo_even = int(lo.view(np.uint32)) & 1 == 0  # (2**128's significand is even, fmax's odd)
    if d_hi < d_lo or (d_hi == d_lo and not lo_even):
        mag = math.inf if lo == fmax else float(np.nextafter(lo, np.float32(np.inf)))
    else:
        mag = float(lo)
    return math.copysign(mag, sign)  # an underflow to zero keeps the sign of x


def ref_fma32(a: float, b: float, c: float) -> float:
    """float32 ``a*b + c`` with one rounding, from exact rationals (finite inputs)."""
    exact = Fraction(a) * Fraction(b) + Fraction(c)
    if exact != 0:
        return _ref_round_f32(exact)
    prod_neg = (math.copysign(1.0, a) < 0) != (math.copysign(1.0, b) < 0)
    if a * b == 0 and c == 0 and prod_neg and math.copysign(1.0, c) < 0:
        return -0.0  # (-0) + (-0)
    return 0.0       # exact cancellation rounds to +0 under round-to-nearest


def f32_bits(x: float) -> int:
    with np.errstate(over="ignore"):
        return int(np.float32(x).view(np.uint32))


def check_fma(triples: list[tuple[float, float, float]]) -> None:
    a, b, c = (f32([t[i] for t in triples]) for i in range(3))
    with np.errstate(over="ignore", invalid="ignore"):
        got = fma32(a, b, c)
    assert got.dtype == np.float32
    for (x, y, z), g in zip(triples, got, strict=True):
        ref = ref_fma32(float(np.float32(x)), float(np.float32(y)), float(np.float32(z)))
        assert int(g.view(np.uint32)) == f32_bits(ref), (x, y, z, float(g), ref)


def naive_fma32(a: float, b: float, c: float) -> float:
    """float32(float64(a*b + c)): exact product, but the sum rounded twice."""
    with np.errstate(over="ignore"):
        return float(np.float32(np.float64(a) * np.float64(b) + np.float64(c)))


HARD_CASES = [
    (1 + 2.0**-23, 1 - 2.0**-23, -1.0),                              # -2**-46 exactly
    (2.0**-12 * (1 + 2.0**-23), 2.0**-12 * (1 - 2.0**-23), 1 + 2.0**-23),   # just below a midpoint
    (-(2.0**-12) * (1 + 2.0**-23), 2.0**-12 * (1 - 2.0**-23), -(1 + 2.0**-23)),
    (2.0**-12 * (1 + 2.0**-23), -(2.0**-12) * (1 - 2.0**-23), 1 + 2.0**-23),  # just above a midpoint
    (2.0**51 * (1 + 2.0**-23), 2.0**52 * (1 - 2.0**-23), float(np.finfo(np.float32).max)),  # max, not inf
]


def test_fma32_hard_cases_defeat_naive_double_rounding():
    for a, b, c in HARD_CASES[1:]:
        assert f32_bits(naive_fma32(a, b, c)) != f32_bits(ref_fma32(a, b, c)), (a, b, c)
    check_fma(HARD_CASES)
    assert ref_fma32(*HARD_CASES[0]) == -(2.0**-46)
    assert ref_fma32(*HARD_CASES[1]) == 1 + 2.0**-23
    assert ref_fma32(*HARD_CASES[4]) == float(np.finfo(np.float32).max)


def test_fma32_special_cases():
    tiny = 2.0**-75
    check_fma([
        (tiny, tiny, 0.0),                      # 2**-150: tie between 0 and 2**-149 -> 0
        (tiny * (1 + 2.0**-23), tiny, 0.0),      # just above the tie -> 2**-149
        (-tiny, tiny * 1.5, 0.0),               # -1.5 * 2**-150 -> -2**-149
        (-tiny, tiny * 0.5, 0.0),               # -2**-151 -> -0
        (-0.0, 1.0, -0.0), (0.0, -1.0, -0.0), (1.0, 1.0, -1.0), (-1.0, 1.0, 1.0),
        (3e38, 3e38, 1.0), (-3e38, 3e38, 1.0),  # overflow
        (2.0**64, 2.0**64, -(2.0**127)),
        (float(np.finfo(np.float32).max), 1.0, float(np.finfo(np.float32).max)),
    ])
    assert ref_fma32(-tiny, tiny * 0.5, 0.0) == 0.0 and math.copysign(1, ref_fma32(-tiny, tiny * 0.5, 0.0)) < 0
    assert math.copysign(1, ref_fma32(1.0, 1.0, -1.0)) > 0


finite32 = st.floats(width=32, allow_nan=False, allow_infinity=False)


@hyp(1000)
@given(st.lists(st.tuples(finite32, finite32, finite32), min_size=1, max_size=16))
def test_fma32_random_against_exact(triples):
    check_fma(triples)


@st.composite
def near_midpoint(draw):
    """c a float32; a*b = +-ulp(c)/2 * (1 - k**2 * 2**-46): the exact sum lies just off the
    midpoint next to c (towards c), closer than float64 can resolve when c is normal and
    k <= 362."""
    mant = draw(st.integers(2**23, 2**24 - 1))
    e = draw(st.integers(-126, 127))
    c = math.ldexp(mant, e - 23) * draw(st.sampled_from([1.0, -1.0]))
    k = draw(st.integers(1, 2000))
    half_ulp_exp = e - 24
    ea = half_ulp_exp // 2
    a = math.ldexp(1 + k * 2.0**-23, ea) * draw(st.sampled_from([1.0, -1.0]))
    b = math.ldexp(1 - k * 2.0**-23, half_ulp_exp - ea)
    return a, b, c, mant % 2 == 1 and k <= 362


@hyp(1000)
@given(near_midpoint())
@example((2.0**-12 * (1 + 2.0**-23), 2.0**-12 * (1 - 2.0**-23), 1 + 2.0**-23, True))
def test_fma32_near_float32_midpoints(case):
    a, b, c, naive_must_fail = case
    assert np.float32(a) == a and np.float32(b) == b and np.float32(c) == c
    check_fma([(a, b, c)])
    if naive_must_fail:
        assert f32_bits(naive_fma32(a, b, c)) != f32_bits(ref_fma32(a, b, c))


@hyp(500)
@given(finite32, finite32, st.integers(-3, 3))
def test_fma32_cancellation(a, b, nudge):
    """c = -(float32(a*b)) nudged by a few ulps: the result is (close to) the product's
    rounding error."""
    with np.errstate(over="ignore"):
        p = np.float32(np.float64(a) * np.float64(b))
    if not np.isfinite(p):
        return
    c = -p
    for _ in range(abs(nudge)):
        c = np.nextafter(c, np.float32(math.copysign(np.inf, nudge)))
    if np.isfinite(c):
        check_fma([(a, b, float(c))])


# ============================================================================ oracle vs a NumPy model


def _tile_program(dataflow: int, m: int, n: int, k: int, a_row: int, b_row: int) -> list[Inst]:
    if dataflow == WEIGHT_STATIONARY:
        return [ins("preload", b_row, ACC_BIT | 0, n, k, n, m), ins("compute_preloaded", a_row, GARBAGE, k, m, 4, 4)]
    return [ins("preload", GARBAGE, ACC_BIT | 0, 4, 4, n, m), ins("compute_preloaded", a_row, b_row, k, m, n, k)]


@hyp(150)
@given(st.data())
def test_random_tile_matches_numpy(data):
    m, n, k = (data.draw(st.integers(1, 4)) for _ in range(3))
    dataflow = data.draw(st.sampled_from([WEIGHT_STATIONARY, OUTPUT_STATIONARY]))
    a = np.array(data.draw(st.lists(st.integers(-128, 127), min_size=m * k, max_size=m * k)), dtype=np.int8).reshape(m, k)
    b = np.array(data.draw(st.lists(st.integers(-128, 127), min_size=k * n, max_size=k * n)), dtype=np.int8).reshape(k, n)
    seed = data.draw(st.integers(0, 2**16))
    s = machine()
    # garbage everywhere outside the operand tiles: zero padding must hide it
    s.buffers["spad"][:16] = np.random.default_rng(seed).integers(-128, 128, (16, 4), dtype=np.int8)
    s.buffers["acc"][:8] = 12345
    s.memory.place(BASE, a)
    s.memory.place(BASE + 0x100, b)
    run(s, cfg_ex(dataflow=dataflow),
        ins("config_ld", k, 1.0, 0, 0), ins("mvin", BASE, 0, k, m),
        ins("config_ld", n, 1.0, 0, 1), ins("mvin2", BASE + 0x100, 4, n, k),
        *_tile_program(dataflow, m, n, k, 0, 4),
        ins("config_st", 4 * n), ins("mvout", BASE + 0x200, ACC_BIT | RAW_BIT | 0, n, m))
    out = s.memory.read(BASE + 0x200, m * n, np.int32).reshape(m, n)
    assert np.array_equal(out, a.astype(np.int32) @ b.astype(np.int32))


@hyp(100)
@given(st.data())
def test_random_k_tiles_accumulate(data):
    m, n = data.draw(st.integers(1, 4)), data.draw(st.integers(1, 4))
    kk = data.draw(st.integers(1, 12))  # up to three K tiles, the last one possibly partial
    dataflow = data.draw(st.sampled_from([WEIGHT_STATIONARY, OUTPUT_STATIONARY]))
    a = np.array(data.draw(st.lists(st.integers(-128, 127), min_size=m * kk, max_size=m * kk)), dtype=np.int8).reshape(m, kk)
    b = np.array(data.draw(st.lists(st.integers(-128, 127), min_size=kk * n, max_size=kk * n)), dtype=np.int8).reshape(kk, n)
    s = machine()
    s.buffers["spad"][:32] = 77
    s.memory.place(BASE, a)
    s.memory.place(BASE + 0x100, b)
    prog = [cfg_ex(dataflow=dataflow), ins("config_ld", kk, 1.0, 0, 0), ins("config_ld", n, 1.0, 0, 1)]
    tiles = range(0, kk, 4)
    for t, k0 in enumerate(tiles):
        kc = min(4, kk - k0)
        prog += [ins("mvin", BASE + k0, 4 * t, kc, m), ins("mvin2", BASE + 0x100 + k0 * n, 16 + 4 * t, n, kc)]
    for t, k0 in enumerate(tiles):
        kc, last = min(4, kk - k0), k0 + 4 >= kk
        if dataflow == WEIGHT_STATIONARY:  # sp_tiled_matmul_ws: accumulate into the accumulator
            c = ACC_BIT | (ACCUMULATE_BIT if t else 0)
            prog += [ins("preload", 16 + 4 * t, c, n, kc, n, m), ins("compute_preloaded", 4 * t, GARBAGE, kc, m, 4, 4)]
        else:  # sp_tiled_matmul_os: accumulate in the array, write C on the last k
            c = ACC_BIT if last else GARBAGE
            op = "compute_accumulated" if t else "compute_preloaded"
            prog += [ins("preload", GARBAGE, c, 4, 4, n, m), ins(op, 4 * t, 16 + 4 * t, kc, m, n, kc)]
    prog += [ins("config_st", 4 * n), ins("mvout", BASE + 0x200, ACC_BIT | RAW_BIT | 0, n, m)]
    run(s, *prog)
    out = s.memory.read(BASE + 0x200, m * n, np.int32).reshape(m, n)
    assert np.array_equal(out, a.astype(np.int32) @ b.astype(np.int32))


# ============================================================================ assembly


def _attr_strategy(kind: str):
    if kind == "hbm":
        return st.integers(0, 2**48)
    if kind == "local":
        return st.integers(0, 2**32 - 1)
    if kind == "int":
        return st.integers(-(2**40), 2**40)
    if kind == "float":
        return st.floats(allow_nan=False) | st.floats(width=32, allow_nan=False)
    assert kind == "bool", kind
    return st.integers(0, 1)


def _inst_strategy(isa, name: str):
    spec = isa.spec(name)
    return st.tuples(*(_attr_strategy(a.kind) for a in spec.attrs)).map(lambda args: Inst(name, args))


def _same_inst(x: Inst, y: Inst) -> bool:
    if x.name != y.name or len(x.args) != len(y.args):
        return False
    for u, v in zip(x.args, y.args, strict=True):
        if type(u) is not type(v) or u != v:
            return False
        if isinstance(u, float) and math.copysign(1.0, u) != math.copysign(1.0, v):
            return False
    return True


@pytest.mark.parametrize("name", list(ISA4.instructions))
@hyp(40)
@given(data=st.data())
def test_assembly_round_trip_each_instruction(name, data):
    insts = data.draw(st.lists(_inst_strategy(ISA4, name), min_size=1, max_size=5))
    text = format_program(ISA4, insts)
    prog = parse_program(ISA4, text)
    assert len(prog.instructions) == len(insts)
    assert all(_same_inst(x, y) for x, y in zip(insts, prog.instructions, strict=True)), text
    assert format_program(ISA4, prog.instructions) == text


region_strategy = st.builds(Region, st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,8}", fullmatch=True),
                            st.integers(0, 2**40), st.integers(0, 2**20), st.sampled_from(["int8", "int32", "float32"]))


@hyp(60)
@given(st.lists(st.one_of(*(_inst_strategy(ISA16, n) for n in ISA16.instructions)), max_size=12),
       st.lists(region_strategy, max_size=3),
       st.text(alphabet="abcXYZ 0123;,.=\n", max_size=40))
def test_assembly_round_trip_programs(insts, regions, comment):
    text = format_program(ISA16, insts, regions, comment)
    prog = parse_program(ISA16, text)
    assert prog.isa == "gemmini"
    assert prog.params == (("dim", "16"), ("config", "int8"))
    assert prog.regions == tuple(regions)
    assert len(prog.instructions) == len(insts)
    assert all(_same_inst(x, y) for x, y in zip(insts, prog.instructions, strict=True))


def test_assembly_text_format():
    insts = [ins("config_ld", 16, 0.5, 0, 1), ins("mvin", BASE, ACC_BIT | ACCUMULATE_BIT | 3, 4, 4),
             cfg_ex(acc_scale=0.25), ins("preload", GARBAGE, ACC_BIT, 4, 4, 4, 4), ins("fence"), ins("flush", 0)]
    text = format_program(ISA4, insts, [Region("A", 0x1000, 16, "int8")], "hello\nworld")
    assert text == ("; hello\n; world\n"
                    ".isa gemmini dim=4 config=int8\n"
                    ".region A 0x1000 16 int8\n"
                    "config_ld 16, 0.5, 0, 1\n"
                    "mvin 0x1000, 0xc0000003, 4, 4\n"
                    "config_ex 1, 0, 0, 0.25, 0, 1, 0, 0\n"
                    "preload 0xffffffff, 0x80000000, 4, 4, 4, 4\n"
                    "fence\n"
                    "flush 0\n")
    prog = parse_program(ISA4, "  mvin 0x1000 , 0x80000000,4,  4   ; trailing comment\n\n; only a comment\nfence\n")
    assert prog.instructions == (ins("mvin", 0x1000, ACC_BIT, 4, 4), ins("fence"))
    assert prog.params == () and prog.regions == ()


def test_format_rejects_invalid_instructions():
    with pytest.raises(IsaError):
        format_program(ISA4, [ins("mvin", BASE, 0, 4)])
    with pytest.raises(IsaError):
        format_program(ISA4, [ins("nop")])


@pytest.mark.parametrize(("text", "line", "fragment"), [
    ("mvin 0x1000, 0, 4, 4\nmatmul 1, 2\n", 2, "matmul"),                      # unknown mnemonic
    ("fence\n; comment\n\nmvin 0x1000, 0, 4\n", 4, "mvin takes 4 attributes"),  # wrong arity
    ("fence 1\n", 1, "fence takes 0 attributes"),
    ("flush\n", 1, "flush takes 1 attributes"),
    ("mvin 0x1000, 0, four, 4\n", 1, "four"),                                   # bad number
    ("config_ld 16, half, 0, 0\n", 1, "half"),
    ("mvin 0x1000, 0, 4.5, 4\n", 1, "4.5"),                                     # not an integer
    ("mvin 0x1000, 0, 4, 4\nmvin 0x10zz, 0, 4, 4\n", 2, "0x10zz"),
    (".isa gemmini dim=16 config=int8\n", 1, "dim"),                           # other dim
    ("fence\n.isa gemmini dim=4 config=fp32\n", 2, "config"),                   # other config
    (".isa tpu dim=4\n", 1, "tpu"),                                             # other accelerator
    (".bogus 1 2\n", 1, "unknown directive"),
    (".region A 0x1000 16\n", 1, ""),                                           # region arity
])
def test_parse_errors_name_the_line(text, line, fragment):
    with pytest.raises(AssemblyError) as e:
        parse_program(ISA4, text)
    msg = str(e.value)
    assert msg.startswith(f"line {line}: "), msg
    assert fragment in msg
    assert isinstance(e.value, IsaError)


def test_parse_accepts_matching_isa_header():
    prog = parse_program(ISA4F, ".isa gemmini dim=4 config=fp32\nconfig_ld 16, 0.5, 0, 0\n")
    assert prog.params == (("dim", "4"), ("config", "fp32"))
    assert prog.instructions == (ins("config_ld", 16, 0.5, 0, 0),)


# ---------------------------------------------------------------- the GEMM state machine (loop_ws)


def _loop_ws_program(m: int, n: int, k: int, ti: int, tj: int, tk: int, base: int, bias: bool, full_c: bool = True,
                     strides: tuple[int, int] | None = None) -> list[Inst]:
    """``C = D + A·B`` as ``tiled_matmul_auto`` drives the FSM: configure once, one call per
    ``(i0, j0, k0)`` block, partial sums kept across ``k0`` (``ex_accumulate``)."""
    from tenspiler.act.isa.gemmini import WEIGHT_STATIONARY

    a, b = base, base + m * k
    c = b + k * n
    d = c + 4 * m * n
    cb = 4 if full_c else 1
    sa, sb = strides or (k, n)
    prog = [Inst("config_ex", (WEIGHT_STATIONARY, 0, 0, 1.0, 0, 1, 0, 0)), Inst("config_st", (n * cb,)),
            Inst("config_ld", (sa, 1.0, 0, 0)), Inst("config_ld", (sb, 1.0, 0, 1)), Inst("config_ld", (0, 1.0, 0, 2))]
    nk = k // (16 * tk)
    for i0 in range(m // (16 * ti)):
        for j0 in range(n // (16 * tj)):
            for k0 in range(nk):
                prog.append(Inst("loop_ws", (
                    ti, tj, tk, 0, 0, 0, a + i0 * 16 * ti * k + k0 * 16 * tk, b + k0 * 16 * tk * n + j0 * 16 * tj,
                    d + j0 * 16 * tj * 4 if bias and k0 == 0 else 0,
                    c + (i0 * 16 * ti * n + j0 * 16 * tj) * cb if k0 == nk - 1 else 0,
                    k, n, 0, n, 0, 0, int(full_c), 0, int(k0 > 0), 0)))
    return [*prog, Inst("fence", ())]


@pytest.mark.parametrize(("ti", "tj", "tk", "bias", "full_c"), [
    (2, 3, 3, True, True), (1, 1, 1, False, True), (4, 1, 2, True, False), (1, 3, 6, False, False)])
def test_loop_ws_computes_the_blocked_product(ti: int, tj: int, tk: int, bias: bool, full_c: bool) -> None:
    """Several calls per output block (partial sums carried by ``ex_accumulate``), blocks in
    both halves of the scratchpad and the accumulator, a bias repeated down the rows, raw
    int32 or saturated int8 output: bit-exact against NumPy."""
    m, n, k = 64, 48, 96
    rng = np.random.default_rng(ti * 100 + tj * 10 + tk)
    small = 128 if full_c else 2
    a = rng.integers(-small, small, (m, k)).astype(np.int8)
    b = rng.integers(-small, small, (k, n)).astype(np.int8)
    d = rng.integers(-1000 if full_c else -3, 1000 if full_c else 3, (1, n)).astype(np.int32)
    base = 0x10000
    mem = HbmBuffer(m * k + k * n + 4 * m * n + 4 * n + 64, base)
    mem.place(base, a)
    mem.place(base + m * k, b)
    mem.place(base + m * k + k * n + 4 * m * n, d)
    Oracle(gemmini_isa(16, "int8")).run(_loop_ws_program(m, n, k, ti, tj, tk, base, bias, full_c), mem)
    want = a.astype(np.int64) @ b.astype(np.int64) + (d if bias else 0)
    got = mem.read(base + m * k + k * n, m * n, np.dtype(np.int32 if full_c else np.int8)).reshape(m, n)
    assert np.array_equal(got, want if full_c else np.clip(want, -128, 127))


def test_loop_ws_refuses_what_it_does_not_describe() -> None:
    isa = gemmini_isa(16, "int8")
    good = _loop_ws_program(32, 32, 32, 1, 1, 1, 0x10000, False)
    mem = HbmBuffer(32 * 32 * 8 + 64, 0x10000)
    Oracle(isa).run(good, mem)
    call = next(i for i in good if i.name == "loop_ws")
    for index, value, match in [(3, 1, "pad_I"), (14, 1, "A_transpose"), (17, 1, "low_D"), (0, 40, "half the scratchpad")]:
        bad = [*good[:5], Inst("loop_ws", tuple(value if j == index else v for j, v in enumerate(call.args)))]
        with pytest.raises(IsaError, match=match):
            Oracle(isa).run(bad, HbmBuffer(32 * 32 * 8 + 64, 0x10000))
    # the FSM moves data with the configured strides: a call with another stride is refused
    with pytest.raises(IsaError, match="config_ld id 0"):
        Oracle(isa).run(_loop_ws_program(32, 32, 32, 1, 1, 1, 0x10000, False, strides=(33, 32)), HbmBuffer(32 * 32 * 8 + 200, 0x10000))


def test_loop_ws_alternates_buffer_halves() -> None:
    """Successive calls use the two halves of the scratchpad; the accumulator half advances
    after a call that moves ``C`` out (LoopMatmul's C address registers), so a block's
    chunks share one."""
    from tenspiler.act.isa.gemmini import loop_ws_expansion

    fsm = {"call": 0, "acc": 0}
    args = dict(I=1, J=1, K=1, pad_I=0, pad_J=0, pad_K=0, A=0x1000, B=0x2000, D=0, A_stride=16, B_stride=16,
                D_stride=0, C_stride=16, A_transpose=0, B_transpose=0, full_C=1, low_D=0, act=0)
    first = loop_ws_expansion(fsm, 16, 16384, 1024, 1, 4, **args, C=0, ex_accumulate=0)            # a partial
    second = loop_ws_expansion(fsm, 16, 16384, 1024, 1, 4, **args, C=0x3000, ex_accumulate=1)      # its last chunk
    third = loop_ws_expansion(fsm, 16, 16384, 1024, 1, 4, **args, C=0x3000, ex_accumulate=0)       # the next block

    def where(prog: list[Inst], name: str, pos: int) -> int:
        return int(next(i for i in prog if i.name == name).args[pos])

    assert [where(p, "mvin", 1) // 8192 for p in (first, second, third)] == [0, 1, 0]
    assert [(where(p, "preload", 1) & ~(ACC_BIT | ACCUMULATE_BIT)) // 512 for p in (first, second, third)] == [0, 0, 1]
    assert where(first, "preload", 1) & ACCUMULATE_BIT == 0 and where(second, "preload", 1) & ACCUMULATE_BIT
