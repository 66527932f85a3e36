// stream_copy (vectorAdd/stream_copy.cu) against memcpy: every source and
// destination misalignment of 0..63 bytes, sizes around the 64-byte body and the
// 16-byte head, and a large copy; bytes around the destination stay untouched.
// Prints "ok" or the first difference and exits 1.
#include <cstdio>
#include <cstring>
#include <vector>

#include "stream_copy.cuh"

int main() {
    std::vector<char> src(1 << 22), dst((1 << 22) + 512), want(dst.size());
    for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<char>(i * 2654435761u >> 13);
    const size_t sizes[] = {0, 1, 15, 16, 17, 63, 64, 65, 127, 128, 129, 1000, 4096, 65536 + 7, (1 << 21) + 33};
    for (size_t s = 0; s < 64; ++s)
        for (size_t d = 0; d < 64; ++d)
            for (size_t n : sizes) {
                if (n > 65536 && s % 16 != 0 && s != 1) continue;  // the large copy: a few offsets
                std::memset(dst.data(), 0x5a, 64 + d + n + 256);
                std::memset(want.data(), 0x5a, 64 + d + n + 256);
                va::stream_copy(dst.data() + 64 + d, src.data() + s, n);
                std::memcpy(want.data() + 64 + d, src.data() + s, n);
                if (std::memcmp(dst.data(), want.data(), 64 + d + n + 256) != 0) {
                    std::printf("differs: src offset %zu, dst offset %zu, %zu bytes\n", s, d, n);
                    return 1;
                }
            }
    std::printf("ok\n");
    return 0;
}
