// va_searchsorted: where values would go in a sorted 1-d array. The sorted array
// and the values are first brought to one compute dtype, contiguous (one
// conversion pass each, skipped when they already are). The kernels compare
// order keys (order_key.cuh), so they are instantiated per width (1, 2, 4, 8
// bytes), not per dtype.
// Two routes, chosen once per call:
// - few values: one binary search each over the sorted array, about log2(n)
//   dependent loads, the upper levels staying in the caches;
// - at least as many values as sorted elements, past kTreeMinSorted: a B-tree copy
//   of the sorted array's keys is built first, one 32-byte sector a node, so a
//   search reads log_(k+1)(n) sectors (k keys a sector) instead of log2(n), and its
//   upper levels fit in L1. A binary search of 1e7 float64 values into 1e6 is bound
//   by L2's sector throughput; the B-tree reads 2.4x fewer sectors from L2 and costs
//   one pass over the sorted array (bench/NOTES.md, session 20).
#include <cstdint>
#include <type_traits>

#include "dispatch.cuh"
#include "grid.cuh"
#include "layout.cuh"
#include "memory.cuh"
#include "order_key.cuh"
#include "ops.cuh"
#include "runtime.cuh"

namespace va {
namespace {

constexpr int kThreads = 256;

// The B-tree route's bounds: below kTreeMinSorted the sorted array stays in L1 and
// a tree saves little; past kTreeMaxSorted a node's rank stride (fanout^height <
// fanout * (n + 1)) could leave 64 bits.
constexpr int64_t kTreeMinSorted = 4096;
constexpr int64_t kTreeMaxSorted = int64_t{1} << 50;
constexpr int kNodeBytes = 32;  // one L2 sector
// 1- and 2-byte elements take the binary search: their trees' kernels (32 and 16
// comparisons a node) would cost the wheel more than these rare searches gain.
constexpr size_t kTreeMinWidth = 4;
constexpr int kMaxLevels = 32;  // fanout >= 5, n <= 2^50: 22 levels at most

// Whether a key goes before v's: key < v for the left side, key <= v for the right.
template <typename U>
__device__ __forceinline__ bool before(U key, U v, bool right) { return (key < v) | (right & (key == v)); }

// out[i] = the first position p in sorted[0, n) where v = values[i] goes: past every
// element < v (left) or <= v (right).
template <typename U>
__global__ void search_kernel(const U *__restrict__ sorted, int64_t n, const U *__restrict__ values, int64_t count,
                              OrderKind kind, bool right, int64_t *__restrict__ out) {
    for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < count;
         i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
        const U v = order_key(values[i], kind);
        int64_t lo = 0, hi = n;
        while (lo < hi) {
            const int64_t mid = lo + (hi - lo) / 2;
            if (before(order_key(sorted[mid], kind), v, right)) lo = mid + 1;
            else hi = mid;
        }
        out[i] = lo;
    }
}

// The B-tree: a perfect tree of `height` levels, `keys` = kNodeBytes / width keys a
// node and fanout keys + 1, laid out level by level. Key j of node p at level d is
// the key of the sorted element of rank (fanout * p + j + 1) * scale[d] - 1, scale[d]
// = fanout^(height - 1 - d); ranks past n - 1 (the padding that makes the tree
// perfect) read as the last element, which moves no bound below n. Of each level only
// the nodes holding a rank below n are stored (a prefix of the level: 1.25n keys in
// all for fanout 5); a search that walks past them has passed every element, and
// counts the padding as the last element. After the last level the node index is the
// number of keys before v.
struct TreeShape {
    int height;
    int keys;
    int64_t fanout;
    int64_t nodes;              // stored, all levels
    int64_t first[kMaxLevels];  // the stored index of each level's node 0
    int64_t stored[kMaxLevels];
    int64_t scale[kMaxLevels];
};

// The shape for n sorted elements of `width` bytes; false outside the route's bounds.
bool tree_shape(int64_t n, int width, TreeShape *shape) {
    if (n < kTreeMinSorted || n > kTreeMaxSorted) return false;
    *shape = TreeShape{};
    shape->keys = kNodeBytes / width;
    shape->fanout = shape->keys + 1;
    int64_t perfect = shape->keys;  // fanout^height - 1 keys
    shape->height = 1;
    while (perfect < n) {
        perfect = perfect * shape->fanout + shape->keys;
        ++shape->height;
    }
    int64_t scale = 1;
    for (int d = shape->height - 1; d >= 0; --d) {
        shape->scale[d] = scale;
        scale *= shape->fanout;
    }
    for (int d = 0; d < shape->height; ++d) {
        // node p is stored iff its first key's rank (fanout p + 1) scale - 1 is below n
        const int64_t whole = n / shape->scale[d];
        shape->stored[d] = whole >= 1 ? (whole - 1) / shape->fanout + 1 : 0;
        shape->first[d] = shape->nodes;
        shape->nodes += shape->stored[d];
    }
    return true;
}

// One thread a key.
template <typename U>
__global__ void tree_build_kernel(const U *__restrict__ sorted, int64_t n, OrderKind kind, const TreeShape shape,
                                  U *__restrict__ tree) {
    constexpr int kKeys = kNodeBytes / sizeof(U);
    const int64_t total = shape.nodes * kKeys;
    for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < total;
         i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
        const int64_t node = i / kKeys;
        const int j = static_cast<int>(i % kKeys);
        int d = 0;
        while (d + 1 < shape.height && shape.first[d + 1] <= node) ++d;
        const int64_t rank = (shape.fanout * (node - shape.first[d]) + j + 1) * shape.scale[d] - 1;
        tree[i] = order_key(sorted[rank < n ? rank : n - 1], kind);
    }
}

// out[i] as search_kernel's, through the B-tree.
template <typename U>
__global__ void tree_search_kernel(const U *__restrict__ tree, const TreeShape shape, const U *__restrict__ sorted,
                                   int64_t n, const U *__restrict__ values, int64_t count, OrderKind kind, bool right,
                                   int64_t *__restrict__ out) {
    constexpr int kKeys = kNodeBytes / sizeof(U);
    const U last = order_key(sorted[n - 1], kind);
    for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < count;
         i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
        const U v = order_key(values[i], kind);
        const int padding = before(last, v, right) ? kKeys : 0;
        int64_t p = 0;
#pragma unroll 1
        for (int d = 0; d < shape.height; ++d) {
            int c = padding;
            if (p < shape.stored[d]) {
                union {
                    uint4 raw[2];
                    U key[kKeys];
                } node;
                const uint4 *at = reinterpret_cast<const uint4 *>(tree + (shape.first[d] + p) * kKeys);
                node.raw[0] = at[0];
                node.raw[1] = at[1];
                c = 0;
#pragma unroll
                for (int j = 0; j < kKeys; ++j) c += before(node.key[j], v, right) ? 1 : 0;
            }
            p = shape.fanout * p + c;
        }
        out[i] = p < n ? p : n;
    }
}

template <typename U>
va_status search_through_tree(int device, cudaStream_t stream, const TreeShape &shape, const U *sorted, int64_t n,
                              const U *values, int64_t count, OrderKind kind, bool right, int64_t *out) {
    DeviceBuffer tree(device, stream);
    VA_CHECK(tree.allocate(static_cast<size_t>(shape.nodes) * kNodeBytes));
    U *keys = reinterpret_cast<U *>(tree.get());
    const unsigned build = resident_grid_for<tree_build_kernel<U>>(device, shape.nodes * shape.keys, kThreads);
    tree_build_kernel<U><<<build, kThreads, 0, stream>>>(sorted, n, kind, shape, keys);
    VA_LAUNCH_CHECK();
    const unsigned blocks = resident_grid_for<tree_search_kernel<U>>(device, count, kThreads);
    tree_search_kernel<U><<<blocks, kThreads, 0, stream>>>(keys, shape, sorted, n, values, count, kind, right, out);
    VA_LAUNCH_CHECK();
    return VA_SUCCESS;
}

// The route: the B-tree for many values (see the top of the file), else the binary search.
template <typename U>
va_status search(int device, cudaStream_t stream, const U *sorted, int64_t n, const U *values, int64_t count,
                 OrderKind kind, bool right, int64_t *out) {
    if constexpr (sizeof(U) >= kTreeMinWidth) {
        TreeShape shape;
        if (count >= n && tree_shape(n, sizeof(U), &shape))
            return search_through_tree(device, stream, shape, sorted, n, values, count, kind, right, out);
    }
    const unsigned blocks = resident_grid_for<search_kernel<U>>(device, count, kThreads);
    search_kernel<U><<<blocks, kThreads, 0, stream>>>(sorted, n, values, count, kind, right, out);
    VA_LAUNCH_CHECK();
    return VA_SUCCESS;
}

}  // namespace
}  // namespace va

extern "C" va_status va_searchsorted(int device, const va_array *sorted, const va_array *values, int32_t right,
                                     const va_array *out) {
    int64_t n = 0, count = 0, out_count = 0;
    if (sorted == nullptr || values == nullptr || out == nullptr) VA_FAIL(VA_ERROR_INVALID_VALUE);
    VA_CHECK(va::validate(sorted, &n));
    VA_CHECK(va::validate(values, &count));
    VA_CHECK(va::validate(out, &out_count));
    if (sorted->ndim != 1 || out->dtype != VA_INT64 || !va::same_shape(values, out) || !va_is_c_contiguous(out))
        VA_FAIL(VA_ERROR_INVALID_VALUE);
    va_dtype compute;
    VA_CHECK(va_promote_types(sorted->dtype, values->dtype, &compute));
    VA_ENTER_STREAM(device, scope, stream);
    if (count == 0) return VA_SUCCESS;
    va::DeviceBuffer sorted_copy(device, stream), values_copy(device, stream);
    const void *s = nullptr, *v = nullptr;
    VA_CHECK(va::contiguous_as(device, stream, sorted, n, compute, &sorted_copy, &s));
    VA_CHECK(va::contiguous_as(device, stream, values, count, compute, &values_copy, &v));
    return va::dispatch_real_dtype(compute, [&](auto tag) -> va_status {
        using T = typename decltype(tag)::type;
        using U = typename va::UnsignedOf<sizeof(T)>::type;
        return va::search<U>(device, stream, static_cast<const U *>(s), n, static_cast<const U *>(v), count,
                             va::order_kind_of<T>(), right != 0, static_cast<int64_t *>(out->data));
    });
}
