/* m2cu_emu.h: the CUDA execution model on CPU threads, for running generated kernels without a
 * GPU. Compiled as C++20 in front of a `.kernels.cu`.
 *
 * Blocks run one after another. `__shared__` variables are function statics in the section
 * `m2cu_shared`, shared by the threads of the running block; every block starts with that
 * section filled with 0xff bytes (NaN for floating point, -1 for integers), so a read of shared
 * memory that nothing of the block wrote yet gives the same loud value on every run.
 * `__syncthreads()` is a barrier of the block's live threads; a warp shuffle is an exchange
 * through the warp's 32 slots between two barriers of the warp's live lanes, and its mask must
 * name every lane of the warp (the generated code only shuffles whole warps). A thread that
 * returns leaves its block's and its warp's barriers. Atomics are GCC `__atomic` builtins
 * (compare-and-swap loops for floating point).
 *
 * Every synchronization point (a barrier arrival, either half of a shuffle, the kernel's exit)
 * goes through the block's `Sync`, which the launch's `Schedule` chooses:
 *
 * - concurrent: every thread of the block is an OS thread (a crew of them serves each block of
 *   the launch in turn), running freely; a barrier blocks until its group has arrived, so a
 *   missing barrier or a wrong shuffle shows up as a wrong answer by chance. A barrier that
 *   waits longer than M2CU_EMU_TIMEOUT_S seconds (a thread that never arrives: divergent
 *   barriers or shuffles) fails the launch instead of hanging.
 * - in_order, reverse: serialized. The block's threads are fibers of the launching OS thread
 *   (kept for its later launches; switched without a system call), so exactly one runs at any
 *   time. It runs until its next synchronization point;
 *   then the scheduler resumes the first thread, in a fixed order (threadIdx ascending, or
 *   descending), that can go on: one that has not started, or one whose barrier has since been
 *   completed (the thread itself included). So the first threads of the order run as far ahead
 *   of the others as the barriers let them (a warp runs its shuffles up to the next block
 *   barrier before the next warp starts), a read that a missing barrier leaves unordered sees
 *   the same stale value on every run, and the outputs depend only on the inputs and the
 *   schedule. When no thread can go on while some are unfinished the block is deadlocked: that
 *   is detected at once (no timeout), and the launch fails naming the synchronization point of
 *   the first stuck thread in the order. Switching fibers costs far less than waking OS
 *   threads, so these schedules are also the fast ones (fixture vecnorms, a kernel launch per
 *   pair of 30 points: 0.6 s in order, 49 s concurrent).
 *
 * A failure (a deadlock, a wrong mask) keeps the block's first message, makes every other
 * thread's synchronization point throw so that each unwinds and leaves, and fails the launch
 * once the block's threads are done. Shared and constant memory are globals of the library, so
 * its caller runs one launch at a time (the runtime runs one call of a kernel library at a
 * time). */
#include <math.h> /* C++'s math.h puts std::isfinite and friends in the global namespace */
#include <array>
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
#include <sys/mman.h>
#include <setjmp.h>
#include <ucontext.h>
#include <unistd.h>

namespace m2cu_emu {

/* Why a launch fails: a deadlock, a wrong shuffle mask. */
struct Fault : std::runtime_error {
    using std::runtime_error::runtime_error;
};

#ifndef M2CU_EMU_TIMEOUT_S
#define M2CU_EMU_TIMEOUT_S 20
#endif

/* The values of m2cu_emu_launch's `schedule` (runtime::emu::Schedule). */
enum class Schedule : int { concurrent = 0, in_order = 1, reverse = 2 };

/* A synchronization group: group 0 is the block, group 1 + w is warp w. */
inline int warp_group(unsigned thread) { return 1 + (int)(thread / 32); }

/* Threads of warp `w` in a block of `threads`. */
inline int warp_lanes(unsigned threads, int w)
{
    int left = (int)threads - 32 * w;
    return left < 32 ? left : 32;
}

/* How the threads of one block meet at their synchronization points. */
class Sync {
public:
    virtual ~Sync() = default;
    /* Thread `t` is about to run the kernel; throws when the block failed already. */
    virtual void begin(unsigned t) = 0;
    /* Thread `t` arrives at a barrier of `group` and returns once every live thread of the
     * group has arrived; throws a Fault with `what` when that cannot happen. */
    virtual void arrive(unsigned t, int group, const char *what) = 0;
    /* Thread `t` is done (returned or failed): it leaves its groups. */
    virtual void end(unsigned t) = 0;
    /* Keeps the block's first failure and breaks the block: every thread's current or next
     * synchronization point throws. */
    void fail(const std::string &why)
    {
        record(why);
        break_block();
    }
    std::string failure()
    {
        std::lock_guard<std::mutex> lock(failure_mutex_);
        return failure_;
    }

protected:
    virtual void break_block() = 0;
    /* Keeps `why` unless the block failed already. */
    void record(const std::string &why)
    {
        std::lock_guard<std::mutex> lock(failure_mutex_);
        if (failure_.empty()) failure_ = why;
    }

private:
    std::mutex failure_mutex_;
    std::string failure_;
};

/* A reusable barrier for `count` threads; a thread that leaves drops out of later phases. */
class Barrier {
public:
    explicit Barrier(int count) : count_(count) {}
    void wait(const char *what)
    {
        std::unique_lock<std::mutex> lock(mutex_);
        if (broken_) throw Fault(what);
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
            throw Fault(what);
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

/* The concurrent schedule: free-running threads, one Barrier per group. */
class ConcurrentSync final : public Sync {
public:
    explicit ConcurrentSync(unsigned threads)
    {
        groups_.emplace_back(new Barrier((int)threads));
        for (int w = 0; 32 * w < (int)threads; w++)
            groups_.emplace_back(new Barrier(warp_lanes(threads, w)));
    }
    void begin(unsigned) override {}
    void arrive(unsigned, int group, const char *what) override { groups_[group]->wait(what); }
    void end(unsigned t) override
    {
        groups_[0]->leave();
        groups_[warp_group(t)]->leave();
    }

protected:
    void break_block() override
    {
        for (auto &g : groups_) g->brk();
    }

private:
    std::vector<std::unique_ptr<Barrier>> groups_;
};

/* The running block: how its threads synchronize, and each warp's shuffle slots. */
struct Block {
    Block(unsigned threads, std::unique_ptr<Sync> sync)
        : threads(threads), sync(std::move(sync)), slots((threads + 31) / 32)
    {
    }
    unsigned threads;
    std::unique_ptr<Sync> sync;
    std::vector<std::array<uint64_t, 32>> slots;
};

struct uint3 {
    unsigned int x, y, z;
};

inline thread_local uint3 thread_idx, block_idx, block_dim, grid_dim;
inline thread_local Block *current_block;

/* A shuffle's mask must name every lane of the calling warp. */
inline void check_mask(unsigned mask, const char *shuffle)
{
    int w = (int)(thread_idx.x / 32);
    int lanes = warp_lanes(current_block->threads, w);
    unsigned all = lanes == 32 ? 0xffffffffu : (1u << lanes) - 1;
    if ((mask & all) == all) return;
    char text[160];
    snprintf(text, sizeof text,
             "%s: mask 0x%08x leaves out lanes of warp %d, which has %d (the emulator shuffles "
             "whole warps only)",
             shuffle, mask, w, lanes);
    throw Fault(text);
}

/* Lane `lane` of the warp reads what lane `source` put in; lanes outside the warp keep `v`. */
template <typename T> T exchange(T v, int source, const char *what)
{
    static_assert(sizeof(T) <= sizeof(uint64_t), "shuffled values fit 8 bytes");
    Block &b = *current_block;
    unsigned t = thread_idx.x;
    auto &slots = b.slots[t / 32];
    std::memcpy(&slots[t % 32], &v, sizeof(T));
    b.sync->arrive(t, warp_group(t), what);
    T out = v;
    if (source >= 0 && source < 32) std::memcpy(&out, &slots[source], sizeof(T));
    b.sync->arrive(t, warp_group(t), what);
    return out;
}

/* Thread `t` of block `b`: the kernel between `begin` and `end`, a failure kept by the block. */
inline void run_thread(const std::function<void()> &kernel, Block &block, uint3 b, uint3 t,
                       uint3 grid, uint3 dim)
{
    thread_idx = t;
    block_idx = b;
    block_dim = dim;
    grid_dim = grid;
    current_block = &block;
    try {
        block.sync->begin(t.x);
        kernel();
    } catch (const std::exception &e) {
        block.sync->fail(e.what());
    }
    block.sync->end(t.x);
}

/* The bounds of the `m2cu_shared` section, which the linker defines for this library alone;
 * the anchor makes sure the section exists when the kernels declare no shared memory. */
extern "C" __attribute__((visibility("hidden"))) unsigned char __start_m2cu_shared[],
    __stop_m2cu_shared[];
static __attribute__((section("m2cu_shared"), used)) unsigned char shared_anchor;

/* Fills every `__shared__` variable with 0xff bytes: what a block finds before writing. */
inline void poison_shared_memory()
{
    std::memset(__start_m2cu_shared, 0xff, (size_t)(__stop_m2cu_shared - __start_m2cu_shared));
}

/* The concurrent schedule's OS threads, one per thread of a block. Each block is a generation
 * that every worker runs once before the next starts. A launching OS thread keeps its crew for
 * every later launch with blocks of the same size (starting 256 threads per launch cost more
 * than a small kernel's work); the crew stops when that thread exits. */
class Crew {
public:
    explicit Crew(unsigned threads) : threads_(threads)
    {
        workers_.reserve(threads);
        try {
            for (unsigned t = 0; t < threads; t++) workers_.emplace_back(&Crew::work, this, t);
        } catch (const std::exception &e) {
            stop();
            throw Fault("cannot start " + std::to_string(threads) + " threads: " + e.what());
        }
    }
    ~Crew() { stop(); }
    Crew(const Crew &) = delete;
    Crew &operator=(const Crew &) = delete;

    /* The crew of the calling OS thread for blocks of `threads`. */
    static Crew &of_this_thread(unsigned threads)
    {
        static thread_local std::unique_ptr<Crew> crew;
        if (!crew || crew->threads_ != threads) {
            crew.reset();
            crew = std::make_unique<Crew>(threads);
        }
        return *crew;
    }

    /* Runs block `b` of `grid`; returns its failure ("" if none). */
    std::string run(const std::function<void()> &kernel, unsigned b, unsigned grid)
    {
        poison_shared_memory();
        Block block(threads_, std::make_unique<ConcurrentSync>(threads_));
        std::unique_lock<std::mutex> lock(mutex_);
        kernel_ = &kernel;
        block_ = &block;
        block_number_ = b;
        grid_ = grid;
        finished_ = 0;
        ++generation_;
        start_.notify_all();
        done_.wait(lock, [&] { return finished_ == threads_; });
        block_ = nullptr;
        kernel_ = nullptr;
        return block.sync->failure();
    }

private:
    void work(unsigned t)
    {
        unsigned long seen = 0;
        for (;;) {
            const std::function<void()> *kernel;
            Block *block;
            unsigned b, grid;
            {
                std::unique_lock<std::mutex> lock(mutex_);
                start_.wait(lock, [&] { return generation_ != seen || quit_; });
                if (quit_) return;
                seen = generation_;
                kernel = kernel_;
                block = block_;
                b = block_number_;
                grid = grid_;
            }
            run_thread(*kernel, *block, {b, 0, 0}, {t, 0, 0}, {grid, 1, 1}, {threads_, 1, 1});
            std::lock_guard<std::mutex> lock(mutex_);
            if (++finished_ == threads_) done_.notify_one();
        }
    }
    void stop()
    {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            quit_ = true;
        }
        start_.notify_all();
        for (auto &w : workers_) w.join();
        workers_.clear();
    }

    unsigned threads_;
    std::vector<std::thread> workers_;
    std::mutex mutex_;
    std::condition_variable start_, done_;
    unsigned long generation_ = 0;
    unsigned finished_ = 0;
    bool quit_ = false;
    const std::function<void()> *kernel_ = nullptr;
    Block *block_ = nullptr;
    unsigned block_number_ = 0, grid_ = 0;
};

class SerialSync;

/* The fibers of the serialized schedules, kept by each launching OS thread for all its
 * launches: fiber `t` runs thread `t` of every block. Each has its own stack above a guard
 * page (an overflow faults instead of writing over its neighbour), mapped once. A fiber is
 * entered once through makecontext; after that it and the scheduler switch with
 * `_setjmp`/`_longjmp`, which save no signal mask (swapcontext makes two system calls per
 * switch, which was most of a serialized launch's time). A fiber loops: it runs its thread of
 * the current block (`SerialSync::run_fiber`), then hands back to the scheduler until the next
 * block needs it. */
class Fibers {
public:
    static constexpr size_t stack_size = 256 * 1024;

    Fibers() = default;
    ~Fibers()
    {
        for (Fiber &f : fibers_) munmap(f.mapping, stack_size + page());
    }
    Fibers(const Fibers &) = delete;
    Fibers &operator=(const Fibers &) = delete;

    static Fibers &of_this_thread()
    {
        static thread_local Fibers fibers;
        return fibers;
    }

    /* Makes sure fibers 0 .. threads-1 exist. */
    void reserve(unsigned threads)
    {
        while (fibers_.size() < threads) {
            void *p = mmap(nullptr, stack_size + page(), PROT_READ | PROT_WRITE,
                           MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
            if (p == MAP_FAILED)
                throw Fault("cannot map the stacks of " + std::to_string(threads) + " threads");
            mprotect(p, page(), PROT_NONE);
            fibers_.push_back({});
            fibers_.back().mapping = static_cast<char *>(p);
        }
    }

    /* Runs fiber `t` for `sync` until it hands back (at a synchronization point or the end of
     * its thread). */
    void resume(unsigned t, SerialSync &sync)
    {
        sync_ = &sync;
        Fiber &f = fibers_[t];
        if (_setjmp(scheduler_) != 0) return;
        if (f.started) _longjmp(f.resume, 1);
        f.started = true;
        getcontext(&f.entry);
        f.entry.uc_stack.ss_sp = f.mapping + page();
        f.entry.uc_stack.ss_size = stack_size;
        f.entry.uc_link = nullptr; /* the fiber never returns */
        makecontext(&f.entry, &Fibers::entry, 0);
        starting_ = t;
        ucontext_t here;
        swapcontext(&here, &f.entry); /* comes back through `scheduler_` */
        std::abort();
    }

    /* Called on fiber `t`: hands back to the scheduler; returns when resumed. */
    void hand_back(unsigned t)
    {
        if (_setjmp(fibers_[t].resume) == 0) _longjmp(scheduler_, 1);
    }

private:
    struct Fiber {
        char *mapping = nullptr; /* the guard page, then the stack */
        bool started = false;
        ucontext_t entry;
        jmp_buf resume;
    };
    static size_t page() { return (size_t)sysconf(_SC_PAGESIZE); }
    static void entry();

    std::vector<Fiber> fibers_;
    jmp_buf scheduler_;
    SerialSync *sync_ = nullptr;
    unsigned starting_ = 0;
};

/* A serialized schedule: the block's threads are fibers of the launching OS thread, so exactly
 * one runs at a time. `run` is the scheduler: it resumes the first thread in `order_` that can
 * go on, which runs until its next synchronization point (`arrive` hands back) or its end;
 * when none can go on while some are unfinished, the block is deadlocked, and every unfinished
 * fiber is resumed once more to unwind (its synchronization point throws). */
class SerialSync final : public Sync {
public:
    SerialSync(unsigned threads, Schedule schedule, Fibers &fibers)
        : threads_(threads), fibers_(fibers)
    {
        fibers.reserve(threads);
        for (unsigned t = 0; t < threads; t++) threads_[t].index = t;
        groups_.push_back({(int)threads});
        for (int w = 0; 32 * w < (int)threads; w++) groups_.push_back({warp_lanes(threads, w)});
        for (unsigned p = 0; p < threads; p++)
            order_.push_back(schedule == Schedule::reverse ? threads - 1 - p : p);
    }

    /* Runs block `block` (number `b` of `grid`) to its end. */
    void run(const std::function<void()> &kernel, Block &block, unsigned b, unsigned grid)
    {
        kernel_ = &kernel;
        block_ = &block;
        block_number_ = b;
        grid_ = grid;
        for (;;) {
            Thread *next = first_that_can_go();
            if (next) {
                resume(*next);
                continue;
            }
            const Thread *stuck = first_unfinished();
            if (!stuck) return;
            record(std::string("deadlock: ") + stuck->what);
            break_block();
        }
    }
    /* The body of fiber `t` for this block: thread `t`. */
    void run_fiber(unsigned t)
    {
        uint3 dim = {(unsigned)threads_.size(), 1, 1};
        run_thread(*kernel_, *block_, {block_number_, 0, 0}, {t, 0, 0}, {grid_, 1, 1}, dim);
    }
    void begin(unsigned) override
    {
        if (broken_) throw Fault("the block failed before this thread started");
    }
    void arrive(unsigned t, int group, const char *what) override
    {
        Group &g = groups_[group];
        Thread &me = threads_[t];
        me.group = group;
        me.phase = g.phase;
        me.what = what;
        if (++g.arrived >= g.live) advance(g);
        fibers_.hand_back(t);
        if (broken_) throw Fault(what);
    }
    void end(unsigned t) override
    {
        threads_[t].done = true;
        leave(groups_[0]);
        leave(groups_[warp_group(t)]);
    }

protected:
    void break_block() override
    {
        broken_ = true; /* now every unfinished thread can go on, to unwind */
        scan_from_ = 0;
    }

private:
    struct Group {
        int live;
        int arrived = 0;
        long phase = 0;
    };
    struct Thread {
        unsigned index = 0;
        bool done = false;
        int group = -1; /* the group whose barrier it waits at, or -1 */
        long phase = 0;
        const char *what = "";
    };

    bool can_go(const Thread &u) const
    {
        return !u.done && (broken_ || u.group < 0 || groups_[u.group].phase != u.phase);
    }
    /* A thread that cannot go on becomes able to only when a barrier completes (`advance`) or
     * the block breaks, and both restart the search from the first thread of the order; so the
     * threads before `scan_from_` need no second look. */
    Thread *first_that_can_go()
    {
        for (; scan_from_ < order_.size(); scan_from_++) {
            Thread &u = threads_[order_[scan_from_]];
            if (can_go(u)) return &u;
        }
        return nullptr;
    }
    const Thread *first_unfinished() const
    {
        for (unsigned t : order_)
            if (!threads_[t].done) return &threads_[t];
        return nullptr;
    }
    /* Runs thread `u` until its next synchronization point or its end. */
    void resume(Thread &u)
    {
        u.group = -1;
        thread_idx = {u.index, 0, 0};
        current_block = block_;
        fibers_.resume(u.index, *this);
    }
    void advance(Group &g)
    {
        g.arrived = 0;
        ++g.phase;
        scan_from_ = 0;
    }
    void leave(Group &g)
    {
        --g.live;
        if (g.live > 0 && g.arrived >= g.live) advance(g);
    }

    std::vector<Thread> threads_;
    Fibers &fibers_;
    std::vector<Group> groups_;
    std::vector<unsigned> order_; /* the threads, first to last */
    size_t scan_from_ = 0;
    bool broken_ = false;
    const std::function<void()> *kernel_ = nullptr;
    Block *block_ = nullptr;
    unsigned block_number_ = 0, grid_ = 0;
};

/* The bottom of every fiber: it runs its thread of each block it is resumed for, and hands
 * back after each. */
inline void Fibers::entry()
{
    Fibers &self = of_this_thread();
    unsigned t = self.starting_;
    for (;;) {
        self.sync_->run_fiber(t);
        self.hand_back(t);
    }
}

/* Runs `kernel` (one call per thread) over the grid, blocks one after another: on a crew of
 * OS threads (concurrent), or as fibers of the calling thread (serialized). */
inline void run_grid(const std::function<void()> &kernel, unsigned grid, unsigned block,
                     Schedule schedule)
{
    auto check = [](unsigned b, const std::string &failure) {
        if (!failure.empty()) throw Fault("block " + std::to_string(b) + ": " + failure);
    };
    if (schedule == Schedule::concurrent) {
        Crew &crew = Crew::of_this_thread(block);
        for (unsigned b = 0; b < grid; b++) check(b, crew.run(kernel, b, grid));
        return;
    }
    Fibers &fibers = Fibers::of_this_thread();
    for (unsigned b = 0; b < grid; b++) {
        poison_shared_memory();
        auto sync = std::make_unique<SerialSync>(block, schedule, fibers);
        SerialSync &serial = *sync;
        Block state(block, std::move(sync));
        serial.run(kernel, state, b, grid);
        check(b, state.sync->failure());
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
#define __shared__ static __attribute__((section("m2cu_shared")))
#define __constant__
#define __restrict__ __restrict

#ifndef __CUDACC__
#define __CUDACC__ 1
#endif
/* The kernels are device code: the prelude takes its device branch (an atomic failure flag,
 * the bit-cast intrinsics), as under NVRTC and nvcc's device pass, where __CUDA_ARCH__ is set. */
#define M2CU_EMU_DEVICE 1

inline void __syncthreads()
{
    m2cu_emu::current_block->sync->arrive(m2cu_emu::thread_idx.x, 0,
                                          "__syncthreads: a thread of the block did not reach it");
}

inline void __threadfence() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }

template <typename T> T __shfl_down_sync(unsigned mask, T v, int delta)
{
    m2cu_emu::check_mask(mask, "__shfl_down_sync");
    return m2cu_emu::exchange(v, (int)(m2cu_emu::thread_idx.x % 32) + delta,
                              "__shfl_down_sync: a lane of the warp did not take part");
}

/* A lane below 0 has no source: the lane keeps its own value, as on the GPU. */
template <typename T> T __shfl_up_sync(unsigned mask, T v, int delta)
{
    m2cu_emu::check_mask(mask, "__shfl_up_sync");
    return m2cu_emu::exchange(v, (int)(m2cu_emu::thread_idx.x % 32) - delta,
                              "__shfl_up_sync: a lane of the warp did not take part");
}

template <typename T> T __shfl_xor_sync(unsigned mask, T v, int lane_mask)
{
    m2cu_emu::check_mask(mask, "__shfl_xor_sync");
    return m2cu_emu::exchange(v, (int)(m2cu_emu::thread_idx.x % 32) ^ lane_mask,
                              "__shfl_xor_sync: a lane of the warp did not take part");
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
