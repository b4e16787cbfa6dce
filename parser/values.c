/* parser/values.c: the scalar callbacks of yajl (strings, numbers, booleans, null) and what each
 * value means where it stands: a field of the current event or of its "args", the collective
 * information, a kernel's launch args, the top-level metadata, distributedInfo or deviceProperties.
 * Numbers arrive as raw text (yajl_number), so ts/dur become int64 ns exactly (numfast.h) and ids
 * int64; counter values and launch figures as doubles (numfast.h: strtod_l in the C locale,
 * state.c, behind an exact fast path). A value of the wrong type is counted in the diagnostics
 * and ignored. Internal to parser/ (callbacks.c). */
#include "parser/parser_int.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parser/compact.h"
#include "parser/numfast.h"

#define P ((ks_parser *)ctx)

int ks_ps_non_object_event(ks_parser *p)
{
    p->events_read++;
    ks_ps_diag_at(p, "parse.non_object_event", KS_SEV_WARNING, ks_ps_cur_offset(p),
                  "traceEvents element is not an object: skipped");
    return 1;
}

int ks_ps_not_a_trace(ks_parser *p)
{
    return ks_ps_fatal_at(p, ks_ps_cur_offset(p),
                          "not a trace: the top-level JSON value is not an object or array");
}

static void set_meta_entry(ks_parser *p, const char *s, size_t len, int is_string)
{
    ks_meta *m = &p->t->meta;
    if (len > MAX_META_VALUE) {
        ks_diag_count(&p->t->diag, "parse.long_metadata_skipped", KS_SEV_INFO, 1);
        return;
    }
    ks_str v = ks_strtab_intern(p->t->strings, s, len);
    for (size_t i = 0; i < m->nentries; i++)
        if (m->entries[i].key == p->nest.meta_key) {
            ks_diag_count(&p->t->diag, "parse.duplicate_key", KS_SEV_INFO, 1);
            m->entries[i].value = v;
            m->entries[i].is_string = (uint8_t)is_string;
            return;
        }
    m->entries = ks_xrealloc(m->entries, (m->nentries + 1) * sizeof *m->entries);
    m->entries[m->nentries].key = p->nest.meta_key;
    m->entries[m->nentries].value = v;
    m->entries[m->nentries].is_string = (uint8_t)is_string;
    m->nentries++;
}

static int int_value(enum vtype vt, const char *s, size_t len, int64_t *v)
{
    if (vt != V_NUMBER && vt != V_STRING)
        return 0;
    return int64_of(s, len, v) == KS_NUM_EXACT;
}

/* ks_trace_cat, remembering the last few categories: events come in runs of a handful. */
static uint16_t category(ks_parser *p, const char *s, size_t len)
{
    uint16_t id = 0;
    for (int i = 0; i < CAT_CACHE; i++) {
        const struct cat_entry *c = &p->cache.cat_cache[i];
        if (len && len == c->len && !memcmp(s, c->text, len)) {
            id = c->id;
            goto found;
        }
    }
    id = ks_trace_cat(p->t, s, len);
    if (len && len <= sizeof p->cache.cat_cache[0].text && p->t->ncats < UINT16_MAX) {
        /* a real id, not the overflow slot */
        struct cat_entry *c = &p->cache.cat_cache[p->cache.cat_next++ % CAT_CACHE];
        memcpy(c->text, s, len);
        c->len = len;
        c->id = id;
    }
found:
    if (p->wk.unit && id && ks_ps_first_use(p, &p->wk.cat_stamp, &p->wk.cat_stamp_cap, id))
        ks_ps_note_use(p, id, ks_trace_cat_name(p->t, id), len, 1);
    return id;
}

/* The keys that may come before "ph" in an event a worker's scan stops at, leaving it to the main
 * parser (spec.c): what they did is only the interning of a string or a category, logged in the
 * unit where the main parser would intern them next (Kineto writes "name" first). */
#define CUT_KEYS ((1ULL << K_PH) | (1ULL << K_NAME) | (1ULL << K_CAT) | (1ULL << K_TS))

/* 1 when the event read so far left nothing in the unit but the interning of its strings: only
 * CUT_KEYS, each once (a duplicate counts a diagnostic, and another key is not in keys_seen) */
static int cut_here(const cur_event *e)
{
    return !(e->keys_seen & ~CUT_KEYS) && e->nkeys == (uint32_t)__builtin_popcountll(e->keys_seen);
}

static int event_value(ks_parser *p, int key, enum vtype vt, const char *s, size_t len)
{
    cur_event *e = &p->ev;
    ks_trace *t = p->t;
    switch (key) {
    case K_PH:
        if (vt == V_STRING) {
            if (p->wk.unit && p->scan && len == 1 && (s[0] == 'M' || s[0] == 'C') && cut_here(e)) {
                /* the main parser's (commit.c): the scan stops, the unit ends at the event before
                 * (spec.c), and the main parser reads this one */
                p->wk.cut = 1;
                return 0;
            }
            e->has_ph = 1;
            e->ph_bad = len != 1;
            e->ph = len ? s[0] : 0;
        }
        break;
    case K_NAME:
        if (vt == V_STRING || vt == V_NUMBER) {
            e->name = ks_ps_intern(p, s, len);
            e->has_name = 1;
        }
        break;
    case K_CAT:
        if (vt == V_STRING) {
            e->cat = category(p, s, len);
            e->has_cat = 1;
        }
        break;
    case K_TS:
        e->has_ts = 1; /* true, false, null: given, and not a number (not missing) */
        e->ts_status = vt == V_NUMBER || vt == V_STRING ? us_to_ns(s, len, &e->ts) : KS_NUM_SYNTAX;
        break;
    case K_DUR:
        if (vt == V_NUMBER || vt == V_STRING) {
            e->has_dur = 1;
            e->dur_status = us_to_ns(s, len, &e->dur);
        }
        break;
    case K_PID:
    case K_TID: {
        ks_id id = {0, KS_ID_NONE};
        if (vt == V_NUMBER)
            id = ks_ps_parse_id_number(p, s, len);
        else if (vt == V_STRING) {
            int64_t v;
            if (ks_ps_canonical_int(s, len) && int64_of(s, len, &v) == KS_NUM_EXACT) {
                /* "25738": 2021 Kineto wrote the same thread as a string on slices and as a
                 * number on instants and flows; a canonical decimal string is that number */
                id.type = KS_ID_INT;
                id.v = v;
                ks_diag_count(&t->diag, "parse.numeric_string_id", KS_SEV_INFO, 1);
            } else {
                id.type = KS_ID_STR;
                id.v = ks_ps_intern(p, s, len);
            }
        }
        if (key == K_PID)
            e->pid = id;
        else
            e->tid = id;
        break;
    }
    case K_ID:
        if (vt == V_NUMBER || vt == V_STRING) {
            e->corr = ks_ps_parse_flow_id(s, len, vt == V_STRING, &e->flags);
            e->flags |= KS_EF_CORR;
        }
        break;
    case K_BP:
        if (vt == V_STRING && len == 1 && s[0] == 'e')
            e->flags |= KS_EF_BP_E;
        break;
    case K_SCOPE:
        if (vt == V_STRING && len == 1) {
            if (s[0] == 'g')
                e->flags |= KS_EF_SCOPE_G;
            else if (s[0] == 'p')
                e->flags |= KS_EF_SCOPE_P;
        }
        break;
    default:
        break;
    }
    return 1;
}

/* A collective arg: strings interned, numbers kept plus one (0 = absent). A worker keeps them with
 * the event in its unit (commit.c), the replay adds them to the store's side table (unit.c). */
static void coll_value(ks_parser *p, int key, enum vtype vt, const char *s, size_t len)
{
    cur_event *e = &p->ev;
    int64_t v;
    if (vt == V_STRING) {
        ks_str id = ks_ps_intern(p, s, len);
        if (key == K_COLL_NAME) {
            e->coll.name = id;
            e->has_coll = 1;
        } else if (key == K_COLL_PG)
            e->coll.pg_name = id;
        else if (key == K_COLL_RANKS)
            e->coll.pg_ranks = id;
        else if (key == K_COLL_DTYPE)
            e->coll.dtype = id;
        else if (key == K_COLL_SEQ && ks_parse_int64(s, len, &v) == KS_NUM_EXACT && v >= 0)
            e->coll.seq = v + 1;
        return;
    }
    if (!int_value(vt, s, len, &v) || v < 0 || v == INT64_MAX)
        return;
    if (key == K_COLL_IN)
        e->coll.in_nelems = v + 1;
    else if (key == K_COLL_OUT)
        e->coll.out_nelems = v + 1;
    else if (key == K_COLL_GS)
        e->coll.group_size = v + 1;
    else if (key == K_COLL_SEQ)
        e->coll.seq = v + 1;
}

/* A kernel launch arg: a number, else not kept ("blocks per SM": "inf" is a string). */
static void launch_value(ks_parser *p, int key, enum vtype vt, const char *s, size_t len)
{
    ks_launch_args *l = &p->ev.launch;
    if (vt != V_NUMBER)
        return;
    int64_t v;
    if (key == K_L_REGS || key == K_L_SHMEM) {
        if (int64_of(s, len, &v) != KS_NUM_EXACT || v < 0 || (key == K_L_REGS && v > INT32_MAX))
            return;
        if (key == K_L_REGS) {
            l->registers = (int32_t)v;
            l->has |= KS_LAUNCH_REGS;
        } else {
            l->shared_mem = v;
            l->has |= KS_LAUNCH_SHMEM;
        }
        return;
    }
    if (len >= 64)
        return;
    double d = double_of(s, len, ks_ps_c_locale());
    if (!isfinite(d) || d < 0)
        return;
    if (key == K_L_BLOCKS_SM) {
        l->blocks_per_sm = d;
        l->has |= KS_LAUNCH_BLOCKS_SM;
    } else if (key == K_L_WARPS_SM) {
        l->warps_per_sm = d;
        l->has |= KS_LAUNCH_WARPS_SM;
    } else {
        l->occupancy_pct = d;
        l->has |= KS_LAUNCH_OCC;
    }
}

/* A counter series' value (the slot was made at its key, callbacks.c). */
static void counter_value(ks_parser *p, enum vtype vt, const char *s, size_t len)
{
    cur_event *e = &p->ev;
    if (vt == V_NUMBER && len < 64) {
        p->kv[e->ncounters].value = double_of(s, len, ks_ps_c_locale());
        e->ncounters++;
    }
}

/* An allocator arg ([memory]): an exact integer, else left out. "Addr" may be written above
 * INT64_MAX (an address): its 64 bits are kept. */
static void mem_value(ks_parser *p, int key, enum vtype vt, const char *s, size_t len)
{
    ks_mem_info *m = &p->ev.mem;
    int64_t v;
    int ok = int_value(vt, s, len, &v);
    if (!ok && key == K_MEM_ADDR && vt == V_NUMBER) {
        uint64_t u = 0;
        size_t i = 0;
        for (; i < len && s[i] >= '0' && s[i] <= '9'; i++) {
            uint64_t d = (uint64_t)(s[i] - '0');
            if (u > (UINT64_MAX - d) / 10)
                break; /* past 64 bits */
            u = u * 10 + d;
        }
        if (len && i == len) {
            v = (int64_t)u;
            ok = 1;
        }
    }
    if (!ok)
        return;
    switch (key) {
    case K_MEM_ALLOCATED: m->allocated = v; m->has |= KS_MEM_ALLOCATED; break;
    case K_MEM_RESERVED: m->reserved = v; m->has |= KS_MEM_RESERVED; break;
    case K_MEM_ADDR: m->addr = v; m->has |= KS_MEM_ADDR; break;
    case K_MEM_TYPE:
        if (v >= INT32_MIN && v <= INT32_MAX) {
            m->device_type = (int32_t)v;
            m->has |= KS_MEM_TYPE;
        }
        break;
    case K_MEM_ID:
        if (v >= INT32_MIN && v <= INT32_MAX) {
            m->device_id = (int32_t)v;
            m->has |= KS_MEM_ID;
        }
        break;
    default: break;
    }
}

/* ---- shape args: an array kept as its compact JSON text ------------------------------------ */

/* The text is built in a buffer of KS_LIMIT_SHAPE_TEXT bytes and a few more, sized once, so that
 * each piece is one bounds check and a copy (an op with shapes has three such arrays; on the MTIA
 * trace a call per token through ks_buf_put was 20 M of the 47 M instructions keeping them cost
 * the parse). Most arrays come whole from the fast scanner instead (ks_ps_cap_raw); the pieces
 * are yajl's and the scanner's others. A text that would reach the limit is marked bad (dropped
 * and counted at its end); its later pieces are not kept. */
#define CAP_ROOM (KS_LIMIT_SHAPE_TEXT + 16)

void ks_ps_cap_begin(ks_parser *p, int key)
{
    p->shp.key = key;
    p->shp.depth = 1;
    p->shp.sep = 0;
    p->shp.bad = 0;
    if (p->shp.buf.cap < CAP_ROOM) {
        p->shp.buf.p = ks_xrealloc(p->shp.buf.p, CAP_ROOM);
        p->shp.buf.cap = CAP_ROOM;
    }
    p->shp.buf.p[0] = '[';
    p->shp.buf.n = 1;
}

/* room for n more bytes and the terminating NUL within the limit; else the text is bad */
static inline char *cap_room(ks_parser *p, size_t n)
{
    size_t at = p->shp.buf.n;
    if (p->shp.bad || n >= KS_LIMIT_SHAPE_TEXT - at) {
        p->shp.bad = 1;
        return NULL;
    }
    p->shp.buf.n = at + n;
    return p->shp.buf.p + at;
}

static inline void cap_byte(ks_parser *p, char c)
{
    char *d = cap_room(p, 1);
    if (d)
        *d = c;
}

int ks_ps_cap_open(ks_parser *p)
{
    char *d = cap_room(p, 1 + (size_t)p->shp.sep);
    if (d) {
        if (p->shp.sep)
            *d++ = ',';
        *d = '[';
    }
    p->shp.sep = 0;
    p->shp.depth++;
    return 1;
}

/* grid or block, s[0, n): "[x, y, z]" with three plain integers of 1 to 18 digits, blanks
 * around them (the trace's bytes; the compact text has none), into v; 0 for anything else */
static int plain_dims(const char *s, size_t n, int64_t v[3])
{
    const unsigned char *u = (const unsigned char *)s;
    if (!n || s[0] != '[')
        return 0;
    size_t i = 1;
    for (int k = 0; k < 3; k++) {
        i = ks_jscan_skip_blanks(u, n, i);
        size_t d = i;
        int64_t x = 0;
        while (i < n && s[i] >= '0' && s[i] <= '9' && i - d < 18)
            x = x * 10 + (s[i++] - '0');
        if (i == d || (i < n && s[i] >= '0' && s[i] <= '9'))
            return 0;
        i = ks_jscan_skip_blanks(u, n, i);
        if (i >= n || s[i] != (k < 2 ? ',' : ']'))
            return 0;
        i++;
        v[k] = x;
    }
    return i == n;
}

/* the event's grid or block (key) is v */
static void set_dims(ks_parser *p, int key, const int64_t v[3])
{
    memcpy(key == K_L_GRID ? p->ev.launch.grid : p->ev.launch.block, v, 3 * sizeof *v);
    p->ev.launch.has |= key == K_L_GRID ? KS_LAUNCH_GRID : KS_LAUNCH_BLOCK;
}

/* grid or block (key) from its compact text: "[x,y,z]", three integers >= 0, else not kept.
 * Plain digits (1 to 18 of them, as the compact text of a launch writes them) are read by
 * plain_dims; anything else (a sign, a longer number) as strtoll reads it, which gives the same
 * for plain digits. */
static void launch_dims(ks_parser *p, int key)
{
    int64_t v[3];
    if (plain_dims(p->shp.buf.p, p->shp.buf.n, v)) {
        set_dims(p, key, v);
        return;
    }
    p->shp.buf.p[p->shp.buf.n] = 0; /* within CAP_ROOM: n < KS_LIMIT_SHAPE_TEXT */
    const char *s = p->shp.buf.p + 1;
    for (int i = 0; i < 3; i++) {
        char *end;
        errno = 0;
        long long x = strtoll(s, &end, 10);
        if (end == s || errno || x < 0 || *end != (i < 2 ? ',' : ']') || (i == 2 && end[1]))
            return;
        v[i] = x;
        s = end + 1;
    }
    set_dims(p, key, v);
}

/* the event's shape arg of key is string id */
static void shape_arg(ks_parser *p, int key, ks_str id)
{
    cur_event *e = &p->ev;
    if (key == K_INPUT_DIMS)
        e->shape.dims = id;
    else if (key == K_INPUT_TYPE)
        e->shape.types = id;
    else
        e->shape.concrete = id;
    e->has_shape = 1;
}

/* the text is whole: launch dims read from it, or a shape arg interned (dropped when bad) */
static int cap_end(ks_parser *p)
{
    if (p->shp.key == K_L_GRID || p->shp.key == K_L_BLOCK) {
        if (!p->shp.bad)
            launch_dims(p, p->shp.key);
        return 1;
    }
    if (p->shp.bad) {
        ks_diag_count(&p->t->diag, "parse.shape_args_skipped", KS_SEV_INFO, 1);
        return 1;
    }
    shape_arg(p, p->shp.key, ks_ps_intern(p, p->shp.buf.p, p->shp.buf.n));
    return 1;
}

int ks_ps_cap_close(ks_parser *p)
{
    cap_byte(p, ']');
    p->shp.sep = 1;
    if (--p->shp.depth)
        return 1;
    return cap_end(p);
}

static const unsigned char blank_byte[256] = {[' '] = 1, ['\n'] = 1, ['\r'] = 1, ['\t'] = 1};

int ks_ps_cap_raw(ks_parser *p, int key, const char *s, size_t n)
{
    /* a shape arg met before, byte for byte: its id (shapememo.c); a launch's grid or block of
     * plain integers: read from the bytes (plain_dims) */
    int shape = key != K_L_GRID && key != K_L_BLOCK;
    uint64_t h = 0;
    ks_str id;
    int64_t dims[3];
    if (!shape && plain_dims(s, n, dims)) {
        set_dims(p, key, dims);
        p->shp.key = key;
        p->shp.depth = p->shp.sep = p->shp.bad = 0;
        return 1;
    }
    if (shape && ks_ps_memo_find(p, s, n, &h, &id)) {
        p->shp.key = key;
        p->shp.depth = p->shp.sep = p->shp.bad = 0;
        shape_arg(p, key, id);
        return 1;
    }
    ks_ps_cap_begin(p, key);
    /* the bytes less the blanks outside strings (a string holds no escape: json/scan.h, so each
     * '"' opens or closes one; the indentation after a line break skipped 8 spaces at a time);
     * the text is bad where cap_room would have found it so, at KS_LIMIT_SHAPE_TEXT bytes: bytes
     * left when it is full (the closing ']' at least) are that */
    char *o = p->shp.buf.p;
    size_t m = 0;
    unsigned in = 0;
    size_t i = ks_ps_compact_blocks(s, n, o, &m, KS_LIMIT_SHAPE_TEXT - 1, &in); /* 16 at a time */
    while (i < n && m < KS_LIMIT_SHAPE_TEXT - 1) {
        unsigned char c = (unsigned char)s[i++];
        if (!in && blank_byte[c]) {
            if (c == '\n') /* indentation */
                i = ks_skip_spaces(s, i, n);
            continue;
        }
        o[m++] = (char)c;
        in ^= c == '"';
    }
    if (i < n)
        p->shp.bad = 1;
    p->shp.buf.n = m;
    p->shp.depth = 0;
    if (!shape || p->shp.bad)
        return cap_end(p);
    id = ks_ps_intern(p, o, m);
    shape_arg(p, key, id);
    ks_ps_memo_add(p, s, n, h, id, m);
    return 1;
}

/* a string value that needs escapes (out of line: rare, and cap_value stays small), after a ','
 * when sep: quoted, its '"', '\\' and control bytes escaped as JSON needs them */
KS_NOINLINE static void cap_escaped(ks_parser *p, size_t sep, const char *s, size_t len)
{
    char *o = cap_room(p, sep + 1);
    if (o) {
        if (sep)
            *o++ = ',';
        *o = '"';
    }
    for (size_t i = 0, run = 0; i <= len; i++) {
        unsigned char c = i < len ? (unsigned char)s[i] : 0;
        if (i < len && c != '"' && c != '\\' && c >= 0x20)
            continue;
        char *d = cap_room(p, i - run);
        if (d)
            memcpy(d, s + run, i - run); /* the bytes that need no escape, at once */
        run = i + 1;
        if (i == len)
            break;
        char b[8];
        if (c == '"' || c == '\\') {
            b[0] = '\\';
            b[1] = (char)c;
            d = cap_room(p, 2);
            if (d)
                memcpy(d, b, 2);
        } else {
            snprintf(b, sizeof b, "\\u%04x", c);
            d = cap_room(p, 6);
            if (d)
                memcpy(d, b, 6);
        }
    }
    cap_byte(p, '"');
}

/* n bytes from s to d without a call for the short ones (most values of a shape arg), reading
 * none past s + n */
static inline void cap_copy(char *d, const char *s, size_t n)
{
    if (n >= 8 && n <= 16) { /* two 8-byte pieces, overlapping */
        uint64_t x, y;
        memcpy(&x, s, 8);
        memcpy(&y, s + n - 8, 8);
        memcpy(d, &x, 8);
        memcpy(d + n - 8, &y, 8);
    } else if (n >= 4 && n < 8) {
        uint32_t x, y;
        memcpy(&x, s, 4);
        memcpy(&y, s + n - 4, 4);
        memcpy(d, &x, 4);
        memcpy(d + n - 4, &y, 4);
    } else if (n < 4) {
        for (size_t k = 0; k < n; k++)
            d[k] = s[k];
    } else
        memcpy(d, s, n);
}

/* 1 when no byte of x (8 bytes, or 4 in its low half with the high half ones) is '"', '\\' or a
 * control byte: the bytes a string of compact text keeps as they are (high bytes are kept) */
static inline int cap_plain8(uint64_t x)
{
    const uint64_t ones = 0x0101010101010101ULL, highs = 0x8080808080808080ULL;
    uint64_t q = x ^ (ones * '"'), b = x ^ (ones * '\\');
    /* the three tests' borrows, in the high bit of each byte (~x: that of q and b too) */
    return !(((x - ones * 0x20) | (q - ones) | (b - ones)) & ~x & highs);
}

/* 1 when a string value needs no escape in compact text: 8 bytes at a time (the last ones
 * overlapping), 4 and 4 for 4 to 7 bytes */
static inline int cap_plain(const char *s, size_t n)
{
    if (n >= 8) {
        uint64_t x;
        for (size_t i = 0; i + 8 < n; i += 8) {
            memcpy(&x, s + i, 8);
            if (!cap_plain8(x))
                return 0;
        }
        memcpy(&x, s + n - 8, 8);
        return cap_plain8(x);
    }
    if (n >= 4) {
        uint32_t a, b;
        memcpy(&a, s, 4);
        memcpy(&b, s + n - 4, 4);
        return cap_plain8((uint64_t)a | (uint64_t)b << 32);
    }
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] < 0x20 || s[i] == '"' || s[i] == '\\')
            return 0;
    return 1;
}

/* out of line: bench/kernels_cost.sh counts it as the kernel view's */
KS_NOINLINE static int cap_value(ks_parser *p, enum vtype vt, const char *s, size_t len)
{
    size_t sep = (size_t)p->shp.sep;
    p->shp.sep = 1;
    char *d;
    switch (vt) {
    case V_STRING: {
        if (cap_plain(s, len)) { /* nothing to escape: the usual case, one copy */
            if ((d = cap_room(p, sep + len + 2))) {
                if (sep)
                    *d++ = ',';
                *d++ = '"';
                cap_copy(d, s, len);
                d[len] = '"';
            }
            return 1;
        }
        cap_escaped(p, sep, s, len); /* out of line: the rare case */
        return 1;
    }
    case V_NUMBER: break;
    case V_TRUE: s = "true", len = 4; break;
    case V_FALSE: s = "false", len = 5; break;
    default: s = "null", len = 4; break;
    }
    if ((d = cap_room(p, sep + len))) {
        if (sep)
            *d++ = ',';
        cap_copy(d, s, len);
    }
    return 1;
}

static int args_value(ks_parser *p, int key, enum vtype vt, const char *s, size_t len)
{
    cur_event *e = &p->ev;
    int64_t v;
    switch (key) {
    case K_EXT:
        if (int_value(vt, s, len, &v)) {
            e->ext = v;
            e->flags |= KS_EF_EXT;
        }
        break;
    case K_CORR:
        if (int_value(vt, s, len, &v) && !(e->flags & KS_EF_CORR && (e->ph == 's' || e->ph == 'f' || e->ph == 't'))) {
            e->corr = v;
            e->flags |= KS_EF_CORR;
        }
        break;
    case K_STREAM:
        if (int_value(vt, s, len, &v) && v >= INT32_MIN && v <= INT32_MAX) {
            e->stream = (int32_t)v;
            e->flags |= KS_EF_STREAM;
        }
        break;
    case K_DEVICE:
        if (int_value(vt, s, len, &v) && v >= INT16_MIN && v <= INT16_MAX) {
            e->device = (int16_t)v;
            e->flags |= KS_EF_DEVICE;
        }
        break;
    case K_BYTES:
        if (int_value(vt, s, len, &v)) {
            e->aux = v;
            e->flags |= KS_EF_BYTES;
        }
        break;
    case K_FINISHED:
        if (vt == V_FALSE)
            e->flags |= KS_EF_UNFINISHED;
        break;
    case K_ARG_NAME:
        if (vt == V_STRING) {
            e->arg_name = ks_ps_intern(p, s, len);
            e->has_arg_name = 1;
        }
        break;
    case K_ARG_LABELS:
        if (vt == V_STRING) {
            e->arg_labels = ks_ps_intern(p, s, len);
            e->has_arg_labels = 1;
        }
        break;
    case K_ARG_SORT:
        if (int_value(vt, s, len, &v)) {
            e->arg_sort = v;
            e->has_arg_sort = 1;
        }
        break;
    case K_COLL_NAME: case K_COLL_PG: case K_COLL_RANKS: case K_COLL_DTYPE:
    case K_COLL_IN: case K_COLL_OUT: case K_COLL_GS: case K_COLL_SEQ:
        coll_value(p, key, vt, s, len);
        break;
    case K_COUNTER:
        counter_value(p, vt, s, len);
        break;
    case K_WAIT_STREAM:
        if (int_value(vt, s, len, &v)) {
            e->sync.wait_stream = v;
            e->sync.has |= KS_SYNC_STREAM;
        }
        break;
    case K_WAIT_RECORD:
        if (int_value(vt, s, len, &v)) {
            e->sync.record_corr = v;
            e->sync.has |= KS_SYNC_RECORD;
        }
        break;
    case K_L_REGS: case K_L_SHMEM: case K_L_BLOCKS_SM: case K_L_WARPS_SM: case K_L_OCC:
        launch_value(p, key, vt, s, len);
        break;
    case K_MEM_ALLOCATED: case K_MEM_RESERVED: case K_MEM_ADDR: case K_MEM_TYPE: case K_MEM_ID:
        mem_value(p, key, vt, s, len);
        if (e->mem_counter)
            counter_value(p, vt, s, len);
        break;
    default:
        break;
    }
    return 1;
}

static int top_value(ks_parser *p, int key, enum vtype vt, const char *s, size_t len)
{
    ks_meta *m = &p->t->meta;
    ks_strtab *st = p->t->strings;
    int64_t v;
    switch (key) {
    case K_SCHEMA:
        m->schema_version = ks_strtab_intern(st, s, len);
        break;
    case K_BASETIME:
        if (int_value(vt, s, len, &v)) {
            m->base_time_ns = v;
            m->has_base_time = 1;
        }
        break;
    case K_DTU:
        if (vt == V_STRING)
            m->display_time_unit = ks_strtab_intern(st, s, len);
        break;
    case K_TRACENAME:
        if (vt == V_STRING)
            m->trace_name = ks_strtab_intern(st, s, len);
        break;
    case K_META:
        if (vt == V_STRING || vt == V_NUMBER)
            set_meta_entry(p, s, len, vt == V_STRING);
        else if (vt == V_TRUE)
            set_meta_entry(p, "true", 4, 0);
        else if (vt == V_FALSE)
            set_meta_entry(p, "false", 5, 0);
        else
            set_meta_entry(p, "null", 4, 0);
        break;
    case K_TRACE_EVENTS:
        ks_ps_diag_at(p, "parse.trace_events_not_array", KS_SEV_WARNING, ks_ps_cur_offset(p),
                      "\"traceEvents\" is not an array");
        break;
    default:
        break;
    }
    return 1;
}

int ks_ps_value(ks_parser *p, enum vtype vt, const char *s, size_t len)
{
    ks_ps_accepted(p);
    p->acc.value = 1;
    if (p->nest.skip)
        return 1;
    if (p->shp.depth)
        return cap_value(p, vt, s, len);
    int key = p->nest.key;
    p->nest.key = K_NONE;
    switch (ks_ps_top(p)) {
    case 0:
        if (p->nest.top_done)
            return 1;
        return ks_ps_not_a_trace(p);
    case CX_EVENTS:
        return ks_ps_non_object_event(p);
    case CX_EVENT:
        return event_value(p, key, vt, s, len);
    case CX_ARGS:
        return args_value(p, key, vt, s, len);
    case CX_ID2:
        if (key == K_ID)
            return event_value(p, K_ID, vt, s, len);
        return 1;
    case CX_TOP_OBJ:
        return top_value(p, key, vt, s, len);
    case CX_DIST: {
        int64_t v;
        if (key == K_RANK && int_value(vt, s, len, &v)) {
            p->t->meta.rank = v;
            p->t->meta.has_rank = 1;
        } else if (key == K_WORLD && int_value(vt, s, len, &v)) {
            p->t->meta.world_size = v;
            p->t->meta.has_world_size = 1;
        } else if (key == K_BACKEND && vt == V_STRING) {
            p->t->meta.backend = ks_strtab_intern(p->t->strings, s, len);
        }
        return 1;
    }
    case CX_DEVPROP: {
        int64_t v = 0;
        int ok = int_value(vt, s, len, &v);
        switch (key) {
        case K_DP_ID: if (ok) p->dp.id = v; break;
        case K_DP_NAME: if (vt == V_STRING) p->dp.name = ks_strtab_intern(p->t->strings, s, len); break;
        case K_DP_MEM: if (ok) p->dp.total_global_mem = v; break;
        case K_DP_MAJOR: if (ok) p->dp.compute_major = v; break;
        case K_DP_MINOR: if (ok) p->dp.compute_minor = v; break;
        case K_DP_SMS: if (ok) p->dp.num_sms = v; break;
        default: break;
        }
        return 1;
    }
    default:
        return 1;
    }
}

int ks_ps_cb_null(void *ctx)
{
    return ks_ps_value(P, V_NULL, "", 0);
}

int ks_ps_cb_boolean(void *ctx, int b)
{
    return ks_ps_value(P, b ? V_TRUE : V_FALSE, "", 0);
}

int ks_ps_cb_number(void *ctx, const char *s, size_t len)
{
    return ks_ps_value(P, V_NUMBER, s, len);
}

int ks_ps_cb_string(void *ctx, const unsigned char *s, size_t len)
{
    return ks_ps_value(P, V_STRING, (const char *)s, len);
}

#undef P
