// bmp_check: verifies that a file is a readable, uncompressed 24- or 32-bit BMP and that it shows
// something: at least a few distinct colours, and a non-trivial share of pixels differing from the
// most common (background) colour. Used by the visual harness test; knows nothing of SDL.
//
// Usage: bmp_check FILE [MIN_COLOURS] [MIN_FOREGROUND_PERMILLE]
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <unordered_map>
#include <vector>

namespace {

uint32_t u32(const std::vector<unsigned char>& b, size_t at) {
    return uint32_t(b[at]) | (uint32_t(b[at + 1]) << 8) | (uint32_t(b[at + 2]) << 16) | (uint32_t(b[at + 3]) << 24);
}
uint16_t u16(const std::vector<unsigned char>& b, size_t at) {
    return static_cast<uint16_t>(b[at] | (b[at + 1] << 8));
}

int fail(const char* why) {
    std::fprintf(stderr, "bmp_check: %s\n", why);
    return 1;
}

} // namespace

int main(int argc, char** argv) {
    if (argc < 2) return fail("usage: bmp_check FILE [MIN_COLOURS] [MIN_FOREGROUND_PERMILLE]");
    const size_t min_colours = argc > 2 ? std::strtoul(argv[2], nullptr, 10) : 8;
    const size_t min_permille = argc > 3 ? std::strtoul(argv[3], nullptr, 10) : 5;

    std::ifstream file(argv[1], std::ios::binary);
    if (!file) return fail("cannot open the file");
    const std::vector<unsigned char> b((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    if (b.size() < 54 || b[0] != 'B' || b[1] != 'M') return fail("not a BMP file");
    const uint32_t data_offset = u32(b, 10);
    const int32_t width = static_cast<int32_t>(u32(b, 18));
    const int32_t raw_height = static_cast<int32_t>(u32(b, 22));
    const uint16_t bpp = u16(b, 28);
    const uint32_t compression = u32(b, 30);
    const int32_t height = raw_height < 0 ? -raw_height : raw_height;
    if (width <= 0 || height <= 0 || (bpp != 24 && bpp != 32)) return fail("unsupported BMP (needs 24/32 bpp)");
    if (compression != 0 && compression != 3) return fail("compressed BMP");
    const size_t bytes_per_pixel = bpp / 8u;
    const size_t stride = (size_t(width) * bytes_per_pixel + 3u) & ~size_t(3);
    if (data_offset + stride * size_t(height) > b.size()) return fail("truncated pixel data");

    std::unordered_map<uint32_t, size_t> histogram;
    for (size_t y = 0; y < size_t(height); ++y) {
        const unsigned char* row = b.data() + data_offset + y * stride;
        for (size_t x = 0; x < size_t(width); ++x) {
            const unsigned char* p = row + x * bytes_per_pixel;
            ++histogram[uint32_t(p[0]) | (uint32_t(p[1]) << 8) | (uint32_t(p[2]) << 16)];
        }
    }
    size_t background = 0;
    for (const auto& entry : histogram)
        if (entry.second > background) background = entry.second;
    const size_t total = size_t(width) * size_t(height);
    const size_t foreground_permille = (total - background) * 1000 / total;
    std::printf("bmp_check: %dx%d, %zu bpp, %zu colours, %zu permille foreground\n", width, height, size_t(bpp),
                histogram.size(), foreground_permille);
    if (histogram.size() < min_colours) return fail("too few colours: the image is (nearly) blank");
    if (foreground_permille < min_permille) return fail("almost every pixel is background");
    return 0;
}
