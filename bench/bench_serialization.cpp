/**
 * @file bench/bench_serialization.cpp
 * @brief Binary snapshots of N entities of trivially copyable components (Position, Velocity,
 *        Health) through preallocated in-memory stream buffers, against a plain memcpy of the same
 *        number of bytes. Compiled only when <ecs/serialization.hpp> exists.
 *
 * Format 2 against format 1 (addition, 1.0): BM_Deserialize_Format1 / _Format2 load the same world
 * (N entities with Position and Velocity) from a snapshot in each format, so the cost of verifying
 * the CRC-32C checksums reads as the ratio Format2 / Format1 (target <= 1.2); likewise for writing.
 */
#if __has_include(<ecs/serialization.hpp>)

#include <algorithm>
#include <cstring>
#include <istream>
#include <ostream>
#include <streambuf>
#include <vector>

#include <ecs/serialization.hpp>

#include "common.hpp"

namespace bench {
namespace {

/// Output buffer over a byte vector that keeps its capacity across reset()s (grows by doubling).
class BufferSink : public std::streambuf {
public:
    explicit BufferSink(size_t initial_bytes) : bytes_(std::max<size_t>(initial_bytes, 4096)) { reset(); }
    void reset() { setp(bytes_.data(), bytes_.data() + bytes_.size()); }
    [[nodiscard]] size_t size() const { return static_cast<size_t>(pptr() - pbase()); }
    [[nodiscard]] const char* data() const { return bytes_.data(); }

protected:
    int_type overflow(int_type ch) override {
        if (traits_type::eq_int_type(ch, traits_type::eof())) return traits_type::not_eof(ch);
        reserve_more(1);
        *pptr() = traits_type::to_char_type(ch);
        pbump(1);
        return ch;
    }
    std::streamsize xsputn(const char* s, std::streamsize count) override {
        const auto n = static_cast<size_t>(count);
        if (static_cast<size_t>(epptr() - pptr()) < n) reserve_more(n);
        std::memcpy(pptr(), s, n);
        advance(n);
        return count;
    }

private:
    void reserve_more(size_t n) {
        const size_t used = size();
        bytes_.resize(std::max(bytes_.size() * 2, used + n));
        setp(bytes_.data(), bytes_.data() + bytes_.size());
        advance(used);
    }
    void advance(size_t n) { // pbump takes an int
        while (n > 0) {
            const size_t step = std::min<size_t>(n, 1u << 30);
            pbump(static_cast<int>(step));
            n -= step;
        }
    }
    std::vector<char> bytes_;
};

/// Input buffer over bytes owned elsewhere.
class BufferSource : public std::streambuf {
public:
    BufferSource(const char* data, size_t size) {
        char* p = const_cast<char*>(data); // the get area is never written through
        setg(p, p, p + size);
    }

protected:
    // Seekable like std::istringstream, so deserialize takes its in-place path (a stream that cannot
    // seek is first copied into memory).
    pos_type seekoff(off_type off, std::ios_base::seekdir dir, std::ios_base::openmode) override {
        char* base = dir == std::ios_base::beg ? eback() : dir == std::ios_base::cur ? gptr() : egptr();
        const std::ptrdiff_t target = (base - eback()) + off;
        if (target < 0 || target > egptr() - eback()) return pos_type(off_type(-1));
        setg(eback(), eback() + target, egptr());
        return pos_type(off_type(target));
    }
    pos_type seekpos(pos_type pos, std::ios_base::openmode which) override {
        return seekoff(off_type(pos), std::ios_base::beg, which);
    }
};

void register_components() {
    (void)ecs::register_component<Position>("bench::Position");
    (void)ecs::register_component<Velocity>("bench::Velocity");
    (void)ecs::register_component<Health>("bench::Health");
}

void populate_pvh(ecs::World& world, size_t n) {
    for (size_t i = 0; i < n; ++i) (void)world.create_with(position_of(i), velocity_of(i), Health{100, 100});
}

void BM_Serialize(benchmark::State& state) {
    const size_t n = arg_n(state);
    register_components();
    ecs::World world;
    populate_pvh(world, n);
    BufferSink sink(n * 40);
    std::ostream out(&sink);
    for (auto _ : state) {
        sink.reset();
        out.clear();
        ecs::serialize(world, out);
        benchmark::DoNotOptimize(sink.data());
    }
    state.counters["bytes"] = static_cast<double>(sink.size());
    state.SetItemsProcessed(state.iterations() * state.range(0));
    state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(sink.size()));
}
ECS_BENCH_RANGE(BM_Serialize);

void BM_Deserialize(benchmark::State& state) {
    const size_t n = arg_n(state);
    register_components();
    BufferSink sink(n * 40);
    {
        ecs::World world;
        populate_pvh(world, n);
        std::ostream out(&sink);
        ecs::serialize(world, out);
    }
    for (auto _ : state) {
        ecs::World world;
        BufferSource source(sink.data(), sink.size());
        std::istream in(&source);
        const PhaseTimer timer;
        (void)ecs::deserialize(world, in);
        state.SetIterationTime(timer.seconds());
        benchmark::DoNotOptimize(world.count());
    }
    state.counters["bytes"] = static_cast<double>(sink.size());
    state.SetItemsProcessed(state.iterations() * state.range(0));
    state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(sink.size()));
}
ECS_BENCH_RANGE_MANUAL(BM_Deserialize);

void populate_pv(ecs::World& world, size_t n) {
    for (size_t i = 0; i < n; ++i) (void)world.create_with(position_of(i), velocity_of(i));
}

void write_format(const ecs::World& world, std::ostream& out, uint32_t version) {
    if (version == ecs::SNAPSHOT_FORMAT_VERSION) ecs::serialize(world, out);
    else ecs::detail::write_snapshot(world, out, version);
}

template <uint32_t Version>
void BM_Serialize_Format(benchmark::State& state) {
    const size_t n = arg_n(state);
    register_components();
    ecs::World world;
    populate_pv(world, n);
    BufferSink sink(n * 40);
    std::ostream out(&sink);
    for (auto _ : state) {
        sink.reset();
        out.clear();
        write_format(world, out, Version);
        benchmark::DoNotOptimize(sink.data());
    }
    state.counters["bytes"] = static_cast<double>(sink.size());
    state.SetItemsProcessed(state.iterations() * state.range(0));
    state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(sink.size()));
}
void BM_Serialize_Format1(benchmark::State& state) { BM_Serialize_Format<1>(state); }
void BM_Serialize_Format2(benchmark::State& state) { BM_Serialize_Format<2>(state); }
ECS_BENCH_RANGE(BM_Serialize_Format1);
ECS_BENCH_RANGE(BM_Serialize_Format2);

template <uint32_t Version>
void BM_Deserialize_Format(benchmark::State& state) {
    const size_t n = arg_n(state);
    register_components();
    BufferSink sink(n * 40);
    {
        ecs::World world;
        populate_pv(world, n);
        std::ostream out(&sink);
        write_format(world, out, Version);
    }
    for (auto _ : state) {
        ecs::World world;
        BufferSource source(sink.data(), sink.size());
        std::istream in(&source);
        const PhaseTimer timer;
        const ecs::DeserializeResult r = ecs::deserialize(world, in);
        state.SetIterationTime(timer.seconds());
        if (!r) state.SkipWithError(r.message.c_str());
        benchmark::DoNotOptimize(world.count());
    }
    state.counters["bytes"] = static_cast<double>(sink.size());
    state.SetItemsProcessed(state.iterations() * state.range(0));
    state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(sink.size()));
}
void BM_Deserialize_Format1(benchmark::State& state) { BM_Deserialize_Format<1>(state); }
void BM_Deserialize_Format2(benchmark::State& state) { BM_Deserialize_Format<2>(state); }
ECS_BENCH_RANGE_MANUAL(BM_Deserialize_Format1);
ECS_BENCH_RANGE_MANUAL(BM_Deserialize_Format2);

/// Baseline: memcpy of as many bytes as the snapshot of N entities takes, between two touched buffers.
void BM_Raw_SnapshotMemcpy(benchmark::State& state) {
    const size_t n = arg_n(state);
    register_components();
    BufferSink sink(n * 40);
    {
        ecs::World world;
        populate_pvh(world, n);
        std::ostream out(&sink);
        ecs::serialize(world, out);
    }
    const size_t bytes = sink.size();
    std::vector<char> from(sink.data(), sink.data() + bytes);
    std::vector<char> to(bytes, 0);
    for (auto _ : state) {
        std::memcpy(to.data(), from.data(), bytes);
        benchmark::DoNotOptimize(to.data());
        benchmark::ClobberMemory();
    }
    state.counters["bytes"] = static_cast<double>(bytes);
    state.SetItemsProcessed(state.iterations() * state.range(0));
    state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(bytes));
}
ECS_BENCH_RANGE(BM_Raw_SnapshotMemcpy);

} // namespace
} // namespace bench

#endif // __has_include(<ecs/serialization.hpp>)
