// libFuzzer target: the input bytes drive the model-based test of tests/test_model.cpp (one byte per
// random decision) instead of a seed. Any divergence between the World and the reference model,
// a broken invariant, a leaked or doubly destroyed component, or a sanitizer report is a crash.
#define ECS_MODEL_NO_TESTS
#include "../tests/test_model.cpp"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    ModelRunner runner(data, size, 5000);
    const std::string error = runner.run();
    if (!error.empty()) {
        std::fprintf(stderr, "fuzz_ops: model mismatch at step %ld (op: %s): %s\n", runner.failed_step(),
                     runner.last_op(), error.c_str());
        std::abort();
    }
    return 0;
}
