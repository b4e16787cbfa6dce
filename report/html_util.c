/* report/html_util.c: escaping, figures with their exact value, and the palette of the HTML
 * report (see html.h). Okabe & Ito's eight colours, "Color Universal Design" (2008): told apart
 * with protanopia, deuteranopia and tritanopia; black is replaced by grey
 * for the role "other"; a light grey marks gaps with the CPU thread idle. */
#include <stdlib.h>
#include <string.h>

#include "common/jsonw.h"
#include "common/util.h"
#include "kinesift/critpath.h"
#include "report/html.h"

#define OI_ORANGE "#E69F00"
#define OI_SKY "#56B4E9"
#define OI_GREEN "#009E73"
#define OI_YELLOW "#F0E442"
#define OI_BLUE "#0072B2"
#define OI_VERMILLION "#D55E00"
#define OI_PURPLE "#CC79A7"
#define OI_GREY "#8C8C8C"
#define OI_LIGHT "#D0D0D0" /* CPU idle: not a role colour (cpu_exec is yellow) */
#define OI_BLACK "#000000"

static void escaped(FILE *out, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        switch (s[i]) {
        case '&': fputs("&amp;", out); break;
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '"': fputs("&quot;", out); break;
        case '\'': fputs("&#39;", out); break;
        default:
            if ((unsigned char)s[i] < 0x20 && s[i] != '\n' && s[i] != '\t')
                fputc(' ', out);
            else
                fputc(s[i], out);
        }
    }
}

void ks_html_text_cut(FILE *out, const char *s, size_t max)
{
    size_t n = strlen(s), m = n;
    if (max && n > max) {
        m = max;
        while (m > 0 && ((unsigned char)s[m] & 0xC0) == 0x80) /* not inside a UTF-8 sequence */
            m--;
    }
    size_t fl;
    char *fixed = ks_utf8_sanitize(s, m, &fl);
    escaped(out, fixed ? fixed : s, fixed ? fl : m);
    free(fixed);
    if (m < n)
        fputs("\xe2\x80\xa6", out);
}

void ks_html_text(FILE *out, const char *s)
{
    ks_html_text_cut(out, s, 0);
}

void ks_html_ns(FILE *out, ks_ns v)
{
    char b[32];
    ks_fmt_ns(b, sizeof b, v);
    fputs(b, out);
}

void ks_html_ns_span(FILE *out, const char *field, ks_ns v)
{
    fprintf(out, "<span data-field=\"%s\" data-ns=\"%lld\">", field, (long long)v);
    ks_html_ns(out, v);
    fputs("</span>", out);
}

const char *ks_html_role_colour(ks_role r)
{
    static const char *const c[KS_ROLE_COUNT] = {OI_BLUE, OI_SKY, OI_GREEN, OI_PURPLE,
                                                 OI_ORANGE, OI_VERMILLION, OI_YELLOW, OI_GREY};
    return r < KS_ROLE_COUNT ? c[r] : OI_GREY;
}

const char *ks_html_path_colour(int kind)
{
    /* cpu, gpu, launch_latency, stream_gap, sync, thread_wait, unmodeled */
    static const char *const c[KS_CP_NKINDS] = {OI_YELLOW, OI_BLUE, OI_SKY, OI_GREEN, OI_VERMILLION, OI_PURPLE,
                                                OI_GREY};
    return kind >= 0 && kind < KS_CP_NKINDS ? c[kind] : OI_GREY;
}

int ks_html_gap_class(const ks_gap *g)
{
    if (!g->cause)
        return KS_GAP_IDLE;
    if (g->data)
        return KS_GAP_DATA;
    switch (g->cause_kind) {
    case KS_K_RUNTIME:
    case KS_K_DRIVER: return KS_GAP_RUNTIME;
    case KS_K_CPU_OP: return KS_GAP_OP;
    case KS_K_PYTHON: return KS_GAP_PYTHON;
    case KS_K_USER_ANNOTATION: return KS_GAP_LABEL;
    default: return KS_GAP_OTHER;
    }
}

const char *ks_html_gap_class_name(int c)
{
    /* the step bars' names (ks_role_name) for the same idle time, then what the strip adds */
    static const char *const n[KS_GAP_NCLASSES] = {"dataloader: loading data", "runtime: launch, sync, copy call",
                                                   "cpu_exec: operator", "cpu_exec: Python code",
                                                   "cpu_exec: labelled range", "other: CPU thread idle", "other"};
    return c >= 0 && c < KS_GAP_NCLASSES ? n[c] : "other";
}

const char *ks_html_gap_class_colour(int c)
{
    static const char *const col[KS_GAP_NCLASSES] = {OI_VERMILLION, OI_ORANGE, OI_GREEN, OI_PURPLE,
                                                     OI_SKY, OI_LIGHT, OI_BLACK};
    return c >= 0 && c < KS_GAP_NCLASSES ? col[c] : OI_GREY;
}
