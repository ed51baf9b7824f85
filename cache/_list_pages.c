/* One parquet data page of a `list<halffloat>` column (FIXED_LEN_BYTE_ARRAY(2), no nulls),
 * decoded straight into the list's offsets and float16 bits (cache/list_pages.py).
 *
 * Why: arrow's reader spends most of a MARS `confs` decode (a realistic pool holds
 * 163 M values) on the general nested-column machinery: it expands both level streams to one
 * int16 per value, builds a validity bitmap and the offsets from them and copies the values
 * twice. For a list column without nulls the levels are almost all long runs, so they can be
 * read run by run: the row starts are the zeros of the repetition levels, and the values are
 * a copy (PLAIN) or a two-stream interleave (BYTE_STREAM_SPLIT). Decompression stays with
 * arrow's codecs (in Python, page by page).
 *
 * Anything this does not handle (a null list or element, an unknown level, a short buffer)
 * raises ValueError; the caller then reads the row group with pyarrow, which either decodes it
 * or names what is wrong with the file.
 *
 * Only the buffer protocol is used (no numpy headers): the caller allocates every output.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

/* A reader of parquet's RLE / bit-packed hybrid encoding (levels of bit width <= 8). */
typedef struct {
    const uint8_t *p;
    const uint8_t *end;
    int bw;
    /* the current run: `left` levels, RLE (`value`) or bit-packed (from `bits`, index `k`) */
    int64_t left;
    int packed;
    uint32_t value;
    const uint8_t *bits;
    int64_t k;
} Hybrid;

static int varint(Hybrid *h, uint64_t *out)
{
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
        if (h->p >= h->end)
            return -1;
        uint8_t b = *h->p++;
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *out = v;
            return 0;
        }
    }
    return -1;
}

/* The next run into h (at most `remaining` levels of it are used); -1 if the data ends. */
static int next_run(Hybrid *h, int64_t remaining)
{
    uint64_t header;
    if (varint(h, &header) < 0)
        return -1;
    if (header & 1) {
        uint64_t groups = header >> 1;
        if (groups == 0 || groups > (uint64_t)(h->end - h->p) / (uint64_t)(h->bw ? h->bw : 1))
            return -1;
        h->packed = 1;
        h->bits = h->p;
        h->k = 0;
        h->p += groups * (uint64_t)h->bw;
        h->left = (int64_t)(groups * 8) < remaining ? (int64_t)(groups * 8) : remaining;
    } else {
        uint64_t count = header >> 1;
        int nbytes = (h->bw + 7) / 8;
        if (count == 0 || h->end - h->p < nbytes)
            return -1;
        uint32_t v = 0;
        for (int i = 0; i < nbytes; i++)
            v |= (uint32_t)h->p[i] << (8 * i);
        h->p += nbytes;
        h->packed = 0;
        h->value = v;
        h->left = (int64_t)count < remaining ? (int64_t)count : remaining;
    }
    return 0;
}

/* A reader over a whole level section (no run read yet). */
static Hybrid hybrid_over(const Py_buffer *b, int bw)
{
    Hybrid h = {b->buf, (const uint8_t *)b->buf + b->len, bw, 0, 0, 0, NULL, 0};
    return h;
}

static inline uint32_t packed_at(const Hybrid *h, int64_t k)
{
    /* LSB first; bw <= 8, so a value spans at most two bytes */
    uint64_t bit = (uint64_t)k * (uint64_t)h->bw;
    const uint8_t *b = h->bits + (bit >> 3);
    uint32_t word = b[0];
    if ((bit & 7) + (uint64_t)h->bw > 8)
        word |= (uint32_t)b[1] << 8;
    return (word >> (bit & 7)) & ((1u << h->bw) - 1u);
}

typedef struct {
    Py_buffer b;
    int held;
} Buf;

static int get_buf(PyObject *obj, Buf *out, int writable, Py_ssize_t itemsize)
{
    if (PyObject_GetBuffer(obj, &out->b, (writable ? PyBUF_WRITABLE : 0) | PyBUF_C_CONTIGUOUS) < 0)
        return -1;
    out->held = 1;
    if (out->b.itemsize != itemsize && !(itemsize == 1 && out->b.itemsize >= 1)) {
        PyErr_SetString(PyExc_ValueError, "decode_page: buffer of the wrong item size");
        return -1;
    }
    return 0;
}

enum { B_REP, B_DEF, B_VALUES, B_OUT_VALUES, B_OUT_STARTS, N_BUFS };

/* decode_page(rep, def, n_levels, def_width, max_def, empty_def, values, byte_stream_split,
 *             out_values, value_pos, out_starts, start_pos) -> (values written, starts written)
 *
 * rep, def: the page's repetition levels (bit width 1) and definition levels (bit width
 * def_width), RLE / bit-packed hybrid without their length prefix. Levels are max_def (a value)
 * or empty_def (an empty list: only where a row starts). values: the page's values section;
 * byte_stream_split: its encoding (else PLAIN). The values go to out_values (uint16) from
 * value_pos; each row start, as the index of its first value in out_values, to out_starts
 * (int64) from start_pos. */
static PyObject *decode_page(PyObject *self, PyObject *args)
{
    PyObject *objs[N_BUFS];
    Py_ssize_t n_levels, def_width, max_def, empty_def, value_pos, start_pos;
    int bss;
    if (!PyArg_ParseTuple(args, "OOnnnnOpOnOn", &objs[B_REP], &objs[B_DEF], &n_levels, &def_width,
                          &max_def, &empty_def, &objs[B_VALUES], &bss, &objs[B_OUT_VALUES],
                          &value_pos, &objs[B_OUT_STARTS], &start_pos))
        return NULL;
    Buf bufs[N_BUFS];
    memset(bufs, 0, sizeof bufs);
    static const Py_ssize_t ITEM[N_BUFS] = {1, 1, 1, 2, 8};
    for (int i = 0; i < N_BUFS; i++) {
        if (get_buf(objs[i], &bufs[i], i >= B_OUT_VALUES, ITEM[i]) < 0) {
            for (int j = 0; j <= i; j++)
                if (bufs[j].held)
                    PyBuffer_Release(&bufs[j].b);
            return NULL;
        }
    }
    const char *err = NULL;
    uint16_t *out_values = bufs[B_OUT_VALUES].b.buf;
    int64_t *out_starts = bufs[B_OUT_STARTS].b.buf;
    const Py_ssize_t cap_values = bufs[B_OUT_VALUES].b.len / 2;
    const Py_ssize_t cap_starts = bufs[B_OUT_STARTS].b.len / 8;
    int64_t n_present = 0, n_starts = 0;
    uint8_t *defs = NULL;
    if (n_levels < 0 || def_width < 1 || def_width > 8 || max_def < 1 || max_def >= (1 << def_width) ||
        empty_def < 0 || empty_def >= max_def || value_pos < 0 || start_pos < 0 ||
        value_pos > cap_values || start_pos > cap_starts) {
        err = "bad arguments";
        goto done;
    }
    Py_BEGIN_ALLOW_THREADS
    /* definition levels: count the values; note whether any level is an empty list */
    Hybrid d = hybrid_over(&bufs[B_DEF].b, (int)def_width);
    int mixed = 0;
    for (int64_t i = 0; i < n_levels && !err;) {
        if (next_run(&d, n_levels - i) < 0) {
            err = "definition levels end early";
            break;
        }
        if (!d.packed) {
            if (d.value == (uint32_t)max_def)
                n_present += d.left;
            else if (d.value == (uint32_t)empty_def)
                mixed = 1;
            else
                err = "a null list or element";
            i += d.left;
            continue;
        }
        for (int64_t k = 0; k < d.left; k++) {
            uint32_t v = packed_at(&d, k);
            if (v == (uint32_t)max_def)
                n_present++;
            else if (v == (uint32_t)empty_def)
                mixed = 1;
            else {
                err = "a null list or element";
                break;
            }
        }
        i += d.left;
    }
    /* repetition levels: each zero starts a row; noted as a level index for now */
    Hybrid r = hybrid_over(&bufs[B_REP].b, 1);
    int64_t *starts = out_starts + start_pos;
    const int64_t room = cap_starts - start_pos;
    for (int64_t i = 0; i < n_levels && !err;) {
        if (next_run(&r, n_levels - i) < 0) {
            err = "repetition levels end early";
            break;
        }
        if (!r.packed) {
            if (r.value > 1) {
                err = "a repetition level above 1";
            } else if (r.value == 0) {
                if (n_starts + r.left > room) {
                    err = "more rows than the row group holds";
                    break;
                }
                for (int64_t k = 0; k < r.left; k++)
                    starts[n_starts++] = i + k;
            }
            i += r.left;
            continue;
        }
        for (int64_t k = 0; k < r.left; k++) {
            if (packed_at(&r, k) == 0) {
                if (n_starts >= room) {
                    err = "more rows than the row group holds";
                    break;
                }
                starts[n_starts++] = i + k;
            }
        }
        i += r.left;
    }
    if (!err && mixed) {
        /* empty lists: level index -> value index, and an empty list must start its row */
        defs = PyMem_RawMalloc(n_levels ? (size_t)n_levels : 1);
        if (defs == NULL) {
            err = "out of memory";
        } else {
            Hybrid d2 = hybrid_over(&bufs[B_DEF].b, (int)def_width);
            for (int64_t i = 0; i < n_levels;) {
                next_run(&d2, n_levels - i); /* read before: cannot fail */
                if (!d2.packed)
                    memset(defs + i, (int)d2.value, (size_t)d2.left);
                else
                    for (int64_t k = 0; k < d2.left; k++)
                        defs[i + k] = (uint8_t)packed_at(&d2, k);
                i += d2.left;
            }
            int64_t present = 0, s = 0;
            for (int64_t i = 0; i < n_levels && !err; i++) {
                int is_start = s < n_starts && starts[s] == i;
                if (is_start)
                    starts[s++] = present;
                if (defs[i] == (uint8_t)max_def)
                    present++;
                else if (!is_start)
                    err = "an empty list inside a row";
            }
        }
    }
    if (!err && n_present > cap_values - value_pos)
        err = "more values than the column chunk holds";
    if (!err) {
        const int64_t need = 2 * n_present;
        const uint8_t *src = bufs[B_VALUES].b.buf;
        uint16_t *dst = out_values + value_pos;
        if (bufs[B_VALUES].b.len < need) {
            err = "the values section is short";
        } else if (!bss) {
            memcpy(dst, src, (size_t)need);
        } else {
            const uint8_t *lo = src, *hi = src + n_present;
            for (int64_t i = 0; i < n_present; i++)
                dst[i] = (uint16_t)(lo[i] | ((uint16_t)hi[i] << 8));
        }
        for (int64_t s = 0; s < n_starts; s++)
            starts[s] += value_pos;
    }
    Py_END_ALLOW_THREADS
done:
    PyMem_RawFree(defs);
    for (int i = 0; i < N_BUFS; i++)
        if (bufs[i].held)
            PyBuffer_Release(&bufs[i].b);
    if (err) {
        PyErr_Format(PyExc_ValueError, "decode_page: %s", err);
        return NULL;
    }
    return Py_BuildValue("(LL)", (long long)n_present, (long long)n_starts);
}

static PyMethodDef METHODS[] = {
    {"decode_page", decode_page, METH_VARARGS,
     "One data page of a list<halffloat> column without nulls: its float16 bits and row starts."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef MODULE = {
    PyModuleDef_HEAD_INIT,
    .m_name = "_list_pages",
    .m_doc = "Compiled page decoder of list<halffloat> parquet columns.",
    .m_size = -1,
    .m_methods = METHODS,
};

PyMODINIT_FUNC PyInit__list_pages(void) { return PyModule_Create(&MODULE); }
