// Peak FP32 FMA throughput of one core (issue 19 item 5, the compute floor): ten
// independent AVX2 FMA chains (enough to cover the latency on two FMA ports),
// thread CPU time.  gcc -O3 -funroll-all-loops -mavx2 -mfma fma.c -o fma && ./fma
#include <immintrin.h>
#include <stdio.h>
#include <time.h>
int main(void) {
  __m256 a[10], b = _mm256_set1_ps(0.999999f), c = _mm256_set1_ps(1e-7f);
  for (int i = 0; i < 10; i++) a[i] = _mm256_set1_ps((float)i);
  long n = 200000000;
  struct timespec t0, t1;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
  for (long k = 0; k < n; k++)
    for (int i = 0; i < 10; i++) a[i] = _mm256_fmadd_ps(a[i], b, c);
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t1);
  double s = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
  float sum = 0; for (int i = 0; i < 10; i++) { float o[8]; _mm256_storeu_ps(o, a[i]); sum += o[0]; }
  printf("%.1f GFLOP per CPU-second (sum %g)\n", n * 10.0 * 16 / s / 1e9, sum);
  return 0;
}
