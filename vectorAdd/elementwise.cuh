// Device-side pieces shared by the elementwise kernels: the arithmetic (integer
// wrap-around as NumPy does it, IEEE float operations as written) and packed
// vector loads.
#pragma once

#include <cstdint>
#include <type_traits>

#include "vectorAdd.h"

namespace va {

template <typename Tc>
__device__ __forceinline__ Tc apply_op(int op, Tc x, Tc y) {
    if constexpr (std::is_integral<Tc>::value) {
        // Unsigned arithmetic wraps like NumPy's integers do, without signed-overflow UB.
        using U = typename std::make_unsigned<Tc>::type;
        switch (op) {
            case VA_ADD: return static_cast<Tc>(static_cast<U>(x) + static_cast<U>(y));
            case VA_SUBTRACT: return static_cast<Tc>(static_cast<U>(x) - static_cast<U>(y));
            default: return static_cast<Tc>(static_cast<U>(x) * static_cast<U>(y));
        }
    } else {
        switch (op) {
            case VA_ADD: return x + y;
            case VA_SUBTRACT: return x - y;
            case VA_MULTIPLY: return x * y;
            default: return x / y;
        }
    }
}

// G elements of T read or written as one access of sizeof(T) * G bytes.
template <typename T, int G>
struct alignas(sizeof(T) * G) Pack {
    T v[G];
};

}  // namespace va
