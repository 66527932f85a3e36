#include "stream_copy.cuh"

#include <algorithm>
#include <cstdint>
#include <cstring>

#if defined(__x86_64__) || defined(_M_X64)
#include <emmintrin.h>
#define VA_HAVE_STREAM_STORES 1
#endif

namespace va {

void stream_copy(char *dst, const char *src, size_t bytes) {
#ifdef VA_HAVE_STREAM_STORES
    // Non-temporal stores want a 16-byte aligned destination; the source may lie
    // anywhere (unaligned loads cost nothing extra on current cores).
    const size_t head = std::min<size_t>((16 - (reinterpret_cast<uintptr_t>(dst) & 15)) & 15, bytes);
    std::memcpy(dst, src, head);
    dst += head;
    src += head;
    bytes -= head;
    const size_t body = bytes & ~size_t(63);
    for (size_t i = 0; i < body; i += 64) {
        const __m128i v0 = _mm_loadu_si128(reinterpret_cast<const __m128i *>(src + i));
        const __m128i v1 = _mm_loadu_si128(reinterpret_cast<const __m128i *>(src + i + 16));
        const __m128i v2 = _mm_loadu_si128(reinterpret_cast<const __m128i *>(src + i + 32));
        const __m128i v3 = _mm_loadu_si128(reinterpret_cast<const __m128i *>(src + i + 48));
        _mm_stream_si128(reinterpret_cast<__m128i *>(dst + i), v0);
        _mm_stream_si128(reinterpret_cast<__m128i *>(dst + i + 16), v1);
        _mm_stream_si128(reinterpret_cast<__m128i *>(dst + i + 32), v2);
        _mm_stream_si128(reinterpret_cast<__m128i *>(dst + i + 48), v3);
    }
    std::memcpy(dst + body, src + body, bytes - body);
    _mm_sfence();
#else
    std::memcpy(dst, src, bytes);
#endif
}

}  // namespace va
