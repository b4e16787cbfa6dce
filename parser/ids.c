/* parser/ids.c: from a value's text to the store's ids: event and flow ids (numbers exactly as
 * int64 through numfast.h, or the string ids of the format), and the kind, track and counter series
 * of an event, each behind a small cache (kind by category, the last track, the last series:
 * consecutive events mostly share their thread). A worker's parser logs the tracks it uses for its
 * unit (unit.h). Internal to parser/ (values.c, commit.c). */
#include "parser/parser_int.h"

#include <stdio.h>
#include <string.h>

#include "parser/numfast.h"

ks_id ks_ps_parse_id_number(ks_parser *p, const char *s, size_t len)
{
    ks_id id = {0, KS_ID_NUM};
    int64_t v;
    int r = int64_of(s, len, &v);
    if (r == KS_NUM_EXACT) {
        id.type = KS_ID_INT;
        id.v = v;
        return id;
    }
    if (r == KS_NUM_RANGE && s[0] != '-') {
        /* above INT64_MAX: keep the uint64 bits when it fits */
        uint64_t u = 0;
        int ok = 1;
        for (size_t i = 0; i < len && ok; i++) {
            unsigned d = (unsigned)(s[i] - '0');
            if (u > (UINT64_MAX - d) / 10)
                ok = 0;
            else
                u = u * 10 + d;
        }
        if (ok) {
            id.type = KS_ID_UINT;
            id.v = (int64_t)u;
            return id;
        }
    }
    id.v = ks_ps_intern(p, s, len);
    return id;
}

/* "-?[1-9][0-9]*" or "0": the text a number would have been written as. */
int ks_ps_canonical_int(const char *s, size_t len)
{
    size_t i = 0;
    if (i < len && s[i] == '-')
        i++;
    if (i >= len || len - i > 19)
        return 0;
    if (s[i] == '0')
        return len - i == 1 && i == 0;
    for (; i < len; i++)
        if (s[i] < '0' || s[i] > '9')
            return 0;
    return 1;
}

/* Flow ids: numbers as integers; strings parsed as hex (Perfetto), else hashed. */
int64_t ks_ps_parse_flow_id(const char *s, size_t len, int is_string, uint16_t *flags)
{
    int64_t v;
    if (!is_string) {
        if (int64_of(s, len, &v) == KS_NUM_EXACT)
            return v;
        *flags |= KS_EF_FLOW_STRID;
        return (int64_t)ks_hash(s, len);
    }
    *flags |= KS_EF_FLOW_STRID;
    size_t i = 0;
    if (len > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
        i = 2;
    if (i < len && len - i <= 16) {
        uint64_t u = 0;
        size_t j;
        for (j = i; j < len; j++) {
            char c = s[j];
            unsigned d;
            if (c >= '0' && c <= '9') d = (unsigned)(c - '0');
            else if (c >= 'a' && c <= 'f') d = (unsigned)(c - 'a' + 10);
            else if (c >= 'A' && c <= 'F') d = (unsigned)(c - 'A' + 10);
            else break;
            u = u * 16 + d;
        }
        if (j == len)
            return (int64_t)u;
    }
    return (int64_t)ks_hash(s, len);
}

ks_kind ks_ps_kind_of(ks_parser *p, uint16_t cat, const ks_str name, char ph)
{
    if (cat >= p->cache.cat_kind_cap) {
        size_t old = p->cache.cat_kind_cap;
        KS_GROW(p->cache.cat_kind, p->cache.cat_kind_cap, (size_t)cat + 1);
        memset(p->cache.cat_kind + old, 0, p->cache.cat_kind_cap - old);
    }
    if (!p->cache.cat_kind[cat]) {
        const char *c = ks_trace_cat_name(p->t, cat);
        p->cache.cat_kind[cat] = (uint8_t)(ks_classify(c, strlen(c), NULL, 0) + 1);
    }
    ks_kind k = (ks_kind)(p->cache.cat_kind[cat] - 1);
    if (k == KS_K_OTHER && name && (ph == 's' || ph == 't' || ph == 'f')) {
        const char *n = ks_strtab_get(p->t->strings, name);
        k = ks_classify(NULL, 0, n, strlen(n));
    }
    return k;
}

int ks_ps_own_event(ks_parser *p)
{
    const cur_event *e = &p->ev;
    if (e->ph == 'M') {
        if (p->cache.has_own_pid && ks_id_equal(e->pid, p->cache.own_pid))
            return 1;
        const char *n = ks_strtab_get(p->t->strings, e->name);
        if (e->has_arg_name && !strcmp(n, "process_name") &&
            !strcmp(ks_strtab_get(p->t->strings, e->arg_name), "kinesift")) {
            p->cache.own_pid = e->pid;
            p->cache.has_own_pid = 1;
            return 1;
        }
        return 0;
    }
    uint16_t cat = e->cat;
    if (cat >= p->cache.cat_own_cap) {
        size_t old = p->cache.cat_own_cap;
        KS_GROW(p->cache.cat_own, p->cache.cat_own_cap, (size_t)cat + 1);
        memset(p->cache.cat_own + old, 0, p->cache.cat_own_cap - old);
    }
    if (!p->cache.cat_own[cat]) {
        const char *c = ks_trace_cat_name(p->t, cat);
        p->cache.cat_own[cat] = (uint8_t)(1 + (!strcmp(c, "kinesift") || !strncmp(c, "kinesift.", 9)));
    }
    return p->cache.cat_own[cat] == 2;
}

uint32_t ks_ps_track_of(ks_parser *p, ks_id pid, ks_id tid)
{
    if (p->cache.have_last_track && ks_id_equal(pid, p->cache.last_pid) && ks_id_equal(tid, p->cache.last_tid))
        return p->cache.last_track;
    p->cache.last_track = ks_trace_track(p->t, pid, tid);
    if (p->wk.unit && ks_ps_first_use(p, &p->wk.track_stamp, &p->wk.track_stamp_cap, p->cache.last_track)) {
        ks_unit *u = p->wk.unit;
        KS_GROW(u->tr, u->tr_cap, u->ntr + 1);
        u->tr[u->ntr].local = p->cache.last_track;
        u->tr[u->ntr].pid = pid;
        u->tr[u->ntr].tid = tid;
        u->ntr++;
    }
    p->cache.last_pid = pid;
    p->cache.last_tid = tid;
    p->cache.have_last_track = 1;
    return p->cache.last_track;
}

uint32_t ks_ps_series_of(ks_parser *p, uint32_t track, const char *name, const char *key, size_t klen)
{
    ks_trace *t = p->t;
    char buf[512];
    int n = snprintf(buf, sizeof buf, "%s %.*s", name, (int)klen, key);
    if (n < 0)
        n = 0;
    if ((size_t)n >= sizeof buf)
        n = sizeof buf - 1;
    ks_str sname = ks_strtab_intern(t->strings, buf, (size_t)n);
    if (p->cache.last_series < t->nseries && t->series[p->cache.last_series].track == track &&
        t->series[p->cache.last_series].name == sname)
        return p->cache.last_series;
    return p->cache.last_series = ks_trace_series(t, track, sname);
}
