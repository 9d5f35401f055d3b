// Snapshot / change-stream functions shared by the rollback tests: a type holding `std::string s`
// (length-prefixed, bounded on read) and a lifetime::Counted<Tag> (its int value).
#pragma once

#include <cstdint>
#include <istream>
#include <new>
#include <ostream>
#include <string>
#include <utility>

template <typename T>
void text_out(std::ostream& out, const void* p) {
    const std::string& s = static_cast<const T*>(p)->s;
    const uint32_t n = static_cast<uint32_t>(s.size());
    out.write(reinterpret_cast<const char*>(&n), 4);
    out.write(s.data(), static_cast<std::streamsize>(n));
}

template <typename T>
void text_in(std::istream& in, void* p) {
    uint32_t n = 0;
    if (!in.read(reinterpret_cast<char*>(&n), 4) || n > 4096) {
        in.setstate(std::ios_base::failbit);
        return;
    }
    std::string s(n, '\0');
    if (n != 0 && !in.read(&s[0], static_cast<std::streamsize>(n))) return;
    ::new (p) T{std::move(s)};
}

template <typename C>
void counted_out(std::ostream& out, const void* p) {
    const int v = static_cast<const C*>(p)->value();
    out.write(reinterpret_cast<const char*>(&v), 4);
}

template <typename C>
void counted_in(std::istream& in, void* p) {
    int v = 0;
    if (!in.read(reinterpret_cast<char*>(&v), 4)) return;
    ::new (p) C(v);
}
