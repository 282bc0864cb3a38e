"""Regenerates the NpyFileFuzzTest seed corpus (small arrays NumPy writes; run from this folder).

    /work/main/models/.venv/bin/python make_npy_seeds.py
"""
import io
import numpy as np

seeds = {
    "f32_2x2.npy": [np.arange(4, dtype=np.float32).reshape(2, 2)],
    "i32_scalar.npy": [np.array(7, dtype=np.int32)],
    "i8_4.npy": [np.array([1, -2, 3, -4], dtype=np.int8)],
    "f16_3.npy": [np.array([0.5, -2, 1], dtype=np.float16)],
    "bool_3.npy": [np.array([True, False, True])],
    "f64_empty.npy": [np.zeros((0, 3), dtype=np.float64)],
    "two_arrays.npy": [np.array([1, 2], dtype=np.int64), np.ones((1, 2), dtype=np.uint16)],
}
for name, arrays in seeds.items():
    out = io.BytesIO()
    for a in arrays:
        np.save(out, a)
    with open("npy/" + name, "wb") as f:
        f.write(out.getvalue())
# format version 2.0 (4-byte header length)
out = io.BytesIO()
np.lib.format.write_array(out, np.arange(3, dtype=np.int16), version=(2, 0))
with open("npy/i16_v2.npy", "wb") as f:
    f.write(out.getvalue())
