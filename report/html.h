/* report/html.h: what the pieces of `kinesift report` share: HTML escaping, figures written with
 * their exact value in a data attribute next to the text (the page's numbers can be checked
 * against the JSON, and tables sort on them), and one palette (Okabe-Ito: distinct for the
 * common colour-vision deficiencies) for the step breakdown roles and the causes of GPU idle
 * gaps. Internal to report/. */
#ifndef KS_REPORT_HTML_H
#define KS_REPORT_HTML_H

#include <stdio.h>

#include "kinesift/report.h"

/* Text with & < > " ' escaped and invalid UTF-8 replaced. */
void ks_html_text(FILE *out, const char *s);
/* The same, cut to max bytes with an ellipsis (for SVG labels and tooltips). */
void ks_html_text_cut(FILE *out, const char *s, size_t max);
/* A duration in the text report's units ("1.234 ms", ks_fmt_ns). */
void ks_html_ns(FILE *out, ks_ns v);
/* <span data-field="field" data-ns="v">1.234 ms</span> */
void ks_html_ns_span(FILE *out, const char *field, ks_ns v);

/* The colour of each step breakdown role, and of each class of GPU idle gap cause. */
const char *ks_html_role_colour(ks_role r);
enum ks_gap_class {
    KS_GAP_DATA = 0,   /* the CPU thread was loading data (--data-label pattern) */
    KS_GAP_RUNTIME,    /* in a runtime/driver call (launch, synchronize, blocking copy) */
    KS_GAP_OP,         /* in an operator */
    KS_GAP_PYTHON,     /* in Python code */
    KS_GAP_LABEL,      /* in a labelled range with nothing below */
    KS_GAP_IDLE,       /* nothing: the CPU thread was idle */
    KS_GAP_OTHER,
    KS_GAP_NCLASSES
};
int ks_html_gap_class(const ks_gap *g);
const char *ks_html_gap_class_name(int c);
const char *ks_html_gap_class_colour(int c);

/* The charts (report/html_charts.c): one <figure> each, with <title> and <desc>. */
void ks_html_step_bars(FILE *out, const ks_analysis *a, const ks_steps *st, int id);
/* The colour of a kind of the critical path (KS_CP_*). */
const char *ks_html_path_colour(int kind);
/* The critical path of each step (at most KS_HTML_PATH_ROWS), drawn along the step's time. */
#define KS_HTML_PATH_ROWS 50
void ks_html_critpath(FILE *out, const struct ks_critpath *cp, int id);
void ks_html_gpu_strip(FILE *out, const ks_analysis *a, const ks_gaps *g, int id);
/* The roofline per device (report/html_roofline.c): the op groups of the shapes table against the
 * peak table's roofs, or why there is none. */
void ks_html_roofline(FILE *out, const ks_analysis *a, int id);
/* The memory chart per device (report/html_memory.c), or why there is none. */
void ks_html_memory(FILE *out, const ks_analysis *a, const ks_steps *st, int id);

/* The multi-rank section (report/html_ranks.c) from the results of ks_ranks_match. */
struct ks_ranks;
void ks_html_ranks_section(FILE *out, const struct ks_ranks *r);

#endif
