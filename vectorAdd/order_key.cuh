// Order keys: an element's bits as an unsigned integer of its width whose order is
// NumPy's order of the elements (signed integers: the sign bit flipped; floats:
// sign-magnitude to two's order, -0.0 as 0.0, every NaN last, whatever its sign).
// Radix sorts and comparisons of order keys need one instantiation per width, not
// per dtype: argsort (sort.cu) and searchsorted (search.cu) compare them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace va {

// How an element's bits order: its dtype's kind.
enum class OrderKind : int { unsigned_integer, signed_integer, floating };

template <typename T>
__host__ __device__ constexpr OrderKind order_kind_of() {
    if constexpr (std::is_floating_point<T>::value) return OrderKind::floating;
    else if constexpr (std::is_signed<T>::value) return OrderKind::signed_integer;
    else return OrderKind::unsigned_integer;
}

// The unsigned integer of `Bytes` bytes.
template <size_t Bytes> struct UnsignedOf;
template <> struct UnsignedOf<1> { using type = uint8_t; };
template <> struct UnsignedOf<2> { using type = uint16_t; };
template <> struct UnsignedOf<4> { using type = uint32_t; };
template <> struct UnsignedOf<8> { using type = uint64_t; };

// The order key of the element whose bits are x (kind: a run-time argument, so that
// a kernel over keys serves every dtype of a width; a constant one folds away).
template <typename U>
__device__ __forceinline__ U order_key(U x, OrderKind kind) {
    static_assert(std::is_unsigned<U>::value, "the bits as an unsigned integer");
    constexpr U sign = static_cast<U>(U{1} << (sizeof(U) * 8 - 1));
    if constexpr (sizeof(U) >= 4) {  // float32 and float64; no narrower float here
        if (kind == OrderKind::floating) {
            constexpr U infinity = sizeof(U) == 8 ? static_cast<U>(0x7ff0000000000000ull) : static_cast<U>(0x7f800000u);
            const U magnitude = x & static_cast<U>(~sign);
            if (magnitude > infinity) return static_cast<U>(~U{0});
            if (magnitude == 0) return sign;
            return (x & sign) ? static_cast<U>(~x) : static_cast<U>(x | sign);
        }
    }
    return kind == OrderKind::signed_integer ? static_cast<U>(x ^ sign) : x;
}

}  // namespace va
