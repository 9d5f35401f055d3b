/**
 * @file ecs/json.hpp
 * @brief JSON text for reflected types (see reflect.hpp): `to_json(value)`,
 *        `from_json(value, text)`, and untyped forms over a FieldView and a pointer.
 *
 * Optional and not included by ecs.hpp. Its own small writer and reader; no dependency beyond the
 * standard library, no exceptions thrown by the library (std::string may still throw bad_alloc), no
 * RTTI, and no dependence on the C locale (numbers always use '.').
 *
 * The mapping, field by field:
 * | Field kind            | JSON                                                                      |
 * |-----------------------|---------------------------------------------------------------------------|
 * | bool                  | `true` / `false`                                                          |
 * | int8 .. uint64, enums | an integer literal: no fraction, no exponent, within the type's range       |
 * | float32, float64      | a number (`%.9g` / `%.17g`: reads back bit-exact); NaN is written `null`,   |
 * |                       | +-infinity `1e999` / `-1e999`; reading `null` gives a quiet NaN, and a       |
 * |                       | literal beyond the type's range reads as +-infinity (IEEE rounding)        |
 * | string                | a string; `"`, `\` and control characters escaped, other bytes as they are  |
 * | entity                | `{"index":i,"generation":g}`, both keys required when reading               |
 * | nested                | an object of the nested type's fields                                     |
 * | array                 | an array of exactly N elements                                            |
 *
 * The writer emits compact text (no spaces), fields in declaration order. The reader accepts RFC 8259
 * JSON with any whitespace, and is strict: an unknown field, a duplicate field, a value of the wrong
 * type, an integer out of range, an array of the wrong length, invalid UTF-8, an unpaired surrogate
 * escape, nesting deeper than MAX_JSON_DEPTH, truncated text or text after the value is an error.
 * Fields absent from the text keep their current values. On any error the object is left exactly as
 * it was: the text is checked completely (syntax, then against the fields) before anything is
 * written.
 *
 * Thread-safety: the functions share no state, so they may run on several threads at once (on
 * different objects, or reading the same one). They read the C locale's decimal point: do not call
 * setlocale() on another thread meanwhile.
 */
#pragma once

#include <cerrno>
#include <charconv>
#include <clocale>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "reflect.hpp"
#include "world.hpp"

namespace ecs {

/// Deepest nesting of objects and arrays from_json accepts (the outermost object counts as 1).
inline constexpr unsigned MAX_JSON_DEPTH = 64;

/**
 * @brief Outcome of from_json: converts to true on success.
 *
 * On failure `error` says what is wrong and where (the path of the field, e.g. `pos.x` or
 * `points[2].y`), and `offset` is the byte offset in the text where it was found.
 */
struct JsonResult {
    bool ok = true;
    std::string error;  ///< empty on success
    size_t offset = 0;  ///< on failure: byte offset of the problem in the text; 0 on success

    explicit operator bool() const noexcept { return ok; }
};

namespace detail {

// ---------------------------------------------------------------------------------------------------
// Writer
// ---------------------------------------------------------------------------------------------------

/// Appends `s` as a JSON string literal.
inline void json_write_string(std::string& out, std::string_view s) {
    static constexpr char hex[] = "0123456789abcdef";
    out += '"';
    for (const char ch : s) {
        const auto c = static_cast<unsigned char>(ch);
        switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\b': out += "\\b"; break;
        case '\f': out += "\\f"; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        default:
            if (c < 0x20) {
                out += "\\u00";
                out += hex[c >> 4];
                out += hex[c & 0xF];
            } else {
                out += ch;
            }
        }
    }
    out += '"';
}

template <typename I>
void json_write_integer(std::string& out, const unsigned char* p) {
    I v;
    std::memcpy(&v, p, sizeof(I));
    char buf[24];
    const std::to_chars_result r = std::to_chars(buf, buf + sizeof(buf), v);
    out.append(buf, static_cast<size_t>(r.ptr - buf));
}

/// Appends `text` to `out` with the first `from` replaced by `to` (number text and decimal points:
/// snprintf and strtod use the C locale's decimal point, JSON always '.').
inline void json_append_replacing(std::string& out, std::string_view text, std::string_view from, std::string_view to) {
    const size_t at = from.empty() || from == to ? std::string_view::npos : text.find(from);
    if (at == std::string_view::npos) {
        out += text;
    } else {
        out += text.substr(0, at);
        out += to;
        out += text.substr(at + from.size());
    }
}

/// Appends a float (`single`: printed with 9 significant digits) or double (17 digits): enough for
/// strtof/strtod to give back the same bits. The C locale's decimal point is replaced by '.'.
inline void json_write_floating(std::string& out, double v, bool single) {
    if (std::isnan(v)) {
        out += "null";
        return;
    }
    if (std::isinf(v)) {
        out += v < 0 ? "-1e999" : "1e999";
        return;
    }
    char buf[64];
    const int n = std::snprintf(buf, sizeof(buf), single ? "%.9g" : "%.17g", v);
    if (n <= 0 || static_cast<size_t>(n) >= sizeof(buf)) return; // cannot happen for %g of a finite value
    json_append_replacing(out, std::string_view(buf, static_cast<size_t>(n)), std::localeconv()->decimal_point, ".");
}

inline void json_write_fields(std::string& out, FieldView fields, const unsigned char* object);

inline void json_write_value(std::string& out, const FieldInfo& f, const unsigned char* p) {
    switch (f.kind) {
    case FieldKind::boolean: {
        bool b;
        std::memcpy(&b, p, sizeof(bool));
        out += b ? "true" : "false";
        break;
    }
    case FieldKind::int8: json_write_integer<int8_t>(out, p); break;
    case FieldKind::int16: json_write_integer<int16_t>(out, p); break;
    case FieldKind::int32: json_write_integer<int32_t>(out, p); break;
    case FieldKind::int64: json_write_integer<int64_t>(out, p); break;
    case FieldKind::uint8: json_write_integer<uint8_t>(out, p); break;
    case FieldKind::uint16: json_write_integer<uint16_t>(out, p); break;
    case FieldKind::uint32: json_write_integer<uint32_t>(out, p); break;
    case FieldKind::uint64: json_write_integer<uint64_t>(out, p); break;
    case FieldKind::float32: {
        float v;
        std::memcpy(&v, p, sizeof(float));
        json_write_floating(out, static_cast<double>(v), true);
        break;
    }
    case FieldKind::float64: {
        double v;
        std::memcpy(&v, p, sizeof(double));
        json_write_floating(out, v, false);
        break;
    }
    case FieldKind::string: json_write_string(out, *static_cast<const std::string*>(static_cast<const void*>(p))); break;
    case FieldKind::entity: {
        Entity e;
        std::memcpy(&e, p, sizeof(Entity));
        out += "{\"index\":";
        json_write_integer<uint32_t>(out, reinterpret_cast<const unsigned char*>(&e.index));
        out += ",\"generation\":";
        json_write_integer<uint32_t>(out, reinterpret_cast<const unsigned char*>(&e.generation));
        out += '}';
        break;
    }
    case FieldKind::nested: json_write_fields(out, f.nested(), p); break;
    case FieldKind::array:
        out += '[';
        for (size_t i = 0; i < f.element_count; ++i) {
            if (i != 0) out += ',';
            json_write_value(out, *f.element, p + i * f.element_size);
        }
        out += ']';
        break;
    }
}

inline void json_write_fields(std::string& out, FieldView fields, const unsigned char* object) {
    out += '{';
    bool first = true;
    for (const FieldInfo& f : fields) {
        if (!first) out += ',';
        first = false;
        json_write_string(out, f.name);
        out += ':';
        json_write_value(out, f, object + f.offset);
    }
    out += '}';
}

// ---------------------------------------------------------------------------------------------------
// Reader
// ---------------------------------------------------------------------------------------------------

/// One component of an entity as the World-level functions see it (also what tests drive directly).
struct JsonComponentRef {
    std::string_view name;
    FieldView fields;
    void* data = nullptr;
};

/**
 * Recursive-descent reader. check_document() validates the syntax of the whole text; the read_*
 * functions then walk it against a FieldView, once with `commit == false` (every type, range and
 * name check, nothing written) and once with `commit == true` (writes; cannot fail after a dry run
 * succeeded on the same text).
 */
class JsonReader {
public:
    explicit JsonReader(std::string_view text) noexcept : text_(text) {}

    /// Syntax of the whole text: one value, nothing but whitespace after it, nesting bounded.
    bool check_document() {
        pos_ = 0;
        if (!skip_value(0)) return false;
        skip_ws();
        if (pos_ != text_.size()) return fail(pos_, "unexpected text after the JSON value");
        return true;
    }

    /// Reads the whole text as an object of `fields` into `object`.
    bool read_root(FieldView fields, unsigned char* object, bool commit) {
        pos_ = 0;
        path_.clear();
        return read_object(fields, object, commit);
    }

    /// Reads the whole text as an object whose keys name `components`.
    bool read_components(const JsonComponentRef* components, size_t count, bool commit) {
        pos_ = 0;
        path_.clear();
        skip_ws();
        if (peek() != '{') return type_error("an object");
        ++pos_;
        std::vector<unsigned char> seen(commit ? 0 : count, 0);
        return read_members([&](std::string_view key, size_t key_at) {
            size_t i = 0;
            while (i < count && components[i].name != key) ++i;
            if (i == count)
                return fail(key_at, "no reflected component named '" + std::string(key) + "' on this entity");
            if (!commit) {
                if (seen[i] != 0) return fail(key_at, "component '" + std::string(key) + "' appears twice");
                seen[i] = 1;
            }
            path_.assign(key.data(), key.size());
            return read_object(components[i].fields, static_cast<unsigned char*>(components[i].data), commit);
        });
    }

    [[nodiscard]] JsonResult result() const {
        JsonResult r;
        if (!error_.empty()) {
            r.ok = false;
            r.error = error_;
            r.offset = error_offset_;
        }
        return r;
    }

private:
    // -- low level -------------------------------------------------------------------------------

    [[nodiscard]] bool at_end() const noexcept { return pos_ >= text_.size(); }
    [[nodiscard]] char peek() const noexcept { return at_end() ? '\0' : text_[pos_]; }

    void skip_ws() noexcept {
        while (!at_end()) {
            const char c = text_[pos_];
            if (c != ' ' && c != '\t' && c != '\n' && c != '\r') break;
            ++pos_;
        }
    }

    bool fail(size_t at, std::string message) {
        if (error_.empty()) { // the first error found is the one reported
            error_ = std::move(message);
            error_offset_ = at;
            if (error_.empty()) error_ = "error";
        }
        return false;
    }

    /// Consumes `c` (after whitespace) or fails.
    bool expect(char c) {
        skip_ws();
        if (peek() == c) {
            ++pos_;
            return true;
        }
        if (at_end()) return fail(pos_, std::string("unexpected end of text, expected '") + c + "'");
        return fail(pos_, std::string("expected '") + c + "'");
    }

    bool literal(std::string_view word) {
        if (text_.substr(pos_, word.size()) == word) {
            pos_ += word.size();
            return true;
        }
        if (text_.size() - pos_ < word.size() && word.substr(0, text_.size() - pos_) == text_.substr(pos_))
            return fail(pos_, "unexpected end of text");
        return fail(pos_, "invalid literal, expected a value");
    }

    /// Scans a number per RFC 8259 at pos_ into `token`.
    bool scan_number(std::string_view& token) {
        const size_t start = pos_;
        auto digit = [&] { return !at_end() && text_[pos_] >= '0' && text_[pos_] <= '9'; };
        auto digits = [&](const char* what) {
            if (!digit()) return fail(pos_, at_end() ? std::string("unexpected end of text in a number") : what);
            while (digit()) ++pos_;
            return true;
        };
        if (peek() == '-') ++pos_;
        if (peek() == '0') {
            ++pos_;
            if (digit()) return fail(pos_, "invalid number: leading zero");
        } else if (!digits("invalid number")) {
            return false;
        }
        if (peek() == '.') {
            ++pos_;
            if (!digits("invalid number: digit expected after '.'")) return false;
        }
        if (peek() == 'e' || peek() == 'E') {
            ++pos_;
            if (peek() == '+' || peek() == '-') ++pos_;
            if (!digits("invalid number: digit expected in the exponent")) return false;
        }
        token = text_.substr(start, pos_ - start);
        return true;
    }

    bool hex4(uint32_t& value) {
        if (text_.size() - pos_ < 4) return fail(pos_, "unexpected end of text in a \\u escape");
        value = 0;
        for (int i = 0; i < 4; ++i) {
            const char c = text_[pos_];
            uint32_t d;
            if (c >= '0' && c <= '9') d = static_cast<uint32_t>(c - '0');
            else if (c >= 'a' && c <= 'f') d = static_cast<uint32_t>(c - 'a' + 10);
            else if (c >= 'A' && c <= 'F') d = static_cast<uint32_t>(c - 'A' + 10);
            else return fail(pos_, "invalid \\u escape: four hexadecimal digits expected");
            value = value * 16 + d;
            ++pos_;
        }
        return true;
    }

    static void append_utf8(std::string& out, uint32_t cp) {
        if (cp < 0x80) {
            out += static_cast<char>(cp);
        } else if (cp < 0x800) {
            out += static_cast<char>(0xC0 | (cp >> 6));
            out += static_cast<char>(0x80 | (cp & 0x3F));
        } else if (cp < 0x10000) {
            out += static_cast<char>(0xE0 | (cp >> 12));
            out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
            out += static_cast<char>(0x80 | (cp & 0x3F));
        } else {
            out += static_cast<char>(0xF0 | (cp >> 18));
            out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
            out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
            out += static_cast<char>(0x80 | (cp & 0x3F));
        }
    }

    /// Length of the well-formed UTF-8 sequence at pos_ (lead byte >= 0x80), or 0.
    [[nodiscard]] size_t utf8_sequence_length() const noexcept {
        auto byte = [&](size_t i) {
            return pos_ + i < text_.size() ? static_cast<unsigned char>(text_[pos_ + i]) : 0u;
        };
        auto in = [](unsigned v, unsigned lo, unsigned hi) { return v >= lo && v <= hi; };
        const unsigned b0 = byte(0), b1 = byte(1);
        if (in(b0, 0xC2, 0xDF)) return in(b1, 0x80, 0xBF) ? 2 : 0;
        unsigned lo = 0x80, hi = 0xBF;
        if (b0 == 0xE0) lo = 0xA0;
        else if (b0 == 0xED) hi = 0x9F; // no UTF-16 surrogates
        else if (b0 == 0xF0) lo = 0x90;
        else if (b0 == 0xF4) hi = 0x8F; // nothing above U+10FFFF
        if (in(b0, 0xE0, 0xEF)) return in(b1, lo, hi) && in(byte(2), 0x80, 0xBF) ? 3 : 0;
        if (in(b0, 0xF0, 0xF4))
            return in(b1, lo, hi) && in(byte(2), 0x80, 0xBF) && in(byte(3), 0x80, 0xBF) ? 4 : 0;
        return 0;
    }

    /// Reads a string literal at pos_, decoding it into `out` (when not null).
    bool read_string(std::string* out) {
        if (peek() != '"') return type_error("a string");
        ++pos_;
        for (;;) {
            if (at_end()) return fail(pos_, "unexpected end of text in a string");
            const char ch = text_[pos_];
            const auto c = static_cast<unsigned char>(ch);
            if (ch == '"') {
                ++pos_;
                return true;
            }
            if (c < 0x20) return fail(pos_, "control character in a string (it must be escaped)");
            if (c >= 0x80) {
                const size_t n = utf8_sequence_length();
                if (n == 0) return fail(pos_, "invalid UTF-8 in a string");
                if (out != nullptr) out->append(text_.data() + pos_, n);
                pos_ += n;
                continue;
            }
            ++pos_;
            if (ch != '\\') {
                if (out != nullptr) *out += ch;
                continue;
            }
            if (at_end()) return fail(pos_, "unexpected end of text in a string");
            const size_t escape_at = pos_ - 1;
            char decoded = '\0';
            switch (text_[pos_++]) {
            case '"': decoded = '"'; break;
            case '\\': decoded = '\\'; break;
            case '/': decoded = '/'; break;
            case 'b': decoded = '\b'; break;
            case 'f': decoded = '\f'; break;
            case 'n': decoded = '\n'; break;
            case 'r': decoded = '\r'; break;
            case 't': decoded = '\t'; break;
            case 'u': {
                uint32_t cp = 0;
                if (!hex4(cp)) return false;
                if (cp >= 0xDC00 && cp <= 0xDFFF) return fail(escape_at, "unpaired surrogate in a \\u escape");
                if (cp >= 0xD800 && cp <= 0xDBFF) {
                    uint32_t low = 0;
                    if (text_.substr(pos_, 2) != "\\u") return fail(escape_at, "unpaired surrogate in a \\u escape");
                    pos_ += 2;
                    if (!hex4(low)) return false;
                    if (low < 0xDC00 || low > 0xDFFF) return fail(escape_at, "unpaired surrogate in a \\u escape");
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
                }
                if (out != nullptr) append_utf8(*out, cp);
                continue;
            }
            default: return fail(escape_at, "invalid escape in a string");
            }
            if (out != nullptr) *out += decoded;
        }
    }

    /// Syntax check of one value; `depth` is the number of enclosing objects and arrays.
    bool skip_value(unsigned depth) {
        skip_ws();
        if (at_end()) return fail(pos_, "unexpected end of text, expected a value");
        const char c = text_[pos_];
        if (c == '{' || c == '[') {
            if (depth + 1 > MAX_JSON_DEPTH) return fail(pos_, "nesting deeper than 64 levels");
            const char close = c == '{' ? '}' : ']';
            ++pos_;
            skip_ws();
            if (peek() == close) {
                ++pos_;
                return true;
            }
            for (;;) {
                if (c == '{') {
                    skip_ws();
                    if (at_end()) return fail(pos_, "unexpected end of text, expected a key");
                    if (peek() != '"') return fail(pos_, "expected a key (a string)");
                    if (!read_string(nullptr) || !expect(':')) return false;
                }
                if (!skip_value(depth + 1)) return false;
                skip_ws();
                if (peek() == ',') {
                    ++pos_;
                    continue;
                }
                return expect(close);
            }
        }
        if (c == '"') return read_string(nullptr);
        if (c == 't') return literal("true");
        if (c == 'f') return literal("false");
        if (c == 'n') return literal("null");
        if (c == '-' || (c >= '0' && c <= '9')) {
            std::string_view token;
            return scan_number(token);
        }
        return fail(pos_, "unexpected character, expected a value");
    }

    // -- typed reading -----------------------------------------------------------------------------

    /// What the JSON value at pos_ is, for messages.
    [[nodiscard]] const char* found() const noexcept {
        switch (peek()) {
        case '{': return "an object";
        case '[': return "an array";
        case '"': return "a string";
        case 't': case 'f': return "a boolean";
        case 'n': return "null";
        default: return "a number";
        }
    }

    [[nodiscard]] std::string where() const { return path_.empty() ? std::string("top level") : "field '" + path_ + "'"; }

    bool type_error(const char* expected) {
        return fail(pos_, where() + ": expected " + expected + ", got " + found());
    }

    /// Reads `key: value` pairs up to the closing '}' (the '{' is consumed); `member(key, key_at)`
    /// reads each value.
    template <typename Member>
    bool read_members(Member&& member) {
        skip_ws();
        if (peek() == '}') {
            ++pos_;
            return true;
        }
        std::string key;
        for (;;) {
            skip_ws();
            const size_t key_at = pos_;
            key.clear();
            if (!read_string(&key) || !expect(':')) return false;
            skip_ws();
            if (!member(std::string_view(key), key_at)) return false;
            skip_ws();
            if (peek() == ',') {
                ++pos_;
                continue;
            }
            return expect('}');
        }
    }

    bool read_object(FieldView fields, unsigned char* object, bool commit) {
        skip_ws();
        if (peek() != '{') return type_error("an object");
        ++pos_;
        std::vector<unsigned char> seen(commit ? 0 : fields.size(), 0);
        const size_t mark = path_.size();
        return read_members([&](std::string_view key, size_t key_at) {
            path_.resize(mark);
            if (!path_.empty()) path_ += '.';
            path_ += key;
            const FieldInfo* f = fields.find(key);
            if (f == nullptr) return fail(key_at, "unknown field '" + path_ + "'");
            if (!commit) {
                unsigned char& s = seen[static_cast<size_t>(f - fields.begin())];
                if (s != 0) return fail(key_at, "duplicate field '" + path_ + "'");
                s = 1;
            }
            const bool ok = read_value(*f, object + f->offset, commit);
            path_.resize(mark);
            return ok;
        });
    }

    bool read_value(const FieldInfo& f, unsigned char* p, bool commit) {
        skip_ws();
        switch (f.kind) {
        case FieldKind::boolean: {
            bool b;
            if (peek() == 't') b = true;
            else if (peek() == 'f') b = false;
            else return type_error("true or false");
            if (!literal(b ? "true" : "false")) return false;
            if (commit) std::memcpy(p, &b, sizeof(bool));
            return true;
        }
        case FieldKind::int8: case FieldKind::int16: case FieldKind::int32: case FieldKind::int64:
        case FieldKind::uint8: case FieldKind::uint16: case FieldKind::uint32: case FieldKind::uint64:
            return read_integer(f.kind, p, commit);
        case FieldKind::float32: case FieldKind::float64: return read_floating(f.kind == FieldKind::float32, p, commit);
        case FieldKind::string: {
            if (peek() != '"') return type_error("a string");
            std::string s;
            if (!read_string(&s)) return false;
            if (commit) static_cast<std::string*>(static_cast<void*>(p))->swap(s);
            return true;
        }
        case FieldKind::entity: return read_entity(p, commit);
        case FieldKind::nested: return read_object(f.nested(), p, commit);
        case FieldKind::array: {
            if (peek() != '[') return type_error("an array");
            ++pos_;
            const size_t mark = path_.size();
            for (size_t i = 0; i < f.element_count; ++i) {
                if (i != 0 && !expect(',')) {
                    error_.clear(); // replace the syntax message by a more useful one
                    return fail(pos_, where() + ": expected " + std::to_string(f.element_count) +
                                          " elements, got " + std::to_string(i));
                }
                skip_ws();
                if (peek() == ']') {
                    return fail(pos_, where() + ": expected " + std::to_string(f.element_count) +
                                          " elements, got " + std::to_string(i));
                }
                path_ += '[';
                path_ += std::to_string(i);
                path_ += ']';
                const bool ok = read_value(*f.element, p + i * f.element_size, commit);
                path_.resize(mark);
                if (!ok) return false;
            }
            skip_ws();
            if (peek() != ']')
                return fail(pos_, where() + ": expected " + std::to_string(f.element_count) + " elements, got more");
            ++pos_;
            return true;
        }
        }
        return fail(pos_, "corrupt field description");
    }

    /// Shortened copy of a token for messages.
    static std::string quote_token(std::string_view token) {
        return token.size() <= 40 ? std::string(token) : std::string(token.substr(0, 37)) + "...";
    }

    bool read_integer(FieldKind kind, unsigned char* p, bool commit) {
        if (peek() != '-' && (peek() < '0' || peek() > '9')) return type_error("an integer");
        const size_t at = pos_;
        std::string_view token;
        if (!scan_number(token)) return false;
        if (token.find_first_of(".eE") != std::string_view::npos)
            return fail(at, where() + ": expected an integer, got " + quote_token(token));
        const bool negative = token[0] == '-';
        uint64_t magnitude = 0;
        bool overflow = false;
        for (size_t i = negative ? 1 : 0; i < token.size(); ++i) {
            const auto d = static_cast<uint64_t>(token[i] - '0');
            if (magnitude > (std::numeric_limits<uint64_t>::max() - d) / 10) overflow = true;
            else magnitude = magnitude * 10 + d;
        }
        unsigned bits = 8;
        bool is_signed = true;
        switch (kind) {
        case FieldKind::int8: break;
        case FieldKind::int16: bits = 16; break;
        case FieldKind::int32: bits = 32; break;
        case FieldKind::int64: bits = 64; break;
        case FieldKind::uint8: is_signed = false; break;
        case FieldKind::uint16: bits = 16; is_signed = false; break;
        case FieldKind::uint32: bits = 32; is_signed = false; break;
        default: bits = 64; is_signed = false; break;
        }
        uint64_t limit; // largest magnitude allowed for this sign
        if (is_signed) limit = (uint64_t(1) << (bits - 1)) - (negative ? 0 : 1);
        else limit = negative ? 0 : (bits == 64 ? std::numeric_limits<uint64_t>::max() : (uint64_t(1) << bits) - 1);
        if (overflow || magnitude > limit)
            return fail(at, where() + ": " + quote_token(token) + " is out of range for " +
                                std::string(field_kind_name(kind)));
        if (!commit) return true;
        // Two's complement of the magnitude for negatives; the low `bits` bits are the value.
        const uint64_t value = negative ? ~magnitude + 1 : magnitude;
        if (bits == 8) {
            const auto v = static_cast<uint8_t>(value);
            std::memcpy(p, &v, 1);
        } else if (bits == 16) {
            const auto v = static_cast<uint16_t>(value);
            std::memcpy(p, &v, 2);
        } else if (bits == 32) {
            const auto v = static_cast<uint32_t>(value);
            std::memcpy(p, &v, 4);
        } else {
            std::memcpy(p, &value, 8);
        }
        return true;
    }

    bool read_floating(bool single, unsigned char* p, bool commit) {
        if (peek() == 'n') {
            if (!literal("null")) return false;
            if (commit) {
                if (single) {
                    const float v = std::numeric_limits<float>::quiet_NaN();
                    std::memcpy(p, &v, sizeof(float));
                } else {
                    const double v = std::numeric_limits<double>::quiet_NaN();
                    std::memcpy(p, &v, sizeof(double));
                }
            }
            return true;
        }
        if (peek() != '-' && (peek() < '0' || peek() > '9')) return type_error("a number");
        std::string_view token;
        if (!scan_number(token)) return false;
        if (!commit) return true;
        // strtod/strtof read the C locale's decimal point: give them the text with that one.
        std::string buf;
        json_append_replacing(buf, token, ".", std::localeconv()->decimal_point);
        if (single) {
            const float v = std::strtof(buf.c_str(), nullptr);
            std::memcpy(p, &v, sizeof(float));
        } else {
            const double v = std::strtod(buf.c_str(), nullptr);
            std::memcpy(p, &v, sizeof(double));
        }
        return true;
    }

    bool read_entity(unsigned char* p, bool commit) {
        if (peek() != '{') return type_error("an entity object {\"index\":i,\"generation\":g}");
        const size_t at = pos_;
        ++pos_;
        uint32_t parts[2] = {0, 0}; // index, generation
        bool present[2] = {false, false};
        const size_t mark = path_.size();
        const bool ok = read_members([&](std::string_view key, size_t key_at) {
            const int which = key == "index" ? 0 : key == "generation" ? 1 : -1;
            path_.resize(mark);
            path_ += '.';
            path_ += key;
            if (which < 0) return fail(key_at, "unknown field '" + path_ + "' (an entity has index and generation)");
            if (present[which]) return fail(key_at, "duplicate field '" + path_ + "'");
            present[which] = true;
            unsigned char* target = reinterpret_cast<unsigned char*>(&parts[which]);
            const bool value_ok = read_integer(FieldKind::uint32, target, true);
            path_.resize(mark);
            return value_ok;
        });
        if (!ok) return false;
        if (!present[0] || !present[1])
            return fail(at, where() + ": an entity needs both \"index\" and \"generation\"");
        if (commit) {
            const Entity e{parts[0], parts[1]};
            std::memcpy(p, &e, sizeof(Entity));
        }
        return true;
    }

    std::string_view text_;
    size_t pos_ = 0;
    std::string error_;
    size_t error_offset_ = 0;
    std::string path_; ///< field being read, e.g. "pos.x" or "points[2].y"
};

/// Writes `{"Name":{...},...}` for the given components.
inline std::string json_write_components(const JsonComponentRef* components, size_t count) {
    std::string out = "{";
    for (size_t i = 0; i < count; ++i) {
        if (i != 0) out += ',';
        json_write_string(out, components[i].name);
        out += ':';
        json_write_fields(out, components[i].fields, static_cast<const unsigned char*>(components[i].data));
    }
    out += '}';
    return out;
}

/// Reads `{"Name":{...},...}` into the given components: all or nothing.
inline JsonResult json_read_components(const JsonComponentRef* components, size_t count, std::string_view text) {
    JsonReader reader(text);
    if (!reader.check_document() || !reader.read_components(components, count, false)) return reader.result();
    reader.read_components(components, count, true);
    return reader.result();
}

/// `v`, through a type-dependent expression: lets the World-level templates below name functions the
/// World header may not declare yet (they are looked up when the template is instantiated).
template <typename Dependent, typename V>
constexpr V dependent_value(V v) noexcept {
    return v;
}

} // namespace detail

// ---------------------------------------------------------------------------------------------------
// Public functions
// ---------------------------------------------------------------------------------------------------

/**
 * @brief JSON text of the object at `object`, described by `fields`: `{"x":1,"y":2}`.
 * @pre `object` points to a live object of the type `fields` describes. O(size of the text).
 */
[[nodiscard]] inline std::string to_json(FieldView fields, const void* object) {
    std::string out;
    detail::json_write_fields(out, fields, static_cast<const unsigned char*>(object));
    return out;
}

/**
 * @brief Reads `text` (a JSON object) into the object at `object`, described by `fields`.
 *
 * Fields absent from the text keep their values. On any error (see the file comment) the object is
 * unchanged and the result carries the message and byte offset.
 * @pre `object` points to a live object of the type `fields` describes, and `text` does not point
 *      into that object (into one of its strings). O(size of the text).
 */
inline JsonResult from_json(FieldView fields, void* object, std::string_view text) {
    detail::JsonReader reader(text);
    auto* bytes = static_cast<unsigned char*>(object);
    if (!reader.check_document() || !reader.read_root(fields, bytes, false)) return reader.result();
    reader.read_root(fields, bytes, true);
    return reader.result();
}

/// @brief JSON text of `value`, a type with ECS_REFLECT.
template <typename T>
[[nodiscard]] std::string to_json(const T& value) {
    static_assert(is_reflected_v<T>, "to_json: the type needs ECS_REFLECT (see ecs/reflect.hpp)");
    return to_json(fields<T>(), static_cast<const void*>(&value));
}

/// @brief Reads `text` into `value`, a type with ECS_REFLECT; all or nothing (see from_json above).
template <typename T>
JsonResult from_json(T& value, std::string_view text) {
    static_assert(is_reflected_v<T>, "from_json: the type needs ECS_REFLECT (see ecs/reflect.hpp)");
    static_assert(!std::is_const_v<T>, "from_json: the target must not be const");
    return from_json(fields<T>(), static_cast<void*>(&value), text);
}

/**
 * @brief JSON text of entity `e`'s reflected components: `{"Position":{"x":1,"y":2},...}`, keyed by
 *        component_info(id).name; components without ECS_REFLECT are left out. `null` when `e` is
 *        not alive.
 *
 * A template only so that this header compiles before World::each_component and component_info
 * exist; `W` is always ecs::World.
 */
template <typename W, std::enable_if_t<std::is_same_v<W, World>, int> = 0>
[[nodiscard]] std::string to_json(const W& world, Entity e) {
    if (!world.alive(e)) return "null";
    std::vector<detail::JsonComponentRef> components;
    world.each_component(e, [&](ComponentTypeID id, const void* data) {
        if (!reflected(id)) return;
        components.push_back({component_info(detail::dependent_value<W>(id)).name, fields(id), const_cast<void*>(data)});
    });
    return detail::json_write_components(components.data(), components.size());
}

/**
 * @brief Reads `{"Position":{...},...}` into the components entity `e` already has (keyed by
 *        component_info(id).name); components absent from the text, and fields absent from a
 *        component's object, keep their values. Does not add or remove components and runs no hooks.
 *
 * Errors (the entity is then unchanged): `e` not alive, a name that is not a reflected component of
 * `e`, and every error of from_json(FieldView, ...).
 */
template <typename W, std::enable_if_t<std::is_same_v<W, World>, int> = 0>
JsonResult from_json(W& world, Entity e, std::string_view text) {
    if (!world.alive(e)) return JsonResult{false, "from_json: entity is not alive", 0};
    std::vector<detail::JsonComponentRef> components;
    world.each_component(e, [&](ComponentTypeID id, void* data) {
        if (!reflected(id)) return;
        components.push_back({component_info(detail::dependent_value<W>(id)).name, fields(id), data});
    });
    return detail::json_read_components(components.data(), components.size(), text);
}

} // namespace ecs
