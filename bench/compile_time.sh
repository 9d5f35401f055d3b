#!/usr/bin/env bash
# Compile-time cost of including the library: CPU time of `$CXX -std=c++17 -O0 -c` and `-O2 -c` of a
# tiny main that includes <ecs/ecs.hpp> and uses World (create_with, each, get), against one
# including only <vector>, <functional>, <memory>, <unordered_map> and <string>. Prints, per
# optimisation level, the median of RUNS runs of each and the ratio (target: <= 1.8 at both).
#
#   bench/compile_time.sh            # from the repository root; CXX=clang++ RUNS=9 OPTS="-O2" to vary
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cxx="${CXX:-g++}"
runs="${RUNS:-5}"
opts="${OPTS:--O0 -O2}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

cat > "$work/ecs_tu.cpp" <<'CPP'
#include <ecs/ecs.hpp>
struct Position { float x, y; };
struct Velocity { float x, y; };
int main() {
    ecs::World world;
    ecs::Entity e = world.create_with(Position{0, 0}, Velocity{1, 1});
    world.each<Position, const Velocity>([](ecs::Entity, Position& p, const Velocity& v) { p.x += v.x; p.y += v.y; });
    return world.get<Position>(e).x > 0.5f ? 0 : 1;
}
CPP

cat > "$work/stl_tu.cpp" <<'CPP'
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>
struct Position { float x, y; };
int main() {
    std::vector<Position> positions{{0, 0}};
    std::unordered_map<std::string, std::unique_ptr<Position>> named;
    named.emplace("a", std::make_unique<Position>(Position{1, 1}));
    std::function<void(Position&)> step = [](Position& p) { p.x += 1; };
    step(positions[0]);
    return positions[0].x > 0.5f ? 0 : 1;
}
CPP

# CPU seconds (user + system) of one compile of $1: steadier than wall time on a shared machine.
time_one() {
    local TIMEFORMAT='%3U %3S' t
    if ! t=$( { time "$cxx" -std=c++17 "$opt" -I"$root/include" -c "$1" -o "$work/out.o" 2>"$work/err" ; } 2>&1 ); then
        cat "$work/err" >&2
        exit 1
    fi
    awk -v t="$t" 'BEGIN { split(t, p, " "); printf "%.3f\n", p[1] + p[2] }'
}

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

echo "compiler:        $("$cxx" --version | head -n1)"
for opt in $opts; do
    time_one "$work/ecs_tu.cpp" > /dev/null # warm the file cache
    ecs_times=(); stl_times=()
    for _ in $(seq "$runs"); do
        ecs_times+=("$(time_one "$work/ecs_tu.cpp")")
        stl_times+=("$(time_one "$work/stl_tu.cpp")")
    done
    ecs_median=$(printf '%s\n' "${ecs_times[@]}" | median)
    stl_median=$(printf '%s\n' "${stl_times[@]}" | median)
    echo "$opt ecs.hpp TU:  ${ecs_median} s  (runs: ${ecs_times[*]})"
    echo "$opt STL-only TU: ${stl_median} s  (runs: ${stl_times[*]})"
    echo "$opt ratio:       $(awk -v a="$ecs_median" -v b="$stl_median" 'BEGIN { printf "%.2f", a / b }')  (target <= 1.8)"
done
