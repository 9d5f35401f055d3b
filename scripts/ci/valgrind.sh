#!/usr/bin/env bash
# Runs the test executables of a Debug build WITHOUT sanitizers under valgrind memcheck: any memory
# error or leak (definite, indirect or possible) fails the step, as does a failing test.
#
# The default suite runs except the tests tagged [scale] (the same code paths at 10^4..10^5 rows: they
# run in the test step and under ASan); the randomized model tests are bounded to ECS_MODEL_STEPS
# steps per seed and ECS_MODEL_SEEDS game-loop seeds. Death tests fork children that abort on
# purpose: those are not checked.
#
#   ECS_VALGRIND_BUILD_DIR  build directory (default: build-valgrind)
#   ECS_MODEL_STEPS         model test steps per seed under valgrind (default: 300)
#   ECS_MODEL_SEEDS         game-loop model seeds under valgrind (default: 4)
set -euo pipefail
cd "$(dirname "$0")/../.."

build=${ECS_VALGRIND_BUILD_DIR:-build-valgrind}
export ECS_MODEL_STEPS=${ECS_MODEL_STEPS:-300}
export ECS_MODEL_SEEDS=${ECS_MODEL_SEEDS:-4}

# A build directory that exists (CI passes the test step's build/dev) is used as configured: configuring
# it here would drop its examples, which later CI steps build.
if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Debug -DECS_SANITIZE=OFF -DECS_BUILD_TESTS=ON \
    -DECS_BUILD_EXAMPLES=OFF -DECS_BUILD_BENCHMARKS=OFF -DECS_INSTALL=OFF >/dev/null
fi
cmake --build "$build" --target ecs_tests ecs_assert_tests -j "${CMAKE_BUILD_PARALLEL_LEVEL:-2}"

memcheck=(valgrind --tool=memcheck --error-exitcode=99 --leak-check=full
          --errors-for-leak-kinds=definite,indirect,possible --show-leak-kinds=definite,indirect,possible
          --child-silent-after-fork=yes --num-callers=30 -q)

# One memcheck run of `$1` (a test executable) with the extra arguments that follow; its output goes to
# $log_dir/$name.log and is printed when it ends. Exit status: 0 clean, 1 otherwise (reported).
log_dir=$(mktemp -d)
trap 'rm -rf "$log_dir"' EXIT
check() {
  local name=$1 exe=$2
  shift 2
  local start rc=0
  start=$(date +%s)
  "${memcheck[@]}" "$build/tests/$exe" "$@" >"$log_dir/$name.log" 2>&1 || rc=$?
  cat "$log_dir/$name.log"
  if [ "$rc" -eq 0 ]; then
    echo "== $name: no memory errors, no leaks ($(( $(date +%s) - start ))s)"
  else
    if [ "$rc" -eq 99 ]; then echo "!! $name: valgrind found memory errors or leaks (above)"; else echo "!! $name: tests failed (exit $rc)"; fi
    return 1
  fi
}

# memcheck runs on one core: ecs_tests' test cases are dealt into two lists (alternately, in the
# order they are declared) that run side by side. Catch2 reads a list line by line as test specs,
# so the characters it gives a meaning to are escaped.
# (Catch2 v2 exits with the number of test cases it listed.)
{ "$build/tests/ecs_tests" --list-test-names-only '~[scale]~[.]' || true; } | sed '/^$/d' | sed 's/[][,\\~*"]/\\&/g' >"$log_dir/all.txt"
awk 'NR % 2 == 1' "$log_dir/all.txt" >"$log_dir/half1.txt"
awk 'NR % 2 == 0' "$log_dir/all.txt" >"$log_dir/half2.txt"
echo "== valgrind memcheck: ecs_tests ($(wc -l <"$log_dir/all.txt") test cases in two halves, side by side)"
# ecs_assert_tests (short) follows the second half on its core.
status=0
check ecs_tests.1 ecs_tests -f "$log_dir/half1.txt" &
first=$!
check ecs_tests.2 ecs_tests -f "$log_dir/half2.txt" || status=1
echo "== valgrind memcheck: ecs_assert_tests"
check ecs_assert_tests ecs_assert_tests '~[scale]~[.]' || status=1
wait "$first" || status=1
exit $status
