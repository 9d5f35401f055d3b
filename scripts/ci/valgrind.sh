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

status=0
for exe in ecs_tests ecs_assert_tests; do
  echo "== valgrind memcheck: $exe"
  start=$(date +%s)
  if "${memcheck[@]}" "$build/tests/$exe" '~[scale]~[.]'; then
    echo "== $exe: no memory errors, no leaks ($(( $(date +%s) - start ))s)"
  else
    rc=$?
    status=1
    if [ "$rc" -eq 99 ]; then echo "!! $exe: valgrind found memory errors or leaks (above)"; else echo "!! $exe: tests failed (exit $rc)"; fi
  fi
done
exit $status
