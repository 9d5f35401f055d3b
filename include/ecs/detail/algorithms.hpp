/**
 * @file ecs/detail/algorithms.hpp
 * @brief The few algorithms the library needs, so that no translation unit pays for <algorithm>.
 *
 * Internal. Same results and complexity as the std:: algorithms they stand for; the names differ
 * from theirs so that argument-dependent lookup never makes a call ambiguous.
 */
#pragma once

#include <cstddef>
#include <utility>

namespace ecs::detail {

/// std::max: `b` when `a < b`, else `a`.
template <typename T>
constexpr const T& max_of(const T& a, const T& b) noexcept {
    return a < b ? b : a;
}
/// std::min: `b` when `b < a`, else `a`.
template <typename T>
constexpr const T& min_of(const T& a, const T& b) noexcept {
    return b < a ? b : a;
}

/// std::find: the first element of [first, last) equal to `value`, or `last`.
template <typename It, typename T>
It find_value(It first, It last, const T& value) {
    for (; first != last; ++first)
        if (*first == value) break;
    return first;
}

/// std::upper_bound: the first element of sorted [first, last) greater than `value`. O(log n).
template <typename It, typename T>
It upper_bound_value(It first, It last, const T& value) {
    auto count = last - first;
    while (count > 0) {
        const auto step = count / 2;
        It mid = first + step;
        if (!(value < *mid)) {
            first = mid + 1;
            count -= step + 1;
        } else {
            count = step;
        }
    }
    return first;
}

/// v.insert(v.begin() + pos, value) by push_back and a shift, so that a translation unit compiles no
/// vector::insert (with its helpers) for the type sets it edits. `value` is taken by copy: it may be
/// an element of `v`.
template <typename Vec, typename T>
void insert_at(Vec& v, size_t pos, T value) {
    v.push_back(value);
    for (size_t i = v.size() - 1; i > pos; --i) v[i] = v[i - 1];
    v[pos] = value;
}
/// Inserts `value` into sorted `v` after the elements not greater than it (std::upper_bound's place).
template <typename Vec, typename T>
void insert_sorted(Vec& v, T value) {
    insert_at(v, static_cast<size_t>(upper_bound_value(v.begin(), v.end(), value) - v.begin()), value);
}
/// v.erase(v.begin() + pos) by a shift and pop_back. @pre pos < v.size()
template <typename Vec>
void erase_at(Vec& v, size_t pos) {
    for (size_t i = pos + 1; i < v.size(); ++i) v[i - 1] = v[i];
    v.pop_back();
}
/// v.insert(v.end(), first, last) by push_back (`[first, last)` must not lie in `v`).
template <typename Vec, typename It>
void append_range(Vec& v, It first, It last) {
    for (; first != last; ++first) v.push_back(*first);
}

/// std::sort: [first, last) ordered by `less`. A heap sort: in place, O(n log n) comparisons at
/// worst (a hostile file cannot make it quadratic), not stable.
template <typename It, typename Less>
void sort_values(It first, It last, Less less) {
    using Diff = decltype(last - first);
    const Diff n = last - first;
    const auto sift_down = [&](Diff root, Diff end) {
        using std::swap;
        for (Diff child = 2 * root + 1; child < end; child = 2 * root + 1) {
            if (child + 1 < end && less(first[child], first[child + 1])) ++child;
            if (!less(first[root], first[child])) return;
            swap(first[root], first[child]);
            root = child;
        }
    };
    for (Diff i = n / 2; i-- > 0;) sift_down(i, n);
    for (Diff end = n; end-- > 1;) {
        using std::swap;
        swap(first[0], first[end]);
        sift_down(0, end);
    }
}
/// std::sort by `operator<`.
template <typename It>
void sort_values(It first, It last) {
    sort_values(first, last, [](const auto& a, const auto& b) { return a < b; });
}

/**
 * std::stable_sort of the `n` trivially copyable values at `data` by `less`, with `buffer` (room for
 * `n` values) as scratch: insertion sort of runs of 16, then bottom-up merges alternating between
 * the two arrays. O(n log n) comparisons; equal elements keep their order.
 */
template <typename T, typename Less>
void stable_sort_with_buffer(T* data, size_t n, T* buffer, Less less) { // by value: a by-reference
    // comparator hid a function-pointer `cmp` from the optimiser (one indirect call per comparison, 25%
    // slower than std::stable_sort on World::sort's benchmark).
    constexpr size_t RUN = 16;
    for (size_t lo = 0; lo < n; lo += RUN) {
        const size_t hi = min_of(lo + RUN, n);
        for (size_t i = lo + 1; i < hi; ++i) {
            const T x = data[i];
            size_t j = i;
            for (; j > lo && less(x, data[j - 1]); --j) data[j] = data[j - 1];
            data[j] = x;
        }
    }
    T* from = data;
    T* to = buffer;
    for (size_t width = RUN; width < n; width *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * width) {
            const size_t mid = min_of(lo + width, n);
            const size_t hi = min_of(mid + width, n);
            size_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi) to[k++] = less(from[j], from[i]) ? from[j++] : from[i++];
            while (i < mid) to[k++] = from[i++];
            while (j < hi) to[k++] = from[j++];
        }
        T* t = from;
        from = to;
        to = t;
    }
    if (from != data)
        for (size_t i = 0; i < n; ++i) data[i] = from[i];
}

} // namespace ecs::detail
