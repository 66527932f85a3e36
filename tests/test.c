/*
 * tests/test.c: the C test program of the vectorAdd library (vectorAdd/vectorAdd.h).
 *
 * Written in the common subset of C and C++: `make test-c` compiles it as C++ with
 * g++, and it also compiles as C11. Every GPU result is checked against a CPU loop
 * in this file: elementwise results bit for bit (the reference converts each
 * operand to the result dtype and does the one operation, as the kernels do;
 * integers wrap, computed unsigned), sums of integers exactly and sums of floats
 * within a relative tolerance of a long double reference.
 *
 * Argument checks that the library makes before any CUDA call run everywhere.
 * The no-device checks run only without a usable GPU, the GPU cases only with
 * one; each case not run is counted as skipped. MYMODULE_REQUIRE_GPU=1 (set by
 * `make test` where nvidia-smi lists a GPU) makes a missing GPU a failure. A float32 add of 2^31 + 5
 * elements (about 26 GB of GPU memory) runs on GPUs with 40 GB free, or when
 * VA_TEST_LARGE=1; VA_TEST_LARGE=0 turns it off.
 *
 * Output: the failures, then one line "N passed, N failed[, N skipped]"; the exit
 * status is non-zero when anything failed.
 */
#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vectorAdd.h"

#define NDTYPES 4
#define NOPS 4
#define POISON 0xAB
#define MAX_REPORTS 3 /* mismatches printed per case */

/* ------------------------------------------------------------------------ */
/* counting and reporting                                                    */
/* ------------------------------------------------------------------------ */

static int g_passed, g_failed, g_skipped;
static int g_gpu;           /* va_cuda_available() == VA_SUCCESS */
static int g_in_case;       /* inside a case: its checks count as one result */
static int g_case_failed;
static const char *g_case_name = "";

#if defined(__GNUC__)
#define PRINTF_LIKE(f, a) __attribute__((format(printf, f, a)))
#else
#define PRINTF_LIKE(f, a)
#endif

static int check_at(int ok, const char *file, int line, const char *fmt, ...) PRINTF_LIKE(4, 5);

/* Counts one check (or, inside a case, marks the case failed); prints file:line and
 * the message only on failure. Returns ok. */
static int check_at(int ok, const char *file, int line, const char *fmt, ...) {
    if (!ok) {
        va_list ap;
        printf("%s:%d: FAIL%s%s: ", file, line, g_in_case ? " in " : "",
               g_in_case ? g_case_name : "");
        va_start(ap, fmt);
        vprintf(fmt, ap);
        va_end(ap);
        printf("\n");
        fflush(stdout);
    }
    if (g_in_case) {
        if (!ok) g_case_failed = 1;
    } else if (ok) {
        g_passed++;
    } else {
        g_failed++;
    }
    return ok;
}

#define CHECK(cond, ...) check_at((cond) ? 1 : 0, __FILE__, __LINE__, __VA_ARGS__)

/* The call returns `want`. */
#define CHECK_STATUS(call, want)                                                       \
    do {                                                                               \
        va_status st_ = (call);                                                        \
        va_status want_ = (want);                                                      \
        CHECK(st_ == want_, "%s returned %d (%s), expected %d (%s)", #call, (int)st_,  \
              va_status_string(st_), (int)want_, va_status_string(want_));             \
    } while (0)

/* A case: a group of checks that counts as one result, run only when `run`;
 * otherwise counted as skipped. Returns whether to run it. */
static int case_begin_if(int run, const char *name) {
    if (!run) {
        g_skipped++;
        return 0;
    }
    g_in_case = 1;
    g_case_failed = 0;
    g_case_name = name;
    return 1;
}

/* A case that needs the GPU. */
static int gpu_case(const char *name) { return case_begin_if(g_gpu, name); }

static void case_end(void) {
    g_in_case = 0;
    g_case_name = "";
    if (g_case_failed)
        g_failed++;
    else
        g_passed++;
}

/* ------------------------------------------------------------------------ */
/* dtypes, values and references                                             */
/* ------------------------------------------------------------------------ */

static const char *dtype_name(va_dtype t) {
    switch (t) {
        case VA_INT32: return "int32";
        case VA_INT64: return "int64";
        case VA_FLOAT32: return "float32";
        case VA_FLOAT64: return "float64";
        default: return "bad-dtype";
    }
}

/* The four operations this program checks by hand, numbered for its own tables
 * and switches; lib_op() finds each in the library's op table by name. An
 * index past them stands for an operation that does not exist. */
enum { VA_ADD = 0, VA_SUBTRACT = 1, VA_MULTIPLY = 2, VA_DIVIDE = 3 };
static va_op lib_op(int op) {
    static const char *const names[4] = {"add", "subtract", "multiply", "divide"};
    va_op found = 1 << 20;
    if (op >= 0 && op < 4 && va_op_find(names[op], &found) != VA_SUCCESS) found = 1 << 20;
    return found;
}

static const char *op_name(va_op op) {
    switch (op) {
        case VA_ADD: return "add";
        case VA_SUBTRACT: return "subtract";
        case VA_MULTIPLY: return "multiply";
        case VA_DIVIDE: return "divide";
        default: return "bad-op";
    }
}

static int is_float(va_dtype t) { return t == VA_FLOAT32 || t == VA_FLOAT64; }

static size_t esize(va_dtype t) { return (t == VA_INT32 || t == VA_FLOAT32) ? 4u : 8u; }

/* NumPy's promotion for arrays of dtypes a and b, written out independently of
 * the library: the expected value of va_result_dtype. */
static va_dtype expected_result(va_op op, va_dtype a, va_dtype b) {
    static const va_dtype promote[NDTYPES][NDTYPES] = {
        /*            int32       int64       float32     float64 */
        /* int32 */ {VA_INT32, VA_INT64, VA_FLOAT64, VA_FLOAT64},
        /* int64 */ {VA_INT64, VA_INT64, VA_FLOAT64, VA_FLOAT64},
        /* f32   */ {VA_FLOAT64, VA_FLOAT64, VA_FLOAT32, VA_FLOAT64},
        /* f64   */ {VA_FLOAT64, VA_FLOAT64, VA_FLOAT64, VA_FLOAT64},
    };
    va_dtype r = promote[a][b];
    if (op == VA_DIVIDE && !is_float(r)) r = VA_FLOAT64;
    return r;
}

/* splitmix64: deterministic test data. */
static uint64_t g_rng = 0x9E3779B97F4A7C15ull;

static uint64_t rnd(void) {
    uint64_t z = (g_rng += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

enum value_kind {
    VALUES_GENERAL, /* full integer range; floats of wide range with 0, -0, inf, NaN, denormals */
    VALUES_FINITE   /* integers full range; floats finite, |x| < 2^21 with fractions */
};

/* A double of random sign with a random 52-bit mantissa and exponent in [lo, hi]
 * (-1022 <= lo <= hi <= 1023), built from its bits. */
static double rnd_scaled(int lo, int hi) {
    uint64_t r = rnd();
    uint64_t e = (uint64_t)(1023 + lo + (int)(((r >> 52) & 0x7FF) % (uint64_t)(hi - lo + 1)));
    uint64_t bits = (r & 0x000FFFFFFFFFFFFFull) | (e << 52) | ((r >> 63) ? 0ull : 0x8000000000000000ull);
    double v;
    memcpy(&v, &bits, 8);
    return v;
}

static double rnd_float_general(int is_f32) {
    uint64_t r = rnd() % 64;
    switch (r) {
        case 0: return 0.0;
        case 1: return -0.0;
        case 2: return (rnd() & 1) ? HUGE_VAL : -HUGE_VAL;
        case 3: return is_f32 ? (double)FLT_MAX : DBL_MAX;
        case 4: return is_f32 ? 1.0e-40 : 4.9e-324; /* denormal */
        case 5: return NAN;
        case 6: return (double)(int64_t)(rnd() % 17) - 8.0;
        default: return is_f32 ? rnd_scaled(-60, 60) : rnd_scaled(-300, 300);
    }
}

static void store_value(void *p, va_dtype t, enum value_kind kind) {
    uint64_t r = rnd();
    switch (t) {
        case VA_INT32: {
            int32_t v = (r % 4 == 0) ? (int32_t)(rnd() % 17) - 8 : (int32_t)(uint32_t)rnd();
            memcpy(p, &v, 4);
            break;
        }
        case VA_INT64: {
            int64_t v;
            if (r % 4 == 0)
                v = (int64_t)(rnd() % 17) - 8;
            else if (r % 4 == 1)
                v = (int64_t)(rnd() % (1ull << 54)) - (int64_t)(1ull << 53);
            else
                v = (int64_t)rnd();
            memcpy(p, &v, 8);
            break;
        }
        case VA_FLOAT32: {
            float v = (float)(kind == VALUES_GENERAL ? rnd_float_general(1) : rnd_scaled(-8, 20));
            memcpy(p, &v, 4);
            break;
        }
        case VA_FLOAT64: {
            double v = kind == VALUES_GENERAL ? rnd_float_general(0) : rnd_scaled(-8, 20);
            memcpy(p, &v, 8);
            break;
        }
        default: break;
    }
}

static void fill_values(char *buf, int64_t count, va_dtype t, enum value_kind kind) {
    for (int64_t i = 0; i < count; i++) store_value(buf + i * (int64_t)esize(t), t, kind);
}

static int64_t load_i64(const void *p, va_dtype t) {
    if (t == VA_INT32) {
        int32_t v;
        memcpy(&v, p, 4);
        return v;
    }
    int64_t v;
    memcpy(&v, p, 8);
    return v;
}

/* The value converted to double (int64 rounded to nearest, like the GPU's cast). */
static double load_f64(const void *p, va_dtype t) {
    switch (t) {
        case VA_INT32:
        case VA_INT64: return (double)load_i64(p, t);
        case VA_FLOAT32: {
            float v;
            memcpy(&v, p, 4);
            return (double)v;
        }
        default: {
            double v;
            memcpy(&v, p, 8);
            return v;
        }
    }
}

/* out = a (op) b in the result dtype rt, as the kernels compute it. */
static void ref_binary(va_op op, va_dtype rt, const void *pa, va_dtype ta, const void *pb,
                       va_dtype tb, void *out) {
    switch (rt) {
        case VA_INT32: {
            uint32_t x = (uint32_t)load_i64(pa, ta), y = (uint32_t)load_i64(pb, tb);
            uint32_t r = op == VA_ADD ? x + y : op == VA_SUBTRACT ? x - y : x * y;
            int32_t v = (int32_t)r;
            memcpy(out, &v, 4);
            break;
        }
        case VA_INT64: {
            uint64_t x = (uint64_t)load_i64(pa, ta), y = (uint64_t)load_i64(pb, tb);
            uint64_t r = op == VA_ADD ? x + y : op == VA_SUBTRACT ? x - y : x * y;
            int64_t v = (int64_t)r;
            memcpy(out, &v, 8);
            break;
        }
        case VA_FLOAT32: {
            float x = (float)load_f64(pa, ta), y = (float)load_f64(pb, tb);
            volatile float r; /* rounded to float, whatever FLT_EVAL_METHOD is */
            switch (op) {
                case VA_ADD: r = x + y; break;
                case VA_SUBTRACT: r = x - y; break;
                case VA_MULTIPLY: r = x * y; break;
                default: r = x / y; break;
            }
            float v = r;
            memcpy(out, &v, 4);
            break;
        }
        default: {
            double x = load_f64(pa, ta), y = load_f64(pb, tb);
            volatile double r;
            switch (op) {
                case VA_ADD: r = x + y; break;
                case VA_SUBTRACT: r = x - y; break;
                case VA_MULTIPLY: r = x * y; break;
                default: r = x / y; break;
            }
            double v = r;
            memcpy(out, &v, 8);
            break;
        }
    }
}

/* dst = src converted as a C cast (float to int in range only; int64 to int32 wraps). */
static void ref_convert(const void *ps, va_dtype ts, void *pd, va_dtype td) {
    switch (td) {
        case VA_INT32: {
            int32_t v;
            if (is_float(ts))
                v = (int32_t)load_f64(ps, ts);
            else
                v = (int32_t)(uint32_t)(uint64_t)load_i64(ps, ts);
            memcpy(pd, &v, 4);
            break;
        }
        case VA_INT64: {
            int64_t v = is_float(ts) ? (int64_t)load_f64(ps, ts) : load_i64(ps, ts);
            memcpy(pd, &v, 8);
            break;
        }
        case VA_FLOAT32: {
            float v;
            if (ts == VA_INT64)
                v = (float)load_i64(ps, ts); /* rounded once, not through double */
            else
                v = (float)load_f64(ps, ts);
            memcpy(pd, &v, 4);
            break;
        }
        default: {
            double v = load_f64(ps, ts);
            memcpy(pd, &v, 8);
            break;
        }
    }
}

/* Bit-identical, or both NaN (NaN payloads differ between CPU and GPU). */
static int same_value(const void *got, const void *want, va_dtype t) {
    if (memcmp(got, want, esize(t)) == 0) return 1;
    if (is_float(t)) {
        double g = load_f64(got, t), w = load_f64(want, t);
        return g != g && w != w;
    }
    return 0;
}

static void fmt_value(char *buf, size_t len, const void *p, va_dtype t) {
    switch (t) {
        case VA_INT32:
        case VA_INT64: snprintf(buf, len, "%lld", (long long)load_i64(p, t)); break;
        case VA_FLOAT32: {
            float v;
            uint32_t bits;
            memcpy(&v, p, 4);
            memcpy(&bits, p, 4);
            snprintf(buf, len, "%.9g (0x%08lx)", (double)v, (unsigned long)bits);
            break;
        }
        case VA_FLOAT64: {
            double v;
            unsigned long long bits;
            memcpy(&v, p, 8);
            memcpy(&bits, p, 8);
            snprintf(buf, len, "%.17g (0x%016llx)", v, bits);
            break;
        }
        default: snprintf(buf, len, "?"); break;
    }
}

static int all_poison(const char *p, size_t n) {
    static unsigned char block[4096];
    if (block[0] != POISON) memset(block, POISON, sizeof(block));
    for (size_t i = 0; i < n; i += sizeof(block)) {
        size_t len = n - i < sizeof(block) ? n - i : sizeof(block);
        if (memcmp(p + i, block, len) != 0) return 0;
    }
    return 1;
}

/* ------------------------------------------------------------------------ */
/* views                                                                     */
/* ------------------------------------------------------------------------ */

/* A layout over a buffer, in elements: strides per dimension, the index of view
 * element [0, ..., 0] in the buffer, and the buffer's length. */
typedef struct layout {
    int64_t str[2];
    int64_t first;
    int64_t span;
} layout;

/* A 1-d layout of n elements with stride multiple m (1 contiguous, 0 broadcast,
 * 2 every other element, -1 reversed) starting `off` elements into the buffer. */
static layout layout_1d(int64_t n, int m, int64_t off) {
    layout l;
    int64_t am = m < 0 ? -m : m;
    l.str[0] = m;
    l.str[1] = 0;
    l.first = off + ((m < 0 && n > 0) ? am * (n - 1) : 0);
    l.span = off + ((n > 0 && am > 0) ? am * (n - 1) + 1 : 1);
    return l;
}

static layout layout_2d(int64_t s0, int64_t s1, int64_t span) {
    layout l;
    l.str[0] = s0;
    l.str[1] = s1;
    l.first = 0;
    l.span = span < 1 ? 1 : span;
    return l;
}

static void make_view(va_array *v, void *base, va_dtype t, int32_t ndim, const int64_t *shape,
                      const layout *l) {
    memset(v, 0, sizeof(*v));
    v->data = (char *)base + l->first * (int64_t)esize(t);
    v->dtype = t;
    v->ndim = ndim;
    for (int32_t d = 0; d < ndim; d++) {
        v->shape[d] = shape[d];
        v->strides[d] = l->str[d] * (int64_t)esize(t);
    }
}

/* The same view over another base (host view -> device view). */
static void rebase(const va_array *hv, const void *hbase, void *dbase, va_array *dv) {
    *dv = *hv;
    dv->data = (char *)dbase + ((const char *)hv->data - (const char *)hbase);
}

static int64_t count_of(int32_t ndim, const int64_t *shape) {
    int64_t n = 1;
    for (int32_t d = 0; d < ndim; d++) n *= shape[d];
    return n;
}

/* Element `flat` (C order) of a view. */
static char *elem(const va_array *v, int64_t flat) {
    char *p = (char *)v->data;
    if (v->ndim == 1) return p + flat * v->strides[0];
    for (int32_t d = v->ndim - 1; d >= 0; d--) {
        int64_t k = flat % v->shape[d];
        flat /= v->shape[d];
        p += k * v->strides[d];
    }
    return p;
}

static char *xmalloc(size_t n) {
    char *p = (char *)malloc(n > 0 ? n : 1);
    if (p == NULL) {
        printf("out of host memory (%zu bytes)\n", n);
        exit(2);
    }
    return p;
}

/* Device memory for a case; NULL (and the case failed) when it could not be had. */
static void *dev_alloc(size_t nbytes) {
    void *p = NULL;
    va_status st = va_malloc(0, nbytes, &p);
    if (!CHECK(st == VA_SUCCESS && p != NULL, "va_malloc(%zu) returned %s", nbytes,
               va_status_string(st)))
        return NULL;
    return p;
}

static void dev_free(void *p, size_t nbytes) {
    if (p != NULL) CHECK_STATUS(va_free(0, p, nbytes), VA_SUCCESS);
}

static int upload(void *dst, const void *src, size_t nbytes) {
    va_status st = va_copy_to_device(0, dst, src, nbytes);
    return CHECK(st == VA_SUCCESS, "va_copy_to_device(%zu) returned %s", nbytes,
                 va_status_string(st));
}

static int download(void *dst, const void *src, size_t nbytes) {
    va_status st = va_copy_to_host(0, dst, src, nbytes);
    return CHECK(st == VA_SUCCESS, "va_copy_to_host(%zu) returned %s", nbytes,
                 va_status_string(st));
}

/* Checks view `out` of `obuf` (obytes long) element by element with `expect`, then
 * that nothing else in the buffer was written (it is all poison). */
typedef void (*expect_fn)(int64_t i, void *want, const void *ctx);

static void check_output(const va_array *out, char *obuf, size_t obytes, expect_fn expect,
                         const void *ctx, const char *what) {
    int64_t n = count_of(out->ndim, out->shape);
    int64_t bad = 0;
    size_t es = esize(out->dtype);
    for (int64_t i = 0; i < n; i++) {
        unsigned char want[8];
        char *got = elem(out, i);
        expect(i, want, ctx);
        if (!same_value(got, want, out->dtype)) {
            if (bad < MAX_REPORTS) {
                char g[64], w[64];
                fmt_value(g, sizeof(g), got, out->dtype);
                fmt_value(w, sizeof(w), want, out->dtype);
                CHECK(0, "%s: element %lld of %lld is %s%s, expected %s", what, (long long)i,
                      (long long)n, g, all_poison(got, es) ? " (never written)" : "", w);
            }
            bad++;
        }
    }
    CHECK(bad == 0, "%s: %lld of %lld elements wrong", what, (long long)bad, (long long)n);
    for (int64_t i = 0; i < n; i++) memset(elem(out, i), POISON, es);
    CHECK(all_poison(obuf, obytes), "%s: bytes outside the output view were written", what);
}

/* ------------------------------------------------------------------------ */
/* status strings, dtypes, promotion                                         */
/* ------------------------------------------------------------------------ */

static void test_status_strings(void) {
    for (int s = VA_SUCCESS; s <= VA_ERROR_LIBRARY_UNAVAILABLE; s++) {
        const char *text = va_status_string((va_status)s);
        CHECK(text != NULL && text[0] != '\0', "va_status_string(%d) is empty", s);
        for (int t = VA_SUCCESS; t < s; t++)
            CHECK(text != NULL && strcmp(text, va_status_string((va_status)t)) != 0,
                  "va_status_string(%d) equals va_status_string(%d)", s, t);
    }
    /* 8 is inside the enum's range but names no status. */
    const char *unknown = va_status_string((va_status)8);
    CHECK(unknown != NULL && unknown[0] != '\0', "va_status_string(8) is empty");
}

static void test_dtype_size(void) {
    CHECK(va_dtype_size(VA_INT32) == 4, "va_dtype_size(int32) = %zu", va_dtype_size(VA_INT32));
    CHECK(va_dtype_size(VA_INT64) == 8, "va_dtype_size(int64) = %zu", va_dtype_size(VA_INT64));
    CHECK(va_dtype_size(VA_FLOAT32) == 4, "va_dtype_size(float32) = %zu",
          va_dtype_size(VA_FLOAT32));
    CHECK(va_dtype_size(VA_FLOAT64) == 8, "va_dtype_size(float64) = %zu",
          va_dtype_size(VA_FLOAT64));
    CHECK(va_dtype_size((va_dtype)VA_DTYPE_COUNT) == 0, "va_dtype_size(VA_DTYPE_COUNT) = %zu", va_dtype_size((va_dtype)VA_DTYPE_COUNT));
}

static void test_result_dtype(void) {
    for (int op = 0; op < NOPS; op++)
        for (int a = 0; a < NDTYPES; a++)
            for (int b = 0; b < NDTYPES; b++) {
                va_dtype r = (va_dtype)VA_DTYPE_COUNT;
                va_status st = va_result_dtype(lib_op((va_op)op), (va_dtype)a, (va_dtype)b, &r);
                va_dtype want = expected_result((va_op)op, (va_dtype)a, (va_dtype)b);
                CHECK(st == VA_SUCCESS && r == want, "va_result_dtype(%s, %s, %s) = %s (%s), expected %s",
                      op_name((va_op)op), dtype_name((va_dtype)a), dtype_name((va_dtype)b),
                      dtype_name(r), va_status_string(st), dtype_name(want));
            }
    va_dtype r;
    CHECK_STATUS(va_result_dtype(lib_op(VA_ADD), VA_INT32, VA_INT32, NULL), VA_ERROR_INVALID_VALUE);
    CHECK_STATUS(va_result_dtype(lib_op((va_op)4), VA_INT32, VA_INT32, &r), VA_ERROR_INVALID_VALUE);
    /* An unknown dtype is refused. The header's VA_ERROR_UNSUPPORTED_DTYPE would be the
     * consistent answer; the library gives VA_ERROR_INVALID_VALUE, so accept either. */
    va_status st = va_result_dtype(lib_op(VA_ADD), (va_dtype)VA_DTYPE_COUNT, VA_INT32, &r);
    CHECK(st == VA_ERROR_UNSUPPORTED_DTYPE || st == VA_ERROR_INVALID_VALUE,
          "va_result_dtype(lib_op(add), 7, int32) returned %s", va_status_string(st));
    st = va_result_dtype(lib_op(VA_MULTIPLY), VA_FLOAT64, (va_dtype)VA_DTYPE_COUNT, &r);
    CHECK(st == VA_ERROR_UNSUPPORTED_DTYPE || st == VA_ERROR_INVALID_VALUE,
          "va_result_dtype(lib_op(multiply), float64, 7) returned %s", va_status_string(st));
}

/* NumPy's result_type of many: the first loop type all cast to (int8, uint16 and
 * float32 meet at float32, where a chain of pairs gives float64), Python scalars
 * joining by NEP 50. */
static void test_result_type(void) {
    const va_dtype three[3] = {VA_INT8, VA_UINT16, VA_FLOAT32};
    const va_dtype mixed[4] = {VA_FLOAT32, VA_BOOL, VA_BOOL, VA_BOOL};
    const va_weak scalars[4] = {VA_STRONG, VA_WEAK_FLOAT, VA_WEAK_COMPLEX, VA_WEAK_INT};
    const va_dtype ints[2] = {VA_BOOL, VA_INT16};
    const va_weak int_scalar[2] = {VA_WEAK_INT, VA_STRONG};
    va_dtype many[VA_MAX_RESULT_TYPE_ARGS + 1];
    va_dtype r = (va_dtype)VA_DTYPE_COUNT;
    for (int k = 0; k <= VA_MAX_RESULT_TYPE_ARGS; ++k) many[k] = VA_UINT8;
    CHECK(va_result_type(3, three, NULL, &r) == VA_SUCCESS && r == VA_FLOAT32, "result_type(int8, uint16, float32) = %s",
          dtype_name(r));
    CHECK(va_result_type(4, mixed, scalars, &r) == VA_SUCCESS && r == VA_COMPLEX64,
          "result_type(float32, 1.0, 1j, 1) = %s", dtype_name(r));
    CHECK(va_result_type(2, ints, int_scalar, &r) == VA_SUCCESS && r == VA_INT16, "result_type(1, int16) = %s",
          dtype_name(r));
    CHECK(va_result_type(1, ints, int_scalar, &r) == VA_SUCCESS && r == VA_INT64, "result_type(1) = %s",
          dtype_name(r));
    CHECK(va_result_type(VA_MAX_RESULT_TYPE_ARGS, many, NULL, &r) == VA_SUCCESS && r == VA_UINT8,
          "result_type(uint8 x %d) = %s", VA_MAX_RESULT_TYPE_ARGS, dtype_name(r));
    CHECK_STATUS(va_result_type(VA_MAX_RESULT_TYPE_ARGS + 1, many, NULL, &r), VA_ERROR_INVALID_VALUE);
    CHECK_STATUS(va_result_type(0, three, NULL, &r), VA_ERROR_INVALID_VALUE);
    CHECK_STATUS(va_result_type(3, NULL, NULL, &r), VA_ERROR_INVALID_VALUE);
    CHECK_STATUS(va_result_type(3, three, NULL, NULL), VA_ERROR_INVALID_VALUE);
    many[1] = (va_dtype)VA_DTYPE_COUNT;
    CHECK_STATUS(va_result_type(2, many, NULL, &r), VA_ERROR_UNSUPPORTED_DTYPE);
}

/* ------------------------------------------------------------------------ */
/* bad arguments: refused before any CUDA call, so the same with or without a GPU */
/* ------------------------------------------------------------------------ */

typedef va_status (*binary_fn)(int, va_op, const va_array *, const va_array *, const va_array *);
typedef va_status (*sum_fn)(int, const va_array *, void *);

static void vec4(va_array *v, void *data, va_dtype t) {
    int64_t shape[1] = {4};
    layout l = layout_1d(4, 1, 0);
    make_view(v, data, t, 1, shape, &l);
}

static void check_last_error_is_argument(const char *what) {
    va_error_info info;
    memset(&info, 0, sizeof(info));
    va_last_error(&info);
    CHECK(info.cuda_code == 0 && info.text != NULL && info.text[0] != '\0' &&
              info.name != NULL && info.file != NULL && info.file[0] != '\0',
          "%s: va_last_error after an argument error: cuda_code %d, text '%s'", what,
          info.cuda_code, info.text != NULL ? info.text : "(null)");
}

static void test_bad_binary_arguments(void) {
    static int32_t ia[4], ib[4], io[4];
    static double da[4], dout[8];
    static float fa[4];
    const binary_fn fns[2] = {va_binary, va_binary_host};
    const char *names[2] = {"va_binary", "va_binary_host"};
    for (int f = 0; f < 2; f++) {
        binary_fn fn = fns[f];
        va_array a, b, o, x;
        vec4(&a, ia, VA_INT32);
        vec4(&b, ib, VA_INT32);
        vec4(&o, io, VA_INT32);

        CHECK_STATUS(fn(0, lib_op(VA_ADD), NULL, &b, &o), VA_ERROR_INVALID_VALUE);
        check_last_error_is_argument(names[f]);
        CHECK_STATUS(fn(0, lib_op(VA_ADD), &a, NULL, &o), VA_ERROR_INVALID_VALUE);
        CHECK_STATUS(fn(0, lib_op(VA_ADD), &a, &b, NULL), VA_ERROR_INVALID_VALUE);

        x = a; x.ndim = -1;
        CHECK_STATUS(fn(0, lib_op(VA_ADD), &x, &b, &o), VA_ERROR_INVALID_VALUE);
        x = a; x.ndim = VA_MAX_NDIM + 1;
        CHECK_STATUS(fn(0, lib_op(VA_ADD), &x, &b, &o), VA_ERROR_INVALID_VALUE);
        x = o; x.ndim = VA_MAX_NDIM + 1;
        CHECK_STATUS(fn(0, lib_op(VA_ADD), &a, &b, &x), VA_ERROR_INVALID_VALUE);
        x = b; x.shape[0] = -4;
        CHECK_STATUS(fn(0, lib_op(VA_SUBTRACT), &a, &x, &o), VA_ERROR_INVALID_VALUE);
        /* shapes whose element count overflows int64 */
        x = a; x.ndim = 2; x.shape[0] = (int64_t)1 << 40; x.shape[1] = (int64_t)1 << 40;
        CHECK_STATUS(fn(0, lib_op(VA_ADD), &x, &x, &x), VA_ERROR_INVALID_VALUE);

        /* mismatched shapes and ndims */
        x = a; x.shape[0] = 3;
        CHECK_STATUS(fn(0, lib_op(VA_ADD), &x, &b, &o), VA_ERROR_INVALID_VALUE);
        x = o; x.shape[0] = 5;
        CHECK_STATUS(fn(0, lib_op(VA_ADD), &a, &b, &x), VA_ERROR_INVALID_VALUE);
        x = b; x.ndim = 2; x.shape[1] = 1; x.strides[1] = 4;
        CHECK_STATUS(fn(0, lib_op(VA_ADD), &a, &x, &o), VA_ERROR_INVALID_VALUE);

        /* NULL data with elements */
        x = a; x.data = NULL;
        CHECK_STATUS(fn(0, lib_op(VA_ADD), &x, &b, &o), VA_ERROR_INVALID_VALUE);
        x = o; x.data = NULL;
        CHECK_STATUS(fn(0, lib_op(VA_ADD), &a, &b, &x), VA_ERROR_INVALID_VALUE);

        /* an op that does not exist */
        CHECK_STATUS(fn(0, lib_op((va_op)4), &a, &b, &o), VA_ERROR_INVALID_VALUE);

        /* out of the wrong dtype */
        vec4(&x, dout, VA_FLOAT64);
        CHECK_STATUS(fn(0, lib_op(VA_ADD), &a, &b, &x), VA_ERROR_INVALID_VALUE); /* int32+int32 -> float64 */
        CHECK_STATUS(fn(0, lib_op(VA_DIVIDE), &a, &b, &o), VA_ERROR_INVALID_VALUE); /* int32/int32 -> int32 */
        {
            va_array f32, o32;
            vec4(&f32, fa, VA_FLOAT32);
            vec4(&o32, fa, VA_FLOAT32);
            CHECK_STATUS(fn(0, lib_op(VA_ADD), &a, &f32, &o32), VA_ERROR_INVALID_VALUE); /* -> float64 */
            CHECK_STATUS(fn(0, lib_op(VA_MULTIPLY), &f32, &f32, &x), VA_ERROR_INVALID_VALUE); /* -> float32 */
            va_array d64;
            vec4(&d64, da, VA_FLOAT64);
            CHECK_STATUS(fn(0, lib_op(VA_ADD), &d64, &f32, &o32), VA_ERROR_INVALID_VALUE); /* -> float64 */
            vec4(&x, io, VA_INT64);
            CHECK_STATUS(fn(0, lib_op(VA_ADD), &a, &b, &x), VA_ERROR_INVALID_VALUE); /* -> int32 */
        }

        /* an unknown dtype, in each position */
        x = a; x.dtype = (va_dtype)VA_DTYPE_COUNT;
        CHECK_STATUS(fn(0, lib_op(VA_ADD), &x, &b, &o), VA_ERROR_UNSUPPORTED_DTYPE);
        x = b; x.dtype = (va_dtype)VA_DTYPE_COUNT;
        CHECK_STATUS(fn(0, lib_op(VA_ADD), &a, &x, &o), VA_ERROR_UNSUPPORTED_DTYPE);
        x = o; x.dtype = (va_dtype)VA_DTYPE_COUNT;
        CHECK_STATUS(fn(0, lib_op(VA_ADD), &a, &b, &x), VA_ERROR_UNSUPPORTED_DTYPE);
    }

    /* va_binary_host wants a C-contiguous out */
    {
        va_array a, b, o;
        vec4(&a, ia, VA_INT32);
        vec4(&b, ib, VA_INT32);
        int64_t shape[1] = {4};
        layout every_other = layout_1d(4, 2, 0), reversed = layout_1d(4, -1, 0);
        static int32_t big[8];
        make_view(&o, big, VA_INT32, 1, shape, &every_other);
        CHECK_STATUS(va_binary_host(0, lib_op(VA_ADD), &a, &b, &o), VA_ERROR_INVALID_VALUE);
        make_view(&o, big, VA_INT32, 1, shape, &reversed);
        CHECK_STATUS(va_binary_host(0, lib_op(VA_ADD), &a, &b, &o), VA_ERROR_INVALID_VALUE);
        /* 2-d, Fortran order */
        int64_t shape2[2] = {2, 2};
        layout fortran = layout_2d(1, 2, 4);
        make_view(&a, ia, VA_INT32, 2, shape2, &fortran);
        make_view(&b, ib, VA_INT32, 2, shape2, &fortran);
        make_view(&o, io, VA_INT32, 2, shape2, &fortran);
        CHECK_STATUS(va_binary_host(0, lib_op(VA_ADD), &a, &b, &o), VA_ERROR_INVALID_VALUE);
    }
}

/* A decided call (va_elementwise_plan): the library checks the loop against
 * out's dtype and runs it, deciding nothing again; va_elementwise's own decision
 * counts a parameter as a Python scalar of out's kind (axpy). */
static void test_plans(void) {
    int32_t ia[4] = {1, 2, 3, 4}, ib[4] = {10, 20, 30, 40};
    double sums[4] = {0, 0, 0, 0};
    va_array in[2], o;
    vec4(&in[0], ia, VA_INT32);
    vec4(&in[1], ib, VA_INT32);
    vec4(&o, sums, VA_FLOAT64);
    const int device = 0;
    va_elementwise_plan plan = {lib_op(VA_ADD), 2, in, NULL, &o, VA_INT32};
    /* int32's loop gives int32, not out's float64; checked before any device */
    CHECK_STATUS(va_elementwise_planned(0, &plan), VA_ERROR_INVALID_VALUE);
    CHECK_STATUS(va_elementwise_host_planned(&device, 1, &plan), VA_ERROR_INVALID_VALUE);
    plan.compute = VA_DTYPE_COUNT;
    CHECK_STATUS(va_elementwise_planned(0, &plan), VA_ERROR_INVALID_VALUE);
    plan.compute = (va_dtype)100; /* past the dtypes, inside the enum's range */
    CHECK_STATUS(va_elementwise_host_planned(&device, 1, &plan), VA_ERROR_INVALID_VALUE);
    CHECK_STATUS(va_elementwise_planned(0, NULL), VA_ERROR_INVALID_VALUE);
    CHECK_STATUS(va_elementwise_host_planned(&device, 1, NULL), VA_ERROR_INVALID_VALUE);
    plan.compute = VA_FLOAT64;
    plan.nin = 1;
    CHECK_STATUS(va_elementwise_planned(0, &plan), VA_ERROR_INVALID_VALUE);
    plan.nin = 2;
    if (!g_gpu) {
        CHECK_STATUS(va_elementwise_host_planned(&device, 1, &plan), VA_ERROR_NO_DEVICE);
        return;
    }
    if (gpu_case("planned add of int32 in float64")) {
        CHECK_STATUS(va_elementwise_host_planned(&device, 1, &plan), VA_SUCCESS);
        for (int i = 0; i < 4; ++i) CHECK(sums[i] == (double)(ia[i] + ib[i]), "sum %d: %g", i, sums[i]);
        case_end();
    }
    va_op axpy = 0;
    CHECK_STATUS(va_op_find("axpy", &axpy), VA_SUCCESS);
    if (gpu_case("axpy from C, alpha of out's kind")) {
        int64_t x[4] = {1, 2, 3, 4}, y[4] = {5, 6, 7, 8}, iout[4] = {0, 0, 0, 0};
        double fout[4] = {0, 0, 0, 0}, alpha = 2.5;
        va_array xy[2], fo, io;
        vec4(&xy[0], x, VA_INT64);
        vec4(&xy[1], y, VA_INT64);
        vec4(&fo, fout, VA_FLOAT64);
        vec4(&io, iout, VA_INT64);
        CHECK_STATUS(va_elementwise_host(0, axpy, 2, xy, &alpha, &fo), VA_SUCCESS);
        for (int i = 0; i < 4; ++i) CHECK(fout[i] == 2.5 * (double)x[i] + (double)y[i], "axpy float %d: %g", i, fout[i]);
        alpha = 3.0;
        CHECK_STATUS(va_elementwise_host(0, axpy, 2, xy, &alpha, &io), VA_SUCCESS);
        for (int i = 0; i < 4; ++i) CHECK(iout[i] == 3 * x[i] + y[i], "axpy int %d: %lld", i, (long long)iout[i]);
        case_end();
    }
}

/* va_elementwise_planned_new: the plan checked before any device or memory, out's
 * pointer never read; the call into memory the library allocates, given back with
 * va_free; nothing left allocated by a call that fails. */
static void test_plan_into_new(void) {
    int32_t ia[4] = {1, 2, 3, 4}, ib[4] = {10, 20, 30, 40};
    va_array in[2], o;
    vec4(&in[0], ia, VA_INT32);
    vec4(&in[1], ib, VA_INT32);
    vec4(&o, NULL, VA_FLOAT64);
    void *data = (void *)&o; /* anything but NULL: a failure writes NULL */
    va_elementwise_plan plan = {lib_op(VA_ADD), 2, in, NULL, &o, VA_INT32};
    CHECK_STATUS(va_elementwise_planned_new(0, &plan, &data), VA_ERROR_INVALID_VALUE);
    CHECK(data == NULL, "a failed call leaves *data NULL");
    CHECK_STATUS(va_elementwise_planned_new(0, NULL, &data), VA_ERROR_INVALID_VALUE);
    plan.compute = VA_FLOAT64;
    CHECK_STATUS(va_elementwise_planned_new(0, &plan, NULL), VA_ERROR_INVALID_VALUE);
    o.strides[0] = 16; /* not C-contiguous: the library allocates C order only */
    CHECK_STATUS(va_elementwise_planned_new(0, &plan, &data), VA_ERROR_INVALID_VALUE);
    o.strides[0] = 8;
    o.shape[0] = 3; /* inputs of another shape */
    CHECK_STATUS(va_elementwise_planned_new(0, &plan, &data), VA_ERROR_INVALID_VALUE);
    o.shape[0] = 4;
    if (!g_gpu) {
        CHECK_STATUS(va_elementwise_planned_new(0, &plan, &data), VA_ERROR_NO_DEVICE);
        CHECK(data == NULL, "no device: *data NULL");
        return;
    }
    if (gpu_case("planned add of int32 into new float64 memory")) {
        void *da = dev_alloc(sizeof(ia)), *db = dev_alloc(sizeof(ib));
        int64_t before = 0, live = 0, after = 0;
        if (da != NULL && db != NULL && upload(da, ia, sizeof(ia)) && upload(db, ib, sizeof(ib))) {
            va_array din[2];
            vec4(&din[0], da, VA_INT32);
            vec4(&din[1], db, VA_INT32);
            plan.in = din;
            CHECK_STATUS(va_memory_stats(&before, &live), VA_SUCCESS);
            CHECK_STATUS(va_elementwise_planned_new(0, &plan, &data), VA_SUCCESS);
            double sums[4] = {0, 0, 0, 0};
            if (CHECK(data != NULL, "new memory") && download(sums, data, sizeof(sums))) {
                for (int i = 0; i < 4; ++i) CHECK(sums[i] == (double)(ia[i] + ib[i]), "sum %d: %g", i, sums[i]);
            }
            CHECK_STATUS(va_memory_stats(&after, &live), VA_SUCCESS);
            CHECK(after - before == (int64_t)sizeof(sums), "the new memory counted: %lld bytes",
                  (long long)(after - before));
            dev_free(data, sizeof(sums));
            /* an empty result: valid, unique memory, nothing launched */
            o.shape[0] = 0;
            din[0].shape[0] = din[1].shape[0] = 0;
            data = NULL;
            CHECK_STATUS(va_elementwise_planned_new(0, &plan, &data), VA_SUCCESS);
            CHECK(data != NULL, "an empty result has memory");
            dev_free(data, 0);
            CHECK_STATUS(va_memory_stats(&after, &live), VA_SUCCESS);
            CHECK(after == before, "all given back: %lld against %lld bytes", (long long)after, (long long)before);
        }
        dev_free(da, sizeof(ia));
        dev_free(db, sizeof(ib));
        case_end();
    }
}

/* The host-side cache of small blocks filled past its bounds with blocks of 4200 size
 * classes: blocks of a class it has none of still come, blocks it holds come back
 * from it by class and hold what is written, and everything is counted and given back
 * (the cache's own rules: tests/small_block_cache_host.cu). */
static void test_small_block_cache_by_class(void) {
    if (!gpu_case("small blocks of 4200 size classes")) return;
    enum { kClasses = 4200 };
    static void *blocks[kClasses];
    int64_t before = 0, live = 0, now = 0;
    CHECK_STATUS(va_synchronize(-1), VA_SUCCESS);
    CHECK_STATUS(va_release_cached(), VA_SUCCESS);
    CHECK_STATUS(va_memory_stats(&before, &live), VA_SUCCESS);
    int ok = 1;
    for (int k = 0; k < kClasses; ++k) {
        blocks[k] = ok ? dev_alloc((size_t)(k + 2) * 512) : NULL;
        ok = ok && blocks[k] != NULL;
    }
    for (int k = 0; k < kClasses; ++k) dev_free(blocks[k], (size_t)(k + 2) * 512);
    /* the cache is full: a class it lacks, many times; then one it holds */
    for (int round = 0; round < 100 && ok; ++round) {
        void *p = dev_alloc(100);
        ok = p != NULL;
        dev_free(p, 100);
    }
    void *again = ok ? dev_alloc(2 * 512) : NULL;
    if (again != NULL) {
        double one = 2.5, back = 0;
        if (upload(again, &one, sizeof(one)) && download(&back, again, sizeof(back)))
            CHECK(back == 2.5, "a cached block holds what was written: %g", back);
        dev_free(again, 2 * 512);
    }
    CHECK_STATUS(va_memory_stats(&now, &live), VA_SUCCESS);
    CHECK(now == before, "every block given back: %lld against %lld bytes", (long long)now, (long long)before);
    CHECK_STATUS(va_synchronize(-1), VA_SUCCESS);
    CHECK_STATUS(va_release_cached(), VA_SUCCESS);
    case_end();
}

/* n = 1 adds on device memory from this thread and from a thread of its own (a
 * thread with no CUDA context yet: its first call makes one current). */
typedef struct {
    void *x, *out;
    va_status status;
} small_adds;

/* One float64 on the device, as a 1-d view of one element. */
static va_array vec_on_device(void *data) {
    va_array v;
    int64_t shape[1] = {1};
    layout l = layout_1d(1, 1, 0);
    make_view(&v, data, VA_FLOAT64, 1, shape, &l);
    return v;
}

static void *run_small_adds(void *arg) {
    small_adds *job = (small_adds *)arg;
    va_op add = lib_op(VA_ADD);
    const va_array x = vec_on_device(job->x), out = vec_on_device(job->out);
    const va_array in[2] = {x, x};
    job->status = VA_SUCCESS;
    for (int k = 0; k < 4 && job->status == VA_SUCCESS; ++k)
        job->status = va_elementwise(0, add, 2, in, NULL, &out);
    if (job->status == VA_SUCCESS) job->status = va_synchronize(0);
    return NULL;
}

static void test_small_adds_on_two_threads(void) {
    if (!gpu_case("n = 1 adds on two threads")) return;
    const double three = 3.0;
    void *x = dev_alloc(sizeof(double)), *out_main = dev_alloc(sizeof(double)), *out_thread = dev_alloc(sizeof(double));
    if (x != NULL && out_main != NULL && out_thread != NULL && upload(x, &three, sizeof(three))) {
        small_adds mine = {x, out_main, VA_SUCCESS}, theirs = {x, out_thread, VA_SUCCESS};
        pthread_t thread;
        run_small_adds(&mine);
        const int started = pthread_create(&thread, NULL, run_small_adds, &theirs) == 0;
        CHECK(started, "pthread_create");
        if (started) pthread_join(thread, NULL);
        double got_main = 0, got_thread = 0;
        CHECK_STATUS(mine.status, VA_SUCCESS);
        CHECK_STATUS(theirs.status, VA_SUCCESS);
        if (download(&got_main, out_main, sizeof(double)) && download(&got_thread, out_thread, sizeof(double)))
            CHECK(got_main == 6.0 && got_thread == 6.0, "3 + 3: %g here, %g on the thread", got_main, got_thread);
    }
    dev_free(x, sizeof(double));
    dev_free(out_main, sizeof(double));
    dev_free(out_thread, sizeof(double));
    case_end();
}

/* The one test of C-contiguity (the library's routes and the extension's). */
static void test_c_contiguity(void) {
    static double buf[64];
    va_array v;
    int64_t shape1[1] = {4}, shape2[2] = {2, 2}, shape_one[2] = {1, 4}, empty[2] = {0, 3};
    layout plain = layout_1d(4, 1, 0), every_other = layout_1d(4, 2, 0), reversed = layout_1d(4, -1, 0);
    make_view(&v, buf, VA_FLOAT64, 1, shape1, &plain);
    CHECK(va_is_c_contiguous(&v) == 1, "1-d contiguous");
    make_view(&v, buf, VA_FLOAT64, 1, shape1, &every_other);
    CHECK(va_is_c_contiguous(&v) == 0, "1-d every other");
    make_view(&v, buf, VA_FLOAT64, 1, shape1, &reversed);
    CHECK(va_is_c_contiguous(&v) == 0, "1-d reversed");
    layout c_order = layout_2d(2, 1, 0), fortran = layout_2d(1, 2, 0);
    make_view(&v, buf, VA_FLOAT64, 2, shape2, &c_order);
    CHECK(va_is_c_contiguous(&v) == 1, "2-d C order");
    make_view(&v, buf, VA_FLOAT64, 2, shape2, &fortran);
    CHECK(va_is_c_contiguous(&v) == 0, "2-d Fortran order");
    make_view(&v, buf, VA_FLOAT64, 2, shape_one, &c_order);
    v.strides[0] = 12345; /* a length-1 axis: its stride says nothing */
    v.strides[1] = 8;
    CHECK(va_is_c_contiguous(&v) == 1, "length-1 axis with any stride");
    make_view(&v, buf, VA_FLOAT64, 2, empty, &fortran);
    CHECK(va_is_c_contiguous(&v) == 1, "empty view");
    CHECK(va_is_c_contiguous(NULL) == 0, "NULL");
}

/* A C-contiguous (d0, d1, d2) float64 view of `data`. */
static void c_order_3d(va_array *v, double *data, int64_t d0, int64_t d1, int64_t d2) {
    memset(v, 0, sizeof(*v));
    v->data = data;
    v->dtype = VA_FLOAT64;
    v->ndim = 3;
    v->shape[0] = d0;
    v->shape[1] = d1;
    v->shape[2] = d2;
    v->strides[2] = 8;
    v->strides[1] = 8 * d2;
    v->strides[0] = 8 * d1 * d2;
}

/* va_matmul refuses what it cannot multiply before any device work: views that are not
 * (B, m, k) @ (B, k, n) -> (B, m, n) of one dtype, an out that is not C-contiguous or that
 * shares memory with an input. */
static void test_bad_matmul_arguments(void) {
    static double a_data[2 * 3 * 4], b_data[2 * 4 * 5], o_data[2 * 3 * 5];
    int64_t s2[2] = {3, 4};
    layout c2 = layout_2d(4, 1, 0);
    va_array a, b, o, flat;
    c_order_3d(&a, a_data, 2, 3, 4);
    c_order_3d(&b, b_data, 2, 4, 5);
    c_order_3d(&o, o_data, 2, 3, 5);
    make_view(&flat, a_data, VA_FLOAT64, 2, s2, &c2);
    CHECK_STATUS(va_matmul(0, NULL, &b, &o), VA_ERROR_INVALID_VALUE);
    CHECK_STATUS(va_matmul(0, &flat, &b, &o), VA_ERROR_INVALID_VALUE);        /* not 3-d */
    CHECK_STATUS(va_matmul(0, &b, &a, &o), VA_ERROR_INVALID_VALUE);           /* k differs */
    va_array f32 = o;
    f32.dtype = VA_FLOAT32;
    CHECK_STATUS(va_matmul(0, &a, &b, &f32), VA_ERROR_INVALID_VALUE);         /* another dtype */
    va_array strided = o;
    strided.strides[2] = 16;
    CHECK_STATUS(va_matmul(0, &a, &b, &strided), VA_ERROR_INVALID_VALUE);     /* out not C-contiguous */
    va_array onto_a = o;
    onto_a.data = a_data;
    CHECK_STATUS(va_matmul(0, &a, &b, &onto_a), VA_ERROR_INVALID_VALUE);      /* out over a */
}

/* va_var refuses what it cannot take before any device work: a dtype other than
 * float32/float64, an out of another dtype or of more than one element. */
static void test_bad_var_arguments(void) {
    double x[4] = {1, 2, 3, 4}, r[4];
    int64_t ix[4];
    int64_t one[1] = {1};
    layout c_order = layout_2d(1, 1, 0);
    va_array a, ia, out, wide;
    vec4(&a, x, VA_FLOAT64);
    vec4(&ia, ix, VA_INT64);
    vec4(&wide, r, VA_FLOAT64);
    make_view(&out, r, VA_FLOAT64, 1, one, &c_order);
    CHECK_STATUS(va_var(0, NULL, 0.0, &out), VA_ERROR_INVALID_VALUE);
    CHECK_STATUS(va_var(0, &a, 0.0, NULL), VA_ERROR_INVALID_VALUE);
    CHECK_STATUS(va_var(0, &ia, 0.0, &out), VA_ERROR_INVALID_VALUE);    /* integers */
    CHECK_STATUS(va_var(0, &a, 0.0, &wide), VA_ERROR_INVALID_VALUE);    /* four elements */
    va_array f32 = out;
    f32.dtype = VA_FLOAT32;
    CHECK_STATUS(va_var(0, &a, 0.0, &f32), VA_ERROR_INVALID_VALUE);     /* not a's dtype */
}

/* va_searchsorted refuses what it cannot search before any device work. */
static void test_bad_search_arguments(void) {
    double sorted[4] = {1, 2, 3, 4}, vals[4] = {0, 1, 2, 5};
    int64_t pos[4], grid_shape[2] = {2, 2};
    va_array s, v, o, s2;
    vec4(&s, sorted, VA_FLOAT64);
    vec4(&v, vals, VA_FLOAT64);
    vec4(&o, pos, VA_INT64);
    layout c_order = layout_2d(2, 1, 0);
    make_view(&s2, sorted, VA_FLOAT64, 2, grid_shape, &c_order);
    CHECK_STATUS(va_searchsorted(0, NULL, &v, 0, &o), VA_ERROR_INVALID_VALUE);
    CHECK_STATUS(va_searchsorted(0, &s2, &v, 0, &o), VA_ERROR_INVALID_VALUE);  /* not 1-d */
    va_array wrong = o;
    wrong.dtype = VA_INT32;
    CHECK_STATUS(va_searchsorted(0, &s, &v, 0, &wrong), VA_ERROR_INVALID_VALUE);  /* not int64 */
    wrong = o;
    wrong.shape[0] = 3;
    CHECK_STATUS(va_searchsorted(0, &s, &v, 1, &wrong), VA_ERROR_INVALID_VALUE);  /* not v's shape */
    wrong = o;
    wrong.strides[0] = -8;
    CHECK_STATUS(va_searchsorted(0, &s, &v, 1, &wrong), VA_ERROR_INVALID_VALUE);  /* not C-contiguous */
    wrong = v;
    wrong.dtype = (va_dtype)VA_DTYPE_COUNT;
    CHECK_STATUS(va_searchsorted(0, &s, &wrong, 0, &o), VA_ERROR_UNSUPPORTED_DTYPE);
    if (!g_gpu) {
        CHECK_STATUS(va_searchsorted(0, &s, &v, 0, &o), VA_ERROR_NO_DEVICE);
    }
}

/* A broadcast view counting more elements than a byte count can hold (2**62 of
 * them, stride 0): sort's buffers of n keys and n positions are refused, before
 * any device, instead of being allocated at a wrapped size. */
static void test_sort_of_a_vast_broadcast_view(void) {
    static double one[1];
    static int64_t slot[1];
    int64_t shape[1] = {(int64_t)1 << 62};
    layout stride0;
    va_array a, out;
    memset(&stride0, 0, sizeof(stride0));
    make_view(&a, one, VA_FLOAT64, 1, shape, &stride0);
    make_view(&out, slot, VA_INT64, 1, shape, &stride0);
    CHECK_STATUS(va_sort(0, &a, 0, 0, NULL, &out), VA_ERROR_OUT_OF_MEMORY);
}

static void test_bad_reduce_arguments(void) {
    static int64_t data[16];
    int64_t result = 0;
    const sum_fn fns[2] = {va_sum, va_sum_host};
    for (int f = 0; f < 2; f++) {
        va_array a, x;
        vec4(&a, data, VA_INT64);
        CHECK_STATUS(fns[f](0, NULL, &result), VA_ERROR_INVALID_VALUE);
        CHECK_STATUS(fns[f](0, &a, NULL), VA_ERROR_INVALID_VALUE);
        x = a; x.ndim = -1;
        CHECK_STATUS(fns[f](0, &x, &result), VA_ERROR_INVALID_VALUE);
        x = a; x.ndim = VA_MAX_NDIM + 1;
        CHECK_STATUS(fns[f](0, &x, &result), VA_ERROR_INVALID_VALUE);
        x = a; x.shape[0] = -1;
        CHECK_STATUS(fns[f](0, &x, &result), VA_ERROR_INVALID_VALUE);
        x = a; x.data = NULL;
        CHECK_STATUS(fns[f](0, &x, &result), VA_ERROR_INVALID_VALUE);
        x = a; x.dtype = (va_dtype)VA_DTYPE_COUNT;
        CHECK_STATUS(fns[f](0, &x, &result), VA_ERROR_UNSUPPORTED_DTYPE);
    }

    /* va_trace: a 2-d view only */
    va_array m, x;
    int64_t shape[2] = {4, 4};
    layout c = layout_2d(4, 1, 16);
    make_view(&m, data, VA_INT64, 2, shape, &c);
    CHECK_STATUS(va_trace(0, NULL, &result), VA_ERROR_INVALID_VALUE);
    CHECK_STATUS(va_trace(0, &m, NULL), VA_ERROR_INVALID_VALUE);
    vec4(&x, data, VA_INT64);
    CHECK_STATUS(va_trace(0, &x, &result), VA_ERROR_INVALID_VALUE); /* 1-d */
    x = m; x.ndim = 3; x.shape[2] = 1; x.strides[2] = 8;
    CHECK_STATUS(va_trace(0, &x, &result), VA_ERROR_INVALID_VALUE); /* 3-d */
    x = m; x.ndim = 0;
    CHECK_STATUS(va_trace(0, &x, &result), VA_ERROR_INVALID_VALUE); /* 0-d */
    x = m; x.ndim = -2;
    CHECK_STATUS(va_trace(0, &x, &result), VA_ERROR_INVALID_VALUE);
    x = m; x.shape[1] = -4;
    CHECK_STATUS(va_trace(0, &x, &result), VA_ERROR_INVALID_VALUE);
    x = m; x.data = NULL;
    CHECK_STATUS(va_trace(0, &x, &result), VA_ERROR_INVALID_VALUE);
    x = m; x.dtype = (va_dtype)VA_DTYPE_COUNT;
    CHECK_STATUS(va_trace(0, &x, &result), VA_ERROR_UNSUPPORTED_DTYPE);
}

typedef va_status (*reduce_axes_fn)(int, va_op, const va_array *, int32_t, const int32_t *, const va_array *);

/* va_reduce_axes and va_reduce_axes_scalar: arguments refused before any GPU work
 * (no GPU needed). */
static void test_bad_reduce_axes_arguments(void) {
    const reduce_axes_fn entries[2] = {va_reduce_axes, va_reduce_axes_scalar};
    static int64_t data[12], out[4];
    va_op sum = 0, max = 0;
    CHECK_STATUS(va_op_find("sum", &sum), VA_SUCCESS);
    CHECK_STATUS(va_op_find("max", &max), VA_SUCCESS);
    int64_t shape[2] = {3, 4}, oshape[1] = {4}, kshape[2] = {1, 4};
    layout c = layout_2d(4, 1, 12), o = layout_1d(4, 1, 0);
    va_array a, r, x;
    make_view(&a, data, VA_INT64, 2, shape, &c);
    make_view(&r, out, VA_INT64, 1, oshape, &o);
    const int32_t axis0[1] = {0}, repeated[2] = {0, 0}, outside[1] = {2}, negative[1] = {-1};
    CHECK_STATUS(va_testing_mirror_reads(NULL), VA_ERROR_INVALID_VALUE);
    for (int k = 0; k < 2; k++) {
        const reduce_axes_fn reduce = entries[k];
        CHECK_STATUS(reduce(0, sum, NULL, 1, axis0, &r), VA_ERROR_INVALID_VALUE);
        CHECK_STATUS(reduce(0, sum, &a, 1, axis0, NULL), VA_ERROR_INVALID_VALUE);
        CHECK_STATUS(reduce(0, sum, &a, 1, NULL, &r), VA_ERROR_INVALID_VALUE);
        CHECK_STATUS(reduce(0, 999, &a, 1, axis0, &r), VA_ERROR_INVALID_VALUE);
        CHECK_STATUS(reduce(0, sum, &a, 2, repeated, &r), VA_ERROR_INVALID_VALUE);
        CHECK_STATUS(reduce(0, sum, &a, 1, outside, &r), VA_ERROR_INVALID_VALUE);
        CHECK_STATUS(reduce(0, sum, &a, 1, negative, &r), VA_ERROR_INVALID_VALUE);
        CHECK_STATUS(reduce(0, sum, &a, 3, axis0, &r), VA_ERROR_INVALID_VALUE);
        x = r; x.dtype = VA_FLOAT64;  /* not the op's result dtype */
        CHECK_STATUS(reduce(0, sum, &a, 1, axis0, &x), VA_ERROR_INVALID_VALUE);
        x = r; x.shape[0] = 3;        /* not the kept extent */
        CHECK_STATUS(reduce(0, sum, &a, 1, axis0, &x), VA_ERROR_INVALID_VALUE);
        make_view(&x, out, VA_INT64, 2, kshape, &c);
        x.shape[0] = 2;               /* keepdims form with a reduced extent other than 1 */
        CHECK_STATUS(reduce(0, sum, &a, 1, axis0, &x), VA_ERROR_INVALID_VALUE);
        x = a; x.shape[0] = 0;        /* max over nothing: NumPy's ValueError */
        CHECK_STATUS(reduce(0, max, &x, 1, axis0, &r), VA_ERROR_INVALID_VALUE);
    }
}

/* va_reduce_axes of a 3x5 int64 matrix (C and Fortran order) over each axis, both
 * and none, against loops on the host copy. */
static void test_reduce_axes(void) {
    if (!gpu_case("va_reduce_axes sum 3x5 int64")) return;
    const int R = 3, C = 5;
    va_op sum = 0;
    CHECK_STATUS(va_op_find("sum", &sum), VA_SUCCESS);
    int64_t h[R * C];
    for (int i = 0; i < R * C; i++) h[i] = (int64_t)(i * 7 % 11) - 5;
    void *d = dev_alloc(sizeof(h)), *dout = dev_alloc(sizeof(h));
    if (d != NULL && dout != NULL && upload(d, h, sizeof(h))) {
        for (int fortran = 0; fortran < 2; fortran++) {
            int64_t shape[2] = {R, C};
            layout l = fortran ? layout_2d(1, R, R * C) : layout_2d(C, 1, R * C);
            va_array a;
            make_view(&a, d, VA_INT64, 2, shape, &l);
            for (int which = 0; which < 4; which++) {
                /* which: 0 axis 0, 1 axis 1, 2 both, 3 none */
                int32_t axes[2] = {which == 1 ? 1 : 0, 1};
                int32_t naxes = which == 2 ? 2 : which == 3 ? 0 : 1;
                int64_t n = which == 0 ? C : which == 1 ? R : which == 2 ? 1 : R * C;
                int64_t oshape[2] = {which == 3 ? R : n, C};
                layout ol = which == 3 ? layout_2d(C, 1, R * C) : layout_1d(n, 1, 0);
                va_array o;
                make_view(&o, dout, VA_INT64, which == 3 ? 2 : which == 2 ? 0 : 1, oshape, &ol);
                int64_t got[R * C], want[R * C];
                memset(want, 0, sizeof(want));
                for (int i = 0; i < R; i++)
                    for (int j = 0; j < C; j++) {
                        int64_t v = fortran ? h[j * R + i] : h[i * C + j];
                        want[which == 0 ? j : which == 1 ? i : which == 2 ? 0 : i * C + j] += v;
                    }
                CHECK_STATUS(va_reduce_axes(0, sum, &a, naxes, axes, &o), VA_SUCCESS);
                if (download(got, dout, (size_t)n * sizeof(int64_t)))
                    for (int64_t k = 0; k < n; k++)
                        CHECK(got[k] == want[k], "%s axes case %d: [%lld] %lld, expected %lld",
                              fortran ? "Fortran" : "C", which, (long long)k, (long long)got[k],
                              (long long)want[k]);
            }
        }
    }
    dev_free(d, sizeof(h));
    dev_free(dout, sizeof(h));
    case_end();
}

/* va_reduce_axes_scalar: the result read back from its pinned copy (counted by
 * va_testing_mirror_reads) until a write through the library or an export. */
static void test_reduce_axes_scalar(void) {
    if (!gpu_case("va_reduce_axes_scalar sum of 15 int64")) return;
    va_op sum = 0;
    CHECK_STATUS(va_op_find("sum", &sum), VA_SUCCESS);
    int64_t h[15], want = 0;
    for (int i = 0; i < 15; i++) {
        h[i] = (int64_t)(i * 7 % 11) - 5 + ((int64_t)1 << 40);
        want += h[i];
    }
    void *d = dev_alloc(sizeof(h)), *dout = dev_alloc(sizeof(int64_t));
    int64_t shape[1] = {15}, got = 0, before = 0, after = 0;
    int32_t axes[1] = {0};
    if (d != NULL && dout != NULL && upload(d, h, sizeof(h))) {
        layout l = layout_1d(15, 1, 0);
        layout ol = layout_1d(1, 1, 0);
        va_array a, o;
        make_view(&a, d, VA_INT64, 1, shape, &l);
        make_view(&o, dout, VA_INT64, 0, shape, &ol);
        CHECK_STATUS(va_reduce_axes_scalar(0, sum, &a, 1, axes, &o), VA_SUCCESS);
        CHECK_STATUS(va_testing_mirror_reads(&before), VA_SUCCESS);
        if (download(&got, dout, sizeof(got)))
            CHECK(got == want, "from the copy: %lld, expected %lld", (long long)got, (long long)want);
        CHECK_STATUS(va_testing_mirror_reads(&after), VA_SUCCESS);
        CHECK(after == before + 1, "the read was not served by the copy (%lld then %lld)",
              (long long)before, (long long)after);
        /* A write through the library: the copy is stale and must not serve. */
        const int64_t seven = 7;
        upload(dout, &seven, sizeof(seven));
        if (download(&got, dout, sizeof(got)))
            CHECK(got == 7, "after a write: %lld, expected 7", (long long)got);
        /* An export: whoever holds the address may write unseen. */
        CHECK_STATUS(va_reduce_axes_scalar(0, sum, &a, 1, axes, &o), VA_SUCCESS);
        CHECK_STATUS(va_note_address_exported(), VA_SUCCESS);
        CHECK_STATUS(va_testing_mirror_reads(&before), VA_SUCCESS);
        if (download(&got, dout, sizeof(got)))
            CHECK(got == want, "after an export: %lld, expected %lld", (long long)got, (long long)want);
        CHECK_STATUS(va_testing_mirror_reads(&after), VA_SUCCESS);
        CHECK(after == before, "a read after an export was served by the copy");
    }
    dev_free(d, sizeof(h));
    dev_free(dout, sizeof(int64_t));
    case_end();
}

static void test_bad_other_arguments(void) {
    static int32_t src[8];
    static double dst[8];
    va_array s, d, x;
    vec4(&s, src, VA_INT32);
    vec4(&d, dst, VA_FLOAT64);
    CHECK_STATUS(va_copy_convert(0, NULL, &d), VA_ERROR_INVALID_VALUE);
    CHECK_STATUS(va_copy_convert(0, &s, NULL), VA_ERROR_INVALID_VALUE);
    x = d; x.shape[0] = 5;
    CHECK_STATUS(va_copy_convert(0, &s, &x), VA_ERROR_INVALID_VALUE);
    x = s; x.ndim = VA_MAX_NDIM + 1;
    CHECK_STATUS(va_copy_convert(0, &x, &d), VA_ERROR_INVALID_VALUE);
    x = d; x.shape[0] = -4;
    CHECK_STATUS(va_copy_convert(0, &s, &x), VA_ERROR_INVALID_VALUE);
    x = s; x.data = NULL;
    CHECK_STATUS(va_copy_convert(0, &x, &d), VA_ERROR_INVALID_VALUE);
    x = s; x.dtype = (va_dtype)VA_DTYPE_COUNT;
    CHECK_STATUS(va_copy_convert(0, &x, &d), VA_ERROR_UNSUPPORTED_DTYPE);
    x = d; x.dtype = (va_dtype)VA_DTYPE_COUNT;
    CHECK_STATUS(va_copy_convert(0, &s, &x), VA_ERROR_UNSUPPORTED_DTYPE);

    void *p = &p;
    int drv = -1, rt = -1;
    int64_t bytes = 0, live = 0;
    CHECK_STATUS(va_malloc(0, 16, NULL), VA_ERROR_INVALID_VALUE);
    CHECK_STATUS(va_malloc_managed(0, 16, NULL), VA_ERROR_INVALID_VALUE);
    CHECK_STATUS(va_copy_to_device(0, NULL, src, 8), VA_ERROR_INVALID_VALUE);
    CHECK_STATUS(va_copy_to_device(0, p, NULL, 8), VA_ERROR_INVALID_VALUE);
    CHECK_STATUS(va_copy_to_host(0, NULL, p, 8), VA_ERROR_INVALID_VALUE);
    CHECK_STATUS(va_copy_to_host(0, dst, NULL, 8), VA_ERROR_INVALID_VALUE);
    CHECK_STATUS(va_device_count(NULL), VA_ERROR_INVALID_VALUE);
    CHECK_STATUS(va_device_info_get(0, NULL), VA_ERROR_INVALID_VALUE);
    CHECK_STATUS(va_versions(NULL, &rt), VA_ERROR_INVALID_VALUE);
    CHECK_STATUS(va_versions(&drv, NULL), VA_ERROR_INVALID_VALUE);
    CHECK_STATUS(va_memory_stats(NULL, &live), VA_ERROR_INVALID_VALUE);
    CHECK_STATUS(va_memory_stats(&bytes, NULL), VA_ERROR_INVALID_VALUE);
    CHECK_STATUS(va_pointer_device(src, NULL, NULL), VA_ERROR_INVALID_VALUE);
    CHECK_STATUS(va_stream(0, NULL), VA_ERROR_INVALID_VALUE);
    CHECK_STATUS(va_free(0, NULL, 16), VA_SUCCESS);         /* freeing NULL is a no-op */
    CHECK_STATUS(va_free_managed(0, NULL, 16), VA_SUCCESS);

    /* versions need no GPU: the runtime's is known, the driver's is 0 without one */
    CHECK_STATUS(va_versions(&drv, &rt), VA_SUCCESS);
    CHECK(rt >= 11000 && drv >= 0, "va_versions: driver %d, runtime %d", drv, rt);
}

/* ------------------------------------------------------------------------ */
/* without a GPU                                                             */
/* ------------------------------------------------------------------------ */

static int nodev_case(const char *name) { return case_begin_if(!g_gpu, name); }

static void test_no_device(void) {
    static float fa[4], fb[4], fo[4];
    va_array a, b, o, m;
    vec4(&a, fa, VA_FLOAT32);
    vec4(&b, fb, VA_FLOAT32);
    vec4(&o, fo, VA_FLOAT32);
    int64_t shape2[2] = {2, 2};
    layout c = layout_2d(2, 1, 4);
    make_view(&m, fa, VA_FLOAT32, 2, shape2, &c);

    if (nodev_case("va_cuda_available")) {
        CHECK_STATUS(va_cuda_available(), VA_ERROR_NO_DEVICE);
        CHECK_STATUS(va_cuda_available(), VA_ERROR_NO_DEVICE); /* the same every time */
        case_end();
    }
    if (nodev_case("va_device_count")) {
        int count = 7;
        CHECK_STATUS(va_device_count(&count), VA_ERROR_NO_DEVICE);
        CHECK(count == 0, "va_device_count gave count %d, expected 0", count);
        case_end();
    }
    if (nodev_case("va_last_error")) {
        int count = 7;
        va_error_info info;
        memset(&info, 0, sizeof(info));
        va_device_count(&count);
        va_last_error(&info);
        CHECK(info.name != NULL && strncmp(info.name, "cudaError", 9) == 0,
              "va_last_error name '%s', expected a cudaError... name",
              info.name != NULL ? info.name : "(null)");
        CHECK(info.cuda_code != 0 && info.text != NULL && info.text[0] != '\0',
              "va_last_error: cuda_code %d, text '%s'", info.cuda_code,
              info.text != NULL ? info.text : "(null)");
        va_last_error(NULL); /* allowed, does nothing */
        case_end();
    }
    if (nodev_case("va_malloc")) {
        void *p = &p;
        CHECK_STATUS(va_malloc(0, 1024, &p), VA_ERROR_NO_DEVICE);
        CHECK(p == NULL, "va_malloc left a pointer after failing");
        p = &p;
        CHECK_STATUS(va_malloc_managed(0, 1024, &p), VA_ERROR_NO_DEVICE);
        CHECK(p == NULL, "va_malloc_managed left a pointer after failing");
        case_end();
    }
    if (nodev_case("compute without a device")) {
        float f = 0.0f;
        va_array od;
        static double dd[4];
        vec4(&od, dd, VA_FLOAT64);
        CHECK_STATUS(va_binary(0, lib_op(VA_ADD), &a, &b, &o), VA_ERROR_NO_DEVICE);
        CHECK_STATUS(va_binary_host(0, lib_op(VA_MULTIPLY), &a, &b, &o), VA_ERROR_NO_DEVICE);
        CHECK_STATUS(va_sum(0, &a, &f), VA_ERROR_NO_DEVICE);
        CHECK_STATUS(va_sum_host(0, &a, &f), VA_ERROR_NO_DEVICE);
        CHECK_STATUS(va_trace(0, &m, &f), VA_ERROR_NO_DEVICE);
        CHECK_STATUS(va_copy_convert(0, &a, &od), VA_ERROR_NO_DEVICE);
        case_end();
    }
    if (nodev_case("device calls without a device")) {
        void *s = NULL;
        int dev = -1;
        va_device_info info;
        CHECK_STATUS(va_copy_to_device(0, fo, fa, 16), VA_ERROR_NO_DEVICE);
        CHECK_STATUS(va_copy_to_host(0, fo, fa, 16), VA_ERROR_NO_DEVICE);
        CHECK_STATUS(va_free(0, fa, 16), VA_ERROR_NO_DEVICE);
        CHECK_STATUS(va_device_info_get(0, &info), VA_ERROR_NO_DEVICE);
        CHECK_STATUS(va_stream(0, &s), VA_ERROR_NO_DEVICE);
        CHECK_STATUS(va_synchronize(-1), VA_ERROR_NO_DEVICE);
        CHECK_STATUS(va_synchronize(0), VA_ERROR_NO_DEVICE);
        CHECK_STATUS(va_stream_wait_external(0, NULL), VA_ERROR_NO_DEVICE);
        CHECK_STATUS(va_external_wait_library(0, NULL), VA_ERROR_NO_DEVICE);
        CHECK_STATUS(va_pointer_device(fa, &dev, NULL), VA_ERROR_NO_DEVICE);
        CHECK_STATUS(va_release_cached(), VA_ERROR_NO_DEVICE);
        CHECK_STATUS(va_testing_fault(0), VA_ERROR_NO_DEVICE);
        case_end();
    }
}

/* ------------------------------------------------------------------------ */
/* elementwise: va_binary (device memory) and va_binary_host                 */
/* ------------------------------------------------------------------------ */

static const int64_t k_sizes[] = {0, 1, 255, 256, 257, 1000000};
/* VA_TEST_QUICK=1 (make sanitize, where every access is checked) leaves out
 * the largest size. */
static int quick_mode(void) {
    const char *env = getenv("VA_TEST_QUICK");
    return env != NULL && env[0] == '1';
}
#define NSIZES ((int)(sizeof(k_sizes) / sizeof(k_sizes[0])) - (quick_mode() ? 1 : 0))

/* 1-d layouts as stride multiples of a, b and out, and an element offset of all
 * three (which misaligns them for the packed kernel). */
typedef struct layout1 {
    const char *name;
    int ma, mb, mo;
    int off;
} layout1;

static const layout1 k_device_layouts[] = {
    {"contiguous", 1, 1, 1, 0},
    {"contiguous+1", 1, 1, 1, 1},
    {"a broadcast", 0, 1, 1, 0},
    {"b broadcast", 1, 0, 1, 0},
    {"every other", 2, 2, 2, 0},
    {"reversed", -1, 1, -1, 0},
};
/* va_binary_host: out is always C-contiguous */
static const layout1 k_host_layouts[] = {
    {"contiguous", 1, 1, 1, 0},
    {"contiguous+1", 1, 1, 1, 1},
    {"a broadcast", 0, 1, 1, 0},
    {"b broadcast", 1, 0, 1, 0},
    {"every other", 2, 2, 1, 0},
    {"reversed", -1, -1, 1, 0},
};
#define NLAYOUTS ((int)(sizeof(k_device_layouts) / sizeof(k_device_layouts[0])))

typedef struct binary_ctx {
    va_op op;
    va_dtype rt;
    const va_array *a, *b; /* host views */
} binary_ctx;

static void expect_binary(int64_t i, void *want, const void *ctx) {
    const binary_ctx *c = (const binary_ctx *)ctx;
    ref_binary(c->op, c->rt, elem(c->a, i), c->a->dtype, elem(c->b, i), c->b->dtype, want);
}

/* Runs the four ops on one set of inputs: a, b and out of `ndim`/`shape` with the
 * given layouts, on the device (va_binary) or from host memory (va_binary_host).
 * Each op is one case. */
static void binary_group(int on_device, va_dtype ta, va_dtype tb, int32_t ndim,
                         const int64_t *shape, const layout *la, const layout *lb,
                         const layout *lo, const char *label) {
    if (!g_gpu) {
        g_skipped += NOPS;
        return;
    }
    size_t abytes = (size_t)la->span * esize(ta), bbytes = (size_t)lb->span * esize(tb);
    size_t obytes = (size_t)lo->span * 8; /* room for any result dtype */
    char *ha = xmalloc(abytes), *hb = xmalloc(bbytes), *ho = xmalloc(obytes);
    fill_values(ha, la->span, ta, VALUES_GENERAL);
    fill_values(hb, lb->span, tb, VALUES_GENERAL);
    va_array hva, hvb;
    make_view(&hva, ha, ta, ndim, shape, la);
    make_view(&hvb, hb, tb, ndim, shape, lb);

    void *da = NULL, *db = NULL, *dout = NULL;
    int ready = 1;
    for (int op = 0; op < NOPS; op++) {
        char name[160];
        va_dtype rt = expected_result((va_op)op, ta, tb);
        snprintf(name, sizeof(name), "%s %s %s(%s, %s) -> %s",
                 on_device ? "va_binary" : "va_binary_host", label, op_name((va_op)op),
                 dtype_name(ta), dtype_name(tb), dtype_name(rt));
        gpu_case(name);
        if (on_device && op == 0) {
            da = dev_alloc(abytes);
            db = dev_alloc(bbytes);
            dout = dev_alloc(obytes);
            ready = da != NULL && db != NULL && dout != NULL && upload(da, ha, abytes) &&
                    upload(db, hb, bbytes);
        }
        if (ready) {
            va_array hvo;
            make_view(&hvo, ho, rt, ndim, shape, lo);
            memset(ho, POISON, obytes);
            va_status st;
            if (on_device) {
                va_array dva, dvb, dvo;
                rebase(&hva, ha, da, &dva);
                rebase(&hvb, hb, db, &dvb);
                rebase(&hvo, ho, dout, &dvo);
                upload(dout, ho, obytes); /* poison the device output */
                st = va_binary(0, lib_op((va_op)op), &dva, &dvb, &dvo);
                download(ho, dout, obytes);
            } else {
                st = va_binary_host(0, lib_op((va_op)op), &hva, &hvb, &hvo);
            }
            if (CHECK(st == VA_SUCCESS, "returned %s", va_status_string(st))) {
                binary_ctx ctx;
                ctx.op = (va_op)op;
                ctx.rt = rt;
                ctx.a = &hva;
                ctx.b = &hvb;
                check_output(&hvo, ho, obytes, expect_binary, &ctx, "out");
            }
        }
        case_end();
    }
    if (on_device) {
        dev_free(da, abytes);
        dev_free(db, bbytes);
        dev_free(dout, obytes);
    }
    free(ha);
    free(hb);
    free(ho);
}

static void test_binary(void) {
    for (int on_device = 1; on_device >= 0; on_device--)
        for (int s = 0; s < NSIZES; s++)
            for (int li = 0; li < NLAYOUTS; li++)
                for (int ta = 0; ta < NDTYPES; ta++)
                    for (int tb = 0; tb < NDTYPES; tb++) {
                        const layout1 *L = on_device ? &k_device_layouts[li] : &k_host_layouts[li];
                        int64_t n = k_sizes[s];
                        layout la = layout_1d(n, L->ma, L->off);
                        layout lb = layout_1d(n, L->mb, L->off);
                        layout lo = layout_1d(n, L->mo, L->off);
                        char label[64];
                        snprintf(label, sizeof(label), "n=%lld %s", (long long)n, L->name);
                        binary_group(on_device, (va_dtype)ta, (va_dtype)tb, 1, &n, &la, &lb, &lo,
                                     label);
                    }
}

/* n-d views: 0-d arrays, and 2-d with a in Fortran order, b a row broadcast down
 * the rows (stride 0) and out in C order (Fortran order too on the device). */
static void test_binary_nd(void) {
    const int64_t R = 37, C = 41;
    int64_t shape2[2];
    shape2[0] = R;
    shape2[1] = C;
    for (int on_device = 1; on_device >= 0; on_device--)
        for (int ta = 0; ta < NDTYPES; ta++)
            for (int tb = 0; tb < NDTYPES; tb++) {
                layout scalar = layout_2d(0, 0, 1);
                binary_group(on_device, (va_dtype)ta, (va_dtype)tb, 0, shape2, &scalar, &scalar,
                             &scalar, "0-d");
                layout la = layout_2d(1, R, R * C);
                layout lb = layout_2d(0, 1, C);
                layout lo = on_device ? layout_2d(1, R, R * C) : layout_2d(C, 1, R * C);
                binary_group(on_device, (va_dtype)ta, (va_dtype)tb, 2, shape2, &la, &lb, &lo,
                             on_device ? "37x41 F + row -> F" : "37x41 F + row -> C");
                /* a column broadcast across the columns, a reversed along both axes */
                layout lrev;
                lrev.str[0] = -C;
                lrev.str[1] = -1;
                lrev.first = R * C - 1;
                lrev.span = R * C;
                layout lcol = layout_2d(1, 0, R);
                layout lc = layout_2d(C, 1, R * C);
                binary_group(on_device, (va_dtype)ta, (va_dtype)tb, 2, shape2, &lrev, &lcol, &lc,
                             "37x41 reversed + column -> C");
            }
}

/* ------------------------------------------------------------------------ */
/* va_copy_convert                                                           */
/* ------------------------------------------------------------------------ */

typedef struct convert_ctx {
    const va_array *src;
    va_dtype td;
} convert_ctx;

static void expect_convert(int64_t i, void *want, const void *ctx) {
    const convert_ctx *c = (const convert_ctx *)ctx;
    ref_convert(elem(c->src, i), c->src->dtype, want, c->td);
}

static void convert_case(va_dtype ts, va_dtype td, int64_t n, int ms, int md, const char *lname) {
    char name[160];
    snprintf(name, sizeof(name), "va_copy_convert n=%lld %s %s -> %s", (long long)n, lname,
             dtype_name(ts), dtype_name(td));
    if (!gpu_case(name)) return;
    layout ls = layout_1d(n, ms, 0), ld = layout_1d(n, md, 0);
    size_t sbytes = (size_t)ls.span * esize(ts), dbytes = (size_t)ld.span * esize(td);
    char *hs = xmalloc(sbytes), *hd = xmalloc(dbytes);
    /* float to int conversions only of values that fit */
    fill_values(hs, ls.span, ts, (is_float(ts) && !is_float(td)) ? VALUES_FINITE : VALUES_GENERAL);
    memset(hd, POISON, dbytes);
    va_array hvs, hvd, dvs, dvd;
    make_view(&hvs, hs, ts, 1, &n, &ls);
    make_view(&hvd, hd, td, 1, &n, &ld);
    void *ds = dev_alloc(sbytes), *dd = dev_alloc(dbytes);
    if (ds != NULL && dd != NULL && upload(ds, hs, sbytes) && upload(dd, hd, dbytes)) {
        rebase(&hvs, hs, ds, &dvs);
        rebase(&hvd, hd, dd, &dvd);
        va_status st = va_copy_convert(0, &dvs, &dvd);
        if (CHECK(st == VA_SUCCESS, "returned %s", va_status_string(st)) &&
            download(hd, dd, dbytes)) {
            convert_ctx ctx;
            ctx.src = &hvs;
            ctx.td = td;
            check_output(&hvd, hd, dbytes, expect_convert, &ctx, "dst");
        }
    }
    dev_free(ds, sbytes);
    dev_free(dd, dbytes);
    free(hs);
    free(hd);
    case_end();
}

static void test_copy_convert(void) {
    for (int s = 0; s < NSIZES; s++)
        for (int ts = 0; ts < NDTYPES; ts++)
            for (int td = 0; td < NDTYPES; td++) {
                int64_t n = k_sizes[s];
                convert_case((va_dtype)ts, (va_dtype)td, n, 1, 1, "contiguous");
                convert_case((va_dtype)ts, (va_dtype)td, n, -1, 1, "reversed src");
                convert_case((va_dtype)ts, (va_dtype)td, n, 1, 2, "every-other dst");
            }
}

/* ------------------------------------------------------------------------ */
/* va_sum, va_sum_host, va_trace                                             */
/* ------------------------------------------------------------------------ */

typedef union sum_result {
    int64_t i;
    float f;
    double d;
    unsigned char bytes[8];
} sum_result;

/* The sum of the elements of view v (host memory) given a CPU reference; checks
 * `got`: exact (wrapping) for integers, within tol * sum|x| for floats. */
static void check_sum(const va_array *v, int64_t count, const sum_result *got, const char *what) {
    if (!is_float(v->dtype)) {
        uint64_t acc = 0;
        for (int64_t i = 0; i < count; i++) acc += (uint64_t)load_i64(elem(v, i), v->dtype);
        CHECK(got->i == (int64_t)acc, "%s: got %lld, expected %lld", what, (long long)got->i,
              (long long)(int64_t)acc);
        return;
    }
    long double acc = 0.0L, abs_acc = 0.0L;
    for (int64_t i = 0; i < count; i++) {
        long double x = (long double)load_f64(elem(v, i), v->dtype);
        acc += x;
        abs_acc += x < 0 ? -x : x;
    }
    long double g = v->dtype == VA_FLOAT32 ? (long double)got->f : (long double)got->d;
    long double tol = (v->dtype == VA_FLOAT32 ? 1e-5L : 1e-12L) * abs_acc;
    long double err = g - acc;
    if (err < 0) err = -err;
    CHECK(err <= tol, "%s: got %.17Lg, expected %.17Lg (error %.3Lg > tolerance %.3Lg)", what, g,
          acc, err, tol);
}

/* Sums a 1-d view (stride multiple m, element offset off) with va_sum on the
 * device or with va_sum_host. */
static void sum_case(int on_device, va_dtype t, int64_t n, int m, int off, const char *lname) {
    char name[160];
    snprintf(name, sizeof(name), "%s n=%lld %s %s", on_device ? "va_sum" : "va_sum_host",
             (long long)n, lname, dtype_name(t));
    if (!gpu_case(name)) return;
    layout l = layout_1d(n, m, off);
    size_t bytes = (size_t)l.span * esize(t);
    char *h = xmalloc(bytes);
    fill_values(h, l.span, t, VALUES_FINITE);
    va_array hv, dv;
    make_view(&hv, h, t, 1, &n, &l);
    sum_result r;
    memset(&r, POISON, sizeof(r));
    va_status st = VA_SUCCESS;
    void *d = NULL;
    if (on_device) {
        d = dev_alloc(bytes);
        if (d != NULL && upload(d, h, bytes)) {
            rebase(&hv, h, d, &dv);
            st = va_sum(0, &dv, &r);
        } else {
            st = VA_ERROR_CUDA;
        }
    } else {
        st = va_sum_host(0, &hv, &r);
    }
    if (CHECK(st == VA_SUCCESS, "returned %s", va_status_string(st))) check_sum(&hv, n, &r, "sum");
    dev_free(d, bytes);
    free(h);
    case_end();
}

static void test_sum(void) {
    for (int on_device = 1; on_device >= 0; on_device--)
        for (int s = 0; s < NSIZES; s++)
            for (int t = 0; t < NDTYPES; t++) {
                int64_t n = k_sizes[s];
                sum_case(on_device, (va_dtype)t, n, 1, 0, "contiguous");
                sum_case(on_device, (va_dtype)t, n, 1, 1, "contiguous+1");
                sum_case(on_device, (va_dtype)t, n, 2, 0, "every other");
                sum_case(on_device, (va_dtype)t, n, -1, 0, "reversed");
                sum_case(on_device, (va_dtype)t, n, 0, 0, "broadcast");
            }
}

/* va_trace of an R x C matrix stored in C order (fortran=0) or Fortran order, and
 * va_sum of the same 2-d view. */
static void trace_case(va_dtype t, int64_t R, int64_t C, int fortran) {
    char name[160];
    snprintf(name, sizeof(name), "va_trace %lldx%lld %s %s", (long long)R, (long long)C,
             fortran ? "Fortran order" : "C order", dtype_name(t));
    if (!gpu_case(name)) return;
    int64_t shape[2];
    shape[0] = R;
    shape[1] = C;
    layout l = fortran ? layout_2d(1, R, R * C) : layout_2d(C, 1, R * C);
    size_t bytes = (size_t)l.span * esize(t);
    char *h = xmalloc(bytes);
    fill_values(h, l.span, t, VALUES_FINITE);
    va_array hv, dv;
    make_view(&hv, h, t, 2, shape, &l);
    void *d = dev_alloc(bytes);
    if (d != NULL && upload(d, h, bytes)) {
        rebase(&hv, h, d, &dv);
        sum_result r;
        memset(&r, POISON, sizeof(r));
        va_status st = va_trace(0, &dv, &r);
        if (CHECK(st == VA_SUCCESS, "va_trace returned %s", va_status_string(st))) {
            /* the diagonal as a 1-d view over the host copy */
            va_array diag;
            int64_t k = R < C ? R : C;
            memset(&diag, 0, sizeof(diag));
            diag.data = hv.data;
            diag.dtype = t;
            diag.ndim = 1;
            diag.shape[0] = k;
            diag.strides[0] = hv.strides[0] + hv.strides[1];
            check_sum(&diag, k, &r, "trace");
        }
        memset(&r, POISON, sizeof(r));
        st = va_sum(0, &dv, &r);
        if (CHECK(st == VA_SUCCESS, "va_sum of the matrix returned %s", va_status_string(st)))
            check_sum(&hv, R * C, &r, "va_sum of the matrix");
    }
    dev_free(d, bytes);
    free(h);
    case_end();
}

static void test_trace(void) {
    static const int64_t shapes[][2] = {{300, 517}, {517, 300}, {1, 7}, {7, 1}, {0, 5}, {1000, 1001}};
    for (int t = 0; t < NDTYPES; t++)
        for (int s = 0; s < (int)(sizeof(shapes) / sizeof(shapes[0])); s++)
            for (int fortran = 0; fortran < 2; fortran++)
                trace_case((va_dtype)t, shapes[s][0], shapes[s][1], fortran);
}

/* ------------------------------------------------------------------------ */
/* GPU-only device queries                                                   */
/* ------------------------------------------------------------------------ */

/* ------------------------------------------------------------------------ */
/* host work over several GPUs (va_elementwise_host_multi, va_reduce_host_multi) */
/* ------------------------------------------------------------------------ */

static void test_multi_gpu(void) {
    static double fa[4];
    va_array a;
    vec4(&a, fa, VA_FLOAT64);
    const va_array pair[2] = {a, a};
    double r = 0.0;
    int one[1] = {0}, twice[2] = {0, 0};
    va_op sum = 0;
    va_op_find("sum", &sum);
    if (case_begin_if(1, "device lists refused")) {
        CHECK_STATUS(va_elementwise_host_multi(NULL, 1, lib_op(VA_ADD), 2, pair, NULL, &a),
                     VA_ERROR_INVALID_VALUE);
        CHECK_STATUS(va_elementwise_host_multi(one, 0, lib_op(VA_ADD), 2, pair, NULL, &a),
                     VA_ERROR_INVALID_VALUE);
        CHECK_STATUS(va_reduce_host_multi(one, -1, sum, &a, &r), VA_ERROR_INVALID_VALUE);
        CHECK_STATUS(va_reduce_host_multi(twice, 2, sum, &a, &r),
                     g_gpu ? VA_ERROR_INVALID_VALUE : VA_ERROR_NO_DEVICE);
        CHECK_STATUS(va_reduce_host_multi(one, 1, sum, &a, &r), g_gpu ? VA_SUCCESS : VA_ERROR_NO_DEVICE);
        case_end();
    }
    if (!gpu_case("every GPU gives one GPU's bits (add of 3M doubles, sums of 3M and 5M)")) return;
    int count = 0, devices[64];
    va_device_count(&count);
    count = count > 64 ? 64 : count;
    for (int d = 0; d < count; d++) devices[d] = d;
    const int64_t n = 5000001; /* 40 MB as one input: shared out by 2 GPUs from 32 MiB */
    double *x = (double *)xmalloc((size_t)n * 8), *y = (double *)xmalloc((size_t)n * 8);
    double *o1 = (double *)xmalloc((size_t)n * 8), *o2 = (double *)xmalloc((size_t)n * 8);
    for (int64_t i = 0; i < n; i++) {
        x[i] = (double)((i * 7919) % 10007) / 3.0 - 1000.0;
        y[i] = (double)((i * 104729) % 1009) * 1e-3;
    }
    const int64_t sizes[2] = {3000000, n};
    for (int k = 0; k < 2; k++) {
        va_array vx, vy, vo1, vo2;
        int64_t shape[1] = {sizes[k]};
        layout c = layout_1d(sizes[k], 1, 0);
        make_view(&vx, x, VA_FLOAT64, 1, shape, &c);
        make_view(&vy, y, VA_FLOAT64, 1, shape, &c);
        make_view(&vo1, o1, VA_FLOAT64, 1, shape, &c);
        make_view(&vo2, o2, VA_FLOAT64, 1, shape, &c);
        const va_array in[2] = {vx, vy};
        CHECK_STATUS(va_elementwise_host(0, lib_op(VA_ADD), 2, in, NULL, &vo1), VA_SUCCESS);
        CHECK_STATUS(va_elementwise_host_multi(devices, count, lib_op(VA_ADD), 2, in, NULL, &vo2),
                     VA_SUCCESS);
        CHECK(memcmp(o1, o2, (size_t)sizes[k] * 8) == 0, "add over %d GPUs differs from GPU 0's (n = %lld)",
              count, (long long)sizes[k]);
        /* and both against the host's own adds (one IEEE rounding each, no fast-math):
         * a fault shared by one GPU and all of them does not pass */
        int64_t add_wrong = 0;
        for (int64_t i = 0; i < sizes[k]; i++) {
            const double want = x[i] + y[i];
            add_wrong += memcmp(&want, &o2[i], 8) != 0;
        }
        CHECK(add_wrong == 0, "add over %d GPUs: %lld of %lld elements differ from the host's x + y", count,
              (long long)add_wrong, (long long)sizes[k]);
        double s1 = 0.0, s2 = 1.0;
        CHECK_STATUS(va_reduce_host(0, sum, &vx, &s1), VA_SUCCESS);
        CHECK_STATUS(va_reduce_host_multi(devices, count, sum, &vx, &s2), VA_SUCCESS);
        CHECK(memcmp(&s1, &s2, 8) == 0, "sum over %d GPUs %.17g, GPU 0's %.17g (n = %lld)", count, s2,
              s1, (long long)sizes[k]);
        /* the sum against a long double reference: any order of summing in double is
         * within (n - 1) u sum|x| of it (twice that covers the reference's own error) */
        long double ref = 0.0L, mag = 0.0L;
        for (int64_t i = 0; i < sizes[k]; i++) {
            ref += (long double)x[i];
            mag += fabsl((long double)x[i]);
        }
        const long double bound = 2.0L * (long double)sizes[k] * (DBL_EPSILON / 2) * mag;
        CHECK(fabsl((long double)s2 - ref) <= bound, "sum over %d GPUs %.17g, host reference %.17Lg (n = %lld)",
              count, s2, ref, (long long)sizes[k]);
        /* integer-valued doubles sum exactly in any order: the host's int64 sum, bit for bit */
        int64_t exact = 0;
        for (int64_t i = 0; i < sizes[k]; i++) {
            o1[i] = (double)((i * 7919) % 10007 - 5003);
            exact += (i * 7919) % 10007 - 5003;
        }
        va_array vi;
        make_view(&vi, o1, VA_FLOAT64, 1, shape, &c);
        double s3 = 0.5;
        CHECK_STATUS(va_reduce_host_multi(devices, count, sum, &vi, &s3), VA_SUCCESS);
        CHECK(s3 == (double)exact, "sum of integer-valued doubles over %d GPUs %.17g, exact %lld (n = %lld)",
              count, s3, (long long)exact, (long long)sizes[k]);
    }
    free(x);
    free(y);
    free(o1);
    free(o2);
    case_end();
}

static void test_device_queries(void) {
    if (gpu_case("va_device_count and va_device_info_get")) {
        int count = 0;
        va_device_info info;
        memset(&info, 0, sizeof(info));
        CHECK_STATUS(va_device_count(&count), VA_SUCCESS);
        CHECK(count >= 1, "va_device_count gave %d", count);
        CHECK_STATUS(va_device_info_get(0, &info), VA_SUCCESS);
        CHECK(info.name[0] != '\0' && info.major >= 3 && info.multiprocessors > 0 &&
                  info.total_memory > 0 && info.free_memory > 0 &&
                  info.free_memory <= info.total_memory,
              "va_device_info_get: '%s' sm_%d%d, %d SMs, %lld/%lld bytes free", info.name,
              info.major, info.minor, info.multiprocessors, (long long)info.free_memory,
              (long long)info.total_memory);
        case_end();
    }
    if (gpu_case("bad device index")) {
        int count = 0;
        va_device_info info;
        void *p = NULL;
        static float fa[4];
        va_array a;
        vec4(&a, fa, VA_FLOAT32);
        va_device_count(&count);
        CHECK_STATUS(va_device_info_get(count, &info), VA_ERROR_INVALID_VALUE);
        CHECK_STATUS(va_device_info_get(-1, &info), VA_ERROR_INVALID_VALUE);
        CHECK_STATUS(va_malloc(count, 16, &p), VA_ERROR_INVALID_VALUE);
        CHECK_STATUS(va_binary_host(count, lib_op(VA_ADD), &a, &a, &a), VA_ERROR_INVALID_VALUE);
        case_end();
    }
    if (gpu_case("va_pointer_device and memory stats")) {
        int64_t bytes0 = 0, live0 = 0, bytes1 = 0, live1 = 0;
        int dev = -1, managed = -1;
        static float host[4];
        va_memory_stats(&bytes0, &live0);
        void *p = dev_alloc(4096);
        va_memory_stats(&bytes1, &live1);
        CHECK(bytes1 == bytes0 + 4096 && live1 == live0 + 1,
              "va_memory_stats after va_malloc(4096): %lld bytes, %lld live (before %lld, %lld)",
              (long long)bytes1, (long long)live1, (long long)bytes0, (long long)live0);
        if (p != NULL) {
            CHECK_STATUS(va_pointer_device(p, &dev, &managed), VA_SUCCESS);
            CHECK(dev == 0 && managed == 0, "va_pointer_device: device %d, managed %d", dev,
                  managed);
        }
        CHECK_STATUS(va_pointer_device(host, &dev, NULL), VA_ERROR_INVALID_VALUE);
        dev_free(p, 4096);
        va_memory_stats(&bytes1, &live1);
        CHECK(bytes1 == bytes0 && live1 == live0, "va_memory_stats after va_free: %lld, %lld",
              (long long)bytes1, (long long)live1);
        CHECK_STATUS(va_synchronize(-1), VA_SUCCESS);
        case_end();
    }
}

/* ------------------------------------------------------------------------ */
/* more than 2^31 elements (VA_TEST_LARGE=1)                                 */
/* ------------------------------------------------------------------------ */

/* Runs when asked (VA_TEST_LARGE=1), and by default on a GPU with room for it
 * (3 x 8.6 GB, with margin); VA_TEST_LARGE=0 or VA_TEST_QUICK=1 turn it off. */
static int large_test_wanted(void) {
    const char *env = getenv("VA_TEST_LARGE");
    if (env != NULL && env[0] != '\0') return strcmp(env, "1") == 0;
    if (quick_mode() || !g_gpu) return 0;
    va_device_info info;
    return va_device_info_get(0, &info) == VA_SUCCESS && info.free_memory > ((int64_t)40 << 30);
}

static void test_large(void) {
    int wanted = large_test_wanted();
    if (!case_begin_if(wanted && g_gpu, "float32 add of 2^31 + 5 elements")) return;
    const int64_t N = ((int64_t)1 << 31) + 5;
    /* a chunk holds whole periods of both patterns, so one host chunk serves every
     * offset: a[i] = i % 1024, b[i] = (i % 1000) / 4 */
    const int64_t CH = 16384000;
    const size_t bytes = (size_t)N * 4;
    float *ca = (float *)xmalloc((size_t)CH * 4), *cb = (float *)xmalloc((size_t)CH * 4);
    char *cp = xmalloc((size_t)CH * 4);
    for (int64_t i = 0; i < CH; i++) {
        ca[i] = (float)(i % 1024);
        cb[i] = (float)(i % 1000) * 0.25f;
    }
    memset(cp, POISON, (size_t)CH * 4);
    void *da = dev_alloc(bytes), *db = dev_alloc(bytes), *dout = dev_alloc(bytes);
    int ok = da != NULL && db != NULL && dout != NULL;
    for (int64_t off = 0; ok && off < N; off += CH) {
        size_t len = (size_t)((N - off < CH) ? N - off : CH) * 4;
        ok = upload((char *)da + off * 4, ca, len) && upload((char *)db + off * 4, cb, len) &&
             upload((char *)dout + off * 4, cp, len);
    }
    if (ok) {
        va_array a, b, o;
        layout l = layout_1d(N, 1, 0);
        make_view(&a, da, VA_FLOAT32, 1, &N, &l);
        make_view(&b, db, VA_FLOAT32, 1, &N, &l);
        make_view(&o, dout, VA_FLOAT32, 1, &N, &l);
        va_status st = va_binary(0, lib_op(VA_ADD), &a, &b, &o);
        if (CHECK(st == VA_SUCCESS, "va_binary returned %s", va_status_string(st))) {
            int64_t samples[24];
            int ns = 0;
            const int64_t two31 = (int64_t)1 << 31;
            samples[ns++] = 0;
            samples[ns++] = 1;
            samples[ns++] = 1023;
            samples[ns++] = 1024;
            samples[ns++] = two31 - 2;
            samples[ns++] = two31 - 1;
            samples[ns++] = two31;
            samples[ns++] = two31 + 1;
            samples[ns++] = two31 + 3;
            samples[ns++] = N - 1; /* the last */
            while (ns < 24) samples[ns++] = (int64_t)(rnd() % (uint64_t)N);
            for (int k = 0; k < ns; k++) {
                int64_t i = samples[k];
                float got;
                memset(&got, POISON, 4);
                if (!download(&got, (char *)dout + i * 4, 4)) break;
                float want = (float)(i % 1024) + (float)(i % 1000) * 0.25f;
                CHECK(memcmp(&got, &want, 4) == 0, "element %lld is %.9g, expected %.9g",
                      (long long)i, (double)got, (double)want);
            }
        }
        /* the sum of a: whole periods of 0..1023 and then 0..4 */
        sum_result r;
        memset(&r, POISON, sizeof(r));
        st = va_sum(0, &a, &r);
        if (CHECK(st == VA_SUCCESS, "va_sum returned %s", va_status_string(st))) {
            double want = (double)(N / 1024) * 523776.0 + 10.0;
            double err = fabs((double)r.f - want);
            CHECK(err <= 1e-5 * want, "va_sum of 2^31 + 5 elements: %.9g, expected %.17g",
                  (double)r.f, want);
        }
    }
    dev_free(da, bytes);
    dev_free(db, bytes);
    dev_free(dout, bytes);
    free(ca);
    free(cb);
    free(cp);
    case_end();
}

/* ------------------------------------------------------------------------ */

static void test_no_leaks(void) {
    int64_t bytes = -1, live = -1;
    if (g_gpu) CHECK_STATUS(va_synchronize(-1), VA_SUCCESS);
    CHECK_STATUS(va_memory_stats(&bytes, &live), VA_SUCCESS);
    CHECK(bytes == 0 && live == 0, "at exit the library holds %lld bytes in %lld allocations",
          (long long)bytes, (long long)live);
}

/* ------------------------------------------------------------------------ */
/* creation (fill, arange, linspace, eye) and gather / scatter              */
/* ------------------------------------------------------------------------ */

/* A view of `data`: byte strides given, or C-contiguous when NULL. */
static void plain_view(va_array *v, void *data, va_dtype t, int32_t ndim, const int64_t *shape,
                       const int64_t *strides) {
    memset(v, 0, sizeof(*v));
    v->data = data;
    v->dtype = t;
    v->ndim = ndim;
    int64_t step = (int64_t)esize(t);
    for (int32_t d = ndim - 1; d >= 0; d--) {
        v->shape[d] = shape[d];
        v->strides[d] = strides != NULL ? strides[d] : step;
        step *= shape[d];
    }
}

/* Bad arguments are refused before the device is looked at. */
static void test_bad_creation_arguments(void) {
    double value = 1.0;
    int64_t table[1] = {0};
    va_array one, two, bad;
    memset(&one, 0, sizeof(one));
    one.dtype = VA_FLOAT64;
    one.ndim = 1;
    one.shape[0] = 4;
    one.strides[0] = 8;
    one.data = &value; /* never touched: every call below fails first */
    two = one;
    two.ndim = 2;
    two.shape[1] = 1;
    two.strides[1] = 8;
    bad = one;
    bad.dtype = VA_DTYPE_COUNT;
    CHECK_STATUS(va_fill(0, &one, NULL), VA_ERROR_INVALID_VALUE);
    CHECK_STATUS(va_fill(0, NULL, &value), VA_ERROR_INVALID_VALUE);
    CHECK_STATUS(va_fill(0, &bad, &value), VA_ERROR_UNSUPPORTED_DTYPE);
    CHECK_STATUS(va_arange(0, &two, &value, &value), VA_ERROR_INVALID_VALUE);
    CHECK_STATUS(va_arange(0, &one, NULL, &value), VA_ERROR_INVALID_VALUE);
    CHECK_STATUS(va_linspace(0, &two, VA_FLOAT64, 0.0, 1.0, 1), VA_ERROR_INVALID_VALUE);
    CHECK_STATUS(va_linspace(0, &one, VA_INT32, 0.0, 1.0, 1), VA_ERROR_INVALID_VALUE);
    const double ends[2] = {0.0, 1.0};
    CHECK_STATUS(va_linspace_complex(0, &one, VA_FLOAT64, ends, ends, 1), VA_ERROR_INVALID_VALUE); /* real dst */
    one.dtype = VA_COMPLEX128;
    one.strides[0] = 16;
    CHECK_STATUS(va_linspace_complex(0, &one, VA_FLOAT64, NULL, ends, 1), VA_ERROR_INVALID_VALUE);
    CHECK_STATUS(va_linspace_complex(0, &one, VA_COMPLEX128, ends, ends, 1), VA_ERROR_INVALID_VALUE);
    one.dtype = VA_FLOAT64;
    one.strides[0] = 8;
    CHECK_STATUS(va_eye(0, &one, 0), VA_ERROR_INVALID_VALUE);
    CHECK_STATUS(va_gather(0, &one, 1, table, &one), VA_ERROR_INVALID_VALUE);
    CHECK_STATUS(va_gather(0, &one, 0, NULL, &one), VA_ERROR_INVALID_VALUE);
    CHECK_STATUS(va_scatter(0, &one, &two, 0, table), VA_ERROR_INVALID_VALUE);
    size_t nbytes = 0;
    int64_t count = 0, weights[1] = {8};
    CHECK_STATUS(va_nonzero_scratch_bytes(NULL, &nbytes), VA_ERROR_INVALID_VALUE);
    CHECK_STATUS(va_nonzero_scratch_bytes(&one, NULL), VA_ERROR_INVALID_VALUE);
    CHECK_STATUS(va_nonzero_scratch_bytes(&bad, &nbytes), VA_ERROR_UNSUPPORTED_DTYPE);
    CHECK_STATUS(va_nonzero_count(0, &one, table, NULL), VA_ERROR_INVALID_VALUE);
    CHECK_STATUS(va_nonzero_count(0, &one, NULL, &count), VA_ERROR_INVALID_VALUE);
    CHECK_STATUS(va_nonzero_write(0, &one, table, NULL, NULL, table), VA_ERROR_INVALID_VALUE);
    CHECK_STATUS(va_nonzero_write(0, &one, NULL, NULL, weights, table), VA_ERROR_INVALID_VALUE);
}

/* A raw kernel's out must have its first input's shape (the kernel indexes out
 * by the input's size) and the launch shape must fit the device's limits:
 * refused before any CUDA call (issue 22). */
static void test_bad_raw_arguments(void) {
    double value[8] = {0};
    va_op op;
    va_array in, out;
    if (va_op_find("moving_average", &op) != VA_SUCCESS) {
        return; /* a build without the tutorial's user kernel */
    }
    memset(&in, 0, sizeof(in));
    in.dtype = VA_FLOAT64;
    in.ndim = 1;
    in.shape[0] = 8;
    in.strides[0] = 8;
    in.data = value; /* never touched: every call below fails first */
    out = in;
    out.shape[0] = 4; /* smaller: the kernel would write past its end */
    CHECK_STATUS(va_raw_launch(0, op, 1, &in, NULL, &out, 0, 0), VA_ERROR_INVALID_VALUE);
    out = in;
    out.ndim = 2;
    out.shape[0] = 2;
    out.shape[1] = 4;
    out.strides[0] = 32;
    out.strides[1] = 8;
    CHECK_STATUS(va_raw_launch(0, op, 1, &in, NULL, &out, 0, 0), VA_ERROR_INVALID_VALUE);
    out = in;
    CHECK_STATUS(va_raw_launch(0, op, 1, &in, NULL, &out, (int64_t)INT32_MAX + 1, 0), VA_ERROR_INVALID_VALUE);
    CHECK_STATUS(va_raw_launch(0, op, 1, &in, NULL, &out, -1, 0), VA_ERROR_INVALID_VALUE);
    CHECK_STATUS(va_raw_launch(0, op, 1, &in, NULL, &out, 0, 1025), VA_ERROR_INVALID_VALUE);
    CHECK_STATUS(va_raw_launch(0, op, 0, &in, NULL, &out, 0, 0), VA_ERROR_INVALID_VALUE);
    out.dtype = VA_FLOAT32;
    CHECK_STATUS(va_raw_launch(0, op, 1, &in, NULL, &out, 0, 0), VA_ERROR_UNSUPPORTED_DTYPE);
    /* Launch shapes past every GPU's limits, refused before any CUDA call. */
    out = in;
    const va_launch bad[] = {
        {{(int64_t)INT32_MAX + 1, 0, 0}, {0, 0, 0}, 0}, {{1, 65536, 0}, {0, 0, 0}, 0},
        {{1, 1, 65536}, {0, 0, 0}, 0},                  {{0, 0, 0}, {32, 32, 2}, 0},
        {{0, 0, 0}, {1, 1, 65}, 0},                     {{0, 0, 0}, {1025, 0, 0}, 0},
        {{-1, 0, 0}, {0, 0, 0}, 0},                     {{0, 0, 0}, {0, 0, 0}, -1},
        {{0, 0, 0}, {0, 8, 0}, 0}, /* 256 x 8 threads: the default x times 8 */
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); ++i)
        CHECK_STATUS(va_raw_launch_shaped(0, op, 1, &in, NULL, NULL, &out, &bad[i]), VA_ERROR_INVALID_VALUE);
    CHECK_STATUS(va_raw_launch_shaped(0, op, 1, &in, NULL, NULL, &out, NULL), VA_ERROR_INVALID_VALUE);
}

static void test_creation(void) {
    if (!gpu_case("fill, arange, linspace and eye")) return;
    const int64_t n = 1000003;
    double *host = (double *)xmalloc((size_t)n * 8);
    double *dev = (double *)dev_alloc((size_t)n * 8);
    va_array v;
    plain_view(&v, dev, VA_FLOAT64, 1, &n, NULL);
    double value = -2.5;
    CHECK_STATUS(va_fill(0, &v, &value), VA_SUCCESS);
    download(host, dev, (size_t)n * 8);
    int64_t bad = 0;
    for (int64_t i = 0; i < n; ++i) bad += host[i] != -2.5;
    CHECK(bad == 0, "va_fill: %lld wrong elements", (long long)bad);

    double first = 0.25, second = 0.35; /* numpy.arange(0.25, x, 0.1) */
    CHECK_STATUS(va_arange(0, &v, &first, &second), VA_SUCCESS);
    download(host, dev, (size_t)n * 8);
    const double delta = second - first;
    bad = 0;
    for (int64_t i = 2; i < n; ++i) {
        volatile double product = (double)i * delta; /* rounded apart, as NumPy's loop */
        bad += host[i] != first + product;
    }
    CHECK(bad == 0 && host[0] == first && host[1] == second, "va_arange: %lld wrong elements", (long long)bad);

    CHECK_STATUS(va_linspace(0, &v, VA_FLOAT64, -1.0, 3.0, 1), VA_SUCCESS);
    download(host, dev, (size_t)n * 8);
    const double step = 4.0 / (double)(n - 1);
    bad = 0;
    for (int64_t i = 0; i + 1 < n; ++i) {
        volatile double product = (double)i * step;
        bad += host[i] != product + -1.0;
    }
    CHECK(bad == 0 && host[n - 1] == 3.0, "va_linspace: %lld wrong elements", (long long)bad);

    /* complex: each part with NumPy's complex quotient, delta times 1/div */
    const int64_t nc = 7;
    va_array z;
    const int64_t zstride = 16; /* esize() knows the first five dtypes only */
    plain_view(&z, dev, VA_COMPLEX128, 1, &nc, &zstride);
    const double zstart[2] = {1.0, -1.0}, zstop[2] = {-3.0, 0.5};
    CHECK_STATUS(va_linspace_complex(0, &z, VA_FLOAT64, zstart, zstop, 1), VA_SUCCESS);
    download(host, dev, (size_t)nc * 16);
    bad = 0;
    for (int k = 0; k < 2; ++k) {
        volatile double reciprocal = 1.0 / (double)(nc - 1);
        volatile double zstep = (zstop[k] - zstart[k]) * reciprocal;
        for (int64_t i = 0; i + 1 < nc; ++i) {
            volatile double product = (double)i * zstep;
            bad += host[2 * i + k] != product + zstart[k];
        }
        bad += host[2 * (nc - 1) + k] != zstop[k];
    }
    CHECK(bad == 0, "va_linspace_complex: %lld wrong parts", (long long)bad);

    int64_t shape[2] = {37, 41};
    va_array m;
    plain_view(&m, dev, VA_FLOAT64, 2, shape, NULL);
    CHECK_STATUS(va_eye(0, &m, 3), VA_SUCCESS);
    download(host, dev, 37 * 41 * 8);
    bad = 0;
    for (int64_t r = 0; r < 37; ++r)
        for (int64_t c = 0; c < 41; ++c) bad += host[r * 41 + c] != (c == r + 3 ? 1.0 : 0.0);
    CHECK(bad == 0, "va_eye: %lld wrong elements", (long long)bad);
    dev_free(dev, (size_t)n * 8);
    free(host);
    case_end();
}

static void test_gather_scatter(void) {
    if (!gpu_case("gather and scatter through an offset table")) return;
    /* src: 6 x 5 int32 (values 0..29); gather rows {4, 0, 4} of columns 1::2 */
    int32_t host[30], out[6];
    for (int i = 0; i < 30; ++i) host[i] = i;
    int64_t table[3] = {4 * 20, 0, 4 * 20};
    int32_t *dsrc = (int32_t *)dev_alloc(sizeof(host));
    int32_t *dout = (int32_t *)dev_alloc(sizeof(out));
    int64_t *dtab = (int64_t *)dev_alloc(sizeof(table));
    upload(dsrc, host, sizeof(host));
    upload(dtab, table, sizeof(table));
    va_array src, dst;
    int64_t shape[2] = {3, 2};
    int64_t sstrides[2] = {0, 8};
    plain_view(&src, (char *)dsrc + 4, VA_INT32, 2, shape, sstrides);
    plain_view(&dst, dout, VA_INT32, 2, shape, NULL);
    CHECK_STATUS(va_gather(0, &src, 0, dtab, &dst), VA_SUCCESS);
    download(out, dout, sizeof(out));
    const int32_t want[6] = {21, 23, 1, 3, 21, 23};
    CHECK(memcmp(out, want, sizeof(want)) == 0, "va_gather: %d %d %d %d %d %d", out[0], out[1], out[2],
          out[3], out[4], out[5]);
    /* scatter -1, -2 into rows {0, 2} at columns 1::2 */
    int32_t values[4] = {-1, -2, -3, -4};
    int64_t rows[2] = {0, 2 * 20};
    upload(dout, values, sizeof(values));
    upload(dtab, rows, sizeof(rows));
    int64_t vshape[2] = {2, 2};
    plain_view(&src, dout, VA_INT32, 2, vshape, NULL);
    plain_view(&dst, (char *)dsrc + 4, VA_INT32, 2, vshape, sstrides);
    CHECK_STATUS(va_scatter(0, &src, &dst, 0, dtab), VA_SUCCESS);
    download(host, dsrc, sizeof(host));
    CHECK(host[1] == -1 && host[3] == -2 && host[11] == -3 && host[13] == -4 && host[0] == 0 && host[12] == 12,
          "va_scatter: %d %d %d %d", host[1], host[3], host[11], host[13]);
    dev_free(dsrc, sizeof(host));
    dev_free(dout, sizeof(out));
    dev_free(dtab, sizeof(table));
    case_end();
}

/* nonzero of a strided view (every other column, reversed) with NaN, -0.0 and
 * zeros: the count, then each axis's indices and a gather's byte offsets. */
static void test_nonzero(void) {
    if (!gpu_case("nonzero: count, then indices and offsets")) return;
    /* 3 x 6 doubles; the view takes columns 5, 3, 1 of each row */
    const double host[18] = {9, 0.0, 2, -0.0, 3, 1,
                             0, NAN, 0, 0.0, 0, -0.0,
                             1, 4, 5, 0.0, 6, 7};
    double *dsrc = (double *)dev_alloc(sizeof(host));
    upload(dsrc, host, sizeof(host));
    va_array view;
    int64_t shape[2] = {3, 3};
    int64_t strides[2] = {48, -16};
    plain_view(&view, dsrc + 5, VA_FLOAT64, 2, shape, strides);
    /* the view: [[1, -0.0, 0.0], [-0.0, 0.0, nan], [7, 0.0, 4]] */
    size_t nbytes = 0;
    int64_t count = -1;
    CHECK_STATUS(va_nonzero_scratch_bytes(&view, &nbytes), VA_SUCCESS);
    void *scratch = dev_alloc(nbytes);
    CHECK_STATUS(va_nonzero_count(0, &view, scratch, &count), VA_SUCCESS);
    CHECK(count == 4, "va_nonzero_count: %lld, want 4", (long long)count);
    int64_t *dout = (int64_t *)dev_alloc(3 * 4 * sizeof(int64_t));
    int64_t *coords[2] = {dout, dout + 4};
    int64_t weights[2] = {100, 1};
    CHECK_STATUS(va_nonzero_write(0, &view, scratch, coords, weights, dout + 8), VA_SUCCESS);
    int64_t out[12];
    download(out, dout, sizeof(out));
    const int64_t want[12] = {0, 1, 2, 2, 0, 2, 0, 2, 0, 102, 200, 202};
    CHECK(memcmp(out, want, sizeof(want)) == 0, "va_nonzero_write: rows %lld %lld %lld %lld, cols %lld %lld "
          "%lld %lld", (long long)out[0], (long long)out[1], (long long)out[2], (long long)out[3],
          (long long)out[4], (long long)out[5], (long long)out[6], (long long)out[7]);
    dev_free(dout, 3 * 4 * sizeof(int64_t));
    dev_free(scratch, nbytes);
    dev_free(dsrc, sizeof(host));
    case_end();
}

int main(void) {
    va_status avail = va_cuda_available();
    g_gpu = avail == VA_SUCCESS;
    if (!g_gpu && avail != VA_ERROR_NO_DEVICE)
        CHECK(0, "va_cuda_available returned %s", va_status_string(avail));
    /* MYMODULE_REQUIRE_GPU=1 (make test sets it where nvidia-smi lists a GPU): the
     * library's own answer cannot turn every GPU case into a skip. */
    const char *require = getenv("MYMODULE_REQUIRE_GPU");
    const int require_gpu = require != NULL && require[0] != '\0' && strcmp(require, "0") != 0;
    if (require_gpu && !g_gpu)
        CHECK(0, "MYMODULE_REQUIRE_GPU=%s, but va_cuda_available returned %s: every GPU case would skip",
              require, va_status_string(avail));

    test_status_strings();
    test_dtype_size();
    test_result_dtype();
    test_result_type();
    test_bad_binary_arguments();
    test_plans();
    test_plan_into_new();
    test_small_adds_on_two_threads();
    test_small_block_cache_by_class();
    test_c_contiguity();
    test_bad_search_arguments();
    test_sort_of_a_vast_broadcast_view();
    test_bad_var_arguments();
    test_bad_matmul_arguments();
    test_bad_reduce_arguments();
    test_bad_reduce_axes_arguments();
    test_bad_other_arguments();
    test_bad_creation_arguments();
    test_bad_raw_arguments();
    test_no_device();
    test_device_queries();
    test_multi_gpu();
    test_binary();
    test_binary_nd();
    test_copy_convert();
    test_sum();
    test_trace();
    test_reduce_axes();
    test_reduce_axes_scalar();
    test_creation();
    test_gather_scatter();
    test_nonzero();
    test_large();
    test_no_leaks();
    /* Everything the library holds goes back, so the memory checker sees no leak. */
    CHECK(va_shutdown() == VA_SUCCESS, "va_shutdown failed");

    if (g_skipped > 0)
        printf("%d passed, %d failed, %d skipped\n", g_passed, g_failed, g_skipped);
    else
        printf("%d passed, %d failed\n", g_passed, g_failed);
    return g_failed == 0 ? 0 : 1;
}
