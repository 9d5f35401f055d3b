// Heap allocations of the calling thread (tests/remote/alloc_count.cpp replaces operator new).
#pragma once

namespace remote_test {
void count_allocations(bool on) noexcept;
unsigned long long allocations_counted() noexcept;
} // namespace remote_test
