// Recording ECS_ASSERT for the assertion tests (the `ecs_assert_tests` executable).
//
// Include this FIRST in every tests/assert/*.cpp file: ECS_ASSERT must be defined before the first
// ecs header. A failed assertion is recorded instead of aborting; the library then refuses the
// offending operation (ECS_CHECK), so each test can prove that the assertion fired AND that the
// world was left as it was.
#pragma once

#ifdef ECS_ASSERT
#  error "recording_assert.hpp must be included before any ecs header"
#endif

#include <cstddef>
#include <string>
#include <vector>

namespace ecs_assert_test {

struct FailedAssert {
    std::string condition;
    std::string message;
    std::string file;
    int line = 0;
};

inline std::vector<FailedAssert>& failures() {
    static std::vector<FailedAssert> list;
    return list;
}

inline void record(const char* condition, const char* message, const char* file, int line) {
    failures().push_back(FailedAssert{condition, message ? message : "", file, line});
}

/// Forgets every recorded failure (call before the operation under test).
inline void reset() { failures().clear(); }

/// Number of failures recorded since the last reset().
inline size_t fired() { return failures().size(); }

/// True when exactly one failure was recorded since the last reset() and its message contains
/// `needle` (a message names the function and the broken condition).
inline bool fired_once_with(const char* needle) {
    return failures().size() == 1 && failures()[0].message.find(needle) != std::string::npos;
}

/// Message of the last recorded failure, for test output.
inline std::string last_message() { return failures().empty() ? std::string("(none)") : failures().back().message; }

} // namespace ecs_assert_test

#define ECS_ASSERT(cond, msg) ((cond) ? (void)0 : ::ecs_assert_test::record(#cond, (msg), __FILE__, __LINE__))
