/**
 * @file ecs/detail/snapshot_io.hpp
 * @brief The byte level of snapshots: little-endian framing, the CRC-32C checksum, a buffered writer,
 *        stream buffers, a bounds-checked reader and the byte string a section payload is built in. Knows
 *        nothing of worlds or components.
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>


#include "stream.hpp"
#include "../config.hpp"
#include "../entity.hpp"
#include "algorithms.hpp"
#include "pod_array.hpp"

namespace ecs {

namespace detail {

#if (defined(__BYTE_ORDER__) && defined(__ORDER_LITTLE_ENDIAN__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__) || \
    defined(_WIN32)
/// Framing integers may be copied as blocks (they are already little-endian in memory).
inline constexpr bool host_little_endian = true;
#else
/// Unknown or big-endian host: framing integers are encoded one by one (always correct).
inline constexpr bool host_little_endian = false;
#endif

static_assert(sizeof(Entity) == 8 && offsetof(Entity, index) == 0 && offsetof(Entity, generation) == 4,
              "serialization: Entity must be two packed uint32_t");

template <class = void>
inline void put_u32(unsigned char* p, uint32_t v) noexcept {
    for (int i = 0; i < 4; ++i) p[i] = static_cast<unsigned char>(v >> (8 * i));
}
template <class = void>
inline void put_u64(unsigned char* p, uint64_t v) noexcept {
    for (int i = 0; i < 8; ++i) p[i] = static_cast<unsigned char>(v >> (8 * i));
}
template <class = void>
inline uint32_t get_u32(const unsigned char* p) noexcept {
    uint32_t v = 0;
    for (int i = 3; i >= 0; --i) v = (v << 8) | p[i];
    return v;
}
template <class = void>
inline uint64_t get_u64(const unsigned char* p) noexcept {
    uint64_t v = 0;
    for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
    return v;
}

/**
 * CRC-32C (Castagnoli polynomial, reflected 0x82F63B78; init and final xor 0xFFFFFFFF), the checksum
 * of snapshot format 2. Detects every error burst up to 32 bits long, so every single flipped bit.
 * Portable: table-driven, eight bytes per step ("slicing by 8"; tables built once, thread-safe).
 * x86-64 with g++/clang++, chosen at run time, no compiler flag needed:
 *  - AVX-512 with VPCLMULQDQ: carry-less multiplication folds 256 bytes per step (four 512-bit
 *    accumulators, each 128-bit lane folded 256 bytes forward: lane' = lo*K1 ^ hi*K2 ^ next, with
 *    K1 = x^(8*256+31) mod P, K2 = x^(8*256-33) mod P, the -33 undoing the product's offset in
 *    reflected order); the 256 bytes left in the accumulators are congruent to everything folded,
 *    and the crc32 instruction finishes them and the tail. ~4x the crc32 path: a body is checked at
 *    memory speed (SPEC §7).
 *  - SSE4.2 crc32 instruction (same polynomial, same result): three interleaved streams hide the
 *    instruction's latency, and are joined with the "append LANE zero bytes" operator (the CRC
 *    register is linear: crc(A B) = shift_|B|(crc(A)) ^ crc_from_0(B)).
 */
class Crc32c {
public:
    void update(const void* data, size_t n) noexcept {
        state_ = step(state_, static_cast<const unsigned char*>(data), n);
    }
    [[nodiscard]] uint32_t value() const noexcept { return state_ ^ 0xFFFFFFFFu; }

    /// CRC-32C of `n` bytes.
    [[nodiscard]] static uint32_t of(const void* data, size_t n) noexcept {
        Crc32c crc;
        crc.update(data, n);
        return crc.value();
    }

    /// The register after `n` more bytes from register `reg` (no initial or final xor).
    [[nodiscard]] static uint32_t extend(uint32_t reg, const void* data, size_t n) noexcept {
        return step(reg, static_cast<const unsigned char*>(data), n);
    }
    /// The register after `bytes` zero bytes from `reg`: pieces checksummed in any order combine in
    /// order as reg(A B) = shift(reg(A), |B|) ^ extend(0, B). O(log bytes).
    [[nodiscard]] static uint32_t shift(uint32_t reg, uint64_t bytes) noexcept {
        const uint32_t* x8_pow2 = tables().x8_pow2;
        for (size_t k = 0; bytes != 0; bytes >>= 1, ++k)
            if (bytes & 1u) reg = multiply(reg, x8_pow2[k]);
        return reg;
    }
    /// shift(reg, PIECE), one multiplication.
    [[nodiscard]] static uint32_t shift_piece(uint32_t reg) noexcept { return multiply(reg, tables().x8_piece); }
    static constexpr size_t PIECE = size_t(1) << 18; ///< see BodyScan

    /// The implementations, slowest first; every one gives the same result.
    enum class Path : uint8_t { table, sse42, vpclmul };
    /// The fastest path this CPU runs (what update() and of() use).
    [[nodiscard]] static Path best_path() noexcept {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
        static const Path path = !__builtin_cpu_supports("sse4.2") ? Path::table
                                 : __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("vpclmulqdq")
                                     ? Path::vpclmul
                                     : Path::sse42;
        return path;
#else
        return Path::table;
#endif
    }
    /// CRC-32C of `n` bytes through `path`, or through best_path() when this CPU lacks `path` (tests
    /// compare the paths).
    [[nodiscard]] static uint32_t of(const void* data, size_t n, Path path) noexcept {
        if (path > best_path()) path = best_path();
        return step(0xFFFFFFFFu, static_cast<const unsigned char*>(data), n, path) ^ 0xFFFFFFFFu;
    }

private:
    static constexpr uint32_t POLY = 0x82F63B78u;
    static constexpr size_t LANE = 4096; ///< bytes per stream and round of the interleaved loop
    static constexpr size_t FOLD = 256;  ///< bytes per step of the carry-less folding loop

    /// x^n mod P in the reflected representation (bit 31 is x^0).
    static uint32_t x_pow_mod(size_t n) noexcept {
        uint32_t v = 0x80000000u;
        for (; n != 0; --n) v = (v >> 1) ^ (POLY & (0u - (v & 1u)));
        return v;
    }
    /// a * b mod P, both reflected (Horner over a's coefficients, x^31 first).
    static uint32_t multiply(uint32_t a, uint32_t b) noexcept {
        uint32_t r = 0;
        for (int i = 0; i < 32; ++i) {
            r = (r >> 1) ^ (POLY & (0u - (r & 1u)));
            r ^= b & (0u - ((a >> i) & 1u));
        }
        return r;
    }

    /// `matrix` (32 columns over GF(2)) applied to `v`.
    static uint32_t times(const uint32_t* matrix, uint32_t v) noexcept {
        uint32_t sum = 0;
        for (size_t i = 0; v != 0; ++i, v >>= 1)
            if (v & 1u) sum ^= matrix[i];
        return sum;
    }

    struct Tables {
        uint32_t t[8][256];
        uint32_t shift_lane[32]; ///< the register after LANE zero bytes, as a matrix
        uint32_t fold_lo = 0;    ///< x^(8*FOLD+31) mod P, reflected (multiplies a lane's first 8 bytes)
        uint32_t fold_hi = 0;    ///< x^(8*FOLD-33) mod P, reflected (multiplies its last 8 bytes)
        uint32_t x8_pow2[64];    ///< x^(8 * 2^k) mod P: 2^k zero bytes
        uint32_t x8_piece = 0;   ///< x^(8*PIECE) mod P
        Tables() noexcept {
            fold_lo = x_pow_mod(8 * FOLD + 31);
            fold_hi = x_pow_mod(8 * FOLD - 33);
            x8_pow2[0] = x_pow_mod(8);
            for (size_t k = 1; k < 64; ++k) x8_pow2[k] = multiply(x8_pow2[k - 1], x8_pow2[k - 1]);
            x8_piece = x8_pow2[18];
            static_assert(PIECE == size_t(1) << 18, "Crc32c: x8_piece is x8_pow2[log2(PIECE)]");
            for (uint32_t i = 0; i < 256; ++i) {
                uint32_t c = i;
                for (int k = 0; k < 8; ++k) c = (c >> 1) ^ (POLY & (0u - (c & 1u)));
                t[0][i] = c;
            }
            for (uint32_t i = 0; i < 256; ++i)
                for (size_t k = 1; k < 8; ++k) t[k][i] = (t[k - 1][i] >> 8) ^ t[0][t[k - 1][i] & 0xFFu];
            // One zero bit, then squared: 2, 4, ... bits, until LANE bytes.
            uint32_t a[32], b[32];
            a[0] = POLY;
            for (size_t n = 1; n < 32; ++n) a[n] = 1u << (n - 1);
            uint32_t* from = a;
            uint32_t* to = b;
            for (size_t bits = 1; bits < LANE * 8; bits *= 2) {
                for (size_t n = 0; n < 32; ++n) to[n] = times(from, from[n]);
                uint32_t* swap = from;
                from = to;
                to = swap;
            }
            for (size_t n = 0; n < 32; ++n) shift_lane[n] = from[n];
        }
    };
    static const Tables& tables() noexcept {
        static const Tables instance;
        return instance;
    }

    static uint32_t step_table(uint32_t crc, const unsigned char* p, size_t n) noexcept {
        const Tables& tb = tables();
        for (; n >= 8; p += 8, n -= 8) {
            const uint32_t lo = crc ^ get_u32(p);
            const uint32_t hi = get_u32(p + 4);
            crc = tb.t[7][lo & 0xFFu] ^ tb.t[6][(lo >> 8) & 0xFFu] ^ tb.t[5][(lo >> 16) & 0xFFu] ^ tb.t[4][lo >> 24] ^
                  tb.t[3][hi & 0xFFu] ^ tb.t[2][(hi >> 8) & 0xFFu] ^ tb.t[1][(hi >> 16) & 0xFFu] ^ tb.t[0][hi >> 24];
        }
        for (; n != 0; ++p, --n) crc = tb.t[0][(crc ^ *p) & 0xFFu] ^ (crc >> 8);
        return crc;
    }

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    __attribute__((target("sse4.2"))) static uint32_t step_sse42(uint32_t crc, const unsigned char* p,
                                                                  size_t n) noexcept {
        if (n >= 3 * LANE) {
            const uint32_t* shift = tables().shift_lane;
            for (; n >= 3 * LANE; p += 3 * LANE, n -= 3 * LANE) {
                unsigned long long c0 = crc, c1 = 0, c2 = 0;
                for (size_t i = 0; i < LANE; i += 8) {
                    unsigned long long v0, v1, v2;
                    std::memcpy(&v0, p + i, 8);
                    std::memcpy(&v1, p + LANE + i, 8);
                    std::memcpy(&v2, p + 2 * LANE + i, 8);
                    c0 = __builtin_ia32_crc32di(c0, v0);
                    c1 = __builtin_ia32_crc32di(c1, v1);
                    c2 = __builtin_ia32_crc32di(c2, v2);
                }
                crc = times(shift, static_cast<uint32_t>(c0)) ^ static_cast<uint32_t>(c1);
                crc = times(shift, crc) ^ static_cast<uint32_t>(c2);
            }
        }
        unsigned long long c = crc;
        for (; n >= 8; p += 8, n -= 8) {
            unsigned long long v;
            std::memcpy(&v, p, 8);
            c = __builtin_ia32_crc32di(c, v);
        }
        uint32_t c32 = static_cast<uint32_t>(c);
        for (; n != 0; ++p, --n) c32 = __builtin_ia32_crc32qi(c32, *p);
        return c32;
    }
#  if defined(__clang__)
#    define ECS_CLMUL512(a, b, imm) __builtin_ia32_pclmulqdq512((a), (b), (imm))
#  else
#    define ECS_CLMUL512(a, b, imm) __builtin_ia32_vpclmulqdq_v8di((a), (b), (imm))
#  endif
    /// Folds FOLD-byte steps while at least 2 * FOLD bytes are left, then finishes with crc32.
    __attribute__((target("avx512f,vpclmulqdq,sse4.2"))) static uint32_t step_vpclmul(uint32_t crc, const unsigned char* p,
                                                                                      size_t n) noexcept {
        if (n >= 2 * FOLD) {
            const Tables& tb = tables();
            const long long k_lo = static_cast<long long>(tb.fold_lo), k_hi = static_cast<long long>(tb.fold_hi);
            // GCC / Clang vector extensions and builtins, not <immintrin.h>: that header alone costs
            // about a second of compile time in every translation unit including the library. The
            // target attribute makes these AVX-512 instructions.
            typedef long long V8 __attribute__((vector_size(64), aligned(64)));
            const V8 k = {k_lo, k_hi, k_lo, k_hi, k_lo, k_hi, k_lo, k_hi}; // per 128-bit lane: lo, hi
            V8 x[4];
            std::memcpy(x, p, FOLD);
            // The register enters as the first four bytes' xor (crc(c, M) = crc(0, M ^ c)).
            x[0][0] ^= static_cast<long long>(crc);
            p += FOLD;
            n -= FOLD;
            for (; n >= FOLD; p += FOLD, n -= FOLD) { // each lane: lo * K1 ^ hi * K2 ^ the lane FOLD bytes on
                V8 next[4];
                std::memcpy(next, p, FOLD);
                for (int i = 0; i < 4; ++i) x[i] = ECS_CLMUL512(x[i], k, 0x00) ^ ECS_CLMUL512(x[i], k, 0x11) ^ next[i];
            }
            alignas(64) unsigned char rest[FOLD];
            std::memcpy(rest, x, FOLD);
            crc = step_sse42(0, rest, FOLD);
        }
        return step_sse42(crc, p, n);
    }
#  undef ECS_CLMUL512
    static uint32_t step(uint32_t crc, const unsigned char* p, size_t n, Path path) noexcept {
        switch (path) {
        case Path::vpclmul: return step_vpclmul(crc, p, n);
        case Path::sse42: return step_sse42(crc, p, n);
        default: return step_table(crc, p, n);
        }
    }
#else
    static uint32_t step(uint32_t crc, const unsigned char* p, size_t n, Path) noexcept { return step_table(crc, p, n); }
#endif
    static uint32_t step(uint32_t crc, const unsigned char* p, size_t n) noexcept { return step(crc, p, n, best_path()); }

    uint32_t state_ = 0xFFFFFFFFu;
};

/// Largest single transfer handed to a stream (keeps std::streamsize conversions in range).
inline constexpr uint64_t MAX_STREAM_CHUNK = uint64_t(1) << 30;

/// Little-endian writer over an ostream. Stream failures surface in the stream's state. Counts
/// the bytes it writes and, while checksumming (format 2's body), folds them into a CRC-32C: in
/// steps of 64 KiB, so a large column is checksummed while it is still in cache for the write.
template <class D = void>
class SnapshotWriter {
public:
    explicit SnapshotWriter(Dependent<D, std::ostream>& out) noexcept : out_(out) {}

    void raw(const void* data, uint64_t n) {
        const char* p = static_cast<const char*>(data);
        written_ += n;
        while (n != 0) {
            const uint64_t step = detail::min_of(n, checksumming_ ? uint64_t(1) << 16 : MAX_STREAM_CHUNK);
            if (checksumming_) crc_.update(p, static_cast<size_t>(step));
            out_.write(p, static_cast<std::streamsize>(step));
            p += step;
            n -= step;
        }
    }
    /// Starts a fresh checksum and byte count (the body of a format 2 snapshot).
    void begin_checksum() noexcept {
        crc_ = Crc32c();
        written_ = 0;
        checksumming_ = true;
    }
    /// The checksum of everything written since begin_checksum(); stops checksumming.
    [[nodiscard]] uint32_t end_checksum() noexcept {
        checksumming_ = false;
        return crc_.value();
    }
    [[nodiscard]] uint64_t written() const noexcept { return written_; }
    void u32(uint32_t v) {
        unsigned char b[4];
        put_u32(b, v);
        raw(b, 4);
    }
    void u64(uint64_t v) {
        unsigned char b[8];
        put_u64(b, v);
        raw(b, 8);
    }
    void u32_array(const uint32_t* values, size_t n) {
        if constexpr (host_little_endian) {
            raw(values, uint64_t(n) * 4);
        } else {
            unsigned char buf[4096];
            for (size_t i = 0; i < n;) {
                size_t k = 0;
                for (; k < sizeof(buf) / 4 && i < n; ++k, ++i) put_u32(buf + 4 * k, values[i]);
                raw(buf, uint64_t(k) * 4);
            }
        }
    }
    void entities(const PodArray<Entity>& list) {
        if constexpr (host_little_endian) {
            raw(list.data(), uint64_t(list.size()) * sizeof(Entity));
        } else {
            unsigned char buf[4096];
            for (size_t i = 0; i < list.size();) {
                size_t k = 0;
                for (; k < sizeof(buf) / 8 && i < list.size(); ++k, ++i) {
                    put_u32(buf + 8 * k, list[i].index);
                    put_u32(buf + 8 * k + 4, list[i].generation);
                }
                raw(buf, uint64_t(k) * 8);
            }
        }
    }

private:
    Dependent<D, std::ostream>& out_;
    Crc32c crc_;
    uint64_t written_ = 0;
    bool checksumming_ = false;
};

/// Growable in-memory output buffer: collects one column written element by element, so the
/// column's byte length can precede it without seeking the real stream.
template <class D = void>
class ByteSink : public Dependent<D, std::streambuf> {
    using Base = Dependent<D, std::streambuf>;
    using int_type = typename Base::int_type;
    using traits_type = typename Base::traits_type;

public:
    void clear() noexcept { bytes_.clear(); }
    [[nodiscard]] const char* data() const noexcept { return bytes_.data(); }
    [[nodiscard]] size_t size() const noexcept { return bytes_.size(); }

protected:
    int_type overflow(int_type ch) override {
        if (!traits_type::eq_int_type(ch, traits_type::eof())) bytes_.push_back(traits_type::to_char_type(ch));
        return traits_type::not_eof(ch);
    }
    std::streamsize xsputn(const char* s, std::streamsize n) override {
        bytes_.append(s, static_cast<size_t>(n));
        return n;
    }

private:
    std::string bytes_; ///< a string: its members are compiled into the standard library
};

/// Read-only view of bytes already in memory (used when the input stream cannot tell its size).
/// Seekable, so the checksum pass of format 2 can go back to the body.
template <class D = void>
class MemoryStreamBuf : public Dependent<D, std::streambuf> {
    using Base = Dependent<D, std::streambuf>;
    using Ios = Dependent<D, std::ios_base>;
    using pos_type = typename Base::pos_type;
    using off_type = typename Base::off_type;

public:
    void view(char* begin, size_t n) noexcept { this->setg(begin, begin, begin + n); }

protected:
    pos_type seekoff(off_type off, typename Ios::seekdir dir, typename Ios::openmode which) override {
        if ((which & Ios::in) == 0) return pos_type(off_type(-1));
        char* base = dir == Ios::beg ? this->eback() : dir == Ios::cur ? this->gptr() : this->egptr();
        const off_type target = off_type(base - this->eback()) + off;
        if (target < 0 || target > off_type(this->egptr() - this->eback())) return pos_type(off_type(-1));
        this->setg(this->eback(), this->eback() + target, this->egptr());
        return pos_type(target);
    }
    pos_type seekpos(pos_type pos, typename Ios::openmode which) override {
        return seekoff(off_type(pos), Ios::beg, which);
    }
};

/**
 * Input view that ends after `limit` bytes of `source`: a component deserializer reading past its
 * column fails instead of desynchronising the rest of the snapshot. Reads ahead in small chunks,
 * never beyond the limit.
 */
template <class D = void>
class LimitedStreamBuf : public Dependent<D, std::streambuf> {
    using Base = Dependent<D, std::streambuf>;
    using int_type = typename Base::int_type;
    using traits_type = typename Base::traits_type;

public:
    LimitedStreamBuf(Base* source, uint64_t limit) noexcept : source_(source), left_(limit) {}
    /// Every byte of the limit was pulled from the source and handed to the reader.
    [[nodiscard]] bool exhausted() const noexcept { return left_ == 0 && this->gptr() == this->egptr(); }
    /// The source ended before the limit did.
    [[nodiscard]] bool source_short() const noexcept { return source_short_; }

protected:
    int_type underflow() override {
        if (this->gptr() < this->egptr()) return traits_type::to_int_type(*this->gptr());
        if (left_ == 0) return traits_type::eof();
        const uint64_t want = detail::min_of<uint64_t>(left_, sizeof(buffer_));
        const std::streamsize got = source_->sgetn(buffer_, static_cast<std::streamsize>(want));
        if (got <= 0) {
            source_short_ = true;
            return traits_type::eof();
        }
        left_ -= static_cast<uint64_t>(got);
        this->setg(buffer_, buffer_, buffer_ + got);
        return traits_type::to_int_type(*this->gptr());
    }

private:
    Base* source_;
    uint64_t left_;
    bool source_short_ = false;
    char buffer_[4096];
};

/// The get area of any streambuf (the bytes it already holds in memory), read through pointers to
/// its protected members: naming them through a derived class is what the language allows.
template <class D = void>
struct GetArea : Dependent<D, std::streambuf> {
    using Buf = Dependent<D, std::streambuf>;
    static const char* next(Buf* sb) noexcept { return (sb->*&GetArea<D>::gptr)(); }
    static const char* end(Buf* sb) noexcept { return (sb->*&GetArea<D>::egptr)(); }
    /// Advances the read position by `n` bytes. @pre n <= end(sb) - next(sb).
    static void skip(Buf* sb, int n) noexcept { (sb->*&GetArea<D>::gbump)(n); }
};

/// Little-endian reader over a streambuf whose remaining size is known: every read is checked
/// against it before anything is allocated for it.
template <class D = void>
class SnapshotReader {
    using Buf = Dependent<D, std::streambuf>;

public:
    SnapshotReader(Buf* source, uint64_t remaining) noexcept : source_(source), remaining_(remaining) {}

    /// Ends the input `n` bytes from here until unlimit() (a format 2 body). @pre n <= remaining().
    void limit(uint64_t n) noexcept {
        held_back_ = remaining_ - n;
        remaining_ = n;
    }
    /// Gives back the bytes held back by limit().
    void unlimit() noexcept {
        remaining_ += held_back_;
        held_back_ = 0;
    }

    [[nodiscard]] uint64_t offset() const noexcept { return offset_; }
    [[nodiscard]] uint64_t remaining() const noexcept { return remaining_; }
    [[nodiscard]] Buf* source() const noexcept { return source_; }

    [[nodiscard]] bool raw(void* dst, uint64_t n) {
        if (n > remaining_) return false;
        char* p = static_cast<char*>(dst);
        for (uint64_t left = n; left != 0;) {
            const uint64_t step = detail::min_of(left, MAX_STREAM_CHUNK);
            const std::streamsize got = source_->sgetn(p, static_cast<std::streamsize>(step));
            if (got <= 0) {
                remaining_ = 0; // the stream lied about its size: nothing more can be trusted
                return false;
            }
            p += got;
            left -= static_cast<uint64_t>(got);
        }
        consumed(n);
        return true;
    }
    [[nodiscard]] bool u32(uint32_t& v) {
        unsigned char b[4];
        if (!raw(b, 4)) return false;
        v = get_u32(b);
        return true;
    }
    [[nodiscard]] bool u64(uint64_t& v) {
        unsigned char b[8];
        if (!raw(b, 8)) return false;
        v = get_u64(b);
        return true;
    }
    /// Reads `n` u32 into `values`. @pre n * 4 <= remaining() was checked by the caller or not: both work.
    [[nodiscard]] bool u32_array(uint32_t* values, size_t n) {
        if (uint64_t(n) * 4 > remaining_) return false;
        if constexpr (host_little_endian) {
            return raw(values, uint64_t(n) * 4);
        } else {
            unsigned char buf[4096];
            for (size_t i = 0; i < n;) {
                const size_t k = detail::min_of(sizeof(buf) / 4, n - i);
                if (!raw(buf, uint64_t(k) * 4)) return false;
                for (size_t j = 0; j < k; ++j, ++i) values[i] = get_u32(buf + 4 * j);
            }
            return true;
        }
    }
    [[nodiscard]] bool entities(Entity* list, size_t n) {
        if (uint64_t(n) * 8 > remaining_) return false;
        if constexpr (host_little_endian) {
            return raw(list, uint64_t(n) * 8);
        } else {
            unsigned char buf[4096];
            for (size_t i = 0; i < n;) {
                const size_t k = detail::min_of(sizeof(buf) / 8, n - i);
                if (!raw(buf, uint64_t(k) * 8)) return false;
                for (size_t j = 0; j < k; ++j, ++i) list[i] = Entity{get_u32(buf + 8 * j), get_u32(buf + 8 * j + 4)};
            }
            return true;
        }
    }
    /// Skips `n` bytes the source holds in memory (a BodyScan copied them); false, nothing skipped,
    /// when it does not hold them all.
    [[nodiscard]] bool skip_buffered(uint64_t n) {
        if (n > remaining_ || n > uint64_t(GetArea<D>::end(source_) - GetArea<D>::next(source_))) return false;
        for (uint64_t left = n; left != 0;) {
            const uint64_t step = detail::min_of<uint64_t>(left, uint64_t(1) << 30);
            GetArea<D>::skip(source_, static_cast<int>(step));
            left -= step;
        }
        consumed(n);
        return true;
    }
    /// Accounts for `n` bytes consumed from the source by someone else (a LimitedStreamBuf).
    void consumed(uint64_t n) noexcept {
        offset_ += n;
        remaining_ -= n;
    }

private:
    Buf* source_;
    uint64_t remaining_;
    uint64_t offset_ = 0;
    uint64_t held_back_ = 0;
};

/**
 * Format 2's body check over bytes already in memory, in ONE pass: the CRC-32C of the body and, while
 * those bytes are in cache, copies of the entity list of every archetype block and of the generation
 * table, which the loader takes instead of reading them a second time after the check (at 1M entities
 * they are 12 of the body's 28 MB). Column bytes can only be copied into archetypes, and none may be
 * created before the check, so they are read twice; the first megabyte of large column regions is
 * checksummed last, in pieces from its end back to its start, so that the parse, which copies columns
 * from the start, finds it still in cache (the pieces' CRCs are combined in order with
 * Crc32c::shift). Format 1 needs no check and no copies.
 *
 * Walks only the layout (counts, name lengths, element sizes, row counts, column byte lengths), every
 * read bounds-checked, nothing trusted: where the layout stops making sense it stops copying and only
 * checksums the rest. Copies are bounded by the body's size. The loader validates everything as it
 * would without them and takes a copy only when it was taken at exactly the offset and length it reads.
 */
template <class = void>
class BodyScan {
public:
    /// The rows of one archetype block, copied from `at` (offset in the body).
    struct EntityList {
        uint64_t at;
        PodArray<Entity> entities;
    };

    /// Checksums `n` bytes at `body` and copies what it can recognise; returns the CRC-32C.
    uint32_t run(const unsigned char* body, uint64_t n) {
        body_ = body;
        size_ = n;
        if constexpr (host_little_endian) walk(); // (big-endian hosts: checksum only)
        end_stretch(size_);
        for (size_t i = pieces_.size(); i-- > 0;) { // deferred column pieces, last first
            Piece& p = pieces_[i];
            if (p.deferred)
                p.reg = Crc32c::extend(p.at == 0 ? INIT : 0, body_ + p.at, static_cast<size_t>(p.bytes));
        }
        // The first piece started from the initial register; each later one is appended to it (without
        // deferred pieces there is one piece, and nothing to shift).
        uint32_t reg = INIT;
        for (size_t i = 0; i < pieces_.size(); ++i) {
            const Piece& p = pieces_[i];
            reg = i == 0 ? p.reg
                         : (p.bytes == Crc32c::PIECE ? Crc32c::shift_piece(reg) : Crc32c::shift(reg, p.bytes)) ^ p.reg;
        }
        return reg ^ INIT;
    }

    /// The copied list for the block whose rows start at `at` and number `rows`; nullptr otherwise.
    [[nodiscard]] const Entity* entities_at(uint64_t at, uint32_t rows) noexcept {
        while (next_list_ < lists_.size() && lists_[next_list_].at < at) ++next_list_;
        if (next_list_ == lists_.size() || lists_[next_list_].at != at || lists_[next_list_].entities.size() != rows)
            return nullptr;
        return lists_[next_list_++].entities.data();
    }
    /// Moves the copied generation table into `out` when it starts at `at` and holds `slots` entries.
    [[nodiscard]] bool take_generations(uint64_t at, uint32_t slots, std::vector<uint32_t>& out) noexcept {
        if (generations_at_ != at || generations_.size() != slots) return false;
        out.swap(generations_);
        return true;
    }

private:
    static constexpr uint64_t STEP = uint64_t(1) << 16; ///< checksum-then-copy steps: the copy reads cached bytes
    static constexpr uint32_t INIT = 0xFFFFFFFFu; ///< CRC-32C's initial register (and final xor)
    /// The first bytes of a column region at least this long are checksummed after everything else,
    /// in PIECE-byte pieces, up to DEFER_BUDGET bytes in all: what the parse will copy first is then
    /// the last thing read (half an L2 cache: deferring more only pushed the copied entity lists and
    /// generations out of cache, measured slower at 1M entities).
    static constexpr uint64_t DEFER = uint64_t(1) << 18;
    static constexpr uint64_t DEFER_BUDGET = uint64_t(1) << 20;

    /// A piece of the body with its own register (from 0): the in-order stretches between deferred
    /// column pieces, and those pieces.
    struct Piece {
        uint64_t at;
        uint64_t bytes;
        uint32_t reg;
        bool deferred;
    };

    [[nodiscard]] bool has(uint64_t bytes) const noexcept { return bytes <= size_ - pos_; }
    [[nodiscard]] uint32_t u32() noexcept {
        const uint32_t v = get_u32(body_ + pos_);
        pos_ += 4;
        return v;
    }
    /// Checksums the current stretch up to `to`.
    void checksum_to(uint64_t to) noexcept {
        reg_ = Crc32c::extend(reg_, body_ + checked_, static_cast<size_t>(to - checked_));
        checked_ = to;
    }
    /// Ends the current in-order stretch at `to`.
    void end_stretch(uint64_t to) {
        checksum_to(to);
        if (to != stretch_at_) pieces_.push_back(Piece{stretch_at_, to - stretch_at_, reg_, false});
        reg_ = 0;
        stretch_at_ = to;
    }
    /// Checksums up to `pos_`, then `bytes` more in steps, handing each step to `copy` after it.
    template <typename Copy>
    void checksum_and_copy(uint64_t bytes, Copy&& copy) {
        checksum_to(pos_);
        for (uint64_t done = 0; done < bytes;) {
            const uint64_t step = detail::min_of(bytes - done, STEP);
            checksum_to(pos_ + done + step);
            copy(body_ + pos_ + done, static_cast<size_t>(step));
            done += step;
        }
        pos_ += bytes;
    }
    /// Column bytes at `pos_`: the start of a large region is left for the end (in pieces), within
    /// DEFER_BUDGET in all; the rest stays in the current stretch.
    void column(uint64_t bytes) {
        const uint64_t deferred = detail::min_of(bytes, DEFER_BUDGET - deferred_);
        if (bytes >= DEFER && deferred != 0) {
            end_stretch(pos_);
            for (uint64_t done = 0; done < deferred; done += Crc32c::PIECE)
                pieces_.push_back(Piece{pos_ + done, detail::min_of<uint64_t>(Crc32c::PIECE, deferred - done), 0, true});
            stretch_at_ = checked_ = pos_ + deferred;
            deferred_ += deferred;
        }
        pos_ += bytes;
    }

    void walk() {
        if (!has(8)) return;
        const uint32_t blocks = u32();
        const uint32_t slots = u32();
        for (uint32_t b = 0; b < blocks; ++b) {
            if (!has(4)) return;
            const uint32_t components = u32();
            if (components > ECS_MAX_COMPONENTS) return;
            uint32_t columns = 0; // components with an element size: each has a column byte length
            for (uint32_t k = 0; k < components; ++k) {
                if (!has(4)) return;
                const uint32_t length = u32();
                if (!has(uint64_t(length) + 4)) return;
                pos_ += length;
                columns += u32() != 0 ? 1u : 0u;
            }
            if (!has(4)) return;
            const uint32_t rows = u32();
            if (!has(uint64_t(rows) * 8)) return;
            if (rows != 0) {
                lists_.push_back(EntityList{pos_, PodArray<Entity>()});
                PodArray<Entity>& list = lists_.back().entities;
                list.reserve(rows);
                checksum_and_copy(uint64_t(rows) * 8, [&list](const unsigned char* p, size_t k) {
                    // memcpy'd by append (never read through the possibly unaligned pointer); steps
                    // are multiples of 8
                    list.append(reinterpret_cast<const Entity*>(p), k / 8);
                });
            }
            for (uint32_t c = 0; c < columns; ++c) {
                if (!has(8)) return;
                const uint64_t bytes = get_u64(body_ + pos_);
                pos_ += 8;
                if (!has(bytes)) return;
                column(bytes);
            }
        }
        if (!has(uint64_t(slots) * 4)) return;
        generations_at_ = pos_;
        generations_.resize(slots); // (zero-filled like the loader's own table: a vector)
        unsigned char* to = reinterpret_cast<unsigned char*>(generations_.data());
        checksum_and_copy(uint64_t(slots) * 4, [&to](const unsigned char* p, size_t k) {
            std::memcpy(to, p, k);
            to += k;
        });
    }

    const unsigned char* body_ = nullptr;
    uint64_t size_ = 0;
    uint64_t pos_ = 0;        ///< the walk's position
    uint64_t stretch_at_ = 0; ///< where the current in-order stretch starts
    uint64_t checked_ = 0;    ///< the stretch is checksummed up to here, into reg_
    uint32_t reg_ = INIT;     ///< the first stretch starts from the initial register, later ones from 0
    std::vector<Piece> pieces_; ///< in body order
    uint64_t deferred_ = 0;     ///< column bytes left for the end so far
    std::vector<EntityList> lists_;
    size_t next_list_ = 0;
    uint64_t generations_at_ = ~uint64_t(0);
    std::vector<uint32_t> generations_;
};

/**
 * Everything left in a stream that cannot tell its size, read into one uninitialised buffer that
 * grows with the data actually received. The first allocation is sized by in_avail(): bytes the
 * stream already holds in memory, so trusting it costs nothing a hostile input could inflate.
 */
template <class D = void>
class SlurpedInput {
public:
    SlurpedInput() = default;
    SlurpedInput(const SlurpedInput<>&) = delete;
    SlurpedInput<>& operator=(const SlurpedInput<>&) = delete;
    ~SlurpedInput() { delete[] bytes_; }

    void read_all(Dependent<D, std::streambuf>& sb) {
        const std::streamsize buffered = sb.in_avail();
        size_t capacity = detail::max_of<size_t>(size_t(1) << 16, buffered > 0 ? static_cast<size_t>(buffered) + 4096 : 0);
        delete[] bytes_; // (a second call starts over)
        bytes_ = nullptr;
        size_ = 0;
        bytes_ = new char[capacity];
        for (;;) {
            if (size_ == capacity) {
                capacity *= 2;
                char* bigger = new char[capacity];
                std::memcpy(bigger, bytes_, size_);
                delete[] bytes_;
                bytes_ = bigger;
            }
            const uint64_t want = detail::min_of<uint64_t>(capacity - size_, MAX_STREAM_CHUNK);
            const std::streamsize got = sb.sgetn(bytes_ + size_, static_cast<std::streamsize>(want));
            if (got <= 0) break;
            size_ += static_cast<size_t>(got);
        }
    }
    [[nodiscard]] char* data() noexcept { return bytes_; }
    [[nodiscard]] size_t size() const noexcept { return size_; }

private:
    char* bytes_ = nullptr; ///< owned (new[]); uninitialised beyond size_
    size_t size_ = 0;
};

/// Bytes between the current read position of `sb` and its end, when the buffer can seek.
template <class D = void>
inline bool stream_remaining(Dependent<D, std::streambuf>& sb, uint64_t& remaining) {
    using Buf = Dependent<D, std::streambuf>;
    using Ios = Dependent<D, std::ios_base>;
    using Pos = typename Buf::pos_type;
    const Pos invalid = Pos(typename Buf::off_type(-1));
    const Pos here = sb.pubseekoff(0, Ios::cur, Ios::in);
    if (here == invalid) return false;
    const Pos end = sb.pubseekoff(0, Ios::end, Ios::in);
    if (end == invalid) return false;
    if (sb.pubseekpos(here, Ios::in) != here) return false;
    const std::streamoff size = std::streamoff(end) - std::streamoff(here);
    if (size < 0) return false;
    remaining = static_cast<uint64_t>(size);
    return true;
}

/// A section payload under construction: little-endian integers appended to a byte string.
template <class = void>
struct SectionBytes {
    std::string bytes;
    void u32(uint32_t v) {
        unsigned char b[4];
        put_u32(b, v);
        bytes.append(reinterpret_cast<const char*>(b), 4);
    }
    void u64(uint64_t v) {
        unsigned char b[8];
        put_u64(b, v);
        bytes.append(reinterpret_cast<const char*>(b), 8);
    }
    void name(const std::string& text) {
        u32(static_cast<uint32_t>(text.size()));
        bytes.append(text);
    }
};

} // namespace detail
} // namespace ecs
