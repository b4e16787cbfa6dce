/* kinesift/report.h: report writers. Writers only format what the store and the analyses
 * computed; they never compute. Each has a text and a JSON form; the JSON is the reference.
 *
 * Threads (kinesift/common.h): writers read their inputs as const; writers on different threads
 * may run at once, each to its own stream or file (files go through one atomic-file registry,
 * shared and guarded). */
#ifndef KINESIFT_REPORT_H
#define KINESIFT_REPORT_H

#include <stdio.h>

#include "kinesift/analysis.h"
#include "kinesift/insights.h"
#include "kinesift/store.h"

#ifdef __cplusplus
extern "C" {
#endif

/* `kinesift stats`: schema "kinesift.stats/1" (docs/schema-stats.md). The JSON writer emits one
 * document for all traces: call begin, one trace at a time, then end. */
typedef struct ks_stats_json ks_stats_json;
KS_API ks_stats_json *ks_stats_json_begin(FILE *out);
KS_API void ks_stats_json_trace(ks_stats_json *w, const ks_trace *t);
/* An input that could not be read: listed under "errors" [{"input", "error"}] by end. */
KS_API void ks_stats_json_error(ks_stats_json *w, const char *input, const char *message);
KS_API int ks_stats_json_end(ks_stats_json *w); /* 0, or -1 on a write error */

KS_API void ks_stats_text(FILE *out, const ks_trace *t, size_t width); /* fits `width` columns (0: no limit) */

/* `kinesift analyze`: schema "kinesift.analyze/1" (docs/schema-analyze.md). */
typedef enum ks_sort_key { KS_SORT_SELF = 0, KS_SORT_INCL, KS_SORT_GPU, KS_SORT_COUNT } ks_sort_key;

typedef struct ks_report_opts {
    size_t top;        /* rows per table; 0 = all */
    ks_sort_key sort;  /* order of the ops and labels tables */
    /* the roofline's peaks for every device instead of the peak table's (kinesift/kernels.h):
     * TFLOP/s for every data type and TB/s; 0: the table's */
    double peak_tflops, peak_tbps;
    size_t width;      /* text: the terminal's columns (long lines wrapped, names shortened in
                        * the middle); 0 = no limit (tables aligned, lines whole); KS_TEXT_RAW:
                        * not laid out (tab-separated cells), for ks_text_fit later */
} ks_report_opts;

#define KS_TEXT_RAW ((size_t)-1)

/* Lay out a text written with width KS_TEXT_RAW (a summary's stored text) for `width` columns,
 * as the writers do (report/textfit.c). */
KS_API void ks_text_fit(FILE *out, const char *text, size_t len, size_t width);

/* Sort a copy of rows by key (descending, ties by name); returns a malloc'ed array. */
KS_API ks_op_row *ks_rows_sorted(const ks_op_row *rows, size_t n, ks_sort_key key);
/* The same order without a copy: pointers to rows[0 .. n) in that order (rows are distinct by
 * name and category, so the order is the same whatever the input order); free() the array. */
KS_API const ks_op_row **ks_rows_order(const ks_op_row *rows, size_t n, ks_sort_key key);

/* What kinesift/insights.h adds to an analysis; any member may be NULL. */
typedef struct ks_insights_view {
    const ks_steps *steps;
    const ks_gaps *gaps;
    const ks_diagnoses *diagnoses;
    const ks_telemetry *telemetry;
    const ks_threads *threads;     /* who launched the GPU work (insights/threads.c) */
    const struct ks_critpath *critpath; /* the critical path of each step (kinesift/critpath.h), or
                                         * NULL */
} ks_insights_view;

typedef struct ks_analyze_json ks_analyze_json;
KS_API ks_analyze_json *ks_analyze_json_begin(FILE *out);
KS_API void ks_analyze_json_trace(ks_analyze_json *w, const ks_analysis *a, const ks_insights_view *iv,
                                  const ks_report_opts *o);
/* An input that could not be read: listed under "errors" [{"input", "error"}] by end. */
KS_API void ks_analyze_json_error(ks_analyze_json *w, const char *input, const char *message);
KS_API int ks_analyze_json_end(ks_analyze_json *w);
/* A trace object kept by a summary (ks_summary_report.trace, kinesift/ranks.h) as one trace of
 * the document, token for token as it was written. */
struct yajl_val_s;
KS_API void ks_analyze_json_tree(ks_analyze_json *w, const struct yajl_val_s *trace);

/* `kinesift whatif --format json`: one document, {"schema", "version", "traces": [...]}, one
 * trace object per ks_whatif_json_add call (report/whatif_json.c). */
typedef struct ks_whatif_json ks_whatif_json;
KS_API ks_whatif_json *ks_whatif_json_begin(FILE *out);
KS_API void ks_whatif_json_add(ks_whatif_json *j, const ks_analysis *a, const ks_whatif *w, const ks_shrink *sh,
                               size_t nsh);
/* Closes the document and frees j; 0, or -1 when a write failed. */
KS_API int ks_whatif_json_end(ks_whatif_json *j);

KS_API void ks_analyze_text(FILE *out, const ks_analysis *a, const ks_insights_view *iv, const ks_report_opts *o);

/* The text sections of kinesift/insights.h; o->top bounds the step table (the first, slowest and
 * last steps; 0 = every step), o may be NULL (every step). */
KS_API void ks_insights_text(FILE *out, const ks_analysis *a, const ks_insights_view *iv, const ks_report_opts *o);

/* `kinesift whatif`: schema "kinesift.whatif/1". The text fits `width` columns (ks_report_opts.width). */
KS_API void ks_whatif_text(FILE *out, const ks_analysis *a, const ks_whatif *w, const ks_shrink *sh, size_t nsh,
                           size_t width);

/* CSV: one header, then per trace one row per table row, the table named by the "section" column
 * (op, label, kernel, gpu, device, step, gap, gap_cpu, gap_label, gap_longest, diagnosis);
 * ks_analyze_csv_error writes an "error" row for an input that could not be read. */
KS_API void ks_analyze_csv_header(FILE *out);
KS_API void ks_analyze_csv_trace(FILE *out, const ks_analysis *a, const ks_insights_view *iv,
                                 const ks_report_opts *o);
KS_API void ks_analyze_csv_error(FILE *out, const char *input, const char *message);

/* Folded stacks ("frame;frame;leaf value", ns) of the CPU self time or the GPU time per call
 * path (ks_folded_build). */
KS_API void ks_analyze_folded(FILE *out, const ks_analysis *a, ks_folded_metric m, int python_frames);

/* `kinesift report`: one self-contained HTML page (report/html_page.c). Sections of every trace
 * are kept until ks_html_end writes the page (summaries first). NULL when out of memory. */
typedef struct ks_html ks_html;
KS_API ks_html *ks_html_begin(FILE *out);
KS_API void ks_html_trace(ks_html *h, const ks_analysis *a, const ks_insights_view *iv, const ks_report_opts *o);
/* The multi-rank section (the heat maps and the straggler of `kinesift ranks`), placed after the
 * summaries; call it once, with the ks_ranks_match results of two ranks or more. */
struct ks_ranks;
KS_API void ks_html_ranks(ks_html *h, const struct ks_ranks *r);
KS_API int ks_html_end(ks_html *h, const char *title); /* writes the page; 0, or -1 on a write error */

/* Write buf to path through a temporary file renamed into place; refuses any of the inputs and
 * an existing file unless force (report/output_file.c). */
KS_API int ks_report_write_file(const char *path, int force, char *const *inputs, size_t ninputs, const void *buf,
                                size_t n, ks_error *err);

/* An output file written through a stdio stream, atomically (diff and gate's --json, --junit,
 * --markdown, diff --output): the bytes go to a temporary file beside path (the library's one
 * atomic output file, common/afile.c: no name at all where O_TMPFILE works, removed by
 * ks_redact_cleanup_on_signals' handler otherwise), which replaces path on commit; a failed or
 * aborted write leaves path as it was. The mode is that of any new file (0666 less the umask).
 * Checking that path is no input is the caller's (ks_same_file). Threads: one ks_outfile is used
 * by one thread; several may be open at once (report/gate_output.c). */
typedef struct ks_outfile ks_outfile;
KS_API int ks_outfile_open(ks_outfile **o, const char *path, ks_error *err);
/* The stream to write to, until commit or abort. */
KS_API FILE *ks_outfile_stream(ks_outfile *o);
/* Flush, close and put in place, replacing path; on any failure the temporary file is removed and
 * KS_ERR returned. Frees o. */
KS_API int ks_outfile_commit(ks_outfile *o, ks_error *err);
/* Close and remove the temporary file (path is left as it was); frees o. NULL is ignored. */
KS_API void ks_outfile_abort(ks_outfile *o);
/* 1 when the two paths name the same existing file (same device and inode), else 0. */
KS_API int ks_same_file(const char *a, const char *b);

/* `kinesift annotate`: copy the trace file input (one stream, read again here) to output with
 * kinesift's tracks added before the end of its traceEvents array (report/annotate.c); the output
 * is compressed by its name (.gz, .zst, .xz, .bz2), written to a temporary file and renamed,
 * never over the input nor over an existing file unless force. *added: the events added. */
KS_API int ks_annotate_file(const char *input, const char *output, int force, const ks_analysis *a,
                            const ks_insights_view *iv, uint64_t *added, ks_error *err);

#ifdef __cplusplus
}
#endif
#endif
