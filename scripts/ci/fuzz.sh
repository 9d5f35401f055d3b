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

# -O1 with line tables only, so stack traces still name the lines; fuzz_ops (the whole model test in
# one translation unit) at -O0: 1.2 min to compile instead of 4.7 at -O1, the step's critical path,
# for about a third of the executions per second.
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -gline-tables-only" \
  -DECS_FUZZ_OPS_OPTIONS=-O0 \
  -DCMAKE_CXX_COMPILER=clang++ \
  -DECS_FUZZ=ON -DECS_WERROR=ON -DECS_BUILD_TESTS=OFF -DECS_BUILD_EXAMPLES=OFF -DECS_BUILD_BENCHMARKS=OFF \
  -DECS_INSTALL=OFF >/dev/null
cmake --build "$build" --target "${targets[@]}" -j "${CMAKE_BUILD_PARALLEL_LEVEL:-2}"

# One target for $seconds from its committed corpus; prints its summary (or the failure) when it ends.
# New inputs go to a scratch directory; the committed corpus is only read.
run_one() {
  local t=$1 scratch artifacts
  scratch=$(mktemp -d)
  artifacts="$build/fuzz-artifacts/$t"
  mkdir -p "$artifacts"
  if "$build/fuzz/$t" -max_total_time="$seconds" -timeout=20 -rss_limit_mb=2048 -print_final_stats=1 \
      -artifact_prefix="$artifacts/" "$scratch" "fuzz/corpus/$t" >"$build/$t.log" 2>&1; then
    echo "== $t: ${seconds}s from fuzz/corpus/$t"
    grep -E '^(Done|stat::number_of_executed_units|stat::new_units_added)' "$build/$t.log" || true
    rm -rf "$scratch"
  else
    echo "!! $t failed: the crashing input is in $artifacts/, the log in $build/$t.log; tail:"
    tail -n 40 "$build/$t.log"
    rm -rf "$scratch"
    return 1
  fi
}

# A libFuzzer process uses one core: the targets run two at a time.
status=0
for ((i = 0; i < ${#targets[@]}; i += 2)); do
  pids=()
  for t in "${targets[@]:i:2}"; do
    run_one "$t" >"$build/$t.summary" 2>&1 &
    pids+=($!)
  done
  for pid in "${pids[@]}"; do wait "$pid" || status=1; done
  for t in "${targets[@]:i:2}"; do cat "$build/$t.summary"; done
done
exit $status
