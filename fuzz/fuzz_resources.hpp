// Resources registered by the fuzz targets and the corpus generator (snapshot format 2 carries them):
// a trivially copyable one (memcpy) and one with functions holding a string.
#pragma once

#include <ecs/serialization.hpp>

#include <cstdint>
#include <istream>
#include <ostream>
#include <string>

struct FuzzClock {
    uint32_t frame;
    float dt;
};
struct FuzzLabel {
    std::string text;
};

inline void fuzz_write_label(std::ostream& out, const void* p) {
    const std::string& s = static_cast<const FuzzLabel*>(p)->text;
    const uint32_t n = static_cast<uint32_t>(s.size());
    const char size[4] = {static_cast<char>(n), static_cast<char>(n >> 8), static_cast<char>(n >> 16),
                          static_cast<char>(n >> 24)};
    out.write(size, 4);
    out.write(s.data(), static_cast<std::streamsize>(n));
}
inline void fuzz_read_label(std::istream& in, void* storage) {
    unsigned char size[4];
    if (!in.read(reinterpret_cast<char*>(size), 4)) return;
    uint32_t n = uint32_t(size[0]) | uint32_t(size[1]) << 8 | uint32_t(size[2]) << 16 | uint32_t(size[3]) << 24;
    std::string s;
    char chunk[256];
    while (n != 0) { // bounded chunks: a hostile length fails at the end of the data
        const uint32_t step = n < sizeof chunk ? n : uint32_t(sizeof chunk);
        if (!in.read(chunk, step)) return;
        s.append(chunk, step);
        n -= step;
    }
    ::new (storage) FuzzLabel{std::move(s)};
}

inline void register_fuzz_resources() {
    static const bool done = [] {
        ecs::register_resource<FuzzClock>("fuzz.Clock");
        ecs::register_resource<FuzzLabel>("fuzz.Label", &fuzz_write_label, &fuzz_read_label);
        return true;
    }();
    (void)done;
}
