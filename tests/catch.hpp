// Catch2 shim: v3 when the build found it, else v2.13 (Debian's `catch2` package).
// Tests use only the API both versions share.
#pragma once
#if defined(ECS_CATCH2_V3)
#  include <catch2/catch_all.hpp>
#else
#  include <catch2/catch.hpp>
#endif
