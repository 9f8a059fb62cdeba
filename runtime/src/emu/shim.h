/* m2cu_emu.h: the CUDA execution model on CPU threads, for running generated kernels without a
 * GPU. Compiled as C++20 in front of a `.kernels.cu`.
 *
 * Every thread of a block is an OS thread, and all threads of one block run concurrently, so a
 * missing barrier or a wrong shuffle shows up as a wrong answer. Blocks run one after another;
 * `__shared__` variables are function statics, shared by the threads of the running block.
 * `__syncthreads()` is a barrier across the block's live threads; warp operations exchange
 * values through a per-warp slot array between two barriers of the warp's 32 lanes. Atomics
 * are GCC `__atomic` builtins (compare-and-swap loops for floating point). A barrier that waits
 * longer than M2CU_EMU_TIMEOUT_S seconds (a thread that never arrives: divergent barriers or
 * shuffles) aborts the launch with an error instead of hanging. */
#include <math.h> /* C++'s math.h puts std::isfinite and friends in the global namespace */
#include <cstdint>
#include <cstring>
#include <cstdio>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

namespace m2cu_emu {

struct Deadlock : std::runtime_error {
    using std::runtime_error::runtime_error;
};

#ifndef M2CU_EMU_TIMEOUT_S
#define M2CU_EMU_TIMEOUT_S 20
#endif

/* A reusable barrier for `count` threads; a thread that leaves drops out of later phases. */
class Barrier {
public:
    explicit Barrier(int count) : count_(count) {}
    void wait(const char *what)
    {
        std::unique_lock<std::mutex> lock(mutex_);
        if (broken_) throw Deadlock(what);
        long phase = phase_;
        if (++arrived_ >= count_) {
            advance();
            return;
        }
        bool done = cv_.wait_for(lock, std::chrono::seconds(M2CU_EMU_TIMEOUT_S),
                                 [&] { return phase_ != phase || broken_; });
        if (!done || broken_) {
            broken_ = true;
            cv_.notify_all();
            throw Deadlock(what);
        }
    }
    void leave()
    {
        std::lock_guard<std::mutex> lock(mutex_);
        --count_;
        if (count_ > 0 && arrived_ >= count_) advance();
    }
    void brk()
    {
        std::lock_guard<std::mutex> lock(mutex_);
        broken_ = true;
        cv_.notify_all();
    }

private:
    void advance()
    {
        arrived_ = 0;
        ++phase_;
        cv_.notify_all();
    }
    std::mutex mutex_;
    std::condition_variable cv_;
    int count_;
    int arrived_ = 0;
    long phase_ = 0;
    bool broken_ = false;
};

struct Warp {
    explicit Warp(int lanes) : barrier(lanes) {}
    Barrier barrier;
    uint64_t slots[32] = {};
};

struct Block {
    explicit Block(int threads) : barrier(threads)
    {
        for (int w = 0; w < (threads + 31) / 32; w++) {
            int lanes = threads - 32 * w < 32 ? threads - 32 * w : 32;
            warps.emplace_back(new Warp(lanes));
        }
    }
    Barrier barrier;
    std::vector<std::unique_ptr<Warp>> warps;
};

struct uint3 {
    unsigned int x, y, z;
};

inline thread_local uint3 thread_idx, block_idx, block_dim, grid_dim;
inline thread_local Block *current_block;

inline Warp &warp() { return *current_block->warps[thread_idx.x / 32]; }

/* Lane `lane` of the warp reads what lane `source` put in; lanes outside the warp keep `v`. */
template <typename T> T exchange(T v, int source)
{
    static_assert(sizeof(T) <= sizeof(uint64_t), "shuffled values fit 8 bytes");
    Warp &w = warp();
    int lane = (int)(thread_idx.x % 32);
    std::memcpy(&w.slots[lane], &v, sizeof(T));
    w.barrier.wait("__shfl_*_sync: a lane of the warp did not take part");
    T out = v;
    if (source >= 0 && source < 32) std::memcpy(&out, &w.slots[source], sizeof(T));
    w.barrier.wait("__shfl_*_sync: a lane of the warp did not take part");
    return out;
}

/* Runs `kernel` (one call per thread) over the grid, blocks one after another. */
inline void run_grid(const std::function<void()> &kernel, unsigned grid, unsigned block)
{
    for (unsigned b = 0; b < grid; b++) {
        Block shared_state((int)block);
        std::vector<std::thread> threads;
        std::string failure;
        std::mutex failure_mutex;
        for (unsigned t = 0; t < block; t++) {
            threads.emplace_back([&, t] {
                thread_idx = {t, 0, 0};
                block_idx = {b, 0, 0};
                block_dim = {block, 1, 1};
                grid_dim = {grid, 1, 1};
                current_block = &shared_state;
                try {
                    kernel();
                } catch (const std::exception &e) {
                    std::lock_guard<std::mutex> lock(failure_mutex);
                    if (failure.empty()) failure = e.what();
                    shared_state.barrier.brk();
                    for (auto &w : shared_state.warps) w->barrier.brk();
                }
                shared_state.barrier.leave();
                warp().barrier.leave();
            });
        }
        for (auto &th : threads) th.join();
        if (!failure.empty()) throw Deadlock("block " + std::to_string(b) + ": " + failure);
    }
}

template <typename... P, std::size_t... I>
void call(void (*kernel)(P...), void **args, std::index_sequence<I...>)
{
    kernel(*static_cast<std::remove_reference_t<P> *>(args[I])...);
}

/* Unpacks a cuLaunchKernel-style argument array into the kernel's parameters. */
template <typename... P> std::function<void()> bind(void (*kernel)(P...), void **args)
{
    return [=] { call(kernel, args, std::index_sequence_for<P...>{}); };
}

template <typename T, typename U> T bits_as(U u)
{
    T t;
    std::memcpy(&t, &u, sizeof(T));
    return t;
}

/* A compare-and-swap loop applying `f` to the value at `p`; returns the old value. */
template <typename T, typename F> T cas_update(T *p, F f)
{
    T old = __atomic_load_n(p, __ATOMIC_SEQ_CST);
    while (!__atomic_compare_exchange_n(p, &old, f(old), false, __ATOMIC_SEQ_CST,
                                        __ATOMIC_SEQ_CST)) {
    }
    return old;
}

template <typename T, typename U, typename F> T cas_update_bits(T *p, F f)
{
    U *bits = reinterpret_cast<U *>(p);
    U old = cas_update(bits, [&](U cur) { return bits_as<U>(f(bits_as<T>(cur))); });
    return bits_as<T>(old);
}

} // namespace m2cu_emu

#define threadIdx m2cu_emu::thread_idx
#define blockIdx m2cu_emu::block_idx
#define blockDim m2cu_emu::block_dim
#define gridDim m2cu_emu::grid_dim

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(n)
#define __shared__ static
#define __constant__
#define __restrict__ __restrict

#ifndef __CUDACC__
#define __CUDACC__ 1
#endif

inline void __syncthreads()
{
    m2cu_emu::current_block->barrier.wait("__syncthreads: a thread of the block did not reach it");
}

inline void __threadfence() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }

template <typename T> T __shfl_down_sync(unsigned, T v, int delta)
{
    return m2cu_emu::exchange(v, (int)(m2cu_emu::thread_idx.x % 32) + delta);
}

template <typename T> T __shfl_xor_sync(unsigned, T v, int mask)
{
    return m2cu_emu::exchange(v, (int)(m2cu_emu::thread_idx.x % 32) ^ mask);
}

inline double __longlong_as_double(long long x) { return m2cu_emu::bits_as<double>(x); }
inline long long __double_as_longlong(double x) { return m2cu_emu::bits_as<long long>(x); }
inline float __int_as_float(int x) { return m2cu_emu::bits_as<float>(x); }
inline float __uint_as_float(unsigned int x) { return m2cu_emu::bits_as<float>(x); }
inline unsigned int __float_as_uint(float x) { return m2cu_emu::bits_as<unsigned int>(x); }

/* CUDA's atomics are overloads on fixed types (arguments convert implicitly), so they are
 * overloads here too. */
#define M2CU_EMU_INT_ATOMICS(T)                                                                   \
    inline T atomicCAS(T *p, T compare, T value)                                                \
    {                                                                                           \
        __atomic_compare_exchange_n(p, &compare, value, false, __ATOMIC_SEQ_CST,                \
                                    __ATOMIC_SEQ_CST);                                          \
        return compare;                                                                         \
    }                                                                                           \
    inline T atomicAdd(T *p, T v) { return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST); }        \
    inline T atomicMin(T *p, T v) { return m2cu_emu::cas_update(p, [&](T c) { return v < c ? v : c; }); } \
    inline T atomicMax(T *p, T v) { return m2cu_emu::cas_update(p, [&](T c) { return v > c ? v : c; }); } \
    inline T atomicAnd(T *p, T v) { return __atomic_fetch_and(p, v, __ATOMIC_SEQ_CST); }        \
    inline T atomicOr(T *p, T v) { return __atomic_fetch_or(p, v, __ATOMIC_SEQ_CST); }          \
    inline T atomicXor(T *p, T v) { return __atomic_fetch_xor(p, v, __ATOMIC_SEQ_CST); }
M2CU_EMU_INT_ATOMICS(int)
M2CU_EMU_INT_ATOMICS(unsigned int)
M2CU_EMU_INT_ATOMICS(long long)
M2CU_EMU_INT_ATOMICS(unsigned long long)

inline double atomicAdd(double *p, double v)
{
    return m2cu_emu::cas_update_bits<double, unsigned long long>(p, [&](double c) { return c + v; });
}

inline float atomicAdd(float *p, float v)
{
    return m2cu_emu::cas_update_bits<float, unsigned int>(p, [&](float c) { return c + v; });
}

/* ---- the generated kernels follow ---- */
