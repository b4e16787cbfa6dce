/* report/report_int.h: what the writers of report/ share with the kinesift command and the tests
 * beyond kinesift/report.h: the writers that take the internal JSON writer (struct ks_jw,
 * common/jsonw.h), the escapers of the Markdown and JUnit writers, and the safe output file of
 * diff and gate. Internal: declared here, not in an installed header, so libkinesift.so does not
 * export them (tests/layout/check_exports.py); the CLI and the tests link the static library. */
#ifndef KS_REPORT_INT_H
#define KS_REPORT_INT_H

#include <stdio.h>

#include "kinesift/common.h"
#include "kinesift/report.h"

struct ks_jw; /* common/jsonw.h */

/* ---- JSON writers over the internal writer ------------------------------------------------ */

/* The writer under the "traces" array, for a trace object kept elsewhere (a summary's report,
 * written back with ks_jw_tree). */
/* The insight sections of analyze's JSON (report/insights_json.c). */
void ks_insights_json(struct ks_jw *w, const ks_analysis *a, const ks_insights_view *iv);
/* One trace of `kinesift whatif`'s JSON (report/whatif.c). */
void ks_whatif_json_trace(struct ks_jw *w, const ks_analysis *a, const ks_whatif *wi, const ks_shrink *sh,
                          size_t nsh);

/* ---- escaping and output files (report/gate_escape.c, report/gate_output.c) ---------------- */

/* XML text/attribute escaping: & < > " ' as entities; characters XML 1.0 forbids (C0 controls
 * other than tab, LF, CR) and invalid UTF-8 as U+FFFD. */
void ks_xml_escape(FILE *out, const char *s);
/* A Markdown table cell: | \ ` * _ [ ] < > & # escaped (backslash or entity), CR/LF as spaces. */
void ks_md_escape(FILE *out, const char *s);

/* Write an output file safely through a stdio stream: a thin layer over the one atomic output file
 * (common/afile.h): the text goes to a temporary file beside path, put in place over path on
 * commit (so a failed run leaves the old file or nothing). Write to f between open and
 * commit/abort. */
typedef struct ks_outfile {
    char *path;
    FILE *f;
    struct ks_afile *af;
} ks_outfile;

int ks_outfile_open(ks_outfile *o, const char *path, ks_error *err);
/* Flush, close and put in place (replacing path); on any failure removes the temporary and
 * returns KS_ERR. */
int ks_outfile_commit(ks_outfile *o, ks_error *err);
/* Close and remove the temporary (the path is left as it was). */
void ks_outfile_abort(ks_outfile *o);
/* 1 when the two paths name the same existing file (same device and inode). */
int ks_same_file(const char *a, const char *b);

#endif
