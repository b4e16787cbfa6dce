/* report/report_util.c: helpers shared by the writers (see report_util.h). */
#include "report/report_util.h"

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

static void text_kinds(FILE *out, const ks_diag *d, const char *indent)
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
            else
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
    text_kinds(out, a, indent);
    text_kinds(out, b, indent);
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
