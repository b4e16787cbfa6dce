/* parser/callbacks.c: the container callbacks of yajl (maps, arrays, keys) and the yajl handle
 * that calls them. A small stack of contexts (top-level object, traceEvents, event, args, ...)
 * says what each container is; containers the format does not use are skipped with a depth count
 * (bounded by KS_LIMIT_JSON_DEPTH). An event begins at its '{' and is committed at its '}'
 * (commit.c); the scalar callbacks are in values.c. Every callback first records where yajl
 * accepted a token (ks_ps_accepted), so a later error is placed the same whatever the chunking.
 * Internal to parser/. */
#include "parser/parser_int.h"

#include <string.h>

#include "common/yajl_alloc.h"
#include "json/scan.h"

#define P ((ks_parser *)ctx)

static void push(ks_parser *p, int c)
{
    if (p->nest.depth < (int)sizeof p->nest.stack) {
        p->nest.stack[p->nest.depth++] = (uint8_t)c;
        p->nest.ctx = c;
    }
}

static void pop(ks_parser *p)
{
    if (p->nest.depth)
        p->nest.depth--;
    p->nest.ctx = p->nest.depth ? p->nest.stack[p->nest.depth - 1] : 0;
}

static int enter_skip(ks_parser *p)
{
    if (++p->nest.skip > MAX_SKIP_DEPTH)
        return ks_ps_fatal_at(p, ks_ps_cur_offset(p), "JSON nested deeper than %d levels", MAX_SKIP_DEPTH);
    return 1;
}

static void begin_event(ks_parser *p)
{
    cur_event *e = &p->ev;
    memset(e, 0, sizeof *e);
    p->shp.depth = 0;
    /* yajl has consumed the '{'; a unit's events have no positions (any positioned diagnostic makes
     * the unit unclean, position.c): the mapping of the offset is left out there */
    e->start = p->wk.unit ? 0 : ks_ps_cur_offset(p) - 1;
    p->kvkeys.n = 0;
}

static int cb_start_map(void *ctx)
{
    ks_parser *p = P;
    ks_ps_accepted(p);
    p->acc.value = 0;
    if (p->nest.skip)
        return enter_skip(p);
    if (p->shp.depth) { /* an object inside a shape arg: not kept */
        p->shp.bad = 1;
        return enter_skip(p);
    }
    int key = p->nest.key;
    p->nest.key = K_NONE;
    switch (ks_ps_top(p)) {
    case 0:
        if (p->nest.top_done)
            return 1;
        if (!p->t->container)
            p->t->container = '{';
        push(p, CX_TOP_OBJ);
        return 1;
    case CX_TOP_OBJ:
        if (key == K_DIST) {
            push(p, CX_DIST);
            return 1;
        }
        return enter_skip(p);
    case CX_EVENTS:
        begin_event(p);
        push(p, CX_EVENT);
        return 1;
    case CX_EVENT:
        if (key == K_ARGS) {
            push(p, CX_ARGS);
            return 1;
        }
        if (key == K_ID2) {
            push(p, CX_ID2);
            return 1;
        }
        return enter_skip(p);
    case CX_DEVPROPS:
        memset(&p->dp, 0, sizeof p->dp);
        p->dp.id = -1;
        push(p, CX_DEVPROP);
        return 1;
    default:
        return enter_skip(p);
    }
}

static int cb_end_map(void *ctx)
{
    ks_parser *p = P;
    ks_ps_accepted(p);
    p->acc.value = 1;
    if (p->nest.skip) {
        p->nest.skip--;
        return 1;
    }
    int c = ks_ps_top(p);
    pop(p);
    switch (c) {
    case CX_EVENT:
        ks_ps_commit_event(p);
        if (!p->in.feeding_prefix)
            p->in.last_ev_run_end = p->in.feed_off + ks_ps_consumed(p);
        if (!p->wk.unit) /* a unit maps only its last event's end, once (spec.c, collect) */
            p->last_commit_end = ks_ps_cur_offset(p);
        break;
    case CX_TOP_OBJ:
        p->nest.top_done = 1;
        break;
    case CX_DEVPROP: {
        ks_meta *m = &p->t->meta;
        m->devices = ks_xrealloc(m->devices, (m->ndevices + 1) * sizeof *m->devices);
        m->devices[m->ndevices++] = p->dp;
        break;
    }
    default:
        break;
    }
    return 1;
}

/* the args whose array value is kept as its compact text */
static inline int is_cap_key(int key)
{
    return key == K_INPUT_DIMS || key == K_INPUT_TYPE || key == K_CONCRETE || key == K_L_GRID || key == K_L_BLOCK;
}

/* the array value of a key cb_map_key asked for whole (only the scanner calls it) */
int ks_ps_cb_raw_array(void *ctx, const unsigned char *s, size_t n)
{
    ks_parser *p = P;
    ks_ps_accepted(p);
    p->acc.value = 1;
    int key = p->nest.key;
    p->nest.key = K_NONE;
    return ks_ps_cap_raw(p, key, (const char *)s, n);
}

static int cb_start_array(void *ctx)
{
    ks_parser *p = P;
    ks_ps_accepted(p);
    p->acc.value = 0;
    if (p->nest.skip)
        return enter_skip(p);
    if (p->shp.depth)
        return ks_ps_cap_open(p);
    int key = p->nest.key;
    p->nest.key = K_NONE;
    if (ks_ps_top(p) == CX_ARGS && is_cap_key(key)) {
        ks_ps_cap_begin(p, key);
        return 1;
    }
    switch (ks_ps_top(p)) {
    case 0:
        if (p->nest.top_done)
            return 1;
        if (!p->t->container)
            p->t->container = '[';
        p->nest.in_events_seen = 1;
        push(p, CX_EVENTS);
        return 1;
    case CX_TOP_OBJ:
        if (key == K_TRACE_EVENTS) {
            p->nest.in_events_seen = 1;
            push(p, CX_EVENTS);
            return 1;
        }
        if (key == K_DEVPROPS) {
            push(p, CX_DEVPROPS);
            return 1;
        }
        return enter_skip(p);
    case CX_EVENTS:
        ks_ps_non_object_event(p);
        return enter_skip(p);
    default:
        return enter_skip(p);
    }
}

static int cb_end_array(void *ctx)
{
    ks_parser *p = P;
    ks_ps_accepted(p);
    p->acc.value = 1;
    if (p->nest.skip) {
        p->nest.skip--;
        return 1;
    }
    if (p->shp.depth)
        return ks_ps_cap_close(p);
    int c = ks_ps_top(p);
    pop(p);
    if (c == CX_EVENTS) {
        p->nest.events_done = 1;
        if (!p->nest.depth)
            p->nest.top_done = 1;
    }
    return 1;
}

/* a key kinesift reads, given twice in one event (or its args): the last value is used, counted */
static void seen_key(ks_parser *p)
{
    if (p->nest.key <= K_IGNORE || p->nest.key >= 64)
        return;
    uint64_t bit = (uint64_t)1 << p->nest.key;
    if (p->ev.keys_seen & bit)
        ks_diag_count(&p->t->diag, "parse.duplicate_key", KS_SEV_INFO, 1);
    p->ev.keys_seen |= bit;
}

static int cb_map_key(void *ctx, const unsigned char *key, size_t len)
{
    ks_parser *p = P;
    ks_ps_accepted(p);
    p->acc.value = 0;
    if (p->nest.skip)
        return 1;
    const char *k = (const char *)key;
    switch (ks_ps_top(p)) {
    case CX_EVENT:
        p->ev.nkeys++;
        p->nest.key = ks_ps_event_key(k, len);
        seen_key(p);
        return 1;
    case CX_ARGS:
        p->nest.key = ks_ps_args_key(k, len);
        seen_key(p);
        if (p->scan && is_cap_key(p->nest.key))
            p->scan->want_raw = 1; /* an array value whole, if the scanner can (cb_raw_array) */
        p->ev.mem_counter = 0;
        int mem = p->nest.key >= K_MEM_ALLOCATED && p->nest.key <= K_MEM_ID;
        if ((p->nest.key == K_IGNORE || mem) && (!p->ev.has_ph || p->ev.ph == 'C')) {
            /* a counter series, unless the event turns out not to be a counter (an allocator key
             * is read as both until "ph" says which) */
            if (mem)
                p->ev.mem_counter = 1;
            else
                p->nest.key = K_COUNTER;
            KS_GROW(p->kv, p->kv_cap, p->ev.ncounters + 1);
            p->kv[p->ev.ncounters].key_off = p->kvkeys.n;
            p->kv[p->ev.ncounters].key_len = len;
            ks_buf_put(&p->kvkeys, k, len);
        }
        return 1;
    case CX_TOP_OBJ:
        p->nest.key = ks_ps_top_key(k, len);
        if (p->nest.key != K_META && !p->in.feeding_prefix) {
            /* a duplicate traceEvents adds its events; the other values: the last one wins */
            if (p->nest.top_seen & (1u << p->nest.key))
                ks_diag_count(&p->t->diag, "parse.duplicate_key", KS_SEV_INFO, 1);
            p->nest.top_seen |= 1u << p->nest.key;
        }
        if (p->nest.key == K_META)
            p->nest.meta_key = ks_strtab_intern(p->t->strings, k, len);
        return 1;
    case CX_ID2:
        p->nest.key = (KEYIS("local") || KEYIS("global")) ? K_ID : K_IGNORE;
        return 1;
    case CX_DIST:
        p->nest.key = KEYIS("rank") ? K_RANK : KEYIS("world_size") ? K_WORLD : KEYIS("backend") ? K_BACKEND : K_IGNORE;
        return 1;
    case CX_DEVPROP:
        p->nest.key = KEYIS("id") ? K_DP_ID : KEYIS("name") ? K_DP_NAME : KEYIS("totalGlobalMem") ? K_DP_MEM
               : KEYIS("computeMajor") ? K_DP_MAJOR : KEYIS("computeMinor") ? K_DP_MINOR
               : KEYIS("numSms") ? K_DP_SMS : K_IGNORE;
        return 1;
    default:
        p->nest.key = K_IGNORE;
        return 1;
    }
}

static const yajl_callbacks callbacks = {
    ks_ps_cb_null, ks_ps_cb_boolean, NULL, NULL, ks_ps_cb_number, ks_ps_cb_string,
    cb_start_map, cb_map_key, cb_end_map, cb_start_array, cb_end_array,
};

#undef P

const yajl_callbacks *ks_ps_callbacks(void)
{
    return &callbacks;
}

yajl_handle ks_ps_new_handle(ks_parser *p)
{
    /* yajl's allocations go through the library's out-of-memory handler too */
    yajl_handle h = yajl_alloc(&callbacks, ks_yajl_alloc_funcs(), p);
    if (h)
        yajl_config(h, yajl_dont_validate_strings, 1); /* the pre-filter validates UTF-8 */
    return h;
}
