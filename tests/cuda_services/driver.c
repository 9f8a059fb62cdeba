/* A stand-in for the CUDA driver (libcuda.so.1) that the MEX functions' GPU path
 * (m2cu_cuda.c) loads through $M2CU_CUDA_DRIVER on machines without a GPU: device memory is
 * host memory, and kernels run on the emulator, in the kernel library $M2CU_EMU_KERNELS names
 * (m2cu_runtime::emu::kernel_library, threads in order). A module must be NVRTC's CUBIN (an ELF
 * image). One device, compute capability 9.0, 4 multiprocessors. Each launch appends its
 * kernel's name to the file $M2CU_STAND_IN_LOG names, if any. Failures return
 * CUDA_ERROR_INVALID_VALUE (1), an unknown symbol CUDA_ERROR_NOT_FOUND (500), a failed
 * emulated launch CUDA_ERROR_LAUNCH_FAILED (719). */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int (*emu_launch)(const char *, unsigned, unsigned, void **, int, char *, size_t);

static void *kernels;

int cuInit(unsigned flags) { return flags == 0 ? 0 : 1; }
int cuDeviceGet(int *device, int ordinal) { *device = 0; return ordinal == 0 ? 0 : 1; }

int cuDeviceGetAttribute(int *value, int attribute, int device)
{
    (void)device;
    switch (attribute) {
    case 16: *value = 4; return 0;  /* multiprocessors */
    case 75: *value = 9; return 0;  /* compute capability */
    case 76: *value = 0; return 0;
    default: return 1;
    }
}

int cuDevicePrimaryCtxRetain(void **context, int device) { (void)device; *context = &kernels; return 0; }
int cuCtxSetCurrent(void *context) { return context == &kernels ? 0 : 1; }
int cuCtxSynchronize(void) { return 0; }

int cuModuleLoadData(void **module, const void *image)
{
    const char *path = getenv("M2CU_EMU_KERNELS");
    if (memcmp(image, "\177ELF", 4) != 0 || path == NULL) return 1;
    kernels = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    *module = kernels;
    return kernels != NULL ? 0 : 1;
}

/* A function is its name, kept once (the emulator launches kernels by name). */
int cuModuleGetFunction(void **function, void *module, const char *name)
{
    static char *names[256];
    int k = 0;
    if (module != kernels || dlsym(kernels, name) == NULL) return 500;
    while (k < 256 && names[k] != NULL && strcmp(names[k], name) != 0) k++;
    if (k == 256) return 1;
    if (names[k] == NULL) names[k] = strdup(name);
    *function = names[k];
    return 0;
}

int cuModuleGetGlobal_v2(uint64_t *address, size_t *bytes, void *module, const char *name)
{
    void *symbol = module == kernels ? dlsym(kernels, name) : NULL;
    if (symbol == NULL) return 500;
    *address = (uint64_t)(uintptr_t)symbol;
    *bytes = (size_t)1 << 20; /* the emulator's library does not say: large enough */
    return 0;
}

int cuMemAlloc_v2(uint64_t *address, size_t bytes)
{
    void *p = calloc(1, bytes);
    *address = (uint64_t)(uintptr_t)p;
    return p != NULL ? 0 : 2;
}

int cuMemFree_v2(uint64_t address) { free((void *)(uintptr_t)address); return 0; }
int cuMemcpyHtoD_v2(uint64_t dst, const void *src, size_t n) { memcpy((void *)(uintptr_t)dst, src, n); return 0; }
int cuMemcpyDtoH_v2(void *dst, uint64_t src, size_t n) { memcpy(dst, (const void *)(uintptr_t)src, n); return 0; }
int cuMemcpyDtoD_v2(uint64_t dst, uint64_t src, size_t n) { memmove((void *)(uintptr_t)dst, (const void *)(uintptr_t)src, n); return 0; }
int cuFuncSetAttribute(void *function, int attribute, int value) { (void)function; (void)attribute; (void)value; return 0; }

int cuLaunchKernel(void *function, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                   unsigned bz, unsigned shared, void *stream, void **args, void **extra)
{
    char err[512];
    emu_launch launch = (emu_launch)dlsym(kernels, "m2cu_emu_launch");
    (void)shared;
    const char *log = getenv("M2CU_STAND_IN_LOG");
    FILE *f = log != NULL ? fopen(log, "a") : NULL;
    if (f != NULL) {
        fprintf(f, "%s\n", (const char *)function);
        fclose(f);
    }
    if (launch == NULL || gy != 1 || gz != 1 || by != 1 || bz != 1 || stream != NULL || extra != NULL) return 1;
    if (launch((const char *)function, gx, bx, args, 1, err, sizeof err) == 0) return 0;
    fprintf(stderr, "stand-in driver: %s\n", err);
    return 719;
}

int cuGetErrorName(int error, const char **name)
{
    *name = error == 719 ? "CUDA_ERROR_LAUNCH_FAILED" : error == 500 ? "CUDA_ERROR_NOT_FOUND" : "CUDA_ERROR_INVALID_VALUE";
    return 0;
}
