// A 3x5 pixel bitmap font for the visual harness's on-screen text (no SDL_ttf needed).
// Upper-case letters, digits and a little punctuation; anything else draws as a blank.
#pragma once

#include <cctype>
#include <cstdint>

namespace font {

/// Rows of a glyph, top to bottom; bit 2 is the left column, bit 0 the right one.
struct Glyph {
    char c;
    uint8_t rows[5];
};

// clang-format off
inline constexpr Glyph GLYPHS[] = {
    {'0', {7, 5, 5, 5, 7}}, {'1', {2, 6, 2, 2, 7}}, {'2', {7, 1, 7, 4, 7}}, {'3', {7, 1, 7, 1, 7}},
    {'4', {5, 5, 7, 1, 1}}, {'5', {7, 4, 7, 1, 7}}, {'6', {7, 4, 7, 5, 7}}, {'7', {7, 1, 1, 2, 2}},
    {'8', {7, 5, 7, 5, 7}}, {'9', {7, 5, 7, 1, 7}},
    {'A', {2, 5, 7, 5, 5}}, {'B', {6, 5, 6, 5, 6}}, {'C', {3, 4, 4, 4, 3}}, {'D', {6, 5, 5, 5, 6}},
    {'E', {7, 4, 6, 4, 7}}, {'F', {7, 4, 6, 4, 4}}, {'G', {3, 4, 5, 5, 3}}, {'H', {5, 5, 7, 5, 5}},
    {'I', {7, 2, 2, 2, 7}}, {'J', {1, 1, 1, 5, 2}}, {'K', {5, 5, 6, 5, 5}}, {'L', {4, 4, 4, 4, 7}},
    {'M', {5, 7, 7, 5, 5}}, {'N', {6, 5, 5, 5, 5}}, {'O', {2, 5, 5, 5, 2}}, {'P', {6, 5, 6, 4, 4}},
    {'Q', {2, 5, 5, 6, 3}}, {'R', {6, 5, 6, 5, 5}}, {'S', {3, 4, 2, 1, 6}}, {'T', {7, 2, 2, 2, 2}},
    {'U', {5, 5, 5, 5, 7}}, {'V', {5, 5, 5, 5, 2}}, {'W', {5, 5, 7, 7, 5}}, {'X', {5, 5, 2, 5, 5}},
    {'Y', {5, 5, 2, 2, 2}}, {'Z', {7, 1, 2, 4, 7}},
    {'.', {0, 0, 0, 0, 2}}, {':', {0, 2, 0, 2, 0}}, {'-', {0, 0, 7, 0, 0}}, {'+', {0, 2, 7, 2, 0}},
    {'/', {1, 1, 2, 4, 4}}, {'(', {2, 4, 4, 4, 2}}, {')', {2, 1, 1, 1, 2}}, {'%', {5, 1, 2, 4, 5}},
    {'=', {0, 7, 0, 7, 0}}, {',', {0, 0, 0, 2, 4}}, {'<', {1, 2, 4, 2, 1}}, {'>', {4, 2, 1, 2, 4}},
};
// clang-format on

/// The glyph of `c` (lower case is shown as upper case), or nullptr for a blank.
inline const Glyph* find(char c) {
    const char upper = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    for (const Glyph& g : GLYPHS)
        if (g.c == upper) return &g;
    return nullptr;
}

/// Calls `plot(x, y)` for every lit pixel of `text` drawn at (x, y) in font pixels; each character
/// advances 4 pixels. Returns the width in font pixels.
template <typename Plot>
int draw(const char* text, int x, int y, Plot&& plot) {
    int cx = x;
    for (const char* p = text; *p != '\0'; ++p, cx += 4) {
        const Glyph* g = find(*p);
        if (g == nullptr) continue;
        for (int row = 0; row < 5; ++row)
            for (int col = 0; col < 3; ++col)
                if (g->rows[row] & (4 >> col)) plot(cx + col, y + row);
    }
    return cx - x;
}

} // namespace font
