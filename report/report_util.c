/* report/report_util.c: helpers shared by the writers (see report_util.h). */
#include "report/report_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"

void ks_report_json_id(ks_jw *w, const char *key, const ks_trace *t, ks_id id)
{
    ks_jw_key(w, key);
    switch (id.type) {
    case KS_ID_INT: ks_jw_int(w, id.v); break;
    case KS_ID_UINT: ks_jw_uint(w, (uint64_t)id.v); break;
    case KS_ID_STR: ks_jw_str(w, ks_trace_str(t, (ks_str)id.v)); break;
    case KS_ID_NUM: {
        const char *s = ks_trace_str(t, (ks_str)id.v);
        ks_jw_number_text(w, s, strlen(s));
        break;
    }
    default: ks_jw_null(w); break;
    }
}

static void json_kinds(ks_jw *w, const ks_diag *d)
{
    for (size_t i = 0; d && i < d->n; i++) {
        const ks_diag_kind *k = &d->kinds[i];
        ks_jw_obj(w);
        ks_jw_kstr(w, "id", k->id);
        ks_jw_kstr(w, "severity", ks_severity_name(k->severity));
        ks_jw_kuint(w, "count", k->count);
        ks_jw_key(w, "examples");
        ks_jw_arr(w);
        for (size_t j = 0; j < k->nexamples; j++) {
            const ks_diag_example *e = &k->ex[j];
            ks_jw_obj(w);
            if (e->has_pos) {
                ks_jw_kuint(w, "byte", e->byte);
                ks_jw_kuint(w, "line", e->line);
                ks_jw_kuint(w, "column", e->column);
            }
            ks_jw_kstr(w, "text", e->text);
            ks_jw_end_obj(w);
        }
        ks_jw_end_arr(w);
        ks_jw_end_obj(w);
    }
}

void ks_report_json_diagnostics(ks_jw *w, const ks_diag *a, const ks_diag *b)
{
    ks_jw_arr(w);
    json_kinds(w, a);
    json_kinds(w, b);
    ks_jw_end_arr(w);
}

/* a time relative to the window start, exact: "+437.810230 ms", "-12.500 us", "+0 ns" */
static void rel_time(FILE *out, long long v)
{
    unsigned long long a = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
    fputc(v < 0 ? '-' : '+', out);
    if (a >= 1000000ULL)
        fprintf(out, "%llu.%06llu ms", a / 1000000ULL, a % 1000000ULL);
    else if (a >= 1000ULL)
        fprintf(out, "%llu.%03llu us", a / 1000ULL, a % 1000ULL);
    else
        fprintf(out, "%llu ns", a);
}

/* an integer at s (optional '-'), its end in *end; 0 when there is none */
static int int_at(const char *s, long long *v, const char **end)
{
    char *e;
    if (!((*s >= '0' && *s <= '9') || (*s == '-' && s[1] >= '0' && s[1] <= '9')))
        return 0;
    *v = strtoll(s, &e, 10);
    *end = e;
    return 1;
}

/* an example's text with its absolute times ("[A, B)" intervals, "at A ns") relative to origin */
static void text_relative(FILE *out, const char *s, ks_ns origin)
{
    while (*s) {
        long long a, b;
        const char *e, *f;
        if (*s == '[' && int_at(s + 1, &a, &e) && e[0] == ',' && e[1] == ' ' && int_at(e + 2, &b, &f) && *f == ')') {
            fputc('[', out);
            rel_time(out, (long long)ks_sat_sub(a, origin));
            fputs(", ", out);
            rel_time(out, (long long)ks_sat_sub(b, origin));
            fputc(')', out);
            s = f + 1;
        } else if (!strncmp(s, "at ", 3) && int_at(s + 3, &a, &e) && !strncmp(e, " ns", 3)) {
            fputs("at ", out);
            rel_time(out, (long long)ks_sat_sub(a, origin));
            s = e + 3;
        } else {
            fputc(*s++, out);
        }
    }
}

static void text_kinds(FILE *out, const ks_diag *d, const char *indent, int relative, ks_ns origin)
{
    for (size_t i = 0; d && i < d->n; i++) {
        const ks_diag_kind *k = &d->kinds[i];
        fprintf(out, "%s%-7s %-40s %llu\n", indent, ks_severity_name(k->severity), k->id,
                (unsigned long long)k->count);
        for (size_t j = 0; j < k->nexamples; j++) {
            const ks_diag_example *e = &k->ex[j];
            if (e->has_pos)
                fprintf(out, "%s        byte %llu (line %llu, column %llu): %s\n", indent,
                        (unsigned long long)e->byte, (unsigned long long)e->line,
                        (unsigned long long)e->column, e->text);
            else if (relative) {
                fprintf(out, "%s        ", indent);
                text_relative(out, e->text, origin);
                fputc('\n', out);
            } else
                fprintf(out, "%s        %s\n", indent, e->text);
        }
    }
}

void ks_report_text_diagnostics(FILE *out, const ks_diag *a, const ks_diag *b, const char *indent)
{
    if ((!a || !a->n) && (!b || !b->n)) {
        fprintf(out, "%snone\n", indent);
        return;
    }
    text_kinds(out, a, indent, 0, 0);
    text_kinds(out, b, indent, 0, 0);
}

void ks_report_text_diagnostics_at(FILE *out, const ks_diag *a, const ks_diag *b, const char *indent, ks_ns origin)
{
    if ((!a || !a->n) && (!b || !b->n)) {
        fprintf(out, "%snone\n", indent);
        return;
    }
    fprintf(out, "%s(times relative to the window start, %lld ns; JSON keeps them absolute)\n", indent,
            (long long)origin);
    text_kinds(out, a, indent, 1, origin);
    text_kinds(out, b, indent, 1, origin);
}

void ks_csv_field(FILE *out, const char *s)
{
    if (!strpbrk(s, ",\"\n\r")) {
        fputs(s, out);
        return;
    }
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', out);
        fputc(*s, out);
    }
    fputc('"', out);
}

/* back to the start of the UTF-8 character holding byte i */
static size_t char_start(const char *s, size_t i)
{
    while (i > 0 && ((unsigned char)s[i] & 0xC0) == 0x80)
        i--;
    return i;
}

const char *ks_text_name(const char *s, size_t max, char *buf, size_t n)
{
    size_t len = strlen(s);
    if (len <= max || max < 16 || n <= max)
        return s;
    static const char mid[] = " ... ";
    size_t keep = max - (sizeof mid - 1), head = char_start(s, keep * 2 / 3), tail = char_start(s, len - (keep - keep * 2 / 3));
    if (tail < head)
        tail = head;
    snprintf(buf, n, "%.*s%s%s", (int)head, s, mid, s + tail);
    return buf;
}

const char *ks_text_share(char *buf, size_t n, int64_t num, int64_t den, int digits, int sign)
{
    if (den > 0)
        snprintf(buf, n, "%.*f%s", digits, 100.0 * (double)num / (double)den, sign ? "%" : "");
    else
        snprintf(buf, n, "n/a");
    return buf;
}

void ks_report_json_share(ks_jw *w, const char *key, int64_t num, int64_t den)
{
    if (den > 0)
        ks_jw_kdouble(w, key, (double)num / (double)den);
    else
        ks_jw_knull(w, key);
}

void ks_report_json_int(ks_jw *w, const char *key, int64_t v, int observed)
{
    if (observed)
        ks_jw_kint(w, key, v);
    else
        ks_jw_knull(w, key);
}

char *ks_report_measure_by_hand(const char *platform, const char *validate_cmd)
{
    if (!validate_cmd || !platform || !strcmp(platform, "CUDA"))
        return NULL;
    return ks_xasprintf("by hand: `kinesift validate` runs on CUDA only and this is a %s trace; on this platform "
                        "time the same pattern with and without the change, as `%s` does on CUDA, and compare",
                        platform, validate_cmd);
}

void ks_input_error_list_add(ks_input_error_list *l, const char *input, const char *message)
{
    KS_GROW(l->input, l->cap, l->n + 1);
    KS_GROW(l->message, l->cap2, l->n + 1);
    l->input[l->n] = ks_xstrdup(input);
    l->message[l->n] = ks_xstrdup(message);
    l->n++;
}

void ks_input_error_list_json(ks_jw *w, ks_input_error_list *l)
{
    ks_jw_key(w, "errors");
    ks_jw_arr(w);
    for (size_t i = 0; i < l->n; i++) {
        ks_jw_obj(w);
        ks_jw_kstr(w, "input", l->input[i]);
        ks_jw_kstr(w, "error", l->message[i]);
        ks_jw_end_obj(w);
        free(l->input[i]);
        free(l->message[i]);
    }
    ks_jw_end_arr(w);
    free(l->input);
    free(l->message);
    memset(l, 0, sizeof *l);
}

/* ---- names in text tables ------------------------------------------------------------------ */

/* the index of the bracket matching the opening one at s[i] (open/close: "<>" or "()"), or -1 */
static long matching(const char *s, size_t len, size_t i, char open, char close)
{
    int depth = 0;
    for (size_t j = i; j < len; j++) {
        if (s[j] == open)
            depth++;
        else if (s[j] == close && --depth == 0)
            return (long)j;
    }
    return -1;
}

/* replace s[a+1 .. b) by "..." in place (b > a + 4 so that it shrinks); returns the new length */
static size_t fold(char *s, size_t len, size_t a, size_t b)
{
    memcpy(s + a + 1, "...", 3);
    memmove(s + a + 4, s + b, len - b + 1);
    return len - (b - a - 4);
}

/* the deepest nesting of "<>" in s, or 0 when there is none or they do not balance ("operator<",
 * "->"): then the template arguments are left alone */
static int template_depth(const char *s, size_t len)
{
    int depth = 0, deepest = 0;
    for (size_t i = 0; i < len && depth >= 0; i++) {
        depth += s[i] == '<' ? 1 : s[i] == '>' ? -1 : 0;
        deepest = depth > deepest ? depth : deepest;
    }
    return depth ? 0 : deepest;
}

static int ident_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* inside template arguments (balanced "<>"), "a::b::C" becomes "C" and "(anonymous namespace)::"
 * goes: the qualifiers repeat what the kernel's own name says; returns the new length */
static size_t drop_namespaces(char *s, size_t len)
{
    static const char anon[] = "(anonymous namespace)";
    size_t o = 0;
    int depth = 0;
    for (size_t i = 0; i < len; i++) {
        depth += s[i] == '<' ? 1 : s[i] == '>' ? -1 : 0;
        if (depth > 0 && s[i] == ':' && i + 1 < len && s[i + 1] == ':') {
            size_t b = o; /* back over the qualifier just written */
            while (b > 0 && ident_char(s[b - 1]))
                b--;
            if (b == o && b >= sizeof anon - 1 && !memcmp(s + b - (sizeof anon - 1), anon, sizeof anon - 1))
                b -= sizeof anon - 1;
            if (b < o) {
                o = b;
                i++; /* and the "::" */
                continue;
            }
        }
        s[o++] = s[i];
    }
    s[o] = 0;
    return o;
}

/* every "<...>" group opening at nesting level `level` (1 = outermost) becomes "<...>"; returns
 * the new length */
static size_t fold_level(char *s, size_t len, int level)
{
    int depth = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] == '>') {
            depth--;
            continue;
        }
        if (s[i] != '<' || ++depth != level)
            continue;
        long e = matching(s, len, i, '<', '>');
        if (e > (long)i + 4)
            len = fold(s, len, i, (size_t)e);
        i = e > (long)i + 4 ? i + 3 : (size_t)e - 1; /* the group's '>' comes next */
    }
    return len;
}

const char *ks_text_short_name(const char *name, size_t max, int cpp, char *buf, size_t n)
{
    size_t len = strlen(name);
    char *w = ks_xstrdup(name);
    if (cpp && len > max && !strncmp(w, "void ", 5)) { /* 1. the return type */
        memmove(w, w + 5, len - 4);
        len -= 5;
    }
    if (cpp && len > max && len && w[len - 1] == ')') { /* 2. the parameter list at the end */
        int depth = 0;
        for (size_t j = len; j-- > 0;) {
            depth += w[j] == ')' ? 1 : w[j] == '(' ? -1 : 0;
            if (!depth) {
                if (len - 1 > j + 4)
                    len = fold(w, len, j, len - 1);
                break;
            }
        }
    }
    if (cpp && len > max && template_depth(w, len)) /* 3. namespaces inside template arguments */
        len = drop_namespaces(w, len);
    if (cpp && len > max) { /* 4. nested template arguments, the deepest level first (the outermost
                             * ones tell instances apart: they stay) */
        int deepest = template_depth(w, len);
        for (int level = deepest; level > 1 && len > max; level--)
            len = fold_level(w, len, level);
    }
    /* 5. still too long: the head and the tail around " ... " (ks_text_name) */
    char mid[1024];
    const char *t = ks_text_name(w, max, mid, sizeof mid);
    /* control characters escaped as \xNN, as everywhere in text */
    size_t o = 0;
    for (const char *p = t; *p && o + 5 < n; p++) {
        unsigned char c = (unsigned char)*p;
        if (c < 0x20 || c == 0x7f)
            o += (size_t)snprintf(buf + o, n - o, "\\x%02x", c);
        else
            buf[o++] = (char)c;
    }
    buf[o < n ? o : n - 1] = 0;
    free(w);
    return buf;
}

typedef struct tid_of {
    ks_id tid;
    uint32_t process;
} tid_of;

static int cmp_tid_of(const void *x, const void *y)
{
    const tid_of *p = x, *q = y;
    if (p->tid.type != q->tid.type)
        return p->tid.type < q->tid.type ? -1 : 1;
    if (p->tid.v != q->tid.v)
        return p->tid.v < q->tid.v ? -1 : 1;
    return (p->process > q->process) - (p->process < q->process);
}

int ks_text_tids_shared(const ks_trace *t)
{
    tid_of *v = ks_xmalloc((t->ntracks ? t->ntracks : 1) * sizeof *v);
    size_t n = 0;
    for (size_t k = 0; k < t->ntracks; k++)
        if (t->tracks[k].kind == KS_TRACK_CPU)
            v[n++] = (tid_of){t->tracks[k].tid, t->tracks[k].process};
    qsort(v, n, sizeof *v, cmp_tid_of);
    int shared = 0;
    for (size_t i = 1; i < n && !shared; i++)
        shared = ks_id_equal(v[i].tid, v[i - 1].tid) && v[i].process != v[i - 1].process;
    free(v);
    return shared;
}

const char *ks_text_thread(char *buf, size_t n, const ks_trace *t, uint32_t k, int shared)
{
    char tid[64], pid[64];
    const ks_track *tr = &t->tracks[k];
    ks_id_format(t->strings, tr->tid, tid, sizeof tid);
    if (!shared) {
        snprintf(buf, n, "tid %s", tid);
        return buf;
    }
    ks_id_format(t->strings, ks_track_pid(t, tr), pid, sizeof pid);
    snprintf(buf, n, "pid %s tid %s", pid, tid);
    return buf;
}
