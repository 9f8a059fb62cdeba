/* The m2cu_gpu services of a MEX function over the CUDA driver API and NVRTC, both loaded when
 * the function is first called (dlopen): the MEX function builds and loads without CUDA, and
 * where there is no GPU, driver or libnvrtc it runs its C program instead (m2cu_cuda_open says
 * why). The kernels are compiled once per source, device architecture and NVRTC version, and
 * the CUBIN is kept in m2cu's cache folder ($M2CU_CACHE_DIR, else $XDG_CACHE_HOME/m2cu, else
 * ~/.cache/m2cu) for the next session.
 *
 * Every service runs synchronously on the primary context's default stream: `download` returns
 * with the bytes there, `release` frees after the queued work. The first failure of a call
 * keeps its message (m2cu_cuda_error), which the gateway raises. */
#include <stdio.h>

/* A GPU program's entry (`<name>_gpu`). */
typedef int (*m2cu_cuda_entry)(const m2cu_array *, m2cu_array *, const m2cu_gpu *, char *, size_t);

#if defined(_WIN32)
/* The libraries are loaded with dlopen, which Windows does not have: the C program runs. */
static int m2cu_cuda_call(m2cu_cuda_entry entry, const char *source, const m2cu_array *in, m2cu_array *out, char *err, size_t len)
{
    (void)entry; (void)source; (void)in; (void)out;
    snprintf(err, len, "the GPU path of m2cu's MEX functions runs on Linux only");
    return -1;
}
#else
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef int m2cu_cu_result;
typedef int m2cu_cu_device;
typedef void *m2cu_cu_handle;
typedef unsigned long long m2cu_cu_ptr;

/* The driver's constants m2cu uses (cuda.h). */
#define M2CU_CU_SM_COUNT 16
#define M2CU_CU_CC_MAJOR 75
#define M2CU_CU_CC_MINOR 76
#define M2CU_CU_MAX_DYNAMIC_SHARED 8
#define M2CU_CU_DEFAULT_SHARED (48 * 1024)

static struct {
    int opened;
    m2cu_cu_device device;
    m2cu_cu_handle context, module;
    int sm_count;
    char error[512];
    m2cu_cu_result (*init)(unsigned);
    m2cu_cu_result (*device_get)(m2cu_cu_device *, int);
    m2cu_cu_result (*attribute)(int *, int, m2cu_cu_device);
    m2cu_cu_result (*retain)(m2cu_cu_handle *, m2cu_cu_device);
    m2cu_cu_result (*set_current)(m2cu_cu_handle);
    m2cu_cu_result (*load)(m2cu_cu_handle *, const void *);
    m2cu_cu_result (*function)(m2cu_cu_handle *, m2cu_cu_handle, const char *);
    m2cu_cu_result (*global)(m2cu_cu_ptr *, size_t *, m2cu_cu_handle, const char *);
    m2cu_cu_result (*alloc)(m2cu_cu_ptr *, size_t);
    m2cu_cu_result (*free)(m2cu_cu_ptr);
    m2cu_cu_result (*to_device)(m2cu_cu_ptr, const void *, size_t);
    m2cu_cu_result (*to_host)(void *, m2cu_cu_ptr, size_t);
    m2cu_cu_result (*within)(m2cu_cu_ptr, m2cu_cu_ptr, size_t);
    m2cu_cu_result (*launch)(m2cu_cu_handle, unsigned, unsigned, unsigned, unsigned, unsigned,
                             unsigned, unsigned, m2cu_cu_handle, void **, void **);
    m2cu_cu_result (*set_attribute)(m2cu_cu_handle, int, int);
    m2cu_cu_result (*synchronize)(void);
    m2cu_cu_result (*error_name)(m2cu_cu_result, const char **);
} m2cu_cu;

/* NVRTC's functions m2cu uses (nvrtc.h). */
static struct {
    int (*version)(int *, int *);
    int (*create)(m2cu_cu_handle *, const char *, const char *, int, const char *const *,
                  const char *const *);
    int (*compile)(m2cu_cu_handle, int, const char *const *);
    int (*cubin_size)(m2cu_cu_handle, size_t *);
    int (*cubin)(m2cu_cu_handle, char *);
    int (*log_size)(m2cu_cu_handle, size_t *);
    int (*log)(m2cu_cu_handle, char *);
    int (*destroy)(m2cu_cu_handle *);
} m2cu_nvrtc;

/* Keeps the first failure of the call: what was called and the driver's error name. */
static int m2cu_cu_failed(const char *what, m2cu_cu_result r)
{
    const char *name = NULL;
    if (r == 0) return 0;
    if (m2cu_cu.error_name != NULL) m2cu_cu.error_name(r, &name);
    if (m2cu_cu.error[0] == '\0')
        snprintf(m2cu_cu.error, sizeof m2cu_cu.error, "%s failed: %s (CUDA error %d)", what, name != NULL ? name : "unknown", r);
    return 1;
}

/* The symbol `name` of `lib` into `*slot`; 0 when it is missing. */
static int m2cu_cu_symbol(void *lib, const char *name, void *slot)
{
    void *f = dlsym(lib, name);
    memcpy(slot, &f, sizeof f);
    return f != NULL;
}

/* The first of `names` that loads, or NULL. */
static void *m2cu_cu_library(const char *const *names)
{
    for (; *names != NULL; names++) {
        void *lib = dlopen(*names, RTLD_NOW | RTLD_LOCAL);
        if (lib != NULL) return lib;
    }
    return NULL;
}

/* The driver: libcuda.so.1, or the library $M2CU_CUDA_DRIVER names (one outside the loader's
 * path, or a stand-in for tests). */
static int m2cu_cu_load_driver(char *why, size_t len)
{
    static const char *const names[] = {"libcuda.so.1", "libcuda.so", NULL};
    const char *chosen = getenv("M2CU_CUDA_DRIVER");
    const char *const given[] = {chosen, NULL};
    void *lib = m2cu_cu_library(chosen != NULL && chosen[0] != '\0' ? given : names);
    if (lib == NULL) { snprintf(why, len, "no CUDA driver (%s) on this machine", chosen != NULL && chosen[0] != '\0' ? chosen : "libcuda.so.1"); return 1; }
    if (!(m2cu_cu_symbol(lib, "cuInit", &m2cu_cu.init) && m2cu_cu_symbol(lib, "cuDeviceGet", &m2cu_cu.device_get)
          && m2cu_cu_symbol(lib, "cuDeviceGetAttribute", &m2cu_cu.attribute)
          && m2cu_cu_symbol(lib, "cuDevicePrimaryCtxRetain", &m2cu_cu.retain)
          && m2cu_cu_symbol(lib, "cuCtxSetCurrent", &m2cu_cu.set_current)
          && m2cu_cu_symbol(lib, "cuModuleLoadData", &m2cu_cu.load)
          && m2cu_cu_symbol(lib, "cuModuleGetFunction", &m2cu_cu.function)
          && m2cu_cu_symbol(lib, "cuModuleGetGlobal_v2", &m2cu_cu.global)
          && m2cu_cu_symbol(lib, "cuMemAlloc_v2", &m2cu_cu.alloc)
          && m2cu_cu_symbol(lib, "cuMemFree_v2", &m2cu_cu.free)
          && m2cu_cu_symbol(lib, "cuMemcpyHtoD_v2", &m2cu_cu.to_device)
          && m2cu_cu_symbol(lib, "cuMemcpyDtoH_v2", &m2cu_cu.to_host)
          && m2cu_cu_symbol(lib, "cuMemcpyDtoD_v2", &m2cu_cu.within)
          && m2cu_cu_symbol(lib, "cuLaunchKernel", &m2cu_cu.launch)
          && m2cu_cu_symbol(lib, "cuFuncSetAttribute", &m2cu_cu.set_attribute)
          && m2cu_cu_symbol(lib, "cuCtxSynchronize", &m2cu_cu.synchronize)
          && m2cu_cu_symbol(lib, "cuGetErrorName", &m2cu_cu.error_name))) {
        snprintf(why, len, "the CUDA driver lacks a function m2cu calls: %s", dlerror());
        return 1;
    }
    return 0;
}

static int m2cu_cu_load_nvrtc(char *why, size_t len)
{
    static const char *const names[] = {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so", NULL};
    void *lib = m2cu_cu_library(names);
    if (lib == NULL) { snprintf(why, len, "libnvrtc not found (set LD_LIBRARY_PATH to the folder of libnvrtc.so.13 before starting Octave or MATLAB)"); return 1; }
    if (!(m2cu_cu_symbol(lib, "nvrtcVersion", &m2cu_nvrtc.version) && m2cu_cu_symbol(lib, "nvrtcCreateProgram", &m2cu_nvrtc.create)
          && m2cu_cu_symbol(lib, "nvrtcCompileProgram", &m2cu_nvrtc.compile)
          && m2cu_cu_symbol(lib, "nvrtcGetCUBINSize", &m2cu_nvrtc.cubin_size)
          && m2cu_cu_symbol(lib, "nvrtcGetCUBIN", &m2cu_nvrtc.cubin)
          && m2cu_cu_symbol(lib, "nvrtcGetProgramLogSize", &m2cu_nvrtc.log_size)
          && m2cu_cu_symbol(lib, "nvrtcGetProgramLog", &m2cu_nvrtc.log)
          && m2cu_cu_symbol(lib, "nvrtcDestroyProgram", &m2cu_nvrtc.destroy))) {
        snprintf(why, len, "libnvrtc lacks a function m2cu calls: %s", dlerror());
        return 1;
    }
    return 0;
}

/* 64-bit FNV-1a of `n` bytes, continuing from `h`: the CUBIN cache's key. */
static unsigned long long m2cu_cu_hash(unsigned long long h, const void *p, size_t n)
{
    const unsigned char *b = (const unsigned char *)p;
    for (size_t k = 0; k < n; k++) h = (h ^ b[k]) * 1099511628211ULL;
    return h;
}

/* The cache folder, created if missing (empty when there is none). */
static void m2cu_cu_cache_dir(char *dir, size_t len)
{
    const char *set = getenv("M2CU_CACHE_DIR"), *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    if (set != NULL && set[0] != '\0') snprintf(dir, len, "%s", set);
    else if (xdg != NULL && xdg[0] != '\0') snprintf(dir, len, "%s/m2cu", xdg);
    else if (home != NULL && home[0] != '\0') {
        char parent[1024];
        snprintf(parent, sizeof parent, "%s/.cache", home);
        mkdir(parent, 0755);
        snprintf(dir, len, "%s/.cache/m2cu", home);
    } else dir[0] = '\0';
    if (dir[0] != '\0') mkdir(dir, 0755);
}

/* The whole file at `path` (its size in *n), or NULL. */
static char *m2cu_cu_read(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    char *data = NULL;
    long size;
    if (f == NULL) return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (size = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0
        && (data = (char *)malloc((size_t)size)) != NULL && fread(data, 1, (size_t)size, f) != (size_t)size) {
        free(data);
        data = NULL;
    }
    fclose(f);
    *n = data != NULL ? (size_t)size : 0;
    return data;
}

/* Writes `n` bytes to `path` by a rename, so a reader sees all of them or none. */
static void m2cu_cu_write(const char *path, const char *data, size_t n)
{
    char scratch[1200];
    FILE *f;
    snprintf(scratch, sizeof scratch, "%s.%ld.tmp", path, (long)getpid());
    if ((f = fopen(scratch, "wb")) == NULL) return;
    int ok = fwrite(data, 1, n, f) == n;
    if (fclose(f) != 0 || !ok || rename(scratch, path) != 0) remove(scratch);
}

/* `source` compiled for `arch` (sm_90): from the cache, or by NVRTC into it. */
static char *m2cu_cu_cubin(const char *source, const char *arch, char *why, size_t len)
{
    static const char *const options[] = {"-default-device", "--std=c++17", "--fmad=false"};
    char architecture[64], dir[1024], path[1100];
    const char *all[4];
    int major = 0, minor = 0;
    size_t n = 0;
    m2cu_cu_handle program = NULL;
    m2cu_nvrtc.version(&major, &minor);
    unsigned long long h = m2cu_cu_hash(1469598103934665603ULL, source, strlen(source));
    h = m2cu_cu_hash(h, arch, strlen(arch));
    for (int k = 0; k < 3; k++) h = m2cu_cu_hash(h, options[k], strlen(options[k]) + 1);
    h = m2cu_cu_hash(h, &major, sizeof major);
    h = m2cu_cu_hash(h, &minor, sizeof minor);
    m2cu_cu_cache_dir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/mex-%016llx-%s.cubin", dir, h, arch);
    char *cubin = dir[0] != '\0' ? m2cu_cu_read(path, &n) : NULL;
    if (cubin != NULL) return cubin;
    snprintf(architecture, sizeof architecture, "--gpu-architecture=%s", arch);
    all[0] = architecture;
    for (int k = 0; k < 3; k++) all[k + 1] = options[k];
    if (m2cu_nvrtc.create(&program, source, "kernels.cu", 0, NULL, NULL) != 0) {
        snprintf(why, len, "nvrtcCreateProgram failed");
        return NULL;
    }
    if (m2cu_nvrtc.compile(program, 4, all) != 0) {
        size_t log_len = 0;
        char *log = NULL;
        if (m2cu_nvrtc.log_size(program, &log_len) == 0 && (log = (char *)malloc(log_len + 1)) != NULL) m2cu_nvrtc.log(program, log);
        snprintf(why, len, "NVRTC compilation for %s failed: %.400s", arch, log != NULL ? log : "");
        free(log);
    } else if (m2cu_nvrtc.cubin_size(program, &n) == 0 && (cubin = (char *)malloc(n)) != NULL && m2cu_nvrtc.cubin(program, cubin) == 0) {
        if (dir[0] != '\0') m2cu_cu_write(path, cubin, n);
    } else {
        free(cubin);
        cubin = NULL;
        snprintf(why, len, "nvrtcGetCUBIN failed");
    }
    m2cu_nvrtc.destroy(&program);
    return cubin;
}

static int m2cu_cu_alloc(void *ctx, uint64_t *dptr, uint64_t bytes)
{
    m2cu_cu_ptr p = 0;
    (void)ctx;
    if (bytes > 0 && m2cu_cu_failed("cuMemAlloc", m2cu_cu.alloc(&p, (size_t)bytes))) return 1;
    *dptr = p;
    return 0;
}

static int m2cu_cu_release(void *ctx, uint64_t dptr)
{
    (void)ctx;
    if (dptr == 0) return 0;
    if (m2cu_cu_failed("cuCtxSynchronize", m2cu_cu.synchronize())) return 1;
    return m2cu_cu_failed("cuMemFree", m2cu_cu.free(dptr));
}

static int m2cu_cu_upload(void *ctx, uint64_t dst, const void *src, uint64_t bytes)
{
    (void)ctx;
    return bytes > 0 && m2cu_cu_failed("cuMemcpyHtoD", m2cu_cu.to_device(dst, src, (size_t)bytes));
}

static int m2cu_cu_download(void *ctx, void *dst, uint64_t src, uint64_t bytes)
{
    (void)ctx;
    return bytes > 0 && m2cu_cu_failed("cuMemcpyDtoH", m2cu_cu.to_host(dst, src, (size_t)bytes));
}

static int m2cu_cu_copy(void *ctx, uint64_t dst, uint64_t src, uint64_t bytes)
{
    (void)ctx;
    return bytes > 0 && m2cu_cu_failed("cuMemcpyDtoD", m2cu_cu.within(dst, src, (size_t)bytes));
}

/* The kernels of the module looked up so far, by name (the module is loaded once per
 * process), so that a launch looks its kernel up with the driver once. */
#define M2CU_CU_KERNELS 256
static struct { char name[128]; m2cu_cu_handle f; } m2cu_cu_kernels[M2CU_CU_KERNELS];
static int m2cu_cu_kernel_count;

/* The kernel `name` of the module in `*f`; 1 when the driver does not find it. */
static int m2cu_cu_kernel(const char *name, m2cu_cu_handle *f, const char *what)
{
    for (int k = 0; k < m2cu_cu_kernel_count; k++) {
        if (strcmp(m2cu_cu_kernels[k].name, name) == 0) { *f = m2cu_cu_kernels[k].f; return 0; }
    }
    if (m2cu_cu_failed(what, m2cu_cu.function(f, m2cu_cu.module, name))) return 1;
    if (m2cu_cu_kernel_count < M2CU_CU_KERNELS && strlen(name) < sizeof m2cu_cu_kernels[0].name) {
        snprintf(m2cu_cu_kernels[m2cu_cu_kernel_count].name, sizeof m2cu_cu_kernels[0].name, "%s", name);
        m2cu_cu_kernels[m2cu_cu_kernel_count++].f = *f;
    }
    return 0;
}

static int m2cu_cu_launch(void *ctx, const char *kernel, uint32_t grid, uint32_t block, uint32_t shared, void **args)
{
    m2cu_cu_handle f = NULL;
    char what[200];
    (void)ctx;
    snprintf(what, sizeof what, "cuLaunchKernel(%.100s, grid %u, block %u, shared %u)", kernel, grid, block, shared);
    if (m2cu_cu_kernel(kernel, &f, what)) return 1;
    if (shared > M2CU_CU_DEFAULT_SHARED && m2cu_cu_failed(what, m2cu_cu.set_attribute(f, M2CU_CU_MAX_DYNAMIC_SHARED, (int)shared))) return 1;
    return m2cu_cu_failed(what, m2cu_cu.launch(f, grid, 1, 1, block, 1, 1, shared, NULL, args, NULL));
}

static int m2cu_cu_to_constant(void *ctx, const char *symbol, const void *src, uint64_t bytes)
{
    m2cu_cu_ptr p = 0;
    size_t size = 0;
    (void)ctx;
    if (m2cu_cu_failed("cuModuleGetGlobal", m2cu_cu.global(&p, &size, m2cu_cu.module, symbol))) return 1;
    if (bytes > size) { m2cu_cu_failed("to_constant (too many bytes)", 1); return 1; }
    return m2cu_cu_upload(ctx, p, src, bytes);
}

/* Loads the driver and NVRTC, opens device 0 and loads `source` compiled for it; 1 with why not
 * in `why`. */
static int m2cu_cuda_load(const char *source, char *why, size_t len)
{
    int major = 0, minor = 0;
    char arch[32];
    if (m2cu_cu_load_driver(why, len) || m2cu_cu_load_nvrtc(why, len)) return 1;
    m2cu_cu.error[0] = '\0';
    if (m2cu_cu_failed("cuInit", m2cu_cu.init(0)) || m2cu_cu_failed("cuDeviceGet", m2cu_cu.device_get(&m2cu_cu.device, 0))
        || m2cu_cu_failed("cuDeviceGetAttribute", m2cu_cu.attribute(&major, M2CU_CU_CC_MAJOR, m2cu_cu.device))
        || m2cu_cu_failed("cuDeviceGetAttribute", m2cu_cu.attribute(&minor, M2CU_CU_CC_MINOR, m2cu_cu.device))
        || m2cu_cu_failed("cuDeviceGetAttribute", m2cu_cu.attribute(&m2cu_cu.sm_count, M2CU_CU_SM_COUNT, m2cu_cu.device))
        || m2cu_cu_failed("cuDevicePrimaryCtxRetain", m2cu_cu.retain(&m2cu_cu.context, m2cu_cu.device))
        || m2cu_cu_failed("cuCtxSetCurrent", m2cu_cu.set_current(m2cu_cu.context))) {
        snprintf(why, len, "no usable GPU: %s", m2cu_cu.error);
        return 1;
    }
    snprintf(arch, sizeof arch, "sm_%d%d", major, minor);
    char *cubin = m2cu_cu_cubin(source, arch, why, len);
    if (cubin == NULL) return 1;
    int failed = m2cu_cu_failed("cuModuleLoadData", m2cu_cu.load(&m2cu_cu.module, cubin));
    free(cubin);
    if (failed) { snprintf(why, len, "%s", m2cu_cu.error); return 1; }
    m2cu_cu.opened = 1;
    return 0;
}

/* The services over device 0 with `source` (the kernels) loaded, in `*gpu`; 0 when they are
 * ready, else 1 with why not in `why`. Opened once per process: later calls reuse them, or
 * the reason they cannot be opened. */
static int m2cu_cuda_open(m2cu_gpu *gpu, const char *source, char *why, size_t len)
{
    static char refused[600];
    if (refused[0] != '\0') { snprintf(why, len, "%s", refused); return 1; }
    if (!m2cu_cu.opened && m2cu_cuda_load(source, refused, sizeof refused)) {
        snprintf(why, len, "%s", refused);
        return 1;
    }
    m2cu_cu_failed("cuCtxSetCurrent", m2cu_cu.set_current(m2cu_cu.context));
    m2cu_cu.error[0] = '\0';
    memset(gpu, 0, sizeof *gpu);
    gpu->sm_count = m2cu_cu.sm_count;
    gpu->alloc = m2cu_cu_alloc;
    gpu->release = m2cu_cu_release;
    gpu->upload = m2cu_cu_upload;
    gpu->download = m2cu_cu_download;
    gpu->launch = m2cu_cu_launch;
    gpu->to_constant = m2cu_cu_to_constant;
    gpu->copy = m2cu_cu_copy;
    return 0;
}

/* Ends a call: waits for its work; the first failure of the call (a service's, or the
 * device's), or NULL. */
static const char *m2cu_cuda_error(void)
{
    m2cu_cu_failed("cuCtxSynchronize", m2cu_cu.synchronize());
    return m2cu_cu.error[0] != '\0' ? m2cu_cu.error : NULL;
}

/* Calls `entry` on the GPU, its kernels compiled from `source`: its status, or M2CU_E_GPU with
 * the first failure of a service or of the device in `err`; -1, with why in `err`, where the
 * GPU path cannot run (no driver, no GPU, no libnvrtc). */
static int m2cu_cuda_call(m2cu_cuda_entry entry, const char *source, const m2cu_array *in, m2cu_array *out, char *err, size_t len)
{
    m2cu_gpu gpu;
    if (m2cu_cuda_open(&gpu, source, err, len) != 0) return -1;
    int status = entry(in, out, &gpu, err, len);
    const char *device = m2cu_cuda_error();
    if (device == NULL) return status;
    snprintf(err, len, "%s", device);
    return M2CU_E_GPU;
}
#endif
