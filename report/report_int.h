/* report/report_int.h: what the writers of report/ share with the kinesift command and the tests
 * beyond kinesift/report.h: the writers that take the internal JSON writer (struct ks_jw,
 * common/jsonw.h), the escapers of the Markdown and JUnit writers, and the safe output file of
 * diff and gate. Internal: declared here, not in an installed header, so libkinesift.so does not
 * export them (tests/layout/check_exports.py); the CLI and the tests link the static library. */
#ifndef KS_REPORT_INT_H
#define KS_REPORT_INT_H

#include <stdint.h>
#include <stdio.h>

#include "kinesift/common.h"
#include "kinesift/kernels.h"
#include "kinesift/report.h"

struct ks_jw; /* common/jsonw.h */

/* ---- JSON writers over the internal writer ------------------------------------------------ */

/* The writer under the "traces" array, for a trace object kept elsewhere (a summary's report,
 * written back with ks_jw_tree). */
/* The insight sections of analyze's JSON (report/insights_json.c). */
void ks_insights_json(struct ks_jw *w, const ks_analysis *a, const ks_insights_view *iv);
/* The "memory" section of analyze's JSON (report/memory_json.c), and the names its writers share:
 * an op of the memory tables ("[no op]" for 0), its kind ("none" for [no op]), a device's level
 * basis ("total_allocated", "bytes_since_first_event"). */
void ks_memory_json(struct ks_jw *w, const ks_analysis *a);
const char *ks_mem_op_text(const ks_trace *t, ks_str op);
const char *ks_mem_kind_text(int kind);
const char *ks_mem_basis_text(const ks_mem_device *d);
/* "CUDA 0", "CPU -1" (report/memory_text.c); the text section, top bounding its lists (0: all). */
void ks_mem_device_label(char *b, size_t n, const ks_mem_device *d);
void ks_memory_text(FILE *out, const ks_analysis *a, size_t top);
/* The same labels for a rank's memory peak (report/ranks.c), and a device kind's name ("CUDA",
 * "device type 7"). */
struct ks_rank_mem;
struct ks_mem_kind;
void ks_rank_mem_label(char *b, size_t n, const struct ks_rank_mem *m);
void ks_mem_kind_label(char *b, size_t n, const struct ks_mem_kind *k);
/* "CUDA 0", "CPU": a device of the kind */
void ks_mem_kind_device_label(char *b, size_t n, const struct ks_mem_kind *k, int32_t device);
/* The kernel view of analyze's JSON: "classes" (report/kernels_json.c). */
void ks_kernels_json_classes(struct ks_jw *w, const ks_analysis *a, const ks_insights_view *iv);
/* ... and "roofline" and "shapes" (o->top bounds the rows). */
void ks_kernels_json_shapes(struct ks_jw *w, const ks_analysis *a, const ks_report_opts *o);
/* The members of a shapes row written as the trace's compact text (ks_jw_compact), on one line:
 * named for a summary's report written back (ks_jw_tree_lines). NULL-terminated. */
extern const char *const ks_shape_line_keys[];
/* The peaks of a device: o's --peak, else the peak table's row for its deviceProperties; NULL
 * when neither (over: room for the --peak row). */
const ks_peak *ks_kernels_peak(const ks_analysis *a, int32_t device, const ks_report_opts *o, ks_peak *over);
/* A device's GPU busy time in the window (a->gpu), 0 for a device without a row. */
ks_ns ks_kernels_device_busy(const ks_analysis *a, int32_t device);
/* The kernel view of analyze's text report: GPU time per class per device (report/kernels_text.c). */
void ks_kernels_text_classes(FILE *out, const ks_analysis *a);
/* One trace of `kinesift whatif`'s JSON (report/whatif.c). */
void ks_whatif_json_trace(struct ks_jw *w, const ks_analysis *a, const ks_whatif *wi, const ks_shrink *sh,
                          size_t nsh);

/* ---- escaping and output files (report/gate_escape.c, report/gate_output.c) ---------------- */

/* XML text/attribute escaping: & < > " ' as entities; characters XML 1.0 forbids (C0 controls
 * other than tab, LF, CR) and invalid UTF-8 as U+FFFD. */
void ks_xml_escape(FILE *out, const char *s);
/* A Markdown table cell: | \ ` * _ [ ] < > & # escaped (backslash or entity), CR/LF as spaces. */
void ks_md_escape(FILE *out, const char *s);

#endif
