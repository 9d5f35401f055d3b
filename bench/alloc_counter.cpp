/**
 * @file bench/alloc_counter.cpp
 * @brief Replaces the global operator new / delete (every form) with malloc-based versions that
 *        count calls while counting is switched on, so benchmarks can report heap allocations per
 *        operation (the deferred-command benchmarks require zero in steady state).
 *
 * Also pins glibc's malloc to the state a long-running process reaches anyway: by default glibc
 * serves blocks above a *dynamic* threshold with fresh mmap()s and unmaps them on free, raising the
 * threshold only as large blocks are freed. Benchmark results then depend on which benchmarks ran
 * before (a fresh 1M-entity world costs 22 or 48 ns per create_with depending on it, nearly all of
 * the difference page faults). Fixing the thresholds makes every run see a warm heap. Set
 * ECS_BENCH_DEFAULT_MALLOC in the environment to keep glibc's defaults.
 */
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <new>

#if defined(__GLIBC__)
#  include <malloc.h>
#endif

#include "common.hpp"

namespace {

#if defined(__GLIBC__)
struct PinMalloc {
    PinMalloc() {
        if (std::getenv("ECS_BENCH_DEFAULT_MALLOC") != nullptr) return;
        mallopt(M_MMAP_THRESHOLD, 32 * 1024 * 1024); // the largest glibc accepts (also stops it adapting)
        mallopt(M_TRIM_THRESHOLD, 1024 * 1024 * 1024);
    }
};
const PinMalloc pin_malloc;
#endif

bool counting = false;
uint64_t allocations = 0;

void* allocate(std::size_t size) {
    if (counting) ++allocations;
    if (size == 0) size = 1;
    if (void* p = std::malloc(size)) return p;
    throw std::bad_alloc();
}
void* allocate_nothrow(std::size_t size) noexcept {
    if (counting) ++allocations;
    return std::malloc(size == 0 ? 1 : size);
}
void* allocate_aligned(std::size_t size, std::align_val_t align) noexcept {
    if (counting) ++allocations;
    const auto a = static_cast<std::size_t>(align);
    std::size_t rounded = (size + a - 1) / a * a; // aligned_alloc wants a multiple of the alignment
    if (rounded == 0) rounded = a;
    return std::aligned_alloc(a, rounded);
}
} // namespace

namespace bench {
uint64_t allocation_count() noexcept { return allocations; }
void set_allocation_counting(bool on) noexcept { counting = on; }
} // namespace bench

void* operator new(std::size_t size) { return allocate(size); }
void* operator new[](std::size_t size) { return allocate(size); }
void* operator new(std::size_t size, const std::nothrow_t&) noexcept { return allocate_nothrow(size); }
void* operator new[](std::size_t size, const std::nothrow_t&) noexcept { return allocate_nothrow(size); }
void* operator new(std::size_t size, std::align_val_t align) {
    if (void* p = allocate_aligned(size, align)) return p;
    throw std::bad_alloc();
}
void* operator new[](std::size_t size, std::align_val_t align) {
    if (void* p = allocate_aligned(size, align)) return p;
    throw std::bad_alloc();
}
void* operator new(std::size_t size, std::align_val_t align, const std::nothrow_t&) noexcept {
    return allocate_aligned(size, align);
}
void* operator new[](std::size_t size, std::align_val_t align, const std::nothrow_t&) noexcept {
    return allocate_aligned(size, align);
}

void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t, const std::nothrow_t&) noexcept { std::free(p); }
