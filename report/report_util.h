/* report/report_util.h: pieces the report writers share (typed ids, diagnostics lists, CSV
 * quoting). Internal. */
#ifndef KS_REPORT_UTIL_H
#define KS_REPORT_UTIL_H

#include <stdio.h>
#include <string.h>

#include "common/jsonw.h"
#include "kinesift/analysis.h"
#include "kinesift/insights.h"
#include "kinesift/store.h"

/* The members of a row, gathered for ks_jw_katoms (one call writes the row): each number's text
 * in its own 32 bytes of txt. last, lt, ll, has_last: the shapes table's last figure and its text,
 * which a figure equal to it reuses (report/kernels_json.c). Reset n (and has_last) per row. */
typedef struct ks_row_atoms {
    ks_jw_atom m[32]; /* a shapes row has 24 at most */
    char txt[32][32];
    size_t n;
    double last;
    const char *lt;
    uint8_t ll;
    int has_last;
} ks_row_atoms;

/* the next member's value: t[0 .. n), written bare */
static inline void ks_row_atom_text(ks_row_atoms *a, const char *t, size_t n)
{
    a->m[a->n].val = t;
    a->m[a->n].vlen = n;
    a->m[a->n].str = 0;
    a->m[a->n].raw = 0;
    a->n++;
}

/* The next member of row a: its key k (a string literal), then its value: a string, an integer
 * (its text in txt), null. */
#define ATOM_KEY(a, k) (a)->m[(a)->n].key = (k), (a)->m[(a)->n].klen = (uint8_t)(sizeof(k) - 1)
#define ATOM_STR(a, k, s) (ATOM_KEY(a, k), ks_row_atom_text((a), (s), strlen(s)), (a)->m[(a)->n - 1].str = 1)
#define ATOM_INT(a, k, v)                                                                           \
    (ATOM_KEY(a, k), ks_row_atom_text((a), (a)->txt[(a)->n], ks_jw_int_text((a)->txt[(a)->n], (v))))
#define ATOM_NULL(a, k) (ATOM_KEY(a, k), ks_row_atom_text((a), "null", 4))

/* "key": pid/tid with its JSON type (number, string or null). */
void ks_report_json_id(ks_jw *w, const char *key, const ks_trace *t, ks_id id);
/* The diagnostics of the trace and of its analysis (b may be NULL) as one JSON array. */
void ks_report_json_diagnostics(ks_jw *w, const ks_diag *a, const ks_diag *b);
/* Text: one block listing every diagnostic with its examples. */
void ks_report_text_diagnostics(FILE *out, const ks_diag *a, const ks_diag *b, const char *indent);
/* The same with the examples' absolute times ("[A, B)" intervals, "at A ns") written relative
 * to origin, the window start, exactly ("[+437.810230 ms, +459.666000 ms)"); a line says so. */
void ks_report_text_diagnostics_at(FILE *out, const ks_diag *a, const ks_diag *b, const char *indent, ks_ns origin);
/* What a device activity row (kinesift/analysis.h ks_device_activity) means, said the same way
 * by every format. */
#define KS_DEVICE_ACTIVITY_MEANING                                                                 \
    "kinesift does not interpret these device events (no kernel, memcpy or memset classes): busy is "  \
    "the union of every recorded event, waits included, not compute time"
/* The by-hand measurement a diagnosis names instead of its `kinesift validate` command on a
 * platform validate cannot run on (validate runs on CUDA: ks_analysis_platform), malloc'ed; NULL
 * when the command applies (CUDA, or a trace that does not say) or there is none. */
char *ks_report_measure_by_hand(const char *platform, const char *validate_cmd);
/* The inputs a JSON document could not include ("errors": [{"input", "error"}], written when
 * it ends): a batch goes on past an unreadable input and lists it (docs/input.md). */
typedef struct ks_input_error_list {
    char **input, **message;
    size_t n, cap, cap2;
} ks_input_error_list;
void ks_input_error_list_add(ks_input_error_list *l, const char *input, const char *message);
/* "errors": [...] (an empty array when none); frees the list. */
void ks_input_error_list_json(ks_jw *w, ks_input_error_list *l);

/* The analysis window as every format names it (report/window_desc.c): the denominator's name
 * ("active steps", "GPU span", "CPU span", "device span", "--window", "window", "trace"), the
 * JSON kind ("active_steps", "gpu_span", "cpu_span", "device_span", "time", "trace") and the
 * line saying how it was chosen. */
const char *ks_report_window_basis(const ks_analysis *a);
const char *ks_report_window_kind(const ks_analysis *a);
const char *ks_report_window_why(const ks_analysis *a);
/* Whether the diagnoses' denominator has the window's name, "active steps", but another size: it
 * is the steps' union, the window less the gaps between steps (docs/insights.md), and the text
 * says so where it names either. d may be NULL. */
struct ks_diagnoses;
int ks_report_diagnoses_union(const ks_analysis *a, const struct ks_diagnoses *d);

/* Write s as one CSV field (quoted when needed). */
void ks_csv_field(FILE *out, const char *s);
/* A name for a text table: s itself when at most max bytes, else its head and tail around " ... "
 * (cut on UTF-8 character boundaries) in buf (n > max). JSON and CSV keep full names. */
const char *ks_text_name(const char *s, size_t max, char *buf, size_t n);
/* A share as text tables print it: 100 * num / den with `digits` decimals, then "%" when sign is
 * set; "n/a" when den is not positive (a share of nothing is not observed: JSON's null). Into
 * buf, which it returns. */
const char *ks_text_share(char *buf, size_t n, int64_t num, int64_t den, int digits, int sign);
/* The share most text and the HTML page print: one decimal and "%" (ks_text_share). */
static inline const char *ks_text_pct(char *buf, size_t n, int64_t num, int64_t den)
{
    return ks_text_share(buf, n, num, den, 1, 1);
}
/* JSON "key": num / den, or null when den is not positive (the same rule as ks_text_share). */
void ks_report_json_share(ks_jw *w, const char *key, int64_t num, int64_t den);
/* JSON "key": v, or null when not observed. */
void ks_report_json_int(ks_jw *w, const char *key, int64_t v, int observed);
/* Whether a step breakdown role's time is observed: the GPU roles (kernel, memcpy, memset) only
 * in a trace with GPU events; every format says so the same way (null, n/a, an empty cell). */
static inline int ks_report_role_observed(const ks_analysis *a, int role)
{
    return a->links.gpu_events > 0 || (role != KS_ROLE_KERNEL && role != KS_ROLE_MEMCPY && role != KS_ROLE_MEMSET);
}

/* A name for a text table (docs/report.md, "Names in text"): unchanged when at most max bytes;
 * else, for GPU work names (cpp set: C++ kernel signatures), step by step while it is still too
 * long: 1. a leading "void " goes, 2. the final parameter list becomes "(...)", 3. names inside
 * template arguments lose their namespaces ("at::native::Foo" -> "Foo"), 4. nested template
 * arguments become "<...>", the deepest nesting level first, a whole level at a time, down to the
 * second level (the outermost arguments tell instances apart and stay); then 5. the head and the
 * tail around
 * " ... " (ks_text_name). Control characters are written \xNN. Into buf (n > max + 8). JSON and
 * CSV keep full names. */
const char *ks_text_short_name(const char *name, size_t max, int cpp, char *buf, size_t n);

/* ---- text that fits a width (report/textfit.c) ------------------------------------------ */

/* A table cell starting with this is left-aligned (the marker is not printed). */
#define KS_TEXT_LEFT "\x01"
/* In a row's last cell, what follows this is kept whole when the name before it is shortened. */
#define KS_TEXT_KEEP "\x02"
/* The least room a name keeps beside its row; with less, it goes under the row. */
#define KS_TEXT_NAME_MIN 24

typedef struct ks_text_buf {
    FILE *f;
    char *data;
    size_t len;
} ks_text_buf;

/* The stream a text writer writes into (a buffer; out itself when no buffer could be made). */
FILE *ks_text_begin(ks_text_buf *b, FILE *out);
/* Write the buffer to out fitted to width columns (0: tables aligned, nothing else changed;
 * KS_TEXT_RAW: as written, cells and markers kept); -1 on a write error. */
int ks_text_end(ks_text_buf *b, FILE *out, size_t width);
/* 1 when two processes of t have a CPU thread of the same tid (a trace merged from several hosts or
 * pid namespaces): a text that names threads then names each by pid and tid. */
int ks_text_tids_shared(const ks_trace *t);
/* The thread of track k in a text: "tid T", or "pid P tid T" when shared (ks_text_tids_shared). */
const char *ks_text_thread(char *buf, size_t n, const ks_trace *t, uint32_t k, int shared);

/* ks_insights_text into a stream that is fitted later (ks_analyze_text's buffer). */
struct ks_insights_view;
struct ks_report_opts;
void ks_insights_text_to(FILE *out, const ks_analysis *a, const struct ks_insights_view *iv,
                         const struct ks_report_opts *o);

#endif
