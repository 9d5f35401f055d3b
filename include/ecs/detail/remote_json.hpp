/**
 * @file ecs/detail/remote_json.hpp
 * @brief The small untyped JSON reader of the remote inspector: splits a request body into the
 *        members of an object (decoded keys, raw value text) and reads booleans and strings.
 *
 * ecs/json.hpp reads reflected fields; a request body such as `{"name":"a","components":{...}}`
 * also has parts that are not fields (the entity's name, the table of components). This reader
 * checks a whole document (RFC 8259 syntax, nesting at most MAX_JSON_DEPTH, no text after the
 * value) and hands back the raw text of each member, which json.hpp then reads against the fields.
 * Errors carry a message and the byte offset where they were found. No exceptions, no state shared
 * between calls: any thread may use it.
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "../json.hpp"

namespace ecs {
namespace detail {

/// One member of a JSON object: the decoded key and the raw text of its value.
struct RemoteJsonMember {
    std::string key;
    std::string_view value;
};

/// A strict JSON scanner over one document (see the file comment).
class RemoteJsonScanner {
public:
    explicit RemoteJsonScanner(std::string_view text) noexcept : text_(text) {}

    /// Checks that the whole text is one JSON value.
    bool check_document() {
        skip_ws();
        if (!skip_value(0)) return false;
        skip_ws();
        if (pos_ != text_.size()) return fail("text after the JSON value");
        return true;
    }

    /// The text is one object: its members in order (a duplicate key is an error).
    bool object_members(std::vector<RemoteJsonMember>& members) {
        if (!check_document()) return false;
        pos_ = 0;
        skip_ws();
        if (peek() != '{') return fail("expected a JSON object");
        ++pos_;
        skip_ws();
        if (peek() == '}') return true;
        for (;;) {
            skip_ws();
            const size_t key_at = pos_;
            std::string key;
            if (!read_string(&key)) return false;
            for (const RemoteJsonMember& m : members)
                if (m.key == key) {
                    pos_ = key_at;
                    return fail("duplicate key '" + key + "'");
                }
            skip_ws();
            ++pos_; // ':' (checked by check_document)
            skip_ws();
            const size_t begin = pos_;
            if (!skip_value(1)) return false;
            members.push_back({std::move(key), text_.substr(begin, pos_ - begin)});
            skip_ws();
            if (peek() == ',') {
                ++pos_;
                continue;
            }
            return true; // '}'
        }
    }

    /// The text is `true` or `false`.
    bool boolean(bool& value) {
        if (!check_document()) return false;
        pos_ = 0;
        skip_ws();
        if (text_.substr(pos_, 4) == "true") value = true;
        else if (text_.substr(pos_, 5) == "false") value = false;
        else return fail("expected true or false");
        return true;
    }

    /// The text is a JSON string: its decoded value.
    bool string(std::string& value) {
        if (!check_document()) return false;
        pos_ = 0;
        skip_ws();
        if (peek() != '"') return fail("expected a JSON string");
        return read_string(&value);
    }

    [[nodiscard]] const std::string& error() const noexcept { return error_; }
    [[nodiscard]] size_t error_offset() const noexcept { return error_offset_; }

private:
    [[nodiscard]] char peek() const noexcept { return pos_ < text_.size() ? text_[pos_] : '\0'; }

    void skip_ws() noexcept {
        while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\n' || text_[pos_] == '\r'))
            ++pos_;
    }

    bool fail(std::string message) {
        if (error_.empty()) {
            error_ = std::move(message);
            error_offset_ = pos_;
        }
        return false;
    }

    bool literal(std::string_view word) {
        if (text_.substr(pos_, word.size()) != word) return fail("invalid literal");
        pos_ += word.size();
        return true;
    }

    bool hex4(uint32_t& v) {
        if (text_.size() - pos_ < 4) return fail("truncated \\u escape");
        v = 0;
        for (int i = 0; i < 4; ++i) {
            const char c = text_[pos_++];
            v <<= 4;
            if (c >= '0' && c <= '9') v |= uint32_t(c - '0');
            else if (c >= 'a' && c <= 'f') v |= uint32_t(c - 'a' + 10);
            else if (c >= 'A' && c <= 'F') v |= uint32_t(c - 'A' + 10);
            else return fail("invalid \\u escape");
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

    /// Reads a string at pos_ (which must be '"'); `out` may be null (checked, not kept).
    bool read_string(std::string* out) {
        if (peek() != '"') return fail("expected a string");
        ++pos_;
        while (pos_ < text_.size()) {
            const auto c = static_cast<unsigned char>(text_[pos_]);
            if (c == '"') {
                ++pos_;
                return true;
            }
            if (c < 0x20) return fail("control character in a string");
            if (c != '\\') {
                if (out != nullptr) *out += static_cast<char>(c);
                ++pos_;
                continue;
            }
            ++pos_;
            if (pos_ >= text_.size()) break;
            const char e = text_[pos_++];
            char plain = '\0';
            switch (e) {
            case '"': plain = '"'; break;
            case '\\': plain = '\\'; break;
            case '/': plain = '/'; break;
            case 'b': plain = '\b'; break;
            case 'f': plain = '\f'; break;
            case 'n': plain = '\n'; break;
            case 'r': plain = '\r'; break;
            case 't': plain = '\t'; break;
            case 'u': {
                uint32_t cp = 0;
                if (!hex4(cp)) return false;
                if (cp >= 0xDC00 && cp <= 0xDFFF) return fail("unpaired surrogate escape");
                if (cp >= 0xD800 && cp <= 0xDBFF) {
                    uint32_t low = 0;
                    if (text_.substr(pos_, 2) != "\\u") return fail("unpaired surrogate escape");
                    pos_ += 2;
                    if (!hex4(low)) return false;
                    if (low < 0xDC00 || low > 0xDFFF) return fail("unpaired surrogate escape");
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
                }
                if (out != nullptr) append_utf8(*out, cp);
                continue;
            }
            default: return fail("invalid escape in a string");
            }
            if (out != nullptr) *out += plain;
        }
        return fail("unterminated string");
    }

    bool skip_number() {
        const size_t begin = pos_;
        if (peek() == '-') ++pos_;
        if (peek() == '0') {
            ++pos_;
        } else if (peek() >= '1' && peek() <= '9') {
            while (peek() >= '0' && peek() <= '9') ++pos_;
        } else {
            pos_ = begin;
            return fail("invalid value");
        }
        if (peek() == '.') {
            ++pos_;
            if (!(peek() >= '0' && peek() <= '9')) return fail("invalid number");
            while (peek() >= '0' && peek() <= '9') ++pos_;
        }
        if (peek() == 'e' || peek() == 'E') {
            ++pos_;
            if (peek() == '+' || peek() == '-') ++pos_;
            if (!(peek() >= '0' && peek() <= '9')) return fail("invalid number");
            while (peek() >= '0' && peek() <= '9') ++pos_;
        }
        return true;
    }

    bool skip_value(unsigned depth) {
        skip_ws();
        switch (peek()) {
        case '{': {
            if (depth + 1 > MAX_JSON_DEPTH) return fail("nesting too deep");
            ++pos_;
            skip_ws();
            if (peek() == '}') {
                ++pos_;
                return true;
            }
            for (;;) {
                skip_ws();
                if (!read_string(nullptr)) return false;
                skip_ws();
                if (peek() != ':') return fail("expected ':'");
                ++pos_;
                if (!skip_value(depth + 1)) return false;
                skip_ws();
                if (peek() == ',') {
                    ++pos_;
                    continue;
                }
                if (peek() == '}') {
                    ++pos_;
                    return true;
                }
                return fail("expected ',' or '}'");
            }
        }
        case '[': {
            if (depth + 1 > MAX_JSON_DEPTH) return fail("nesting too deep");
            ++pos_;
            skip_ws();
            if (peek() == ']') {
                ++pos_;
                return true;
            }
            for (;;) {
                if (!skip_value(depth + 1)) return false;
                skip_ws();
                if (peek() == ',') {
                    ++pos_;
                    continue;
                }
                if (peek() == ']') {
                    ++pos_;
                    return true;
                }
                return fail("expected ',' or ']'");
            }
        }
        case '"': return read_string(nullptr);
        case 't': return literal("true");
        case 'f': return literal("false");
        case 'n': return literal("null");
        case '\0':
            if (pos_ >= text_.size()) return fail("unexpected end of text");
            return fail("invalid value");
        default: return skip_number();
        }
    }

    std::string_view text_;
    size_t pos_ = 0;
    std::string error_;
    size_t error_offset_ = 0;
};

} // namespace detail
} // namespace ecs
