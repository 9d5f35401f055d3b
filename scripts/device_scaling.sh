#!/usr/bin/env bash
# Multi-core scaling run (#31) for a lent many-core machine (the `device` tool), where nothing can be
# installed: the benchmark binary and the shared libraries it needs travel in .devlib/, built here by
#   g++ -O3 -DNDEBUG -std=c++17 -Iinclude -Ibench bench/bench_schedule.cpp bench/bench_parallel.cpp \
#       bench/bench_sparse.cpp bench/alloc_counter.cpp -lbenchmark_main -lbenchmark -lpthread -o .devlib/par_bench
# with libbenchmark.so.1debian, libstdc++.so.6 and libgcc_s.so.1 copied beside it. The optional
# step `batches` also runs .devlib/par_bench_b16, the same sources built against a copy of include/
# whose each_par cuts 16 batches per thread instead of 4 (edit batch_rows_for in each_par.hpp).
# Output: the machine (nproc, lscpu), then medians of 3 repetitions; JSON under $OUT.
set -u
OUT=${OUT:-/tmp/scaling}
mkdir -p "$OUT"
export LD_LIBRARY_PATH="$PWD/.devlib"
nproc; ldd --version | head -1
lscpu | grep -E 'Model name|^CPU\(s\)|Thread|Core|Socket|NUMA node\(|MHz|L3' || true
# Hardware threads that share a core (a VM may report one thread per core and still share them).
for c in /sys/devices/system/cpu/cpu[0-9]*; do
    printf '%s core %s siblings %s\n' "${c##*/}" "$(cat $c/topology/core_id 2>/dev/null)" "$(cat $c/topology/thread_siblings_list 2>/dev/null)"
done | sort -V | head -16
B=.devlib/par_bench
ARGS=(--benchmark_repetitions=3 --benchmark_report_aggregates_only=true --benchmark_min_time=${MIN_TIME:-0.3})
run() { # name filter
    "$B" "${ARGS[@]}" --benchmark_filter="$2" --benchmark_out="$OUT/$1.json" --benchmark_out_format=json 2>&1 \
        | grep -E '_median|^Run on|Load' | sed 's/_median//'
}
STEPS=${STEPS:-schedule chain each_par}
for step in $STEPS; do
    case $step in
    schedule) run schedule 'BM_(Schedule_Lanes|Schedule_LanesPool|Schedule_LanesSpin|Schedule_LanesTraced|Raw_Lanes|Raw_LanesSpin)/[0-9]+/100000/|WaveOverhead|(OneHeavy|HeavyBeside)(Split)?/[0-9]+/1000000/' ;;
    chain) run chain 'BM_(Schedule_LanesChain|Schedule_LanesChainPool|Schedule_LanesChainSpin|Schedule_LanesChainTraced|Raw_LanesChain|Raw_LanesChainSpin)/[0-9]+/50000/' ;;
    each_par) run each_par 'BM_Parallel_Each/1000000/|EachPar(Pool|Traced)/1000000/|Raw_ParallelSpin/1000000/|BM_Parallel_(Sparse|Mixed)Each/1000000/|(Sparse|Mixed)EachPool/1000000/|SparseEachTraced/1000000/' ;;
    batches) # each_par with 4 (the library) and 16 batches per thread: the tail of a parallel run
        for b in par_bench par_bench_b16; do
            echo "$b"
            B=.devlib/$b run "batches_$b" 'BM_Parallel_Each/1000000/|EachParTraced/1000000/|BM_Parallel_SparseEach/1000000/|SparseEachTraced/1000000/'
        done ;;
    pinned) # two threads on two chosen CPUs: siblings of one core run the vectorized body slower
        for cpus in 0,1 0,8; do
            echo "taskset $cpus"
            taskset -c $cpus "$B" "${ARGS[@]}" --benchmark_filter='BM_Raw_Lanes(Spin)?/(1|2)/100000/' 2>&1 | grep _median | sed 's/_median//'
        done ;;
    esac
done
