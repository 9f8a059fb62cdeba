/* m2cu ABI, version 3: how generated entry functions exchange MATLAB values with their caller.
 *
 * Every value, scalar or array, crosses the boundary as an m2cu_array: a pointer to its elements
 * in column-major order plus its extents. dims[0] is the number of rows, dims[1] of columns and
 * dims[2] of pages; dims[2] is 1 for every 2-D value, scalars included. The element count is
 * dims[0] * dims[1] * dims[2], and element (i, j, k), counted from 0, is at
 * i + j * dims[0] + k * dims[0] * dims[1]. Element types follow the MATLAB class of the value:
 * double, float (single), int8_t ... uint64_t, bool (logical, one byte) and uint16_t (char, one
 * UTF-16 code unit, as MATLAB stores it); a complex double element is two doubles, the real
 * then the imaginary part (the prelude's m2cu_cdouble).
 *
 * The CPU entry, in <entry>.c:
 *   int <entry>(const m2cu_array *inputs, m2cu_array *outputs, char *err, size_t err_len);
 * The GPU host entry used by the m2cu runtime:
 *   int <entry>_gpu(const m2cu_array *inputs, m2cu_array *outputs, const m2cu_gpu *gpu,
 *                   char *err, size_t err_len);
 * inputs are in parameter order and are never modified, except as an offer allows. outputs are
 * filled in output order; the entry allocates each outputs[k].data with malloc and sets all three
 * outputs[k].dims (the caller zeroes them before the call), and the caller releases data with
 * m2cu_release().
 *
 * Offers (version 3, the CPU entry): a caller that gives input k up may start output j, when
 * output j is input k's variable (y in `function y = f(a, x, y)`), as a copy of inputs[k]
 * (outputs[j].data == inputs[k].data, the same dims) instead of zeroed; input k's buffer must
 * then be no other input's. The entry may compute output j in that buffer (only where its code
 * stores into y's elements and never reallocates y) and return outputs[j].data == inputs[k].data:
 * the caller then owns that buffer as before and does not m2cu_release it. Otherwise the entry
 * clears the offer and fills the output as usual; either way input k's elements may have
 * changed. The entry never frees or reallocates an offered buffer. The GPU entries ignore
 * offers. An output
 * whose dims[2] is 1 is a 2-D value (MATLAB drops trailing singleton dimensions). After the
 * declared outputs come one 1x1 bool per complex output, in output order: true when the output
 * stays complex though its imaginary part is zero (GNU Octave keeps what complex(a, b) made and
 * what an input held, and narrows computed values to real). The return
 * value is 0 on success; otherwise a nonzero code, with a NUL-terminated message (MATLAB's
 * wording where MATLAB has one) written into err.
 */
#ifndef M2CU_ABI_H
#define M2CU_ABI_H
#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

typedef struct m2cu_array {
    void *data;
    int64_t dims[3];
} m2cu_array;

/* Services a GPU host entry calls; the m2cu runtime provides them over the CUDA driver API.
 * Device memory is addressed by 64-bit device pointers. Each function returns 0 on success. */
typedef struct m2cu_gpu {
    void *ctx;
    int32_t sm_count;
    /* Threads per output in the per-output (`_lanes`) kernels: 0 lets the host program choose
     * (the CUDA runtime always passes 0); otherwise it is rounded down to 1, 32 or the block
     * size and forced, so that tests can run every variant (the emulator's `lanes` option). */
    int32_t lanes;
    int (*alloc)(void *ctx, uint64_t *dptr, uint64_t bytes);
    int (*release)(void *ctx, uint64_t dptr);
    int (*upload)(void *ctx, uint64_t dst, const void *src, uint64_t bytes);
    int (*download)(void *ctx, void *dst, uint64_t src, uint64_t bytes);
    /* args is a kernelParams array as for cuLaunchKernel: one pointer per kernel parameter. */
    int (*launch)(void *ctx, const char *kernel, uint32_t grid, uint32_t block,
                  uint32_t shared_bytes, void **args);
    /* Copies bytes into the module's __constant__ variable named symbol. */
    int (*to_constant)(void *ctx, const char *symbol, const void *src, uint64_t bytes);
    /* Copies bytes from device memory at src to device memory at dst. */
    int (*copy)(void *ctx, uint64_t dst, uint64_t src, uint64_t bytes);
} m2cu_gpu;

void m2cu_release(void *data);

/* The CPU program only: the number of OpenMP threads its parallel loops use in the calls the
 * calling thread makes from now on (ignored when not positive, or built without OpenMP). */
void m2cu_set_threads(int threads);

#endif
