// libFuzzer target: bytes -> tests/columnar/parquet_reader.hpp, the test-side Parquet reader that the
// columnar tests use to read back what ecs::Recorder writes. Any input must be read or refused with
// an error, never crash, hang or read out of bounds. The seed corpus holds files the Recorder wrote.

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "../tests/columnar/parquet_reader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const pqtest::File f = pqtest::read(std::string_view(reinterpret_cast<const char*>(data), size));
    // A file read without error holds one cell per row and leaf.
    if (f.error.empty())
        for (const auto& column : f.columns)
            if (column.size() > size * 8 + 64) __builtin_trap();
    return 0;
}
