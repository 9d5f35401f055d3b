#!/usr/bin/env bash
# Builds the libFuzzer targets (clang++, -DECS_FUZZ=ON) and runs each one for a bounded time,
# starting from the committed seed corpus. Fails on a crash, a leak, a sanitizer report, a timeout
# or a model mismatch; the reproducing input is left in the build directory (see the message).
#
#   ECS_FUZZ_BUILD_DIR  build directory (default: build-fuzz)
#   ECS_FUZZ_SECONDS    seconds per target (default: 20)
set -euo pipefail
cd "$(dirname "$0")/../.."

build=${ECS_FUZZ_BUILD_DIR:-build-fuzz}
seconds=${ECS_FUZZ_SECONDS:-20}
targets=(fuzz_ops fuzz_deserialize fuzz_parquet_reader fuzz_query_expr fuzz_remote)

# -O1 with line tables only: fuzz_ops (the whole model test in one translation unit) compiles in 4 min
# instead of 4.7 at RelWithDebInfo's -O2 -g, and stack traces still name the lines.
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -gline-tables-only" \
  -DCMAKE_CXX_COMPILER=clang++ \
  -DECS_FUZZ=ON -DECS_WERROR=ON -DECS_BUILD_TESTS=OFF -DECS_BUILD_EXAMPLES=OFF -DECS_BUILD_BENCHMARKS=OFF \
  -DECS_INSTALL=OFF >/dev/null
cmake --build "$build" --target "${targets[@]}" -j "${CMAKE_BUILD_PARALLEL_LEVEL:-2}"

status=0
for t in "${targets[@]}"; do
  # New inputs go to a scratch directory; the committed corpus is only read.
  scratch=$(mktemp -d)
  artifacts="$build/fuzz-artifacts/$t"
  mkdir -p "$artifacts"
  echo "== $t: ${seconds}s from fuzz/corpus/$t"
  if "$build/fuzz/$t" -max_total_time="$seconds" -timeout=20 -rss_limit_mb=2048 -print_final_stats=1 \
      -artifact_prefix="$artifacts/" "$scratch" "fuzz/corpus/$t" >"$build/$t.log" 2>&1; then
    grep -E '^(Done|stat::number_of_executed_units|stat::new_units_added)' "$build/$t.log" || true
  else
    status=1
    echo "!! $t failed: the crashing input is in $artifacts/, the log in $build/$t.log; tail:"
    tail -n 40 "$build/$t.log"
  fi
  rm -rf "$scratch"
done
exit $status
