/* Two register tiles for a bf16 matmul with f32 sums on one core (AVX-512 BF16):
 *
 *   cc -O3 -march=native bf16_tiles.c -o bf16_tiles && ./bf16_tiles
 *
 * Each step of K pairs feeds 16 vdpbf16ps into 16 accumulators, either as
 * one 16x16 tile (one vector of B, sixteen broadcasts of A: IREE's
 * microkernel) or as 8 rows of 32 columns (two vectors of B, eight
 * broadcasts: oxla-llvmcpu-matmul-kernel). Panels of K = 1024 stay in
 * L1/L2, so the difference is the loads per step. Prints GFLOP/s (2 flops
 * per multiply-add) of three rounds.
 */
#include <immintrin.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#if !defined(__AVX512BF16__)
int main(void) {
  puts("this CPU (or -march) has no AVX-512 BF16");
  return 0;
}
#else
enum { PAIRS = 512, CALLS = 20000 };

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

static __m512bh pair_of(uint32_t bits) { return (__m512bh)_mm512_set1_epi32((int)bits); }

/* a: PAIRS x 16 rows of bf16 pairs; b: PAIRS x 16 columns of pairs. */
__attribute__((noinline)) static void tile_16x16(float *out, const uint32_t *a, const uint32_t *b) {
  __m512 acc[16];
  for (int i = 0; i < 16; ++i) acc[i] = _mm512_setzero_ps();
  for (int k = 0; k < PAIRS; ++k) {
    __m512bh column = (__m512bh)_mm512_loadu_si512(b + 16 * k);
    for (int i = 0; i < 16; ++i) acc[i] = _mm512_dpbf16_ps(acc[i], pair_of(a[16 * k + i]), column);
  }
  for (int i = 0; i < 16; ++i) _mm512_storeu_ps(out + 16 * i, acc[i]);
}

/* a: PAIRS x 8 rows of pairs; b: PAIRS x 32 columns of pairs. */
__attribute__((noinline)) static void tile_8x32(float *out, const uint32_t *a, const uint32_t *b) {
  __m512 acc[16];
  for (int i = 0; i < 16; ++i) acc[i] = _mm512_setzero_ps();
  for (int k = 0; k < PAIRS; ++k) {
    __m512bh left = (__m512bh)_mm512_loadu_si512(b + 32 * k);
    __m512bh right = (__m512bh)_mm512_loadu_si512(b + 32 * k + 16);
    for (int i = 0; i < 8; ++i) {
      __m512bh row = pair_of(a[8 * k + i]);
      acc[2 * i] = _mm512_dpbf16_ps(acc[2 * i], row, left);
      acc[2 * i + 1] = _mm512_dpbf16_ps(acc[2 * i + 1], row, right);
    }
  }
  for (int i = 0; i < 16; ++i) _mm512_storeu_ps(out + 16 * i, acc[i]);
}

int main(void) {
  uint32_t *a = aligned_alloc(64, sizeof(uint32_t) * 16 * PAIRS);
  uint32_t *b = aligned_alloc(64, sizeof(uint32_t) * 32 * PAIRS);
  for (int i = 0; i < 16 * PAIRS; ++i) a[i] = 0x3f803f80u; /* (1.0, 1.0) */
  for (int i = 0; i < 32 * PAIRS; ++i) b[i] = 0x3f803f80u;
  float out[256];
  double flops = 2.0 * 256 * 2 * PAIRS * CALLS;
  for (int round = 0; round < 3; ++round) {
    double t = now();
    for (int i = 0; i < CALLS; ++i) tile_16x16(out, a, b);
    double square = now() - t;
    t = now();
    for (int i = 0; i < CALLS; ++i) tile_8x32(out, a, b);
    double wide = now() - t;
    printf("16x16: %.0f GFLOP/s   8x32: %.0f GFLOP/s\n", flops / square * 1e-9, flops / wide * 1e-9);
  }
  free(a);
  free(b);
  return out[0] == 2.0f * PAIRS ? 0 : 1; /* each pair adds 1*1 + 1*1 */
}
#endif
