/* The f32 FMA peak of one core: independent AVX-512 (or AVX2) FMA chains, no memory traffic.
 *
 *   cc -O2 -march=native fma_peak.c -o fma_peak && ./fma_peak 0.3
 *
 * Prints the best GFLOP/s (2 flops per FMA lane) over repeated runs of about
 * the given number of seconds each. CHAINS accumulators hide the FMA latency
 * on two FMA pipes and leave registers for the two operands: 16 of AVX-512's
 * 32, 10 of AVX2's 16 (16 there spill to the stack every step and measured
 * half the peak). Used by run.py as the ceiling for the f32 GEMM.
 */
#include <immintrin.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#if defined(__AVX512F__)
typedef __m512 vec;
#define LANES 16
#define CHAINS 16
#define SET1 _mm512_set1_ps
#define FMA _mm512_fmadd_ps
#define ADD _mm512_add_ps
#define STORE _mm512_storeu_ps
#elif defined(__FMA__)
typedef __m256 vec;
#define LANES 8
#define CHAINS 10
#define SET1 _mm256_set1_ps
#define FMA _mm256_fmadd_ps
#define ADD _mm256_add_ps
#define STORE _mm256_storeu_ps
#else
#error "needs AVX-512F or FMA"
#endif

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

static float run(long iterations) {
  vec a[CHAINS];
  for (int i = 0; i < CHAINS; ++i) a[i] = SET1(1.0f + i * 1e-3f);
  vec b = SET1(0.999999f), c = SET1(1e-6f);
  for (long n = 0; n < iterations; ++n) {
#pragma GCC unroll 16
    for (int i = 0; i < CHAINS; ++i) a[i] = FMA(a[i], b, c);
  }
  vec s = a[0];
  for (int i = 1; i < CHAINS; ++i) s = ADD(s, a[i]);
  float out[LANES];
  STORE(out, s);
  return out[0];
}

int main(int argc, char **argv) {
  double seconds = argc > 1 ? atof(argv[1]) : 0.3;
  long iterations = 1 << 16;
  float sink = 0;
  for (;;) { /* calibrate */
    double t = now();
    sink += run(iterations);
    if (now() - t > seconds / 4) break;
    iterations *= 2;
  }
  iterations = (long)(iterations * 4);
  double best = 0;
  for (int rep = 0; rep < 5; ++rep) {
    double t = now();
    sink += run(iterations);
    double gflops = iterations * (double)CHAINS * LANES * 2.0 / (now() - t) / 1e9;
    if (gflops > best) best = gflops;
  }
  printf("%.2f\n", best);
  fprintf(stderr, "lanes %d, checksum %g\n", LANES, sink);
  return 0;
}
