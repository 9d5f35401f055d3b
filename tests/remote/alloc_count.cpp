// Counts heap allocations made by the current thread while counting is on (the poll() test).
// Thread-local, so the server's own threads do not disturb the count.
#include <cstdlib>
#include <new>

#include "alloc_count.hpp"

namespace {
thread_local bool counting = false;
thread_local unsigned long long allocations = 0;

void* allocate(std::size_t size) {
    if (counting) ++allocations;
    if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
    throw std::bad_alloc();
}
void* allocate_aligned(std::size_t size, std::align_val_t align) {
    if (counting) ++allocations;
    const auto a = static_cast<std::size_t>(align);
    std::size_t rounded = (size + a - 1) / a * a;
    if (rounded == 0) rounded = a;
    if (void* p = std::aligned_alloc(a, rounded)) return p;
    throw std::bad_alloc();
}
} // namespace

namespace remote_test {
void count_allocations(bool on) noexcept { counting = on; }
unsigned long long allocations_counted() noexcept { return allocations; }
} // namespace remote_test

void* operator new(std::size_t size) { return allocate(size); }
void* operator new[](std::size_t size) { return allocate(size); }
void* operator new(std::size_t size, const std::nothrow_t&) noexcept { return std::malloc(size == 0 ? 1 : size); }
void* operator new[](std::size_t size, const std::nothrow_t&) noexcept { return std::malloc(size == 0 ? 1 : size); }
void* operator new(std::size_t size, std::align_val_t align) { return allocate_aligned(size, align); }
void* operator new[](std::size_t size, std::align_val_t align) { return allocate_aligned(size, align); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
