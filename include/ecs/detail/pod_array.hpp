/**
 * @file ecs/detail/pod_array.hpp
 * @brief PodArray: a growable array of trivially copyable values that grows with std::realloc.
 *
 * Internal. std::vector grows by allocating a new buffer, copying and freeing the old one, so every
 * doubling touches the whole array again in fresh pages. realloc can extend in place, and for large
 * buffers glibc moves the pages instead of the bytes (mremap). For the entity records, which grow by
 * one per created entity, this halves the cost of creating entities into a fresh world.
 */
#pragma once

#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <new>
#include <type_traits>

namespace ecs::detail {

/// What a failed malloc/realloc does: std::bad_alloc, as operator new would, or abort when the
/// program is built without exceptions.
[[noreturn]] inline void out_of_memory() {
#if defined(__cpp_exceptions) || defined(__EXCEPTIONS) || defined(_CPPUNWIND)
    throw std::bad_alloc();
#else
    std::abort();
#endif
}

template <typename T>
class PodArray {
    static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>,
                  "PodArray holds trivially copyable values only");
    static_assert(alignof(T) <= alignof(std::max_align_t), "PodArray relies on malloc alignment");

public:
    PodArray() noexcept = default;
    PodArray(const PodArray&) = delete;
    PodArray& operator=(const PodArray&) = delete;
    PodArray(PodArray&& other) noexcept : data_(other.data_), size_(other.size_), capacity_(other.capacity_) {
        other.data_ = nullptr;
        other.size_ = other.capacity_ = 0;
    }
    PodArray& operator=(PodArray&& other) noexcept {
        if (this != &other) {
            std::free(data_);
            data_ = other.data_;
            size_ = other.size_;
            capacity_ = other.capacity_;
            other.data_ = nullptr;
            other.size_ = other.capacity_ = 0;
        }
        return *this;
    }
    ~PodArray() { std::free(data_); }

    [[nodiscard]] size_t size() const noexcept { return size_; }
    [[nodiscard]] size_t capacity() const noexcept { return capacity_; }
    [[nodiscard]] bool empty() const noexcept { return size_ == 0; }
    [[nodiscard]] T* data() noexcept { return data_; }
    [[nodiscard]] const T* data() const noexcept { return data_; }
    [[nodiscard]] T& operator[](size_t i) noexcept { return data_[i]; }
    [[nodiscard]] const T& operator[](size_t i) const noexcept { return data_[i]; }
    [[nodiscard]] T* begin() noexcept { return data_; }
    [[nodiscard]] T* end() noexcept { return data_ + size_; }
    [[nodiscard]] const T* begin() const noexcept { return data_; }
    [[nodiscard]] const T* end() const noexcept { return data_ + size_; }

    void push_back(const T& value) {
        if (size_ == capacity_) grow_to(size_ + 1);
        data_[size_++] = value;
    }
    /// @pre size() < capacity()
    void push_back_unchecked(const T& value) noexcept { data_[size_++] = value; }
    /// @pre !empty()
    void pop_back() noexcept { --size_; }
    /// Replaces the contents with the `n` values at `first`.
    void assign(const T* first, size_t n) {
        if (n > capacity_) reallocate(n);
        if (n != 0) std::memcpy(data_, first, n * sizeof(T));
        size_ = n;
    }
    /// Resizes; new elements are copies of `value`.
    void resize(size_t n, const T& value = T{}) {
        if (n > capacity_) grow_to(n);
        for (size_t i = size_; i < n; ++i) data_[i] = value;
        size_ = n;
    }
    void assign(size_t n, const T& value) {
        size_ = 0;
        resize(n, value);
    }
    void clear() noexcept { size_ = 0; }
    void reserve(size_t n) {
        if (n > capacity_) reallocate(n);
    }

private:
    void grow_to(size_t n) {
        size_t cap = capacity_ != 0 ? capacity_ * 2 : 16;
        while (cap < n) cap *= 2;
        reallocate(cap);
    }
    void reallocate(size_t cap) {
        void* p = std::realloc(data_, cap * sizeof(T));
        if (p == nullptr) out_of_memory();
        data_ = static_cast<T*>(p);
        capacity_ = cap;
    }

    T* data_ = nullptr;
    size_t size_ = 0;
    size_t capacity_ = 0;
};

} // namespace ecs::detail
