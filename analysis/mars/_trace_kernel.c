/* The sequential part of the MARS confidence features, one pass per trace, for float16 input.
 *
 * Why compiled: numpy has no per-segment cumulative sum, so analysis/mars/confidence.py calls
 * about thirty numpy functions per trace; on a realistic pool (15k traces) the call overhead and
 * the float32 cumsum were most of the numeric pass. Here one C loop per trace widens float16 to
 * float32, keeps the float32 prefix sum, the group confidences, their running minimum and record
 * lows, the float64 checkpoint sums and the plotting curve. It also copies numpy's pairwise
 * float32 summation (`pairwise_f32`, as in numpy's loops_utils.h) for the whole-trace and tail
 * sums, and computes the bottom 10 % of the groups (`bottom_mean`, a sampled bound and a radix
 * sort: numpy's partition and sort of every trace were a third of the build's main thread). A
 * trace's float32 values, prefix sums and groups live in one small buffer reused for every trace
 * (cache-resident): writing them out for the whole batch cost ~1.5 GB of memory traffic and the
 * page faults of its first touch on a realistic pool, for the few traces (short, NaN/inf) the
 * caller widens itself.
 *
 * Numerics (the contract in confidence.py): float32 operations in source order, no FMA
 * contraction (pyproject passes -ffp-contract=off), so the prefix sums and group confidences
 * have the bits numpy's float32 cumsum gives. float64 sums of
 * float16-origin values are exact, so any order gives the bits of numpy's reduceat.
 *
 * Only the buffer protocol is used (no numpy headers): the caller allocates every output.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static float HALF_TO_FLOAT[65536];

static float half_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1fu;
    uint32_t mant = h & 0x3ffu;
    uint32_t bits;
    if (exp == 0) {
        if (mant == 0) {
            bits = sign;
        } else { /* subnormal: normalise */
            int e = -1;
            do {
                e++;
                mant <<= 1;
            } while ((mant & 0x400u) == 0);
            mant &= 0x3ffu;
            bits = sign | ((uint32_t)(127 - 15 - e) << 23) | (mant << 13);
        }
    } else if (exp == 0x1f) {
        bits = sign | 0x7f800000u | (mant << 13); /* inf, nan (payload kept) */
    } else {
        bits = sign | ((exp + 127 - 15) << 23) | (mant << 13);
    }
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

/* The pairwise part of numpy's float32 add.reduce of a contiguous array (`numpy_sum_f32`).
 * Blocks of up to 128 values are summed in 8 accumulators, combined in a fixed tree, then the
 * rest in order; longer arrays are split in two halves (the first a multiple of 8) and summed
 * recursively. */
static float pairwise_f32(const float *a, int64_t n)
{
    if (n < 8) {
        float res = -0.0f;
        for (int64_t i = 0; i < n; i++)
            res += a[i];
        return res;
    }
    if (n <= 128) {
        float r[8];
        for (int k = 0; k < 8; k++)
            r[k] = a[k];
        int64_t i;
        for (i = 8; i < n - (n % 8); i += 8)
            for (int k = 0; k < 8; k++)
                r[k] += a[i + k];
        float res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        for (; i < n; i++)
            res += a[i];
        return res;
    }
    int64_t n2 = n / 2;
    n2 -= n2 % 8;
    return pairwise_f32(a, n2) + pairwise_f32(a + n2, n - n2);
}

/* numpy's float32 add.reduce of a contiguous array, bit for bit */
static float numpy_sum_f32(const float *a, int64_t n)
{
    return 0.0f + pairwise_f32(a, n);
}

/* Order-preserving uint32 key of a float32 (ascending floats, ascending keys; -0.0 just below
 * +0.0, which numpy's sort holds equal: either order sums to the same bits unless every value
 * summed is a zero) and back. */
static inline uint32_t f32_key(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
}

static inline float key_f32(uint32_t k)
{
    uint32_t u = (k & 0x80000000u) ? (k & 0x7fffffffu) : ~k;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static void insertion_sort(uint32_t *a, int64_t n)
{
    for (int64_t i = 1; i < n; i++) {
        uint32_t x = a[i];
        int64_t j = i;
        for (; j > 0 && a[j - 1] > x; j--)
            a[j] = a[j - 1];
        a[j] = x;
    }
}

#define RADIX_BITS 11
#define RADIX_SMALL 32

/* Sort n keys ascending in place (`tmp` has room for n): least-significant-digit radix sort
 * on the keys minus their minimum, 11 bits a pass, as many passes as their range needs (two
 * for a trace's low groups, whose range is narrow). Small sets: insertion sort. */
static void radix_sort(uint32_t *a, int64_t n, uint32_t *tmp)
{
    if (n <= RADIX_SMALL) {
        insertion_sort(a, n);
        return;
    }
    uint32_t lo = a[0], hi = a[0];
    for (int64_t i = 1; i < n; i++) {
        lo = a[i] < lo ? a[i] : lo;
        hi = a[i] > hi ? a[i] : hi;
    }
    uint32_t *src = a, *dst = tmp;
    for (int shift = 0; shift < 32 && ((hi - lo) >> shift) != 0; shift += RADIX_BITS) {
        uint32_t count[1u << RADIX_BITS];
        memset(count, 0, sizeof count);
        for (int64_t i = 0; i < n; i++)
            count[((src[i] - lo) >> shift) & ((1u << RADIX_BITS) - 1)]++;
        uint32_t pos = 0;
        for (uint32_t b = 0; b < (1u << RADIX_BITS); b++) {
            uint32_t c = count[b];
            count[b] = pos;
            pos += c;
        }
        for (int64_t i = 0; i < n; i++)
            dst[count[((src[i] - lo) >> shift) & ((1u << RADIX_BITS) - 1)]++] = src[i];
        uint32_t *t = src;
        src = dst;
        dst = t;
    }
    if (src != a)
        memcpy(a, src, sizeof *a * (size_t)n);
}

/* bottom_10 of a trace's ng >= 1 groups, as confidence._bottom computes it: the float32 mean,
 * in numpy's pairwise order, of the k = max(1, int(0.1 ng)) lowest in ascending order.
 * Why a sample first: the k lowest are the groups at or below the k-th smallest, so a bound a
 * little above it, read off 256 evenly spaced groups, leaves about 1.3 k candidates in one
 * branch-free pass, and only those are sorted. When the bound falls short (fewer than k at or
 * below it) every group is sorted: the same result, only slower. */
#define BOTTOM_SAMPLE 256

static float bottom_mean(const float *g, int64_t ng, uint32_t *keys, uint32_t *work)
{
    int64_t k = (int64_t)(0.1 * (double)ng);
    if (k < 1)
        k = 1;
    if (k >= ng)
        return numpy_sum_f32(g, ng) / (float)ng;
    int64_t c = 0;
    if (ng >= 4 * BOTTOM_SAMPLE) {
        for (int64_t i = 0; i < BOTTOM_SAMPLE; i++)
            keys[i] = f32_key(g[i * ng / BOTTOM_SAMPLE]);
        radix_sort(keys, BOTTOM_SAMPLE, work);
        int64_t r = (k * BOTTOM_SAMPLE * 13) / (ng * 10) + 4;
        const uint32_t bound = keys[(r < BOTTOM_SAMPLE ? r : BOTTOM_SAMPLE) - 1];
        for (int64_t i = 0; i < ng; i++) {
            const uint32_t key = f32_key(g[i]);
            keys[c] = key;
            c += key <= bound;
        }
    }
    if (c < k) { /* no sample, or its bound too low */
        for (int64_t i = 0; i < ng; i++)
            keys[i] = f32_key(g[i]);
        c = ng;
    }
    radix_sort(keys, c, work);
    float *lowf = (float *)work; /* `work` is free again: the k lowest as floats */
    for (int64_t i = 0; i < k; i++)
        lowf[i] = key_f32(keys[i]);
    return numpy_sum_f32(lowf, k) / (float)k;
}

typedef struct {
    Py_buffer b;
    int held;
} Buf;

static int get_buf(PyObject *obj, Buf *out, int writable, Py_ssize_t itemsize, const char *name)
{
    if (PyObject_GetBuffer(obj, &out->b, (writable ? PyBUF_WRITABLE : 0) | PyBUF_C_CONTIGUOUS) < 0)
        return -1;
    out->held = 1;
    if (out->b.itemsize != itemsize) {
        PyErr_Format(PyExc_ValueError, "%s: items of %zd bytes expected, got %zd", name,
                     itemsize, out->b.itemsize);
        return -1;
    }
    return 0;
}

static void release(Buf *bufs, int n)
{
    for (int i = 0; i < n; i++)
        if (bufs[i].held)
            PyBuffer_Release(&bufs[i].b);
}

enum {
    B_VALUES, /* uint16 [m] float16 bits */
    B_OFFSETS, /* int64 [n+1] */
    B_GOFF, /* int64 [n+1] each trace's groups, as if laid end to end (sizes B_LOWW, B_LOWV) */
    B_CKOFF, /* int64 [n+1] offsets of each trace's checkpoints */
    B_CURVE, /* out float32 [n * n_points] plotting curve of each long finite trace */
    B_MIN, /* out float32 [n] minimum group */
    B_LOWCNT, /* out int64 [n] record lows of each trace */
    B_LOWW, /* out int64 [goff[n]]: a trace has at most one record low a group */
    B_LOWV, /* out float32 [goff[n]] */
    B_CK64, /* out float64 [ckoff[n]] checkpoint window sums */
    B_TOT64, /* out float64 [n] whole-trace sums */
    B_SUM32, /* out float32 [n] numpy's float32 sum of each trace (NaN: it holds NaN/inf) */
    B_TAIL32, /* out float32 [n] the same of its last `window` values (all if fewer) */
    B_BOTTOM, /* out float32 [n] bottom_10 of each trace that has groups (`bottom_mean`) */
    N_BUFS
};

static const char *const NAMES[N_BUFS] = {
    "values", "offsets", "group_offsets", "ck_offsets", "curve", "min_group", "low_counts",
    "low_window", "low_value", "ck_sum64", "total64", "sum32",
    "tail32", "bottom10",
};
static const Py_ssize_t ITEM[N_BUFS] = {2, 8, 8, 8, 4, 4, 8, 8, 4, 8, 8, 4, 4, 4};

/* trace_pass(values, offsets, group_offsets, ck_offsets, curve, min_group,
 *            low_counts, low_window, low_value, ck_sum64, total64, sum32, tail32, bottom10,
 *            window, ck_step, n_points)
 * -> the number of record lows written. Empty traces and traces holding NaN/inf get nothing
 * (their lows, checkpoints and total stay 0, their sums 0 and NaN): the caller handles them.
 * The curve of a trace of at least `window` values, as numpy computes it from the float32
 * prefix sums cs: point b = float32(double(cs[e] - cs[s]) / (e - s)), s = L b // n_points,
 * e = max(L (b + 1) // n_points, s + 1); the rows of the other traces are left alone. */
static PyObject *trace_pass(PyObject *self, PyObject *args)
{
    PyObject *objs[N_BUFS];
    Py_ssize_t window, ck_step, n_points;
    if (!PyArg_ParseTuple(args, "OOOOOOOOOOOOOOnnn", &objs[0], &objs[1], &objs[2], &objs[3],
                          &objs[4], &objs[5], &objs[6], &objs[7], &objs[8], &objs[9], &objs[10],
                          &objs[11], &objs[12], &objs[13], &window, &ck_step, &n_points))
        return NULL;
    if (window < 1 || n_points < 0) {
        PyErr_SetString(PyExc_ValueError, "window must be >= 1 and n_points >= 0");
        return NULL;
    }
    Buf bufs[N_BUFS];
    memset(bufs, 0, sizeof bufs);
    for (int i = 0; i < N_BUFS; i++) {
        if (get_buf(objs[i], &bufs[i], i >= B_CURVE, ITEM[i], NAMES[i]) < 0) {
            release(bufs, N_BUFS);
            return NULL;
        }
    }
    const uint16_t *values = bufs[B_VALUES].b.buf;
    const int64_t *off = bufs[B_OFFSETS].b.buf;
    const int64_t *goff = bufs[B_GOFF].b.buf;
    const int64_t *ckoff = bufs[B_CKOFF].b.buf;
    float *curve = bufs[B_CURVE].b.buf;
    float *gmin = bufs[B_MIN].b.buf;
    int64_t *lowcnt = bufs[B_LOWCNT].b.buf;
    int64_t *loww = bufs[B_LOWW].b.buf;
    float *lowv = bufs[B_LOWV].b.buf;
    double *ck64 = bufs[B_CK64].b.buf;
    double *tot64 = bufs[B_TOT64].b.buf;
    float *sum32 = bufs[B_SUM32].b.buf;
    float *tail32 = bufs[B_TAIL32].b.buf;
    float *bottom = bufs[B_BOTTOM].b.buf;
    Py_ssize_t n = bufs[B_OFFSETS].b.len / 8 - 1;
    Py_ssize_t m = bufs[B_VALUES].b.len / 2;
    int bad = n < 0 || (n >= 0 && (off[0] != 0 || off[n] > m ||
                                   bufs[B_CURVE].b.len / 4 < n * n_points ||
                                   bufs[B_GOFF].b.len / 8 < n + 1 ||
                                   bufs[B_CKOFF].b.len / 8 < n + 1));
    int64_t max_len = 0;
    for (Py_ssize_t j = 0; !bad && j < n; j++) {
        int64_t L = off[j + 1] - off[j];
        if (L > max_len)
            max_len = L;
        int64_t ng = L >= window ? L - window + 1 : 0;
        int64_t nck = ck_step > 0 && L > 1 ? (L - 1) / ck_step : 0;
        bad = L < 0 || goff[j + 1] - goff[j] != ng || ckoff[j + 1] - ckoff[j] != nck;
    }
    if (!bad && n > 0)
        bad = bufs[B_CK64].b.len / 8 < ckoff[n] ||
              bufs[B_LOWW].b.len / 8 < goff[n] || bufs[B_LOWV].b.len / 4 < goff[n] ||
              bufs[B_MIN].b.len / 4 < n || bufs[B_LOWCNT].b.len / 8 < n ||
              bufs[B_TOT64].b.len / 8 < n || bufs[B_SUM32].b.len / 4 < n ||
              bufs[B_TAIL32].b.len / 4 < n || bufs[B_BOTTOM].b.len / 4 < n;
    if (bad) {
        release(bufs, N_BUFS);
        PyErr_SetString(PyExc_ValueError, "trace_pass: inconsistent offsets or buffer sizes");
        return NULL;
    }

    /* one trace's float32 values, then its prefix sums (cs[0] = 0), its groups, and the keys
     * and work of its bottom 10 % (at most max_len groups each) */
    float *scratch = PyMem_RawMalloc(sizeof(float) * (size_t)(5 * max_len + 1));
    if (scratch == NULL) {
        release(bufs, N_BUFS);
        return PyErr_NoMemory();
    }
    float *g = scratch + 2 * max_len + 1;
    uint32_t *sel_keys = (uint32_t *)(g + max_len);
    uint32_t *sel_work = sel_keys + max_len;
    Py_ssize_t written = 0;
    const float wf = (float)window;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t j = 0; j < n; j++) {
        const int64_t s = off[j], L = off[j + 1] - s;
        const uint16_t *src = values + s;
        float *c = scratch;
        float *cs = scratch + max_len;
        double *ck = ck64 + ckoff[j];
        const int64_t nck = ckoff[j + 1] - ckoff[j];
        /* one fused pass: widen, float32 prefix sum (numpy's cumsum order), float64 running
         * sum, and each group confidence as soon as its window's last prefix sum is known,
         * with the running minimum and record lows (the group work fills the wait on the
         * prefix sum's dependency chain); it stops at each checkpoint window's start and end to
         * note the float64 sum there (window of checkpoint k, p = (k+1) ck_step:
         * [max(0, p - W + 1), p + 1)) */
        float acc = 0.0f;
        double acc64 = 0.0;
        uint32_t special = 0;
        int64_t k_lo = 0, k_hi = 0, i = 0;
        float mn = INFINITY;
        int64_t lows = 0;
        cs[0] = 0.0f;
        lowcnt[j] = 0;
        while (i < L) {
            int64_t stop = L;
            if (k_lo < nck) {
                int64_t p = (k_lo + 1) * ck_step;
                int64_t lo = p < window ? 0 : p - window + 1;
                if (lo == i) {
                    ck[k_lo++] = -acc64;
                    continue;
                }
                stop = lo;
            }
            if (k_hi < k_lo) {
                int64_t hi = (k_hi + 1) * ck_step + 1;
                if (hi == i) {
                    ck[k_hi++] += acc64;
                    continue;
                }
                if (hi < stop)
                    stop = hi;
            }
            for (; i < stop; i++) {
                uint16_t h = src[i];
                float x = HALF_TO_FLOAT[h];
                special |= (uint32_t)((h & 0x7c00u) == 0x7c00u);
                c[i] = x;
                acc += x;
                acc64 += (double)x;
                cs[i + 1] = acc;
                if (i + 1 >= window) {
                    const int64_t gi = i + 1 - window;
                    const float v = (acc - cs[gi]) / wf;
                    g[gi] = v;
                    if (gi == 0 || v < mn) {
                        mn = v;
                        loww[written] = gi;
                        lowv[written] = v;
                        written++;
                        lows++;
                    }
                }
            }
        }
        while (k_hi < k_lo && (k_hi + 1) * ck_step + 1 == L)
            ck[k_hi++] += acc64;
        if (L == 0 || special) {
            /* empty, or NaN/inf inside: the caller handles the trace (and its checkpoints);
             * the record lows noted on the way are taken back */
            written -= lows;
            sum32[j] = tail32[j] = L == 0 ? 0.0f : NAN;
            tot64[j] = 0.0;
            for (int64_t k = 0; k < nck; k++)
                ck[k] = 0.0;
            continue;
        }
        tot64[j] = acc64;
        const int64_t t0 = L > window ? L - window : 0;
        sum32[j] = numpy_sum_f32(c, L);
        tail32[j] = numpy_sum_f32(c + t0, L - t0);
        if (goff[j + 1] == goff[j])
            continue;
        gmin[j] = mn;
        lowcnt[j] = lows;
        bottom[j] = bottom_mean(g, goff[j + 1] - goff[j], sel_keys, sel_work);
        float *row = curve + j * n_points;
        for (int64_t b = 0; b < n_points; b++) {
            const int64_t s0 = L * b / n_points;
            int64_t e0 = L * (b + 1) / n_points;
            if (e0 < s0 + 1)
                e0 = s0 + 1;
            row[b] = (float)((double)(cs[e0] - cs[s0]) / (double)(e0 - s0));
        }
    }
    Py_END_ALLOW_THREADS
    PyMem_RawFree(scratch);
    release(bufs, N_BUFS);
    return PyLong_FromSsize_t(written);
}

static PyMethodDef METHODS[] = {
    {"trace_pass", trace_pass, METH_VARARGS,
     "One pass per float16 trace: group confidences, their minimum, record lows and bottom "
     "10 %, float64 checkpoint and whole-trace sums, float32 sums and the plotting curve."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef MODULE = {
    PyModuleDef_HEAD_INIT,
    .m_name = "_trace_kernel",
    .m_doc = "Compiled per-trace pass of the MARS features.",
    .m_size = -1,
    .m_methods = METHODS,
};

PyMODINIT_FUNC PyInit__trace_kernel(void)
{
    for (uint32_t h = 0; h < 65536u; h++)
        HALF_TO_FLOAT[h] = half_to_float((uint16_t)h);
    return PyModule_Create(&MODULE);
}
