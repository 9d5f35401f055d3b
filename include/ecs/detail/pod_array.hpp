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

/// The untyped part of PodArray: ownership, size and growth, compiled once per translation unit
/// rather than once per element type.
class PodStore {
public:
    PodStore(const PodStore&) = delete;
    PodStore& operator=(const PodStore&) = delete;

    [[nodiscard]] size_t size() const noexcept { return size_; }
    [[nodiscard]] size_t capacity() const noexcept { return capacity_; }
    [[nodiscard]] bool empty() const noexcept { return size_ == 0; }
    /// @pre !empty()
    void pop_back() noexcept { --size_; }
    void clear() noexcept { size_ = 0; }

protected:
    PodStore() noexcept = default;
    PodStore(PodStore&& other) noexcept : data_(other.data_), size_(other.size_), capacity_(other.capacity_) {
        other.data_ = nullptr;
        other.size_ = other.capacity_ = 0;
    }
    PodStore& operator=(PodStore&& other) noexcept {
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
    ~PodStore() { std::free(data_); }
    void swap_store(PodStore& other) noexcept {
        void* const data = data_;
        const size_t size = size_, capacity = capacity_;
        data_ = other.data_;
        size_ = other.size_;
        capacity_ = other.capacity_;
        other.data_ = data;
        other.size_ = size;
        other.capacity_ = capacity;
    }
    /// Grows geometrically to hold at least `n` values of `bytes` each.
    void grow_to(size_t n, size_t bytes) {
        size_t cap = capacity_ != 0 ? capacity_ * 2 : 16;
        while (cap < n) cap *= 2;
        reallocate(cap, bytes);
    }
    void reallocate(size_t cap, size_t bytes) {
        void* p = std::realloc(data_, cap * bytes);
        if (p == nullptr) out_of_memory();
        data_ = p;
        capacity_ = cap;
    }

    void* data_ = nullptr;
    size_t size_ = 0;
    size_t capacity_ = 0;
};

template <typename T>
class PodArray : public PodStore {
#if defined(__clang__) // the builtins: the standard traits instantiate a dozen classes per T
    static_assert(__is_trivially_copyable(T) && __is_trivially_destructible(T), "PodArray holds trivially copyable values only");
#elif defined(__GNUC__)
    static_assert(__is_trivially_copyable(T) && __has_trivial_destructor(T), "PodArray holds trivially copyable values only");
#else
    static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>,
                  "PodArray holds trivially copyable values only");
#endif
    static_assert(alignof(T) <= alignof(std::max_align_t), "PodArray relies on malloc alignment");

public:
    void swap(PodArray& other) noexcept { swap_store(other); }

    [[nodiscard]] T* data() noexcept { return static_cast<T*>(data_); }
    [[nodiscard]] const T* data() const noexcept { return static_cast<const T*>(data_); }
    [[nodiscard]] T& operator[](size_t i) noexcept { return static_cast<T*>(data_)[i]; }
    [[nodiscard]] const T& operator[](size_t i) const noexcept { return static_cast<const T*>(data_)[i]; }
    [[nodiscard]] T* begin() noexcept { return static_cast<T*>(data_); }
    [[nodiscard]] T* end() noexcept { return static_cast<T*>(data_) + size_; }
    [[nodiscard]] const T* begin() const noexcept { return static_cast<const T*>(data_); }
    [[nodiscard]] const T* end() const noexcept { return static_cast<const T*>(data_) + size_; }

    void push_back(const T& value) {
        if (size_ == capacity_) grow_to(size_ + 1, sizeof(T));
        static_cast<T*>(data_)[size_++] = value;
    }
    /// @pre size() < capacity()
    void push_back_unchecked(const T& value) noexcept { static_cast<T*>(data_)[size_++] = value; }
    /// Appends one uninitialised value and returns it. @pre size() < capacity()
    T* extend_unchecked() noexcept { return static_cast<T*>(data_) + size_++; }
    /// Appends the `n` values at `first` (which must not lie in this array).
    void append(const T* first, size_t n) {
        if (size_ + n > capacity_) grow_to(size_ + n, sizeof(T));
        if (n != 0) std::memcpy(static_cast<T*>(data_) + size_, first, n * sizeof(T));
        size_ += n;
    }
    /// Appends `n` uninitialised values (growing geometrically) and returns the first of them.
    T* extend(size_t n) {
        if (size_ + n > capacity_) grow_to(size_ + n, sizeof(T));
        T* first = static_cast<T*>(data_) + size_;
        size_ += n;
        return first;
    }
    /// Replaces the contents with the `n` values at `first`.
    void assign(const T* first, size_t n) {
        if (n > capacity_) reallocate(n, sizeof(T));
        if (n != 0) std::memcpy(data_, first, n * sizeof(T));
        size_ = n;
    }
    /// Resizes; new elements are copies of `value`.
    void resize(size_t n, const T& value = T{}) {
        if (n > capacity_) grow_to(n, sizeof(T));
        for (size_t i = size_; i < n; ++i) static_cast<T*>(data_)[i] = value;
        size_ = n;
    }
    void assign(size_t n, const T& value) {
        size_ = 0;
        resize(n, value);
    }
    void reserve(size_t n) {
        if (n > capacity_) reallocate(n, sizeof(T));
    }
    /// Room for `n` more values, growing geometrically: amortised O(1) per value, where reserve(size() + 1)
    /// before every push_back would copy the whole array each time.
    void reserve_more(size_t n) {
        if (size_ + n > capacity_) grow_to(size_ + n, sizeof(T));
    }
};

/// Growable rows of trivially copyable values: `rows[i][k]`. A row grows (zero-filled) when a slot
/// past its end is written through at_grown(). Lighter to compile than a std::vector of PodArrays.
template <typename T>
class PodRows {
public:
    struct Row {
        T* items = nullptr; ///< malloc'ed
        size_t count = 0;
        [[nodiscard]] size_t size() const noexcept { return count; }
        [[nodiscard]] T& operator[](size_t k) const noexcept { return items[k]; }
    };

    PodRows() noexcept = default;
    PodRows(const PodRows&) = delete;
    PodRows& operator=(const PodRows&) = delete;
    PodRows(PodRows&&) noexcept = default;
    PodRows& operator=(PodRows&& other) noexcept {
        if (this != &other) {
            release();
            rows_ = static_cast<PodArray<Row>&&>(other.rows_);
        }
        return *this;
    }
    ~PodRows() { release(); }

    [[nodiscard]] size_t size() const noexcept { return rows_.size(); }
    [[nodiscard]] const Row& operator[](size_t i) const noexcept { return rows_[i]; }
    /// Slot `k` of row `i`, the rows and row `i` grown to reach it.
    T& at_grown(size_t i, size_t k) {
        if (i >= rows_.size()) rows_.resize(i + 1, Row{});
        Row& row = rows_[i];
        if (k >= row.count) {
            void* p = std::realloc(row.items, (k + 1) * sizeof(T));
            if (p == nullptr) out_of_memory();
            row.items = static_cast<T*>(p);
            std::memset(static_cast<void*>(row.items + row.count), 0, (k + 1 - row.count) * sizeof(T));
            row.count = k + 1;
        }
        return row.items[k];
    }

private:
    void release() noexcept {
        for (Row& row : rows_) std::free(row.items);
        rows_.clear();
    }
    PodArray<Row> rows_;
};

/// Owning array of heap objects (`new`ed by the caller, deleted here): what std::vector<std::unique_ptr<T>>
/// does, with a fraction of the functions for every translation unit to compile. The objects are
/// deleted through a function that the first push_back / set stores, so an array that a translation
/// unit never fills does not compile `T`'s destructor there.
template <typename T>
class OwnedArray {
public:
    OwnedArray() noexcept = default;
    OwnedArray(OwnedArray&& other) noexcept : items_(static_cast<PodArray<T*>&&>(other.items_)), delete_all_(other.delete_all_) {}
    OwnedArray& operator=(OwnedArray&& other) noexcept {
        if (this != &other) {
            release();
            items_ = static_cast<PodArray<T*>&&>(other.items_);
            delete_all_ = other.delete_all_;
        }
        return *this;
    }
    ~OwnedArray() { release(); }

    [[nodiscard]] size_t size() const noexcept { return items_.size(); }
    [[nodiscard]] T* operator[](size_t i) const noexcept { return items_[i]; }
    [[nodiscard]] T* const* begin() const noexcept { return items_.begin(); }
    [[nodiscard]] T* const* end() const noexcept { return items_.end(); }
    [[nodiscard]] T* back() const noexcept { return items_[items_.size() - 1]; }
    /// Makes room for one more element (may throw), so that the next push_back cannot: call it
    /// before allocating the object to push, and nothing leaks when either step throws.
    void reserve_one() {
        if (items_.size() == items_.capacity()) items_.reserve(items_.capacity() * 2 + 8);
    }
    /// Takes ownership of `p`. @pre reserve_one() was called since the last push_back.
    void push_back(T* p) noexcept {
        delete_all_ = &delete_all;
        items_.push_back(p);
    }
    /// Grows to `n` slots, the new ones empty (nullptr).
    void resize(size_t n) { items_.resize(n, nullptr); }
    /// Takes ownership of `p` in slot `i`. @pre the slot is empty.
    void set(size_t i, T* p) noexcept {
        delete_all_ = &delete_all;
        items_[i] = p;
    }

private:
    static void delete_all(PodArray<T*>& items) noexcept {
        for (T* p : items) delete p;
    }
    void release() noexcept {
        if (delete_all_ != nullptr) delete_all_(items_);
        items_.clear();
    }
    PodArray<T*> items_;
    void (*delete_all_)(PodArray<T*>&) noexcept = nullptr; ///< delete_all, stored by the first push_back / set
};

/// Owned heap objects in lists indexed by a small number (a component id), each in insertion order:
/// what std::vector<std::vector<std::unique_ptr<T>>> does. An object never moves once added, so a
/// reference to it stays valid while more are added (to any list).
template <typename T>
class OwnedBuckets {
public:
    OwnedBuckets() noexcept = default;
    OwnedBuckets(OwnedBuckets&&) noexcept = default;
    OwnedBuckets& operator=(OwnedBuckets&& other) noexcept {
        if (this != &other) {
            release();
            buckets_ = static_cast<PodArray<Bucket>&&>(other.buckets_);
        }
        return *this;
    }
    ~OwnedBuckets() { release(); }

    /// Number of objects in list `i`.
    [[nodiscard]] size_t size(size_t i) const noexcept { return i < buckets_.size() ? buckets_[i].size : 0; }
    /// Object `k` of list `i`. @pre k < size(i)
    [[nodiscard]] T& at(size_t i, size_t k) const noexcept { return *buckets_[i].items[k]; }
    /// Appends a new object moved from `value` to list `i`.
    void push_back(size_t i, T&& value) {
        if (i >= buckets_.size()) buckets_.resize(i + 1, Bucket{});
        Bucket& b = buckets_[i];
        if (b.size == b.capacity) grow(b); // first, so that nothing leaks if the allocation throws
        b.items[b.size] = new T(static_cast<T&&>(value));
        ++b.size;
    }

private:
    struct Bucket {
        T** items = nullptr; ///< malloc'ed; each element owned (new)
        size_t size = 0;
        size_t capacity = 0;
    };
    static void grow(Bucket& b) {
        const size_t cap = b.capacity != 0 ? b.capacity * 2 : 4;
        void* p = std::realloc(b.items, cap * sizeof(T*));
        if (p == nullptr) out_of_memory();
        b.items = static_cast<T**>(p);
        b.capacity = cap;
    }
    void release() noexcept {
        for (Bucket& b : buckets_) {
            for (size_t k = 0; k < b.size; ++k) delete b.items[k];
            std::free(b.items);
        }
        buckets_.clear();
    }
    PodArray<Bucket> buckets_;
};

/// Sole owner of one heap object (`new`ed by make_box): what std::unique_ptr does, without <memory>
/// (whose shared_ptr and tuple machinery every user translation unit would parse).
template <typename T>
class Box {
public:
    Box() noexcept = default;
    explicit Box(T* p) noexcept : p_(p) {}
    Box(Box&& other) noexcept : p_(other.p_) { other.p_ = nullptr; }
    Box& operator=(Box&& other) noexcept {
        if (this != &other) {
            delete p_;
            p_ = other.p_;
            other.p_ = nullptr;
        }
        return *this;
    }
    Box(const Box&) = delete;
    Box& operator=(const Box&) = delete;
    ~Box() { delete p_; }

    [[nodiscard]] T* get() const noexcept { return p_; }
    T* operator->() const noexcept { return p_; }
    T& operator*() const noexcept { return *p_; }
    explicit operator bool() const noexcept { return p_ != nullptr; }
    friend bool operator==(const Box& b, decltype(nullptr)) noexcept { return b.p_ == nullptr; }
    friend bool operator!=(const Box& b, decltype(nullptr)) noexcept { return b.p_ != nullptr; }
    /// Destroys the owned object (if any) and owns `p` instead.
    void reset(T* p = nullptr) noexcept {
        T* old = p_;
        p_ = p;
        delete old;
    }
    /// Gives up ownership: the caller deletes the object.
    [[nodiscard]] T* release() noexcept {
        T* p = p_;
        p_ = nullptr;
        return p;
    }

private:
    T* p_ = nullptr;
};

/// Sole owner of a room created on first use: what Box does, except that create() stores the
/// function destroying it. A translation unit that never creates the room never compiles its
/// destructor (the owner's destructor calls through the pointer).
template <typename T>
class LazyBox {
public:
    LazyBox() noexcept = default;
    LazyBox(LazyBox&& other) noexcept : p_(other.p_), destroy_(other.destroy_) { other.p_ = nullptr; }
    LazyBox& operator=(LazyBox&& other) noexcept {
        if (this != &other) {
            reset();
            p_ = other.p_;
            destroy_ = other.destroy_;
            other.p_ = nullptr;
        }
        return *this;
    }
    LazyBox(const LazyBox&) = delete;
    LazyBox& operator=(const LazyBox&) = delete;
    ~LazyBox() { reset(); }

    [[nodiscard]] T* get() const noexcept { return p_; }
    T* operator->() const noexcept { return p_; }
    T& operator*() const noexcept { return *p_; }
    friend bool operator==(const LazyBox& b, decltype(nullptr)) noexcept { return b.p_ == nullptr; }
    friend bool operator!=(const LazyBox& b, decltype(nullptr)) noexcept { return b.p_ != nullptr; }
    /// The room, default-constructed on the first call.
    T& create() {
        if (p_ == nullptr) {
            p_ = new T();
            destroy_ = [](T* p) noexcept { delete p; };
        }
        return *p_;
    }
    /// Destroys the room (if any).
    void reset() noexcept {
        if (p_ == nullptr) return;
        T* const p = p_;
        p_ = nullptr;
        destroy_(p);
    }
    void swap(LazyBox& other) noexcept {
        T* const p = p_;
        void (*const destroy)(T*) noexcept = destroy_;
        p_ = other.p_;
        destroy_ = other.destroy_;
        other.p_ = p;
        other.destroy_ = destroy;
    }

protected:
    T* p_ = nullptr;
    void (*destroy_)(T*) noexcept = nullptr;
};

/// A LazyBox that copies: create() also stores the function that copies the object, so a translation
/// unit that copies an owner whose box another translation unit filled calls through that pointer, and
/// one that never calls create() compiles neither T's copy constructor nor its destructor.
template <typename T>
class LazyCopyBox : public LazyBox<T> {
public:
    LazyCopyBox() noexcept = default;
    LazyCopyBox(const LazyCopyBox& other) : LazyBox<T>(), clone_(other.clone_) {
        if (other.p_ == nullptr) return;
        this->p_ = other.clone_(*other.p_);
        this->destroy_ = other.destroy_;
    }
    LazyCopyBox(LazyCopyBox&&) noexcept = default;
    LazyCopyBox& operator=(const LazyCopyBox& other) {
        if (this != &other) {
            LazyCopyBox copy(other);
            swap(copy);
        }
        return *this;
    }
    LazyCopyBox& operator=(LazyCopyBox&& other) noexcept {
        if (this != &other) {
            this->reset();
            swap(other);
        }
        return *this;
    }
    ~LazyCopyBox() = default;

    void swap(LazyCopyBox& other) noexcept {
        LazyBox<T>::swap(other);
        T* (*const clone)(const T&) = clone_;
        clone_ = other.clone_;
        other.clone_ = clone;
    }
    /// The object, default-constructed on the first call.
    T& create() {
        if (this->p_ == nullptr) {
            LazyBox<T>::create();
            clone_ = [](const T& v) { return new T(v); };
        }
        return *this->p_;
    }

private:
    T* (*clone_)(const T&) = nullptr;
};

/// Sole owner of one heap array (`new T[n]`): what std::unique_ptr<T[]> does.
template <typename T>
class Box<T[]> {
public:
    Box() noexcept = default;
    Box(Box&& other) noexcept : p_(other.p_) { other.p_ = nullptr; }
    Box& operator=(Box&& other) noexcept {
        if (this != &other) reset(other.release());
        return *this;
    }
    Box(const Box&) = delete;
    Box& operator=(const Box&) = delete;
    ~Box() { delete[] p_; }

    [[nodiscard]] T* get() const noexcept { return p_; }
    T& operator[](size_t i) const noexcept { return p_[i]; }
    friend bool operator==(const Box& b, decltype(nullptr)) noexcept { return b.p_ == nullptr; }
    friend bool operator!=(const Box& b, decltype(nullptr)) noexcept { return b.p_ != nullptr; }
    /// Destroys the owned array (if any) and owns `p` instead.
    void reset(T* p = nullptr) noexcept {
        T* old = p_;
        p_ = p;
        delete[] old;
    }
    /// Gives up ownership: the caller deletes the array.
    [[nodiscard]] T* release() noexcept {
        T* p = p_;
        p_ = nullptr;
        return p;
    }

private:
    T* p_ = nullptr;
};

template <typename T, typename... Args>
Box<T> make_box(Args&&... args) {
    return Box<T>(new T(static_cast<Args&&>(args)...));
}

/// A resource: its object and the function destroying and freeing it (both null when absent).
struct ResourceRecord {
    void* object = nullptr;
    void (*destroy)(void*) noexcept = nullptr;
    void* (*clone)(const void*) = nullptr;          ///< a heap copy; null when not copy-constructible
    void (*assign)(void*, const void*) = nullptr;   ///< copy-assignment; null when not copy-assignable
};

/// Owning table of resources indexed by component id; moving it hands the resources over.
class ResourceTable {
public:
    ResourceTable() noexcept = default;
    ResourceTable(ResourceTable&&) noexcept = default;
    ResourceTable& operator=(ResourceTable&& other) noexcept {
        if (this != &other) {
            release();
            items_ = static_cast<PodArray<ResourceRecord>&&>(other.items_);
        }
        return *this;
    }
    ~ResourceTable() { release(); }
    [[nodiscard]] size_t size() const noexcept { return items_.size(); }
    [[nodiscard]] ResourceRecord& operator[](size_t i) noexcept { return items_[i]; }
    [[nodiscard]] const ResourceRecord& operator[](size_t i) const noexcept { return items_[i]; }
    void resize(size_t n) { items_.resize(n, ResourceRecord{}); }
    /// Destroys the resource in slot `i`, if any; the slot is empty before the destructor runs.
    void reset(size_t i) noexcept {
        const ResourceRecord r = items_[i];
        items_[i] = ResourceRecord{};
        if (r.object) r.destroy(r.object);
    }

private:
    void release() noexcept {
        for (size_t i = 0; i < items_.size(); ++i) reset(i);
        items_.clear();
    }
    PodArray<ResourceRecord> items_;
};

} // namespace ecs::detail
