/* redact/frames.c: the stack of open containers and what a value means in it. Each frame keeps
 * the container's kind (top level, traceEvents, an event, its args, other), its role and what its
 * current key said about the member's value (role, rule, learning); ks_rw_value_ctx reads that for
 * the value about to come and counts array elements (and events). Depth is bounded by
 * KS_LIMIT_JSON_DEPTH, as in the parser: a deeper trace is an error, not redacted. Values that
 * teach the redactor a literal (host, user, home, job) are learned here. Internal to redact/
 * (the engine). */
#include "redact/redact_int.h"

/* what the value about to be read means; counts the element of an array */
void ks_rw_value_ctx(ks_rw_eng *e, ks_rw_vctx *v)
{
    e->seen = 1;
    if (++e->nvals >= 64) { /* keep the window short in long runs of scalars */
        e->nvals = 0;
        ks_rw_mark(e, ks_rw_tok_end(e));
    }
    ks_rw_frame *p = &e->st[e->depth];
    v->parent = p;
    v->learn = LEARN_NONE;
    v->in_meta = p->in_meta;
    v->rule = R_METADATA;
    if (p->kind == RW_ROOT) {
        v->role = ROLE_SCAN;
        return;
    }
    if (p->is_map) {
        v->role = p->vrole;
        v->rule = p->vrule;
        v->learn = p->vlearn;
        return;
    }
    p->index++;
    if (p->kind == RW_EVENTS)
        e->events++;
    v->role = p->role == ROLE_SKIP ? ROLE_SKIP : ROLE_SCAN;
    /* a host or user given as an array: its elements are learned */
    if (p->learn != LEARN_UNAME)
        v->learn = p->learn;
}

int ks_rw_push(ks_rw_eng *e, int is_map, int kind, int role, int learn, int in_meta)
{
    if (e->depth + 1 >= RW_MAX_DEPTH) {
        uint64_t at = ks_rw_in_offset(e, ks_rw_tok_end(e) - 1), line, col; /* at the bracket */
        ks_rw_line_col(e, at, &line, &col);
        e->failed = 1;
        ks_error_set_at(e->err, at, line, col, "JSON nested deeper than %d levels (not redacted)",
                        RW_MAX_DEPTH);
        return 0;
    }
    if (e->depth + 2 > e->cap) {
        e->cap = e->cap ? e->cap * 2 : 64;
        e->st = ks_xrealloc(e->st, e->cap * sizeof *e->st);
        e->events_frame = e->events_depth ? &e->st[e->events_depth] : NULL;
    }
    ks_rw_frame *f = &e->st[++e->depth];
    f->is_map = (uint8_t)is_map;
    f->kind = (uint8_t)kind;
    f->role = (uint8_t)role;
    f->learn = (uint8_t)learn;
    f->in_meta = (uint8_t)in_meta;
    f->vrole = ROLE_SCAN;
    f->vrule = R_METADATA;
    f->vlearn = LEARN_NONE;
    f->index = 0;
    f->nredacted = 0;
    f->keylen = 0;
    f->key_masked = 0;
    if (kind == RW_EVENTS && !e->events_depth) {
        e->events_depth = e->depth;
        e->events_frame = f;
    }
    return 1;
}

void ks_rw_learn_value(ks_rw_eng *e, int learn, const char *s, size_t n)
{
    if (learn == LEARN_HOST)
        ks_rd_learn(e->rd, KS_CLS_HOST, s, n);
    else if (learn == LEARN_USER)
        ks_rd_learn(e->rd, KS_CLS_USER, s, n);
    else if (learn == LEARN_HOME)
        ks_rd_learn_home(e->rd, s, n);
    else if (learn == LEARN_JOB)
        ks_rd_learn(e->rd, KS_CLS_JOB, s, n);
}
