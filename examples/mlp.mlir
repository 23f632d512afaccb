// A two-layer perceptron in StableHLO: x[4,8] -> dense(16) -> relu -> dense(3) -> softmax.
// It carries some dead code and a repeated computation for the passes to find.
func.func private @relu(%x: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %zero = stablehlo.constant dense<0.0> : tensor<4x16xf32>
  %0 = stablehlo.maximum %x, %zero : tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

func.func private @unused_gelu(%x: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %0 = stablehlo.tanh %x : tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

func.func @main(%x: tensor<4x8xf32>, %w1: tensor<8x16xf32>, %b1: tensor<16xf32>,
                %w2: tensor<16x3xf32>, %b2: tensor<3xf32>) -> tensor<4x3xf32> {
  %h = stablehlo.dot_general %x, %w1, contracting_dims = [1] x [0] : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %bb1 = stablehlo.broadcast_in_dim %b1, dims = [1] : (tensor<16xf32>) -> tensor<4x16xf32>
  %h1 = stablehlo.add %h, %bb1 : tensor<4x16xf32>
  %debug = stablehlo.multiply %h1, %h1 : tensor<4x16xf32>
  %a = func.call @relu(%h1) : (tensor<4x16xf32>) -> tensor<4x16xf32>
  %o = stablehlo.dot_general %a, %w2, contracting_dims = [1] x [0] : (tensor<4x16xf32>, tensor<16x3xf32>) -> tensor<4x3xf32>
  %bb2 = stablehlo.broadcast_in_dim %b2, dims = [1] : (tensor<3xf32>) -> tensor<4x3xf32>
  %logits = stablehlo.add %o, %bb2 : tensor<4x3xf32>
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %max = stablehlo.reduce(%logits init: %ninf) applies stablehlo.maximum across dimensions = [1] : (tensor<4x3xf32>, tensor<f32>) -> tensor<4xf32>
  %maxb = stablehlo.broadcast_in_dim %max, dims = [0] : (tensor<4xf32>) -> tensor<4x3xf32>
  %shift = stablehlo.subtract %logits, %maxb : tensor<4x3xf32>
  %e = stablehlo.exponential %shift : tensor<4x3xf32>
  %e_again = stablehlo.exponential %shift : tensor<4x3xf32>
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %sum = stablehlo.reduce(%e_again init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<4x3xf32>, tensor<f32>) -> tensor<4xf32>
  %sumb = stablehlo.broadcast_in_dim %sum, dims = [0] : (tensor<4xf32>) -> tensor<4x3xf32>
  %p = stablehlo.divide %e, %sumb : tensor<4x3xf32>
  return %p : tensor<4x3xf32>
}
