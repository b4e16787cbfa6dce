/* report/tables_build.h: the column tables of kinesift/tables.h inside, and a writer's document
 * into them (report/tables.c); report/tables_run.c and redact/tables.c run the commands into
 * them. */
#ifndef KS_REPORT_TABLES_BUILD_H
#define KS_REPORT_TABLES_BUILD_H

#include <stdio.h>

#include <stddef.h>
#include <stdint.h>

#include <yajl/yajl_gen.h>

#include "common/jsonw.h"
#include "common/util.h"
#include "kinesift/compare.h"
#include "kinesift/insights.h"
#include "kinesift/ranks.h"
#include "kinesift/report.h"
#include "kinesift/tables.h"

/* The options of a run (ks_tables_opts_set names them). */
struct ks_tables_opts {
    ks_insights_opts run;
    ks_report_opts ro;
    ks_diff_opts diff;
    ks_ranks_opts ranks;
    ks_rank_opts rank;
    int strict;
    int threads;
    int force, shapes, keep_logs; /* redact */
    int text;                  /* keep the document's text (1, the default) or only the tables */
    char *window, *step_label, *data_label, *key_file; /* the copies the options point to */
    char err[512];
};

/* o, or def set to the defaults when o is NULL */
const ks_tables_opts *ks_tables_opts_or_defaults(const ks_tables_opts *o, ks_tables_opts *def);


typedef union ks_tval {
    int64_t i;
    double d;
} ks_tval;

typedef struct ks_tcol {
    char *name;
    int type;                  /* ks_col_type */
    size_t n, cap;             /* cells set: rows 0 .. n-1 */
    ks_tval *v;                /* fixed-width cells (0 for text) */
    uint8_t *valid;
    int64_t *off;              /* text: n + 1 offsets into bytes */
    char *bytes;
    size_t nbytes, capbytes;
} ks_tcol;

typedef struct ks_table {
    char *name;
    long parent;               /* the parent table, -1 for "" */
    size_t nrows;
    ks_tcol *cols;
    size_t ncols, capcols;
    size_t guess;              /* the column after the last one set (rows list their keys in order) */
    size_t last_child;         /* the child table found last */
} ks_table;

struct ks_tables {
    ks_table *t;
    size_t n, cap;
    char *json;                /* the document's text: njson bytes of capjson (a mapping) */
    size_t njson, capjson;
    int failed;
    ks_error err;
    char msg[1200];            /* the one-line error */
};

/* An open container while the values come: a row, an object flattened into a row, an array not
 * yet known, an array that is a table, an array that is a cell, something left out. */
typedef struct ks_tframe {
    int kind;
    size_t table, row;         /* the row the values go to (an array: its parent's) */
    size_t child;              /* an array that is a table: that table */
    size_t pstart, plen;       /* the frame's column prefix (an array: its name) in path */
    size_t depth;              /* a cell or a part left out: the nesting inside it */
} ks_tframe;

typedef struct ks_tbuild {
    ks_tables *t;
    ks_jw_sink sink;
    ks_tframe *st;
    size_t nst, capst;
    ks_buf path;               /* the open frames' prefixes, each starting where its parent's does */
    ks_buf key;                /* the pending key */
    ks_buf txt;                /* a value's JSON text */
    yajl_gen cell;             /* the text of the array cell being read */
    yajl_gen esc;              /* a string's JSON text */
} ks_tbuild;

void ks_tbuild_init(ks_tbuild *b, ks_tables *t);
/* Every column as long as its table; frees the builder (not the tables). */
void ks_tbuild_finish(ks_tbuild *b);

/* The stream's buffer in front of the document's text, and the text's first mapping (bytes). */
#define KS_TABLES_TEXT_BUFFER (64u << 10)
#define KS_TABLES_TEXT_FIRST (1u << 20)

/* A writer's document: its text into memory (the tables' json; with text 0, nowhere), its values
 * into the tables. Give the stream begin returns to one public JSON writer (ks_analyze_json_begin,
 * ks_diff_json, ...), then call end. */
typedef struct ks_tables_doc {
    FILE *f;
    char *text;                /* the text so far: ntext bytes of captext (a mapping) */
    size_t ntext, captext;
    ks_tbuild b;
} ks_tables_doc;
FILE *ks_tables_doc_begin(ks_tables_doc *d, ks_tables *t, int text);
void ks_tables_doc_end(ks_tables_doc *d, ks_tables *t);
/* Free the tables' text (none afterwards). */
void ks_tables_drop_json(ks_tables *t);

/* A failed run: the error as the command prints it (the input's name first unless the message
 * has it; file may be NULL); returns t. */
ks_tables *ks_tables_fail(ks_tables *t, const char *file, const ks_error *err);

#endif
