/**
 * @file ecs/detail/query_text.hpp
 * @brief The parser of query text (addition, 2.0): turns `"Position, [in] Velocity, !Frozen"` into a
 *        list of syntactic terms, each naming its words and their byte offsets. Internal to
 *        query_expr.hpp, which resolves the names against a World.
 *
 * The parser knows nothing of components or entities: it checks the form only, so it can be tested
 * and fuzzed on its own. Grammar (whitespace is free between tokens):
 * @code
 *   query   := term (',' term)*
 *   term    := '[' 'in' ']' name | '!' name | '?' name
 *            | '(' name ',' target ')'
 *            | name ('|' name)+
 *            | name '(' ('up' | 'self' '|' 'up') name ')'
 *            | name
 *   target  := '*' | number '.' number | name
 *   name    := [A-Za-z_] [A-Za-z0-9_:]*, with balanced '<' ... '>' segments (template arguments)
 * @endcode
 * Malformed text yields an error message naming the offending word and its byte offset. The parser
 * never asserts, and allocates in proportion to the text at most (MAX_TERMS terms, MAX_ANY_OF
 * alternatives in all).
 *
 * Thread-safety: pure functions of their input.
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ecs::detail {

/// A word of the text and where it starts (byte offset).
struct TextWord {
    std::string_view text;
    size_t offset = 0;
};

/// The forms a term can take, as written.
enum class TextForm : uint8_t {
    with,     ///< `Name`
    in,       ///< `[in] Name`
    without,  ///< `!Name`
    optional, ///< `?Name`
    any_of,   ///< `A|B|C`
    pair,     ///< `(R, target)`
    up,       ///< `Name(up R)`
    self_up,  ///< `Name(self|up R)`
};

/// How a pair term names its target.
enum class TextTarget : uint8_t {
    any,    ///< `*`
    number, ///< `index.generation`
    name,   ///< an entity name
};

/// One term as written.
struct TextTerm {
    TextForm form = TextForm::with;
    size_t offset = 0;               ///< where the term starts
    TextWord name;                   ///< the component (up: T; pair: the relationship; any_of: the first)
    std::vector<TextWord> any_of;    ///< any_of: every alternative, in order
    TextWord relation;               ///< up / self_up: the relationship R
    TextTarget target_form = TextTarget::any;
    TextWord target;                 ///< pair: the target as written
    uint32_t target_index = 0;       ///< pair, number: the entity's index
    uint32_t target_generation = 0;  ///< pair, number: the entity's generation
};

/// The result of parsing: the terms, or the first error (message and byte offset).
struct TextQuery {
    std::vector<TextTerm> terms;
    std::string error; ///< empty when the text parsed
    size_t error_offset = 0;
};

/// At most this many terms in one query, and this many any-of alternatives in all.
inline constexpr size_t MAX_QUERY_TERMS = 64;
inline constexpr size_t MAX_ANY_OF = 64;

/// A word quoted for an error message, cut to 48 bytes.
inline std::string quote_word(std::string_view w) {
    std::string s = "\"";
    if (w.size() > 48) {
        s.append(w.substr(0, 45));
        s += "...";
    } else {
        s.append(w);
    }
    s += '"';
    return s;
}

/// Recursive-descent parser over one text; one token of lookahead.
class TextParser {
public:
    explicit TextParser(std::string_view text) noexcept : text_(text) {}

    TextQuery parse() {
        TextQuery q;
        out_ = &q;
        skip_space();
        if (pos_ == text_.size()) {
            fail("empty query: expected a term", pos_);
            return q;
        }
        while (ok()) {
            if (q.terms.size() == MAX_QUERY_TERMS) {
                fail("too many terms (at most 64)", pos_);
                break;
            }
            q.terms.emplace_back();
            if (!term(q.terms.back())) break;
            skip_space();
            if (pos_ == text_.size()) break;
            if (text_[pos_] != ',') {
                fail("expected ',' between terms, found " + quote_word(token_at(pos_)), pos_);
                break;
            }
            ++pos_;
            skip_space();
        }
        if (!ok()) q.terms.clear();
        return q;
    }

private:
    [[nodiscard]] bool ok() const noexcept { return out_->error.empty(); }

    bool fail(std::string message, size_t at) {
        if (ok()) {
            out_->error = std::move(message) + " at byte " + std::to_string(at);
            out_->error_offset = at;
        }
        return false;
    }

    static bool space(char c) noexcept { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
    static bool name_start(char c) noexcept { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
    static bool digit(char c) noexcept { return c >= '0' && c <= '9'; }
    static bool name_char(char c) noexcept { return name_start(c) || digit(c) || c == ':'; }

    void skip_space() noexcept {
        while (pos_ < text_.size() && space(text_[pos_])) ++pos_;
    }

    /// The token starting at `at`, for messages: a name, a number, one character, or "end of text".
    [[nodiscard]] std::string_view token_at(size_t at) const noexcept {
        if (at >= text_.size()) return "end of text";
        size_t end = at;
        if (name_start(text_[at])) {
            while (end < text_.size() && name_char(text_[end])) ++end;
        } else if (digit(text_[at])) {
            while (end < text_.size() && digit(text_[end])) ++end;
        } else {
            end = at + 1;
        }
        return text_.substr(at, end - at);
    }

    /// Expects character `c` after optional whitespace.
    bool expect(char c, const char* what) {
        skip_space();
        if (pos_ < text_.size() && text_[pos_] == c) {
            ++pos_;
            return true;
        }
        return fail(std::string("expected ") + what + ", found " + quote_word(token_at(pos_)), pos_);
    }

    /// True (and consumed) when the next token is `c`.
    bool accept(char c) noexcept {
        skip_space();
        if (pos_ < text_.size() && text_[pos_] == c) {
            ++pos_;
            return true;
        }
        return false;
    }

    /// A name (after optional whitespace).
    bool name(TextWord& out, const char* what) {
        skip_space();
        const size_t begin = pos_;
        if (pos_ >= text_.size() || !name_start(text_[pos_]))
            return fail(std::string("expected ") + what + ", found " + quote_word(token_at(pos_)), pos_);
        while (pos_ < text_.size()) {
            const char c = text_[pos_];
            if (name_char(c)) {
                ++pos_;
            } else if (c == '<') { // template arguments: anything up to the matching '>'
                size_t depth = 0;
                const size_t open = pos_;
                for (; pos_ < text_.size(); ++pos_) {
                    if (text_[pos_] == '<') ++depth;
                    else if (text_[pos_] == '>' && --depth == 0) break;
                }
                if (pos_ == text_.size()) return fail("unclosed '<' in name " + quote_word(text_.substr(begin)), open);
                ++pos_;
            } else {
                break;
            }
        }
        out.text = text_.substr(begin, pos_ - begin);
        out.offset = begin;
        return true;
    }

    /// A decimal number that fits 32 bits.
    bool number(uint32_t& out) {
        const size_t begin = pos_;
        uint64_t v = 0;
        while (pos_ < text_.size() && digit(text_[pos_])) {
            v = v * 10 + static_cast<uint64_t>(text_[pos_] - '0');
            ++pos_;
            if (v > 0xFFFFFFFFull) {
                while (pos_ < text_.size() && digit(text_[pos_])) ++pos_;
                return fail("number " + quote_word(text_.substr(begin, pos_ - begin)) + " does not fit 32 bits", begin);
            }
        }
        out = static_cast<uint32_t>(v);
        return true;
    }

    bool term(TextTerm& t) {
        skip_space();
        t.offset = pos_;
        if (pos_ >= text_.size()) return fail("expected a term, found end of text", pos_);
        const char c = text_[pos_];
        if (c == '[') {
            ++pos_;
            TextWord in;
            if (!name(in, "'in' after '['")) return false;
            if (in.text != "in") return fail("expected 'in' after '[', found " + quote_word(in.text), in.offset);
            if (!expect(']', "']' after '[in'")) return false;
            t.form = TextForm::in;
            return name(t.name, "a component name after '[in]'") && single(t);
        }
        if (c == '!' || c == '?') {
            ++pos_;
            t.form = c == '!' ? TextForm::without : TextForm::optional;
            return name(t.name, c == '!' ? "a component name after '!'" : "a component name after '?'") && single(t);
        }
        if (c == '(') {
            ++pos_;
            t.form = TextForm::pair;
            if (!name(t.name, "a relationship name after '('")) return false;
            if (!expect(',', "',' between the relationship and its target")) return false;
            if (!target(t)) return false;
            return expect(')', "')' after the pair's target");
        }
        if (!name(t.name, "a term")) return false;
        if (accept('|')) {
            t.form = TextForm::any_of;
            t.any_of.push_back(t.name);
            do {
                if (any_of_total_ + t.any_of.size() >= MAX_ANY_OF) return fail("too many any-of alternatives (at most 64)", pos_);
                TextWord alt;
                if (!name(alt, "a component name after '|'")) return false;
                t.any_of.push_back(alt);
            } while (accept('|'));
            any_of_total_ += t.any_of.size();
            return true;
        }
        if (accept('(')) {
            TextWord word;
            if (!name(word, "'up' or 'self|up'")) return false;
            if (word.text == "up") {
                t.form = TextForm::up;
            } else if (word.text == "self") {
                if (!expect('|', "'|up' after 'self'")) return false;
                TextWord up;
                if (!name(up, "'up' after 'self|'")) return false;
                if (up.text != "up") return fail("expected 'up' after 'self|', found " + quote_word(up.text), up.offset);
                t.form = TextForm::self_up;
            } else {
                return fail("expected 'up' or 'self|up', found " + quote_word(word.text), word.offset);
            }
            if (!name(t.relation, "a relationship name")) return false;
            return expect(')', "')' after the relationship");
        }
        t.form = TextForm::with;
        return true;
    }

    /// After `[in] Name`, `!Name`, `?Name`: neither '|' nor '(' may follow.
    bool single(const TextTerm&) {
        skip_space();
        if (pos_ < text_.size() && (text_[pos_] == '|' || text_[pos_] == '('))
            return fail("unexpected " + quote_word(text_.substr(pos_, 1)) + ": '[in]', '!' and '?' take one plain name", pos_);
        return true;
    }

    bool target(TextTerm& t) {
        skip_space();
        const size_t begin = pos_;
        if (pos_ < text_.size() && text_[pos_] == '*') {
            ++pos_;
            t.target_form = TextTarget::any;
            t.target = TextWord{text_.substr(begin, 1), begin};
            return true;
        }
        if (pos_ < text_.size() && digit(text_[pos_])) {
            t.target_form = TextTarget::number;
            if (!number(t.target_index)) return false;
            if (pos_ >= text_.size() || text_[pos_] != '.')
                return fail("expected '.' and a generation after the entity index, found " + quote_word(token_at(pos_)), pos_);
            ++pos_;
            if (pos_ >= text_.size() || !digit(text_[pos_]))
                return fail("expected a generation after '.', found " + quote_word(token_at(pos_)), pos_);
            if (!number(t.target_generation)) return false;
            t.target = TextWord{text_.substr(begin, pos_ - begin), begin};
            return true;
        }
        t.target_form = TextTarget::name;
        return name(t.target, "a target: an entity name, index.generation or '*'");
    }

    std::string_view text_;
    size_t pos_ = 0;
    size_t any_of_total_ = 0;
    TextQuery* out_ = nullptr;
};

/// Parses `text` (see the file comment for the grammar).
inline TextQuery parse_query_text(std::string_view text) { return TextParser(text).parse(); }

} // namespace ecs::detail
