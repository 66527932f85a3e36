// The operation table: one row per declaration in ops/ (the build generates
// op_list.inc, an #include of each file) and in user_ops/ (each file's row from
// its own unit, listed in user_rows.inc), then the rows of operation
// libraries loaded at run time (module_load.cu), and the C API that reads it.
#include <atomic>
#include <cstring>
#include <mutex>
#include <utility>

#include "error.cuh"

#define VA_OP_TABLE
#include "op_declare.cuh"

namespace va {
namespace {
constexpr int kFirstRow = __COUNTER__ + 1;
}
}  // namespace va

#include "op_list.inc"

namespace va {
namespace {

constexpr int kOpsCount = __COUNTER__ - kFirstRow;

}  // namespace
}  // namespace va

// The rows of user_ops/, each from its file's own unit (user_rows.inc).
#define VA_USER_ROW_ENTRY(fn) namespace va { OpEntry fn(); }
#include "user_rows.inc"
#undef VA_USER_ROW_ENTRY

namespace va {
namespace {

#define VA_USER_ROW_ENTRY(fn) &fn,
OpEntry (*const kUserRows[])() = {
#include "user_rows.inc"
    nullptr};
#undef VA_USER_ROW_ENTRY
constexpr int kUserCount = static_cast<int>(sizeof(kUserRows) / sizeof(kUserRows[0])) - 1;
constexpr int kBuiltinCount = kOpsCount + kUserCount;
static_assert(kBuiltinCount <= VA_MAX_OPS, "more built-in operations than VA_MAX_OPS");

template <size_t... I>
void copy_builtins(OpEntry *rows, std::index_sequence<I...>) {
    ((rows[I] = OpRow<kFirstRow + static_cast<int>(I)>::make()), ...);
    for (int u = 0; u < kUserCount; ++u) rows[kOpsCount + u] = kUserRows[u]();
}

// The one table: the built-in rows first, then each loaded library's, appended
// under the lock and published by the count (a reader sees a row only after it
// is whole); rows are never changed or removed once published.
struct Registry {
    std::mutex lock;
    OpEntry rows[VA_MAX_OPS];
    const char *origin[VA_MAX_OPS];
    std::atomic<int> count{0};

    Registry() {
        copy_builtins(rows, std::make_index_sequence<kOpsCount>());
        for (int i = 0; i < kBuiltinCount; ++i) origin[i] = "";
        count.store(kBuiltinCount, std::memory_order_release);
    }
};

Registry &registry() {
    static Registry r;
    return r;
}

int find_row(const Registry &r, int count, const char *name) {
    for (int i = 0; i < count; ++i)
        if (std::strcmp(r.rows[i].info.name, name) == 0) return i;
    return -1;
}

}  // namespace

const OpEntry *op_entry(va_op op) {
    Registry &r = registry();
    if (op < 0 || op >= r.count.load(std::memory_order_acquire)) return nullptr;
    return &r.rows[op];
}

va_status append_rows(const OpEntry *rows, int32_t n, const char *origin, va_module_result *result) {
    Registry &r = registry();
    std::lock_guard<std::mutex> hold(r.lock);
    const int count = r.count.load(std::memory_order_relaxed);
    if (n > VA_MAX_OPS - count) {
        result->problem = VA_MODULE_TABLE_FULL;
        VA_FAIL(VA_ERROR_INVALID_VALUE);
    }
    for (int k = 0; k < n; ++k) {
        const int taken = find_row(r, count, rows[k].info.name);
        int twin = -1;
        for (int j = 0; j < k && twin < 0; ++j)
            if (std::strcmp(rows[j].info.name, rows[k].info.name) == 0) twin = j;
        if (taken >= 0 || twin >= 0) {
            result->problem = VA_MODULE_NAME_TAKEN;
            result->clash_op = taken;
            result->clash_row = k;
            result->clash_name = rows[k].info.name;
            VA_FAIL(VA_ERROR_INVALID_VALUE);
        }
    }
    for (int k = 0; k < n; ++k) {
        r.rows[count + k] = rows[k];
        r.origin[count + k] = origin;
    }
    result->first = count;
    result->count = n;
    r.count.store(count + n, std::memory_order_release);
    return VA_SUCCESS;
}

}  // namespace va

extern "C" {

int32_t va_op_count(void) { return va::registry().count.load(std::memory_order_acquire); }

const va_op_info *va_op_get(va_op op) {
    const va::OpEntry *e = va::op_entry(op);
    return e == nullptr ? nullptr : &e->info;
}

const char *va_op_origin(va_op op) {
    va::Registry &r = va::registry();
    if (op < 0 || op >= r.count.load(std::memory_order_acquire)) return nullptr;
    return r.origin[op];
}

va_status va_op_find(const char *name, va_op *op) {
    if (name == nullptr || op == nullptr) VA_FAIL(VA_ERROR_INVALID_VALUE);
    va::Registry &r = va::registry();
    const int found = va::find_row(r, r.count.load(std::memory_order_acquire), name);
    if (found < 0) VA_FAIL(VA_ERROR_INVALID_VALUE);
    *op = found;
    return VA_SUCCESS;
}

}  // extern "C"
