// The README's p.vmfb: elementwise add and mul of two 2x2xf32 tensors, compiled by IREE's own
// compiler for VMVX (CI has no Python: examples/p.vmfb is committed). Regenerate with
//   models/.venv/bin/iree-compile --iree-hal-target-device=local \
//       --iree-hal-local-target-device-backends=vmvx examples/p.mlir -o examples/p.vmfb
//   ./ortho run-module --module=examples/p.vmfb --function=mul \
//       --input="2x2xf32=1 2 3 4" --input="2x2xf32=[[10 20][30 40]]"   # 2x2xf32=[10 40][90 160]
module @p {
  func.func @add(%a: tensor<2x2xf32>, %b: tensor<2x2xf32>) -> tensor<2x2xf32> {
    %0 = arith.addf %a, %b : tensor<2x2xf32>
    return %0 : tensor<2x2xf32>
  }
  func.func @mul(%a: tensor<2x2xf32>, %b: tensor<2x2xf32>) -> tensor<2x2xf32> {
    %0 = arith.mulf %a, %b : tensor<2x2xf32>
    return %0 : tensor<2x2xf32>
  }
}
