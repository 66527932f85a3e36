// The float floor_divide and remainder functors of ops/ run on the host (their
// bodies are __host__ __device__), so tests/test_divmod_host.py can hold them to
// NumPy bit for bit over millions of pairs without a GPU. Read as the op table
// reads them (VA_OP_TABLE: the rows, no kernels). Usage: divmod_host f32|f64 IN OUT
// (IN: pairs a0 b0 a1 b1 ...; OUT: floor_divide results, then remainder results).
#define VA_OP_TABLE
#include <cstdio>
#include <cstring>
#include <vector>

#include "../ops/floor_divide.cu"
#include "../ops/remainder.cu"

template <typename T>
static int run(FILE *in, FILE *out) {
    std::vector<T> pairs;
    T buf[2];
    while (std::fread(buf, sizeof(T), 2, in) == 2) pairs.insert(pairs.end(), buf, buf + 2);
    const size_t n = pairs.size() / 2;
    std::vector<T> result(2 * n);
    for (size_t i = 0; i < n; ++i) {
        result[i] = FloorDivide{}(pairs[2 * i], pairs[2 * i + 1]);
        result[n + i] = Remainder{}(pairs[2 * i], pairs[2 * i + 1]);
    }
    return std::fwrite(result.data(), sizeof(T), result.size(), out) == result.size() ? 0 : 1;
}

int main(int argc, char **argv) {
    if (argc != 4) return 2;
    FILE *in = std::fopen(argv[2], "rb"), *out = std::fopen(argv[3], "wb");
    if (in == nullptr || out == nullptr) return 2;
    const int rc = std::strcmp(argv[1], "f32") == 0 ? run<float>(in, out) : run<double>(in, out);
    std::fclose(in);
    return std::fclose(out) == 0 ? rc : 1;
}
