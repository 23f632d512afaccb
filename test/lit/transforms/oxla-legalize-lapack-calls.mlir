// RUN: oxla-opt %s --split-input-file -p 'builtin.module(oxla-legalize-lapack-calls)' | FileCheck %s
// RUN: oxla-opt %s --split-input-file -p 'builtin.module(oxla-legalize-cholesky)' | FileCheck %s --check-prefix=OP

// LU with partial pivoting of a batch of two 4x3 matrices: a loop over the
// three columns; each trip finds the largest entry at or below the diagonal
// (a maximum, then the first row holding it), gathers that row of each
// matrix, swaps it with the diagonal's, and updates the trailing block by
// the multipliers, written with the column in one select. After the loop
// the pivots become 1-based and info is the first zero on the diagonal
// (1-based, or 0).
// CHECK-LABEL: func.func @getrf
// CHECK:         %[[LOOP:.*]]:3 = stablehlo.while(%[[J:.*]] = %{{.*}}, %[[LU:.*]] = %arg0, %[[PIV:.*]] = %{{.*}})
// CHECK:           stablehlo.constant dense<3> : tensor<i32>
// CHECK:         } do {
// CHECK:           %[[COLUMN:.*]] = stablehlo.dynamic_slice %[[LU]], %{{.*}}, %{{.*}}, %[[J]], sizes = [2, 4, 1]
// CHECK:           %[[SIZE:.*]] = stablehlo.abs %[[COLUMN]]
// CHECK:           stablehlo.reduce(%{{.*}} init: %{{.*}}) applies stablehlo.maximum across dimensions = [1]
// CHECK:           %[[PIVOT:.*]] = stablehlo.reduce(%{{.*}} init: %{{.*}}) applies stablehlo.minimum across dimensions = [1, 2] : (tensor<2x4x1xi32>, tensor<i32>) -> tensor<2xi32>
// CHECK:           "stablehlo.gather"(%[[LU]], %{{.*}}) <{dimension_numbers = #stablehlo.gather<offset_dims = [2], collapsed_slice_dims = [1], operand_batching_dims = [0], start_indices_batching_dims = [0], start_index_map = [1], index_vector_dim = 2>, slice_sizes = array<i64: 1, 1, 3>}>
// CHECK:           stablehlo.divide
// CHECK:           %[[UPDATED:.*]] = stablehlo.subtract
// CHECK:           %[[KEPT:.*]] = stablehlo.select %{{.*}}, %[[UPDATED]], %{{.*}}
// CHECK:           stablehlo.select %{{.*}}, %{{.*}}, %[[KEPT]] : tensor<2x4x3xi1>, tensor<2x4x3xf32>
// CHECK:           %[[AT:.*]] = stablehlo.reshape %[[PIVOT]] : (tensor<2xi32>) -> tensor<2x1xi32>
// CHECK:           stablehlo.dynamic_update_slice %[[PIV]], %[[AT]], %{{.*}}, %[[J]]
// CHECK:         %[[ZERO:.*]] = stablehlo.compare EQ, %[[LOOP]]#1, %{{.*}}, FLOAT
// CHECK:         %[[FIRST:.*]] = stablehlo.reduce(%{{.*}} init: %{{.*}}) applies stablehlo.minimum across dimensions = [1, 2]
// CHECK:         %[[INFO:.*]] = stablehlo.select %{{.*}}, %[[FIRST]], %{{.*}} : tensor<2xi1>, tensor<2xi32>
// CHECK:         %[[ONE_BASED:.*]] = stablehlo.add %[[LOOP]]#2, %{{.*}} : tensor<2x3xi32>
// CHECK:         return %[[LOOP]]#1, %[[ONE_BASED]], %[[INFO]]
func.func @getrf(%a: tensor<2x4x3xf32>) -> (tensor<2x4x3xf32>, tensor<2x3xi32>, tensor<2xi32>) {
  %r:3 = stablehlo.custom_call @lapack_sgetrf_ffi(%a) {mhlo.backend_config = {}, mhlo.frontend_attributes = {num_batch_dims = "1"}} : (tensor<2x4x3xf32>) -> (tensor<2x4x3xf32>, tensor<2x3xi32>, tensor<2xi32>)
  return %r#0, %r#1, %r#2 : tensor<2x4x3xf32>, tensor<2x3xi32>, tensor<2xi32>
}

// -----

// A square LU of 128 columns goes by four panels of 32: in each, a loop of
// a trip per column over the panel alone ([128, 32]), which also makes the
// panel's rows of U from the rows as the panel started (a gather) less a
// product with the rows made before; then the rows' exchanges gathered at
// once over the whole matrix and the trailing matrix less one product.
// CHECK-LABEL: func.func @getrf_panels
// CHECK:         %[[PANELS:.*]]:3 = stablehlo.while(%[[P:.*]] = %{{.*}}, %[[LU:.*]] = %arg0, %{{.*}} = %{{.*}})
// CHECK:           stablehlo.constant dense<4> : tensor<i32>
// CHECK:         } do {
// CHECK:           %[[PANEL:.*]] = stablehlo.dynamic_slice %[[LU]], %{{.*}}, %{{.*}}, sizes = [128, 32]
// CHECK:           %[[COLUMNS:.*]]:7 = stablehlo.while(%{{.*}} = %{{.*}}, %{{.*}} = %[[PANEL]], %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %[[LU]], %{{.*}} = %{{.*}})
// CHECK:             stablehlo.constant dense<32> : tensor<i32>
// CHECK:             "stablehlo.gather"{{.*}}slice_sizes = array<i64: 1, 128>{{.*}} -> tensor<1x128xf32>
// CHECK:             stablehlo.dot_general %{{.*}}, %{{.*}}, contracting_dims = [1] x [0] : (tensor<1x32xf32>, tensor<32x128xf32>) -> tensor<1x128xf32>
// CHECK:           %[[EXCHANGED:.*]] = "stablehlo.gather"(%[[LU]], %[[COLUMNS]]#2)
// CHECK:           stablehlo.dot_general %{{.*}}, %{{.*}}, contracting_dims = [1] x [0] : (tensor<128x32xf32>, tensor<32x128xf32>) -> tensor<128x128xf32>
// CHECK:           stablehlo.subtract
// CHECK:         return
func.func @getrf_panels(%a: tensor<128x128xf32>) -> (tensor<128x128xf32>, tensor<128xi32>, tensor<i32>) {
  %r:3 = stablehlo.custom_call @lapack_sgetrf_ffi(%a) {mhlo.backend_config = {}} : (tensor<128x128xf32>) -> (tensor<128x128xf32>, tensor<128xi32>, tensor<i32>)
  return %r#0, %r#1, %r#2 : tensor<128x128xf32>, tensor<128xi32>, tensor<i32>
}

// -----

// Cholesky of the upper triangle (uplo 'U' = 85): the lower factor of the
// transpose, a column a trip (the matrix times row j of the factor so far,
// a square root, a division), transposed back; the lower triangle keeps the
// operand's entries. info: the first diagonal entry that is not positive.
// CHECK-LABEL: func.func @potrf_upper
// CHECK:         %[[T:.*]] = stablehlo.transpose %arg0, dims = [1, 0]
// CHECK:         %[[LOOP:.*]]:2 = stablehlo.while
// CHECK:           stablehlo.dynamic_slice %[[T]]
// CHECK:           stablehlo.dot_general
// CHECK:           stablehlo.sqrt
// CHECK:           stablehlo.divide
// CHECK:         %[[POSITIVE:.*]] = stablehlo.compare GT, %[[LOOP]]#1, %{{.*}}, FLOAT
// CHECK:         %[[FIRST:.*]] = stablehlo.reduce(%{{.*}} init: %{{.*}}) applies stablehlo.minimum across dimensions = [0, 1]
// CHECK:         %[[INFO:.*]] = stablehlo.select %{{.*}}, %[[FIRST]], %{{.*}} : tensor<i1>, tensor<i32>
// CHECK:         %[[U:.*]] = stablehlo.transpose %[[LOOP]]#1, dims = [1, 0]
// CHECK:         %[[UPPER:.*]] = stablehlo.compare LE
// CHECK:         %[[R:.*]] = stablehlo.select %[[UPPER]], %[[U]], %arg0
// CHECK:         return %[[R]], %[[INFO]]
func.func @potrf_upper(%a: tensor<4x4xf64>) -> (tensor<4x4xf64>, tensor<i32>) {
  %r:2 = stablehlo.custom_call @lapack_dpotrf_ffi(%a) {mhlo.backend_config = {uplo = 85 : ui8}} : (tensor<4x4xf64>) -> (tensor<4x4xf64>, tensor<i32>)
  return %r#0, %r#1 : tensor<4x4xf64>, tensor<i32>
}

// -----

// A Cholesky factor of 128 columns goes by four panels of 32: the panel of
// the matrix less the product of the columns before it with their rows in
// the panel (one matmul), then a trip per column over the panel alone.
// CHECK-LABEL: func.func @potrf_panels
// CHECK:         %[[PANELS:.*]]:2 = stablehlo.while
// CHECK:           stablehlo.constant dense<4> : tensor<i32>
// CHECK:         } do {
// CHECK:           stablehlo.dot_general %{{.*}}, %{{.*}}, contracting_dims = [1] x [1] : (tensor<128x128xf32>, tensor<32x128xf32>) -> tensor<128x32xf32>
// CHECK:           stablehlo.while
// CHECK:             stablehlo.constant dense<32> : tensor<i32>
// CHECK:             stablehlo.dot_general %{{.*}}, %{{.*}}, contracting_dims = [1] x [1] : (tensor<128x32xf32>, tensor<1x32xf32>) -> tensor<128x1xf32>
// CHECK:           stablehlo.dynamic_update_slice %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : (tensor<128x128xf32>, tensor<128x32xf32>
func.func @potrf_panels(%a: tensor<128x128xf32>) -> (tensor<128x128xf32>, tensor<i32>) {
  %r:2 = stablehlo.custom_call @lapack_spotrf_ffi(%a) {mhlo.backend_config = {uplo = 76 : ui8}} : (tensor<128x128xf32>) -> (tensor<128x128xf32>, tensor<i32>)
  return %r#0, %r#1 : tensor<128x128xf32>, tensor<i32>
}

// -----

// A triangular solve: side 'R', uplo 'U', trans 'C', diag 'U'.
// CHECK-LABEL: func.func @trsm
// CHECK:         "stablehlo.triangular_solve"(%arg0, %arg1) <{left_side = false, lower = false, transpose_a = #stablehlo<transpose ADJOINT>, unit_diagonal = true}>
// CHECK-NOT:     custom_call
func.func @trsm(%a: tensor<3x3xcomplex<f32>>, %b: tensor<2x3xcomplex<f32>>) -> tensor<2x3xcomplex<f32>> {
  %r = stablehlo.custom_call @lapack_ctrsm_ffi(%a, %b) {mhlo.backend_config = {diag = 85 : ui8, side = 82 : ui8, trans_x = 67 : ui8, uplo = 85 : ui8}} : (tensor<3x3xcomplex<f32>>, tensor<2x3xcomplex<f32>>) -> tensor<2x3xcomplex<f32>>
  return %r : tensor<2x3xcomplex<f32>>
}

// -----

// Householder QR, a reflector a column (three trips), then Q from the
// reflectors, last first, starting from the identity's first columns.
// CHECK-LABEL: func.func @qr
// CHECK:         %[[QR:.*]]:3 = stablehlo.while(%{{.*}} = %{{.*}}, %{{.*}} = %arg0, %{{.*}} = %{{.*}}) : tensor<i32>, tensor<5x3xf32>, tensor<3xf32>
// CHECK:           stablehlo.constant dense<3> : tensor<i32>
// CHECK:           stablehlo.sqrt
// CHECK:           stablehlo.dot_general %{{.*}}, %{{.*}}, contracting_dims = [0] x [0] : (tensor<5x1xf32>, tensor<5x3xf32>) -> tensor<1x3xf32>
// CHECK:         %[[EYE:.*]] = stablehlo.convert %{{.*}} : (tensor<5x3xi1>) -> tensor<5x3xf32>
// CHECK:         %[[Q:.*]]:2 = stablehlo.while(%{{.*}} = %{{.*}}, %{{.*}} = %[[EYE]])
// CHECK:           stablehlo.subtract %{{.*}}, %{{.*}} : tensor<i32>
// CHECK:           stablehlo.dynamic_slice %[[QR]]#1
// CHECK:           stablehlo.dynamic_slice %[[QR]]#2
// CHECK:         return %[[Q]]#1
func.func @qr(%a: tensor<5x3xf32>) -> tensor<5x3xf32> {
  %r:2 = stablehlo.custom_call @lapack_sgeqrf_ffi(%a) {mhlo.backend_config = {}} : (tensor<5x3xf32>) -> (tensor<5x3xf32>, tensor<3xf32>)
  %q = stablehlo.custom_call @lapack_sorgqr_ffi(%r#0, %r#1) {mhlo.backend_config = {}} : (tensor<5x3xf32>, tensor<3xf32>) -> tensor<5x3xf32>
  return %q : tensor<5x3xf32>
}

// -----

// Reduction to Hessenberg form with LAPACK's ilo = 2, ihi = 4: a loop of
// ihi - ilo = 2 trips, each a reflector applied from the right (A v, a
// matrix-vector product) and from the left (v^H A), its column and tau
// written back; info is 0.
// CHECK-LABEL: func.func @hessenberg
// CHECK-NOT:     lapack_dgehrd
// CHECK:         %[[LOOP:.*]]:3 = stablehlo.while
// CHECK:           stablehlo.constant dense<2> : tensor<i32>
// CHECK:           stablehlo.dot_general %{{.*}}, contracting_dims = [1] x [0] : (tensor<5x5xf64>, tensor<5x1xf64>) -> tensor<5x1xf64>
// CHECK:           stablehlo.dot_general %{{.*}}, contracting_dims = [0] x [0] : (tensor<5x1xf64>, tensor<5x5xf64>) -> tensor<1x5xf64>
// CHECK:           stablehlo.dynamic_update_slice %{{.*}} : (tensor<5x5xf64>, tensor<5x1xf64>, tensor<i32>, tensor<i32>) -> tensor<5x5xf64>
// CHECK:           stablehlo.dynamic_update_slice %{{.*}} : (tensor<4xf64>, tensor<1xf64>, tensor<i32>) -> tensor<4xf64>
// CHECK:         %[[INFO:.*]] = stablehlo.constant dense<0> : tensor<i32>
// CHECK:         return %[[LOOP]]#1, %[[LOOP]]#2, %[[INFO]]
func.func @hessenberg(%a: tensor<5x5xf64>) -> (tensor<5x5xf64>, tensor<4xf64>, tensor<i32>) {
  %r:3 = stablehlo.custom_call @lapack_dgehrd_ffi(%a) {mhlo.backend_config = {high = 4 : i32, low = 2 : i32}} : (tensor<5x5xf64>) -> (tensor<5x5xf64>, tensor<4xf64>, tensor<i32>)
  return %r#0, %r#1, %r#2 : tensor<5x5xf64>, tensor<4xf64>, tensor<i32>
}

// -----

// Symmetric eigenvalues by Jacobi rotations, in f64: sweeps (a loop that
// stops once the off-diagonal part stops shrinking) of three rounds each
// (an odd size gets a zero row and column: four indices, paired three ways
// by the round-robin table), then the values, back in f32, sorted with
// their vectors.
// CHECK-LABEL: func.func @eigh
// CHECK:         %[[WIDE:.*]] = stablehlo.convert %{{.*}} : (tensor<3x3xf32>) -> tensor<3x3xf64>
// CHECK:         %[[PADDED:.*]] = stablehlo.pad %[[WIDE]], %{{.*}}, low = [0, 0], high = [1, 1]
// CHECK:         stablehlo.constant dense<{{\[\[}}3, 2, 1, 0], [2, 3, 0, 1], [1, 0, 3, 2]]> : tensor<3x4xi32>
// CHECK:         %[[SWEEPS:.*]]:5 = stablehlo.while(%{{.*}} = %{{.*}}, %{{.*}} = %[[PADDED]], %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) : tensor<i32>, tensor<4x4xf64>, tensor<4x4xf64>, tensor<f64>, tensor<f64>
// CHECK:         cond {
// CHECK:           stablehlo.constant dense<16> : tensor<i32>
// CHECK:         } do {
// CHECK:           stablehlo.while
// CHECK:             stablehlo.constant dense<3> : tensor<i32>
// CHECK:             "stablehlo.gather"
// CHECK:             stablehlo.sqrt
// CHECK:         stablehlo.convert %{{.*}} : (tensor<3xf64>) -> tensor<3xf32>
// CHECK:         "stablehlo.sort"
func.func @eigh(%a: tensor<3x3xf32>) -> (tensor<3x3xf32>, tensor<3xf32>, tensor<i32>) {
  %r:3 = stablehlo.custom_call @lapack_ssyevd_ffi(%a) {mhlo.backend_config = {mode = 86 : ui8, uplo = 76 : ui8}} : (tensor<3x3xf32>) -> (tensor<3x3xf32>, tensor<3xf32>, tensor<i32>)
  return %r#0, %r#1, %r#2 : tensor<3x3xf32>, tensor<3xf32>, tensor<i32>
}

// -----

// Singular values by one-sided Jacobi rotations of the rows of a^T (a is
// tall) in f64 (the rows' Gram matrix measures how far they are from
// orthogonal, before the sweeps and after each): each round rotates a row
// with its partner by their norms and dot product; the norms sorted descending are the values, the vectors
// completed by a Householder QR (a loop of a reflector a column, then Q).
// CHECK-LABEL: func.func @svd
// CHECK:         %[[T:.*]] = stablehlo.transpose %arg0, dims = [1, 0] : (tensor<4x3xf32>) -> tensor<3x4xf32>
// CHECK:         %[[X:.*]] = stablehlo.convert %[[T]] : (tensor<3x4xf32>) -> tensor<3x4xf64>
// CHECK:         %[[PADDED:.*]] = stablehlo.pad %[[X]], %{{.*}}, low = [0, 0], high = [1, 0]
// CHECK:         stablehlo.dot_general %[[PADDED]], %[[PADDED]]
// CHECK:         stablehlo.while(%{{.*}} = %{{.*}}, %{{.*}} = %[[PADDED]], %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) : tensor<i32>, tensor<4x4xf64>, tensor<4x4xf64>, tensor<f64>, tensor<f64>
// CHECK:         } do {
// CHECK:           stablehlo.while
// CHECK:             "stablehlo.gather"
// CHECK:             stablehlo.reduce
// CHECK:             stablehlo.sqrt
// CHECK:         "stablehlo.sort"
// CHECK:           stablehlo.compare GT, %{{.*}}, %{{.*}}, FLOAT
// CHECK:         stablehlo.while
// CHECK:         stablehlo.while
// CHECK:         stablehlo.concatenate %{{.*}}, %{{.*}}, dim = 1 : (tensor<4x3xf64>, tensor<4x1xf64>) -> tensor<4x4xf64>
func.func @svd(%a: tensor<4x3xf32>) -> (tensor<4x3xf32>, tensor<3xf32>, tensor<4x4xf32>, tensor<3x3xf32>, tensor<i32>) {
  %r:5 = stablehlo.custom_call @lapack_sgesdd_ffi(%a) {mhlo.backend_config = {mode = 65 : ui8}} : (tensor<4x3xf32>) -> (tensor<4x3xf32>, tensor<3xf32>, tensor<4x4xf32>, tensor<3x3xf32>, tensor<i32>)
  return %r#0, %r#1, %r#2, %r#3, %r#4 : tensor<4x3xf32>, tensor<3xf32>, tensor<4x4xf32>, tensor<3x3xf32>, tensor<i32>
}

// -----

// Complex Hermitian eigenvalues (heevd): the same sweeps in complex<f64>, each pair's entry made real by
// its phase (its magnitude, and the entry over it) before the rotation; real eigenvalues, the
// eigenvectors the conjugate transpose of the rotated rows.
// CHECK-LABEL: func.func @complex_eigh
// CHECK-NOT:     custom_call
// CHECK:         stablehlo.convert %{{.*}} : (tensor<4x4xcomplex<f32>>) -> tensor<4x4xcomplex<f64>>
// CHECK:         stablehlo.while
// CHECK:           stablehlo.abs %{{.*}} : (tensor<4x1xcomplex<f64>>) -> tensor<4x1xf64>
// CHECK:           stablehlo.divide %{{.*}}, %{{.*}} : tensor<4x1xcomplex<f64>>
// CHECK:         stablehlo.real %{{.*}} : (tensor<4xcomplex<f64>>) -> tensor<4xf64>
// CHECK:         stablehlo.sort
// CHECK:         stablehlo.transpose
// CHECK:         stablehlo.negate
// CHECK:         return %{{.*}}, %{{.*}}, %{{.*}} : tensor<4x4xcomplex<f32>>, tensor<4xf32>, tensor<i32>
func.func @complex_eigh(%a: tensor<4x4xcomplex<f32>>) -> (tensor<4x4xcomplex<f32>>, tensor<4xf32>, tensor<i32>) {
  %r:3 = stablehlo.custom_call @lapack_cheevd_ffi(%a) {mhlo.backend_config = {mode = 86 : ui8, uplo = 76 : ui8}} : (tensor<4x4xcomplex<f32>>) -> (tensor<4x4xcomplex<f32>>, tensor<4xf32>, tensor<i32>)
  return %r#0, %r#1, %r#2 : tensor<4x4xcomplex<f32>>, tensor<4xf32>, tensor<i32>
}

// -----

// Routines the pass does not take stay: general (non-symmetric) eigenvalues.
// CHECK-LABEL: func.func @complex_eig
// CHECK:         stablehlo.custom_call @lapack_cgeev_ffi
func.func @complex_eig(%a: tensor<4x4xcomplex<f32>>) -> (tensor<4x4xcomplex<f32>>, tensor<4xcomplex<f32>>, tensor<i32>) {
  %r:3 = stablehlo.custom_call @lapack_cgeev_ffi(%a) {mhlo.backend_config = {}} : (tensor<4x4xcomplex<f32>>) -> (tensor<4x4xcomplex<f32>>, tensor<4xcomplex<f32>>, tensor<i32>)
  return %r#0, %r#1, %r#2 : tensor<4x4xcomplex<f32>>, tensor<4xcomplex<f32>>, tensor<i32>
}

// -----

// The stablehlo.cholesky op (upper by default): potrf's loop, zeros in the
// other triangle, NaN where the matrix is not positive definite.
// OP-LABEL: func.func @cholesky_op
// OP:         %[[T:.*]] = stablehlo.transpose %arg0, dims = [0, 2, 1]
// OP:         %[[LOOP:.*]]:2 = stablehlo.while
// OP:         %[[INFO:.*]] = stablehlo.select %{{.*}} : tensor<3xi1>, tensor<3xi32>
// OP:         %[[U:.*]] = stablehlo.transpose %[[LOOP]]#1, dims = [0, 2, 1]
// OP:         %[[FAILED:.*]] = stablehlo.compare NE, %[[INFO]], %{{.*}}, SIGNED : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi1>
// OP:         %[[SPREAD:.*]] = stablehlo.broadcast_in_dim %[[FAILED]], dims = [0]
// OP:         %[[NAN:.*]] = stablehlo.constant dense<0x7FC00000> : tensor<3x4x4xf32>
// OP:         stablehlo.select %[[SPREAD]], %[[NAN]], %[[U]]
func.func @cholesky_op(%a: tensor<3x4x4xf32>) -> tensor<3x4x4xf32> {
  %r = stablehlo.cholesky %a : tensor<3x4x4xf32>
  return %r : tensor<3x4x4xf32>
}
