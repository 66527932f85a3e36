// dtype dispatch in one place: maps a va_dtype to its C++ type for a generic lambda.
#pragma once

#include <cstdint>
#include <type_traits>

#include "complex.cuh"
#include "vectorAdd.h"

namespace va {

template <typename T>
struct TypeTag {
    using type = T;
};

// Calls fn(TypeTag<T>{}) for the C++ type of `dtype`; VA_ERROR_UNSUPPORTED_DTYPE
// for anything else (and, unless Complex, for the complex dtypes: what orders
// its elements, as sorting and searching do, has no complex loops).
template <bool Complex = true, typename Fn>
va_status dispatch_dtype(va_dtype dtype, Fn &&fn) {
    switch (dtype) {
        case VA_BOOL: return fn(TypeTag<bool>{});
        case VA_INT32: return fn(TypeTag<int32_t>{});
        case VA_INT64: return fn(TypeTag<int64_t>{});
        case VA_FLOAT32: return fn(TypeTag<float>{});
        case VA_FLOAT64: return fn(TypeTag<double>{});
        case VA_INT8: return fn(TypeTag<int8_t>{});
        case VA_INT16: return fn(TypeTag<int16_t>{});
        case VA_UINT8: return fn(TypeTag<uint8_t>{});
        case VA_UINT16: return fn(TypeTag<uint16_t>{});
        case VA_UINT32: return fn(TypeTag<uint32_t>{});
        case VA_UINT64: return fn(TypeTag<uint64_t>{});
        case VA_COMPLEX64: if constexpr (Complex) return fn(TypeTag<complex<float>>{}); break;
        case VA_COMPLEX128: if constexpr (Complex) return fn(TypeTag<complex<double>>{}); break;
        case VA_DTYPE_COUNT: case VA_DTYPE_MAX_ENUM: break;
    }
    return VA_ERROR_UNSUPPORTED_DTYPE;
}

template <typename Fn>
va_status dispatch_real_dtype(va_dtype dtype, Fn &&fn) {
    return dispatch_dtype<false>(dtype, static_cast<Fn &&>(fn));
}

}  // namespace va
