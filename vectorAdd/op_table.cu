// The operation table: one row per declaration in ops/ and user_ops/ (the build
// generates op_list.inc, an #include of each file), and the C API that reads it.
#include <cstring>
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

constexpr int kOpCount = __COUNTER__ - kFirstRow;

template <size_t... I>
const OpEntry *build_table(std::index_sequence<I...>) {
    static const OpEntry table[] = {OpRow<kFirstRow + static_cast<int>(I)>::make()..., OpEntry{}};
    return table;
}

const OpEntry *table() {
    static const OpEntry *rows = build_table(std::make_index_sequence<kOpCount>());
    return rows;
}

}  // namespace

const OpEntry *op_entry(va_op op) {
    if (op < 0 || op >= kOpCount) return nullptr;
    return &table()[op];
}

}  // namespace va

extern "C" {

int32_t va_op_count(void) { return va::kOpCount; }

const va_op_info *va_op_get(va_op op) {
    const va::OpEntry *e = va::op_entry(op);
    return e == nullptr ? nullptr : &e->info;
}

va_status va_op_find(const char *name, va_op *op) {
    if (name == nullptr || op == nullptr) VA_FAIL(VA_ERROR_INVALID_VALUE);
    for (int i = 0; i < va::kOpCount; ++i) {
        if (std::strcmp(va::table()[i].info.name, name) == 0) {
            *op = i;
            return VA_SUCCESS;
        }
    }
    VA_FAIL(VA_ERROR_INVALID_VALUE);
}

}  // extern "C"
