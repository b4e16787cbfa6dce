/* redact/members.c: the engine's container callbacks: keys (what a key means in its container,
 * remembered in a small cache since keys repeat in every event; a key a rule rewrites is
 * re-encoded like a value) and the opening and closing of maps and arrays (a stripped container is
 * replaced whole by "__stripped__" and its bytes dropped, learning still done inside it).
 * Internal to redact/ (the engine). */
#include "redact/redact_int.h"

#include <string.h>

static void set_key(ks_rw_frame *f, const char *k, size_t n, int masked)
{
    size_t l = n > RW_KEY_MAX ? RW_KEY_MAX : n;
    memcpy(f->key, k, l);
    f->keylen = (uint8_t)l;
    f->key_masked = (uint8_t)masked;
}

/* A key is scanned like any string (a secret planted in an args key is found), except the keys
 * the trace format defines: rewriting "stream" or "name" would break the trace. */
static int scan_key(const ks_rw_frame *f, int role, const char *k, size_t n)
{
    if (f->role == ROLE_SKIP)
        return 0;
    switch (f->kind) {
    case RW_TOP: return role == ROLE_STRIP || role == ROLE_SCAN;
    case RW_EVENT: return ks_rd_event_role(k, n) == ROLE_SCAN;
    case RW_ARGS: return !ks_rd_known_arg_key(k, n);
    default: return 1;
    }
}

static int key_role(ks_rw_eng *e, const ks_rw_frame *f, const char *k, size_t n, int *rule)
{
    int role = ROLE_SCAN;
    switch (f->kind) {
    case RW_TOP:
        role = ks_rd_top_role(e->rd, k, n, rule);
        break;
    case RW_EVENT:
        role = ks_rd_event_role(k, n);
        if (role == ROLE_SCAN)
            role = ks_rd_inner_role(k, n, rule);
        break;
    case RW_ARGS:
        role = ks_rd_args_role(e->rd, k, n, rule);
        break;
    default:
        if (f->role == ROLE_SKIP || f->role == ROLE_SENSITIVE)
            role = ROLE_SKIP;
        else
            role = ks_rd_inner_role(k, n, rule);
        break;
    }
    return role;
}

/* role, rule and whether to scan a key, through the key cache */
static int key_info(ks_rw_eng *e, const ks_rw_frame *f, const char *k, size_t n, int *rule, int *scan)
{
    uint8_t kind = (uint8_t)(f->kind | (f->role == ROLE_SKIP ? 0x10 : 0) |
                             (f->role == ROLE_SENSITIVE ? 0x20 : 0));
    ks_rw_key_slot *s = NULL;
    if (n <= RW_KC_KEY) {
        s = &e->kc[(ks_hash(k, n) ^ kind) & (RW_KC_SLOTS - 1)];
        if (s->used && s->kind == kind && s->n == n && !memcmp(s->k, k, n)) {
            *rule = s->rule;
            *scan = s->scan;
            return s->role;
        }
    }
    int role = key_role(e, f, k, n, rule);
    *scan = scan_key(f, role, k, n);
    if (s) {
        s->used = 1;
        s->kind = kind;
        s->n = (uint8_t)n;
        memcpy(s->k, k, n);
        s->role = (uint8_t)role;
        s->rule = (uint16_t)*rule;
        s->scan = (uint8_t)*scan;
    }
    return role;
}

int ks_rw_on_key(void *ctx, const unsigned char *uk, size_t n)
{
    ks_rw_eng *e = ctx;
    const char *k = (const char *)uk;
    ks_rw_frame *f = &e->st[e->depth];
    int rule = R_METADATA, scan, learn = LEARN_NONE;
    int role = key_info(e, f, k, n, &rule, &scan);
    if (f->in_meta || f->kind == RW_TOP) /* metadata, distributedInfo, top-level keys */
        learn = ks_rd_learn_key(k, n, f->learn == LEARN_UNAME);
    if (learn == LEARN_NONE && f->learn != LEARN_UNAME)
        learn = f->learn; /* a host or user given as an object: its values are learned */
    f->vrole = (uint8_t)role;
    f->vrule = (uint16_t)rule;
    f->vlearn = (uint8_t)learn;
    int masked = 0;
    if (e->check)
        set_key(f, k, n, 1);
    if (scan) { /* muted inside a stripped block: learning only (see scalars.c) */
        uint64_t end = 0;
        if (e->check) {
            end = ks_rw_tok_end(e);
            e->tok_start = ks_rw_string_start_n(e, end, k, n);
        }
        e->in_key = 1;
        uint64_t before = e->res->findings;
        const char *r;
        size_t rn;
        if (ks_rd_scan(e->rd, k, n, &r, &rn)) {
            masked = 1;
            /* two keys holding secrets would both become "[REDACTED:rule]": a duplicate key that
             * a reader resolves by dropping one value. Later ones are numbered: "...#2". */
            if (memmem(r, rn, "[REDACTED:", 10) && f->nredacted++ > 0) {
                ks_buf *b = &e->enc;
                b->n = 0;
                ks_buf_put(b, r, rn);
                ks_buf_printf(b, "#%u", (unsigned)f->nredacted);
                r = b->p;
                rn = b->n;
            }
            if (!end)
                end = ks_rw_tok_end(e);
            ks_rw_replace_str(e, ks_rw_string_start_n(e, end, k, n), end, r, rn);
            ks_rw_mark(e, end);
        } else if (!e->check && !e->discard) {
            ks_rw_note_copy(e, k);
        }
        masked |= e->res->findings != before;
        e->in_key = 0;
    }
    if (e->check)
        set_key(f, k, n, masked);
    return !e->failed;
}

/* a container opens: its kind and role, or its replacement */
static int on_open(ks_rw_eng *e, int is_map)
{
    ks_rw_vctx v;
    ks_rw_value_ctx(e, &v);
    ks_rw_frame *p = v.parent;
    int in_meta = v.in_meta;
    int learn = v.learn; /* a container under a host, user, job or HOME key, or uname */
    if (p->kind == RW_TOP && v.role != ROLE_EVENTS)
        in_meta = 1;
    /* inside a stripped block the roles are those --check gives (its rules run, muted) */
    int kind = RW_OTHER, role = ROLE_SCAN;
    switch (v.role) {
    case ROLE_STRIP:
    case ROLE_SENSITIVE:
    case ROLE_HOSTNAME:
    case ROLE_USERNAME:
    case ROLE_JOB:
    case ROLE_ID:
    case ROLE_TRACENAME: {
        int rule = v.role == ROLE_SENSITIVE ? R_SENSITIVE_KEY : v.rule;
        uint64_t end = ks_rw_tok_end(e);
        e->tok_start = end - 1;
        e->in_key = 0;
        ks_rd_hit(e->rd, rule, 1);
        role = v.role == ROLE_SENSITIVE ? ROLE_SENSITIVE : ROLE_SCAN;
        if (e->check || e->discard)
            break;
        if (v.role == ROLE_SENSITIVE)
            ks_rw_replace_raw(e, end - 1, end, "\"[REDACTED:sensitive-key]\"", 26);
        else
            ks_rw_replace_raw(e, end - 1, end, "\"__stripped__\"", 14);
        ks_rw_mark(e, end);
        if (!ks_rw_push(e, is_map, RW_OTHER, role, learn, in_meta))
            return 0;
        e->discard = 1;
        e->rd->muted = 1;
        e->discard_depth = e->depth;
        return 1;
    }
    case ROLE_SKIP:
    case ROLE_ID2:
        role = ROLE_SKIP;
        break;
    case ROLE_EVENTS:
        kind = is_map ? RW_OTHER : RW_EVENTS;
        break;
    case ROLE_ARGS:
        kind = is_map ? RW_ARGS : RW_OTHER;
        break;
    default:
        if (p->kind == RW_ROOT)
            kind = is_map ? RW_TOP : RW_EVENTS;
        else if (p->kind == RW_EVENTS && is_map)
            kind = RW_EVENT;
        break;
    }
    return ks_rw_push(e, is_map, kind, role, learn, in_meta);
}

static int on_close(ks_rw_eng *e)
{
    uint64_t end = ks_rw_tok_end(e);
    if (e->discard && e->depth == e->discard_depth) {
        e->flushed = end; /* the container's bytes are gone: "__stripped__" stands for them */
        e->discard = 0;
        e->rd->muted = 0;
    }
    if (e->depth == e->events_depth) {
        e->events_depth = 0;
        e->events_frame = NULL;
    }
    e->depth--;
    if (e->pem_depth && e->depth + 1 < e->pem_depth)
        e->pem_depth = 0; /* a private key's lines end with the parent of their first container */
    ks_rw_mark(e, end);
    return 1;
}

int ks_rw_on_start_map(void *ctx)
{
    return on_open(ctx, 1);
}

int ks_rw_on_start_array(void *ctx)
{
    return on_open(ctx, 0);
}

int ks_rw_on_end(void *ctx)
{
    return on_close(ctx);
}
