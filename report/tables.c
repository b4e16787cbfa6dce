/* report/tables.c: a JSON writer's values into column tables (kinesift/tables.h has the rule:
 * arrays of objects are tables, objects in a row are flattened, arrays of scalars are JSON cells),
 * built as a ks_jw_sink while the writer writes its text, and the tables' accessors. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <yajl/yajl_gen.h>

#include "common/fmtg.h"
#include "common/jsonw.h"
#include "common/util.h"
#include "common/yajl_alloc.h"
#include "kinesift/tables.h"
#include "report/tables_build.h"

/* ---- columns ------------------------------------------------------------------------------- */

static void col_reserve(ks_tcol *c, size_t n)
{
    if (n <= c->cap)
        return;
    size_t cap = c->cap ? c->cap : 16;
    while (cap < n)
        cap *= 2;
    c->v = ks_xrealloc(c->v, ks_mul(cap, sizeof *c->v));
    c->valid = ks_xrealloc(c->valid, cap);
    if (c->off || c->type == KS_COL_STRING || c->type == KS_COL_JSON)
        c->off = ks_xrealloc(c->off, ks_mul(cap + 1, sizeof *c->off));
    c->cap = cap;
}

static void bytes_put(ks_tcol *c, const char *s, size_t n)
{
    if (c->nbytes + n > c->capbytes) {
        size_t cap = c->capbytes ? c->capbytes : 256;
        while (cap < c->nbytes + n)
            cap *= 2;
        c->bytes = ks_xrealloc(c->bytes, cap);
        c->capbytes = cap;
    }
    if (n)
        memcpy(c->bytes + c->nbytes, s, n);
    c->nbytes += n;
}

/* one more cell: null, or a fixed-width value, or text */
static void cell_push(ks_tcol *c, int valid, ks_tval v, const char *s, size_t n)
{
    col_reserve(c, c->n + 1);
    if (c->off && c->n == 0)
        c->off[0] = 0;
    c->valid[c->n] = (uint8_t)(valid != 0);
    c->v[c->n] = valid ? v : (ks_tval){.i = 0};
    if (c->off) {
        if (valid)
            bytes_put(c, s, n);
        c->off[c->n + 1] = (int64_t)c->nbytes;
    }
    c->n++;
}

/* the JSON text of a value (a string escaped by yajl_gen, numbers as the writer writes them) */
static void value_json(ks_tbuild *b, int type, ks_tval v, const char *s, size_t n, ks_buf *out)
{
    char t[40];
    out->n = 0;
    switch (type) {
    case KS_COL_INT64: ks_buf_put(out, t, ks_jw_int_text(t, v.i)); break;
    case KS_COL_DOUBLE: ks_buf_put(out, t, ks_fmt_g(t, v.d, 6)); break;
    case KS_COL_BOOL: ks_buf_puts(out, v.i ? "true" : "false"); break;
    case KS_COL_JSON: ks_buf_put(out, s, n); break;
    default: {
        const unsigned char *p;
        size_t m;
        yajl_gen_clear(b->esc);
        yajl_gen_reset(b->esc, NULL);
        yajl_gen_string(b->esc, (const unsigned char *)s, n);
        yajl_gen_get_buf(b->esc, &p, &m);
        ks_buf_put(out, (const char *)p, m);
        break;
    }
    }
}

/* a column whose cells hold two kinds of value: every cell becomes its JSON text */
static void col_to_json(ks_tbuild *b, ks_tcol *c)
{
    ks_tcol j = {.name = c->name, .type = KS_COL_JSON};
    j.off = ks_xmalloc(sizeof *j.off);
    j.off[0] = 0;
    ks_buf txt = {0};
    for (size_t i = 0; i < c->n; i++) {
        if (c->valid[i]) {
            const char *s = c->off ? c->bytes + c->off[i] : NULL;
            size_t n = c->off ? (size_t)(c->off[i + 1] - c->off[i]) : 0;
            value_json(b, c->type, c->v[i], s, n, &txt);
        }
        cell_push(&j, c->valid[i], (ks_tval){.i = 0}, txt.p, txt.n);
    }
    free(txt.p);
    free(c->v);
    free(c->valid);
    free(c->off);
    free(c->bytes);
    *c = j;
}

/* Set cell row of c to a value of type (KS_COL_NULL: null); rows before it that were not set
 * are null; a second value for the same row is ignored (a key twice in one object). */
static void cell_set(ks_tbuild *b, ks_tcol *c, size_t row, int type, ks_tval v, const char *s, size_t n)
{
    if (c->n > row)
        return;
    if (type != KS_COL_NULL && type != c->type) {
        if (c->type == KS_COL_NULL) {
            c->type = type;
            if (type == KS_COL_STRING || type == KS_COL_JSON) {
                c->off = ks_xrealloc(c->off, ks_mul(c->cap + 1, sizeof *c->off));
                for (size_t i = 0; i <= c->n; i++)
                    c->off[i] = 0;
            }
        } else if (c->type == KS_COL_INT64 && type == KS_COL_DOUBLE) {
            for (size_t i = 0; i < c->n; i++)
                c->v[i].d = (double)c->v[i].i;
            c->type = KS_COL_DOUBLE;
        } else if (c->type == KS_COL_DOUBLE && type == KS_COL_INT64) {
            v.d = (double)v.i;
            type = KS_COL_DOUBLE;
        } else {
            if (c->type != KS_COL_JSON)
                col_to_json(b, c);
            if (type != KS_COL_JSON) {
                value_json(b, type, v, s, n, &b->txt);
                s = b->txt.p;
                n = b->txt.n;
            }
        }
    }
    while (c->n < row)
        cell_push(c, 0, (ks_tval){.i = 0}, NULL, 0);
    cell_push(c, type != KS_COL_NULL, v, s, n);
}

/* ---- tables -------------------------------------------------------------------------------- */

static size_t table_add(ks_tables *t, const char *name, size_t n, long parent)
{
    KS_GROW(t->t, t->cap, t->n + 1);
    ks_table *tb = &t->t[t->n];
    memset(tb, 0, sizeof *tb);
    tb->name = ks_xmalloc(n + 1);
    memcpy(tb->name, name, n);
    tb->name[n] = 0;
    tb->parent = parent;
    return t->n++;
}

/* the table named name below parent (created the first time) */
static size_t table_child(ks_tables *t, size_t parent, const char *key, size_t nkey)
{
    ks_table *p = &t->t[parent];
    size_t np = strlen(p->name);
    ks_buf nm = {0};
    if (np) {
        ks_buf_put(&nm, p->name, np);
        ks_buf_put(&nm, ".", 1);
    }
    ks_buf_put(&nm, key, nkey);
    const char *name = ks_buf_cstr(&nm);
    /* the last child found first: rows of one table come one after the other */
    size_t found = t->n;
    if (p->last_child < t->n && !strcmp(t->t[p->last_child].name, name))
        found = p->last_child;
    for (size_t i = 0; found == t->n && i < t->n; i++)
        if (t->t[i].parent == (long)parent && !strcmp(t->t[i].name, name))
            found = i;
    if (found == t->n)
        found = table_add(t, name, nm.n, (long)parent);
    t->t[parent].last_child = found;
    free(nm.p);
    return found;
}

/* the column named name (n bytes) of table tb, created null when new */
static ks_tcol *column(ks_table *tb, const char *name, size_t n)
{
    size_t g = tb->guess;
    if (g < tb->ncols && strlen(tb->cols[g].name) == n && !memcmp(tb->cols[g].name, name, n)) {
        tb->guess = g + 1;
        return &tb->cols[g];
    }
    for (size_t i = 0; i < tb->ncols; i++)
        if (strlen(tb->cols[i].name) == n && !memcmp(tb->cols[i].name, name, n)) {
            tb->guess = i + 1;
            return &tb->cols[i];
        }
    KS_GROW(tb->cols, tb->capcols, tb->ncols + 1);
    ks_tcol *c = &tb->cols[tb->ncols];
    memset(c, 0, sizeof *c);
    c->name = ks_xmalloc(n + 1);
    memcpy(c->name, name, n);
    c->name[n] = 0;
    tb->guess = ++tb->ncols;
    return c;
}

/* ---- the sink: where a value goes ---------------------------------------------------------- */

enum { F_ROW, F_FLAT, F_ARR_NEW, F_ARR_TABLE, F_CELL, F_SKIP };

static ks_tframe *top(ks_tbuild *b)
{
    return b->nst ? &b->st[b->nst - 1] : NULL;
}

static ks_tframe *push(ks_tbuild *b, int kind, size_t table, size_t row)
{
    KS_GROW(b->st, b->capst, b->nst + 1);
    ks_tframe *f = &b->st[b->nst++];
    memset(f, 0, sizeof *f);
    f->kind = kind;
    f->table = table;
    f->row = row;
    f->pstart = b->path.n;
    return f;
}

static void pop(ks_tbuild *b)
{
    b->path.n = b->st[b->nst - 1].pstart;
    b->nst--;
}

/* the column name of the value after the pending key: the frame's prefix and the key, in path */
static void name_of_value(ks_tbuild *b, const ks_tframe *f)
{
    b->path.n = f->pstart + f->plen;
    ks_buf_put(&b->path, b->key.p, b->key.n);
}

static void scalar(ks_tbuild *b, int type, ks_tval v, const char *s, size_t n);

/* the cell's generator has the whole array: its text is the cell */
static void cell_done(ks_tbuild *b, ks_tframe *f)
{
    const unsigned char *p;
    size_t m;
    yajl_gen_get_buf(b->cell, &p, &m);
    ks_table *tb = &b->t->t[f->table];
    ks_tcol *c = column(tb, b->path.p + f->pstart, f->plen);
    cell_set(b, c, f->row, KS_COL_JSON, (ks_tval){.i = 0}, (const char *)p, m);
    yajl_gen_clear(b->cell);
    yajl_gen_reset(b->cell, NULL);
    pop(b);
}

/* the first element of an array: an object makes the array a table, anything else a cell */
static ks_tframe *array_decide(ks_tbuild *b, ks_tframe *f, int object)
{
    if (object) {
        f->kind = F_ARR_TABLE;
        f->child = table_child(b->t, f->table, b->path.p + f->pstart, f->plen);
    } else {
        f->kind = F_CELL;
        f->depth = 1;
        yajl_gen_array_open(b->cell);
    }
    return f;
}

static void sink_open(void *ctx, int array)
{
    ks_tbuild *b = ctx;
    ks_tframe *f = top(b);
    if (f && f->kind == F_ARR_NEW)
        f = array_decide(b, f, !array);
    if (!f) {
        if (array) {
            push(b, F_SKIP, 0, 0)->depth = 1;
            return;
        }
        if (!b->t->n)
            table_add(b->t, "", 0, -1);
        push(b, F_ROW, 0, b->t->t[0].nrows++);
        return;
    }
    switch (f->kind) {
    case F_ROW:
    case F_FLAT: {
        size_t table = f->table, row = f->row;
        name_of_value(b, f);
        size_t start = f->pstart, nname = b->path.n - f->pstart;
        if (array) {
            ks_tframe *a = push(b, F_ARR_NEW, table, row);
            a->pstart = start; /* the name stays where it is, the frame's own text */
            a->plen = nname;
        } else {
            ks_buf_put(&b->path, ".", 1);
            ks_tframe *o = push(b, F_FLAT, table, row);
            o->pstart = start;
            o->plen = nname + 1;
        }
        return;
    }
    case F_ARR_TABLE: {
        if (array) {
            push(b, F_SKIP, 0, 0)->depth = 1; /* an array among the objects: left out */
            return;
        }
        size_t child = f->child, prow = f->table;
        size_t parent_row = f->row;
        ks_table *tb = &b->t->t[child];
        size_t row = tb->nrows++;
        ks_tframe *r = push(b, F_ROW, child, row);
        r->plen = 0;
        (void)prow;
        ks_tcol *c = column(&b->t->t[child], "_parent", 7);
        cell_set(b, c, row, KS_COL_INT64, (ks_tval){.i = (int64_t)parent_row}, NULL, 0);
        return;
    }
    case F_CELL:
        f->depth++;
        (array ? yajl_gen_array_open : yajl_gen_map_open)(b->cell);
        return;
    default: f->depth++; return;
    }
}

static void sink_close(void *ctx, int array)
{
    ks_tbuild *b = ctx;
    ks_tframe *f = top(b);
    if (!f)
        return;
    switch (f->kind) {
    case F_CELL:
        (array ? yajl_gen_array_close : yajl_gen_map_close)(b->cell);
        if (--f->depth == 0)
            cell_done(b, f);
        return;
    case F_SKIP:
        if (--f->depth == 0)
            pop(b);
        return;
    case F_ARR_NEW: /* an empty array: the cell "[]" */
        yajl_gen_array_open(b->cell);
        yajl_gen_array_close(b->cell);
        cell_done(b, f);
        return;
    default: pop(b); return;
    }
}

static void sink_key(void *ctx, const char *s, size_t n)
{
    ks_tbuild *b = ctx;
    ks_tframe *f = top(b);
    if (f && f->kind == F_CELL) {
        yajl_gen_string(b->cell, (const unsigned char *)s, n);
        return;
    }
    b->key.n = 0;
    ks_buf_put(&b->key, s, n);
}

/* a scalar: a cell of the row, an element of a cell's array, or nothing (outside any row) */
static void scalar(ks_tbuild *b, int type, ks_tval v, const char *s, size_t n)
{
    ks_tframe *f = top(b);
    if (f && f->kind == F_ARR_NEW)
        f = array_decide(b, f, 0);
    if (!f)
        return;
    if (f->kind == F_CELL) {
        char t[40];
        switch (type) {
        case KS_COL_INT64: yajl_gen_number(b->cell, t, ks_jw_int_text(t, v.i)); break;
        case KS_COL_DOUBLE: yajl_gen_number(b->cell, t, ks_fmt_g(t, v.d, 6)); break;
        case KS_COL_BOOL: yajl_gen_bool(b->cell, (int)v.i); break;
        case KS_COL_STRING: yajl_gen_string(b->cell, (const unsigned char *)s, n); break;
        case KS_COL_JSON: yajl_gen_number(b->cell, s, n); break;
        default: yajl_gen_null(b->cell); break;
        }
        return;
    }
    if (f->kind != F_ROW && f->kind != F_FLAT)
        return;
    name_of_value(b, f);
    ks_table *tb = &b->t->t[f->table];
    ks_tcol *c = column(tb, b->path.p + f->pstart, b->path.n - f->pstart);
    b->path.n = f->pstart + f->plen;
    cell_set(b, c, f->row, type, v, s, n);
}

static void sink_str(void *ctx, const char *s, size_t n) { scalar(ctx, KS_COL_STRING, (ks_tval){.i = 0}, s, n); }
static void sink_i64(void *ctx, int64_t v) { scalar(ctx, KS_COL_INT64, (ks_tval){.i = v}, NULL, 0); }
static void sink_dbl(void *ctx, double v) { scalar(ctx, KS_COL_DOUBLE, (ks_tval){.d = v}, NULL, 0); }
static void sink_bool(void *ctx, int v) { scalar(ctx, KS_COL_BOOL, (ks_tval){.i = v != 0}, NULL, 0); }
static void sink_null(void *ctx) { scalar(ctx, KS_COL_NULL, (ks_tval){.i = 0}, NULL, 0); }

static void sink_u64(void *ctx, uint64_t v)
{
    if (v <= INT64_MAX)
        sink_i64(ctx, (int64_t)v);
    else
        sink_dbl(ctx, (double)v);
}

/* raw number text (a tree written back): an integer when it is one that fits, else a double */
static void sink_number_text(void *ctx, const char *s, size_t n)
{
    char t[64];
    if (n >= sizeof t) {
        scalar(ctx, KS_COL_NULL, (ks_tval){.i = 0}, NULL, 0);
        return;
    }
    memcpy(t, s, n);
    t[n] = 0;
    char *end;
    if (!strpbrk(t, ".eE")) {
        errno = 0;
        long long i = strtoll(t, &end, 10);
        if (!*end && errno == 0) {
            sink_i64(ctx, (int64_t)i);
            return;
        }
    }
    sink_dbl(ctx, strtod(t, NULL));
}

void ks_tbuild_init(ks_tbuild *b, ks_tables *t)
{
    memset(b, 0, sizeof *b);
    b->t = t;
    b->cell = yajl_gen_alloc(ks_yajl_alloc_funcs());
    b->esc = yajl_gen_alloc(ks_yajl_alloc_funcs());
    if (!b->cell || !b->esc)
        ks_out_of_memory(sizeof(void *));
    b->sink = (ks_jw_sink){.open = sink_open, .close = sink_close, .key = sink_key, .str = sink_str,
                           .i64 = sink_i64, .u64 = sink_u64, .dbl = sink_dbl, .boolean = sink_bool,
                           .null = sink_null, .number_text = sink_number_text, .ctx = b};
}

/* every column as long as its table (the rows without the key: null) */
void ks_tbuild_finish(ks_tbuild *b)
{
    ks_tables *t = b->t;
    for (size_t i = 0; i < t->n; i++)
        for (size_t j = 0; j < t->t[i].ncols; j++) {
            ks_tcol *c = &t->t[i].cols[j];
            if (c->type == KS_COL_STRING || c->type == KS_COL_JSON || c->off) {
                if (!c->off) {
                    c->off = ks_xmalloc(sizeof *c->off);
                    c->off[0] = 0;
                }
            }
            while (c->n < t->t[i].nrows)
                cell_push(c, 0, (ks_tval){.i = 0}, NULL, 0);
            col_reserve(c, 1); /* a table without rows: valid pointers all the same */
        }
    yajl_gen_free(b->cell);
    yajl_gen_free(b->esc);
    free(b->st);
    free(b->path.p);
    free(b->key.p);
    free(b->txt.p);
    memset(b, 0, sizeof *b);
}

/* ---- a document into tables, an error ----------------------------------------------------- */

/* The document's text: a stream that appends to d->text, a mapping of its own that doubles by
 * mremap: the pages written stay where they are, never copied, each faulted once. Not
 * open_memstream: glibc's grows by a fresh allocation, a copy and a memset each time it is full,
 * so every page is written two or three times and faulted twice (a tenth of the in-process
 * analysis of a 35 MB trace went there); not realloc, which copies where the process's malloc
 * keeps big blocks in its heap (as an interpreter's often does). */
static ssize_t doc_write(void *cookie, const char *buf, size_t len)
{
    ks_tables_doc *d = cookie;
    if (len > d->captext - d->ntext) {
        size_t cap = d->captext ? d->captext : KS_TABLES_TEXT_FIRST;
        while (len > cap - d->ntext)
            cap = ks_mul(cap, 2);
        void *m = d->captext ? mremap(d->text, d->captext, cap, MREMAP_MAYMOVE)
                             : mmap(NULL, cap, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m == MAP_FAILED) {
            errno = ENOMEM;
            return -1; /* the stream fails: ks_tables_doc_end stops as out of memory */
        }
        d->text = m;
        d->captext = cap;
    }
    memcpy(d->text + d->ntext, buf, len);
    d->ntext += len;
    return (ssize_t)len;
}

/* The text not kept: the writer's bytes dropped as they come (its values still reach the sink). */
static ssize_t doc_drop(void *cookie, const char *buf, size_t len)
{
    (void)cookie;
    (void)buf;
    return (ssize_t)len;
}

FILE *ks_tables_doc_begin(ks_tables_doc *d, ks_tables *t, int text)
{
    memset(d, 0, sizeof *d);
    d->f = fopencookie(d, "w", (cookie_io_functions_t){.write = text ? doc_write : doc_drop});
    if (!d->f || setvbuf(d->f, NULL, _IOFBF, KS_TABLES_TEXT_BUFFER) != 0)
        ks_out_of_memory(0);
    ks_tbuild_init(&d->b, t);
    ks_jw_capture(d->f, &d->b.sink);
    return d->f;
}

void ks_tables_doc_end(ks_tables_doc *d, ks_tables *t)
{
    ks_jw_capture(NULL, NULL);
    if (fclose(d->f) != 0)
        ks_out_of_memory(0);
    ks_tbuild_finish(&d->b);
    ks_tables_drop_json(t);
    t->json = d->text;
    t->njson = d->ntext;
    t->capjson = d->captext;
}

void ks_tables_drop_json(ks_tables *t)
{
    if (t->capjson)
        munmap(t->json, t->capjson);
    t->json = NULL;
    t->njson = t->capjson = 0;
}

ks_tables *ks_tables_fail(ks_tables *t, const char *file, const ks_error *err)
{
    char buf[800];
    ks_error_format(err, buf, sizeof buf);
    size_t fl = file ? strlen(file) : 0;
    if (file && !(!strncmp(buf, file, fl) && buf[fl] == ':'))
        snprintf(t->msg, sizeof t->msg, "%s: %s", file, buf);
    else
        snprintf(t->msg, sizeof t->msg, "%s", buf);
    t->err = *err;
    t->failed = 1;
    return t;
}

/* ---- accessors ----------------------------------------------------------------------------- */

static const ks_tcol *col_at(const ks_tables *t, size_t table, size_t col)
{
    if (!t || table >= t->n || col >= t->t[table].ncols)
        return NULL;
    return &t->t[table].cols[col];
}

const char *ks_tables_error(const ks_tables *t)
{
    return t && t->failed ? t->msg : NULL;
}

int ks_tables_error_at(const ks_tables *t, uint64_t pos[3])
{
    if (!t || !t->failed || !t->err.has_pos)
        return 0;
    pos[0] = t->err.byte;
    pos[1] = t->err.line;
    pos[2] = t->err.column;
    return 1;
}

const char *ks_tables_json(const ks_tables *t, size_t *len)
{
    if (len)
        *len = t && t->json ? t->njson : 0;
    return t && t->json ? t->json : "";
}

size_t ks_tables_count(const ks_tables *t) { return t ? t->n : 0; }

long ks_tables_find(const ks_tables *t, const char *name)
{
    for (size_t i = 0; t && name && i < t->n; i++)
        if (!strcmp(t->t[i].name, name))
            return (long)i;
    return -1;
}

const char *ks_tables_name(const ks_tables *t, size_t table) { return t && table < t->n ? t->t[table].name : NULL; }
size_t ks_tables_rows(const ks_tables *t, size_t table) { return t && table < t->n ? t->t[table].nrows : 0; }
size_t ks_tables_columns(const ks_tables *t, size_t table) { return t && table < t->n ? t->t[table].ncols : 0; }

const char *ks_tables_column_name(const ks_tables *t, size_t table, size_t col)
{
    const ks_tcol *c = col_at(t, table, col);
    return c ? c->name : NULL;
}

int ks_tables_column_type(const ks_tables *t, size_t table, size_t col)
{
    const ks_tcol *c = col_at(t, table, col);
    return c ? c->type : KS_COL_NULL;
}

const uint8_t *ks_tables_column_valid(const ks_tables *t, size_t table, size_t col)
{
    const ks_tcol *c = col_at(t, table, col);
    return c ? c->valid : NULL;
}

const void *ks_tables_column_data(const ks_tables *t, size_t table, size_t col)
{
    const ks_tcol *c = col_at(t, table, col);
    if (!c)
        return NULL;
    if (c->type == KS_COL_STRING || c->type == KS_COL_JSON)
        return c->bytes ? c->bytes : "";
    return c->v;
}

const int64_t *ks_tables_column_offsets(const ks_tables *t, size_t table, size_t col)
{
    const ks_tcol *c = col_at(t, table, col);
    return c && (c->type == KS_COL_STRING || c->type == KS_COL_JSON) ? c->off : NULL;
}

void ks_tables_free(ks_tables *t)
{
    if (!t)
        return;
    for (size_t i = 0; i < t->n; i++) {
        for (size_t j = 0; j < t->t[i].ncols; j++) {
            ks_tcol *c = &t->t[i].cols[j];
            free(c->name);
            free(c->v);
            free(c->valid);
            free(c->off);
            free(c->bytes);
        }
        free(t->t[i].cols);
        free(t->t[i].name);
    }
    free(t->t);
    ks_tables_drop_json(t);
    free(t);
}
