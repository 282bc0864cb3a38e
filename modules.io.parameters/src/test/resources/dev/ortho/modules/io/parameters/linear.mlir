// A 1x4 @ 4x4 + 4 linear layer whose weight and bias are externalized parameters of scope
// "model" (generate.sh compiles it for vmvx; the weights live in linear.irpa).
util.global private @weight = #flow.parameter.named<"model"::"weight"> : tensor<4x4xf32>
util.global private @bias = #flow.parameter.named<"model"::"bias"> : tensor<4xf32>
func.func @predict(%x: tensor<1x4xf32>) -> tensor<1x4xf32> {
  %w = util.global.load @weight : tensor<4x4xf32>
  %b = util.global.load @bias : tensor<4xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x4xf32>) -> tensor<1x4xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<1x4xf32>, tensor<4x4xf32>) outs(%f : tensor<1x4xf32>) -> tensor<1x4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i,j)->(i,j)>, affine_map<(i,j)->(j)>, affine_map<(i,j)->(i,j)>], iterator_types = ["parallel","parallel"]} ins(%mm, %b : tensor<1x4xf32>, tensor<4xf32>) outs(%e : tensor<1x4xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    linalg.yield %s : f32
  } -> tensor<1x4xf32>
  return %r : tensor<1x4xf32>
}
