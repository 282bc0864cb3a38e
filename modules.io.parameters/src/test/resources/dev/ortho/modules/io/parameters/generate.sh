#!/usr/bin/env bash
# Regenerates the test data of modules.io.parameters with IREE's own tools (iree-base-compiler and
# iree-base-runtime 3.12.0 from PyPI, plus numpy). CI uses the committed files; run this only to
# change them:
#   IREE_VENV=/path/to/venv modules.io.parameters/src/test/resources/dev/ortho/modules/io/parameters/generate.sh
# Outputs (next to this script):
#   single.irpa  mixed.irpa  empty.irpa   archives written by IREE's runtime (ParameterIndex.create_archive_file)
#   linear.vmfb                           linear.mlir compiled by iree-compile for vmvx
#   linear.irpa                           its parameters: model::weight (4x4 f32 data), model::bias (splat)
#   linear_input.npy linear_output.npy    an input and iree-run-module's output for it
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
venv="${IREE_VENV:-$here/../../../../../../../../../models/.venv}"
py="$venv/bin/python"
cd "$here"

"$py" - <<'PY'
import numpy as np
import iree.runtime as rt

def archive(path, fill):
    index = rt.ParameterIndex()
    fill(index)
    index.create_archive_file(path)

# One data parameter: 16 bytes 0..15.
archive("single.irpa", lambda i: i.add_buffer("key0", bytes(range(16))))
# Data, splat and metadata: a (3-byte data, odd length), b (splat of 0x11223344 x 8 = 32 bytes),
# c (100 bytes of 0xC3, with metadata "meta").
def mixed(i):
    i.add_buffer("a", b"abc")
    i.add_splat("b", np.array([0x11223344], dtype=np.uint32), 32)
    i.add_buffer("c", bytes([0xC3]) * 100, metadata="meta")
archive("mixed.irpa", mixed)
archive("empty.irpa", lambda i: None)

# The linear model's parameters: weight[i][j] = (i * 4 + j) / 8, bias = splat 0.5.
weight = (np.arange(16, dtype=np.float32) / 8).reshape(4, 4)
def linear(i):
    i.add_buffer("weight", weight.tobytes())
    i.add_splat("bias", np.array([0.5], dtype=np.float32), 16)
archive("linear.irpa", linear)
np.save("linear_input.npy", np.array([[1.0, -2.0, 3.0, 0.25]], dtype=np.float32))
PY

"$venv/bin/iree-compile" --iree-hal-target-backends=vmvx linear.mlir -o linear.vmfb
"$venv/bin/iree-run-module" --device=local-sync --module=linear.vmfb --function=predict \
    --parameters=model=linear.irpa --input=@linear_input.npy --output=@linear_output.npy
echo "expected output:"
"$venv/bin/iree-run-module" --device=local-sync --module=linear.vmfb --function=predict \
    --parameters=model=linear.irpa --input=@linear_input.npy
