/*
 * cuda_runtime.h (CPU emulator) - just enough of the CUDA runtime to run
 * kernels/kgpu.cu on the CPU in `make test`, where there is no GPU.
 *
 * Why: the GPU path cannot run on the build machines, but its launch geometry,
 * indexing, block reductions (shared memory, __syncthreads, warp shuffles) and its
 * use of cuBLAS's column-major contract can. Each CUDA thread of a block becomes a
 * coroutine (entered once through ucontext, switched with _setjmp/_longjmp so no
 * switch costs a system call); a barrier switches back to a scheduler, which resumes the
 * waiting threads once every live thread of the block (for __syncthreads) or of
 * the warp (for a shuffle) has arrived. Blocks run one after another, so a
 * `__shared__` variable can simply be a static. Device memory is host memory.
 *
 * Only for tests: included through -Itests/gpu/emu when compiling kgpu.cu with a
 * host C++ compiler (tests/e2e/kernels_emu.sh). Not a general CUDA emulator.
 */
#ifndef PGCI_TEST_CUDA_EMU_H
#define PGCI_TEST_CUDA_EMU_H

#include <setjmp.h>
#include <ucontext.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <vector>

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __shared__ static

struct dim3 {
    unsigned x, y, z;
    dim3(unsigned a = 1, unsigned b = 1, unsigned c = 1) : x(a), y(b), z(c) {}
};

typedef int cudaError_t;
enum { cudaSuccess = 0, cudaErrorMemoryAllocation = 2, cudaErrorLaunchFailure = 4 };
enum cudaMemcpyKind {
    cudaMemcpyHostToHost,
    cudaMemcpyHostToDevice,
    cudaMemcpyDeviceToHost,
    cudaMemcpyDeviceToDevice
};
enum cudaDataType_t { CUDA_R_32F, CUDA_R_16BF };
enum cudaDeviceAttr { cudaDevAttrMemoryClockRate, cudaDevAttrGlobalMemoryBusWidth };
struct cudaDeviceProp {
    char name[256];
    int major, minor;
};
typedef struct emu_event *cudaEvent_t;
struct emu_event {
    double ms;
};

namespace emu
{
enum { RUN, BLOCK_WAIT, WARP_WAIT, DONE };

struct Thread {
    ucontext_t ctx; /* first entry only */
    jmp_buf jb;     /* every later switch: no signal-mask system call */
    bool started;
    int state;
    dim3 idx;
    unsigned linear;
};

inline Thread *g_cur;
inline ucontext_t g_sched;
inline jmp_buf g_sched_jb;
inline dim3 g_block_idx, g_block_dim, g_grid_dim;
inline const std::function<void()> *g_kernel;
inline std::vector<char> g_dyn_smem;
inline float g_shfl[32][32];
inline std::vector<std::vector<char>> g_stacks;
inline cudaError_t g_error = cudaSuccess;
inline bool g_direct = false;

inline void trampoline()
{
    (*g_kernel)();
    g_cur->state = DONE;
    _longjmp(g_sched_jb, 1);
}

/* Switches from the scheduler to thread t until it waits or finishes. */
inline void resume(Thread &t)
{
    g_cur = &t;
    if (_setjmp(g_sched_jb) == 0) {
        if (!t.started) {
            t.started = true;
            setcontext(&t.ctx);
        }
        _longjmp(t.jb, 1);
    }
}

inline void wait(int kind)
{
    if (g_direct) {
        fprintf(stderr, "cuda emulator: a barrier that thread 0 of the block skipped\n");
        abort();
    }
    g_cur->state = kind;
    if (_setjmp(g_cur->jb) == 0)
        _longjmp(g_sched_jb, 1);
}

/* Runs one block to completion. */
inline void run_block(std::vector<Thread> &th)
{
    const size_t stack = 64 * 1024;
    if (g_stacks.size() < th.size())
        g_stacks.resize(th.size(), std::vector<char>(stack));
    static ucontext_t proto; /* getcontext is a system call: take it once */
    static bool have_proto = false;
    if (!have_proto) {
        getcontext(&proto);
        have_proto = true;
    }
    auto init = [&](size_t i) {
        Thread &t = th[i];
        t.state = RUN;
        t.started = false;
        t.ctx = proto;
        t.ctx.uc_stack.ss_sp = g_stacks[i].data();
        t.ctx.uc_stack.ss_size = stack;
        t.ctx.uc_link = &g_sched;
        makecontext(&t.ctx, trampoline, 0);
    };
    init(0);
    /* Thread 0 first: when it finishes without meeting a barrier, the kernel has
     * none for this block (barriers are block-uniform in kgpu.cu) and the other
     * threads run as plain calls, which is much faster than coroutines. */
    resume(th[0]);
    if (th[0].state == DONE) {
        g_direct = true;
        for (size_t i = 1; i < th.size(); i++) {
            g_cur = &th[i];
            (*g_kernel)();
            th[i].state = DONE;
        }
        g_direct = false;
        return;
    }
    for (size_t i = 1; i < th.size(); i++)
        init(i);
    for (;;) {
        for (Thread &t : th)
            if (t.state == RUN)
                resume(t);
        /* everyone is waiting or done: release what can be released */
        bool any = false, all_done = true;
        size_t nwarps = (th.size() + 31) / 32;
        for (size_t w = 0; w < nwarps; w++) {
            bool full = true, some = false;
            for (size_t i = w * 32; i < th.size() && i < w * 32 + 32; i++) {
                if (th[i].state == WARP_WAIT)
                    some = true;
                else if (th[i].state != DONE)
                    full = false;
            }
            if (some && full) {
                for (size_t i = w * 32; i < th.size() && i < w * 32 + 32; i++)
                    if (th[i].state == WARP_WAIT)
                        th[i].state = RUN;
                any = true;
            }
        }
        if (!any) {
            bool block_full = true, some = false;
            for (Thread &t : th) {
                if (t.state == BLOCK_WAIT)
                    some = true;
                else if (t.state != DONE)
                    block_full = false;
                if (t.state != DONE)
                    all_done = false;
            }
            if (all_done)
                return;
            if (some && block_full) {
                for (Thread &t : th)
                    if (t.state == BLOCK_WAIT)
                        t.state = RUN;
                any = true;
            }
        }
        if (!any) {
            fprintf(stderr, "cuda emulator: deadlock (a barrier not reached by every thread)\n");
            abort();
        }
    }
}

inline void launch(dim3 grid, dim3 block, size_t smem, const std::function<void()> &k)
{
    if (block.x * block.y * block.z == 0 || block.x * block.y * block.z > 1024 ||
        grid.x * grid.y * grid.z == 0 || smem > 48 * 1024) {
        g_error = cudaErrorLaunchFailure;
        return;
    }
    g_kernel = &k;
    g_grid_dim = grid;
    g_block_dim = block;
    g_dyn_smem.assign(smem ? smem : 1, 0);
    std::vector<Thread> th(block.x * block.y * block.z);
    for (unsigned i = 0; i < th.size(); i++) {
        th[i].linear = i;
        th[i].idx = dim3(i % block.x, (i / block.x) % block.y, i / (block.x * block.y));
    }
    for (unsigned z = 0; z < grid.z; z++)
        for (unsigned y = 0; y < grid.y; y++)
            for (unsigned x = 0; x < grid.x; x++) {
                g_block_idx = dim3(x, y, z);
                run_block(th);
            }
}
} // namespace emu

#define threadIdx (emu::g_cur->idx)
#define blockIdx (emu::g_block_idx)
#define blockDim (emu::g_block_dim)
#define gridDim (emu::g_grid_dim)

inline void __syncthreads()
{
    emu::wait(emu::BLOCK_WAIT);
}

inline float __shfl_xor_sync(unsigned mask, float v, int lane_mask)
{
    (void)mask;
    unsigned w = emu::g_cur->linear / 32, lane = emu::g_cur->linear % 32;
    emu::g_shfl[w % 32][lane] = v;
    emu::wait(emu::WARP_WAIT);
    float r = emu::g_shfl[w % 32][(lane ^ (unsigned)lane_mask) % 32];
    emu::wait(emu::WARP_WAIT); /* nobody overwrites a slot before all have read */
    return r;
}

#define KLAUNCH(kernel, grid, block, smem, ...)                                                    \
    emu::launch(dim3(grid), dim3(block), (size_t)(smem), [=]() { kernel(__VA_ARGS__); })
#define KDYN_SHARED(type, name) type *name = (type *)emu::g_dyn_smem.data()

inline cudaError_t cudaMalloc(void **p, size_t n)
{
    *p = calloc(1, n);
    return *p ? cudaSuccess : cudaErrorMemoryAllocation;
}
inline cudaError_t cudaFree(void *p)
{
    free(p);
    return cudaSuccess;
}
inline cudaError_t cudaMemcpy(void *d, const void *s, size_t n, cudaMemcpyKind)
{
    memmove(d, s, n);
    return cudaSuccess;
}
inline cudaError_t cudaMemset(void *d, int v, size_t n)
{
    memset(d, v, n);
    return cudaSuccess;
}
inline cudaError_t cudaGetLastError()
{
    cudaError_t e = emu::g_error;
    emu::g_error = cudaSuccess;
    return e;
}
inline cudaError_t cudaDeviceSynchronize()
{
    return cudaSuccess;
}
inline const char *cudaGetErrorString(cudaError_t e)
{
    return e == cudaSuccess ? "no error" : "emulated CUDA error";
}
inline cudaError_t cudaGetDeviceCount(int *n)
{
    *n = 1;
    return cudaSuccess;
}
inline cudaError_t cudaGetDeviceProperties(cudaDeviceProp *p, int)
{
    snprintf(p->name, sizeof(p->name), "CPU emulator (tests/gpu/emu)");
    p->major = 9;
    p->minor = 0;
    return cudaSuccess;
}
inline cudaError_t cudaDeviceGetAttribute(int *v, cudaDeviceAttr a, int)
{
    *v = a == cudaDevAttrMemoryClockRate ? 1000000 : 64;
    return cudaSuccess;
}
inline double emu_now_ms()
{
    using namespace std::chrono;
    return duration<double, std::milli>(steady_clock::now().time_since_epoch()).count();
}
inline cudaError_t cudaEventCreate(cudaEvent_t *e)
{
    *e = new emu_event{0};
    return cudaSuccess;
}
inline cudaError_t cudaEventDestroy(cudaEvent_t e)
{
    delete e;
    return cudaSuccess;
}
inline cudaError_t cudaEventRecord(cudaEvent_t e, int stream = 0)
{
    (void)stream;
    e->ms = emu_now_ms();
    return cudaSuccess;
}
inline cudaError_t cudaEventSynchronize(cudaEvent_t)
{
    return cudaSuccess;
}
inline cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t a, cudaEvent_t b)
{
    *ms = (float)(b->ms - a->ms);
    return cudaSuccess;
}

#endif
