/* kinesift/tables.h: a command's JSON document as column tables, in memory, for a binding (the
 * Python package, python/kinesift) to read without parsing text: `analyze`, `stats`, `diff` and
 * `ranks` run in-process, their JSON writers (the reference form, docs/schema-*.md) feeding the
 * tables value by value while they write the document's text into memory.
 *
 * How a document becomes tables (report/tables.c), the same rule for every schema:
 *  - the top-level object is the table "" (one row); every array of objects at any depth is a
 *    table named by the keys that lead to it from its parent table, joined with "." ("traces",
 *    then "traces.ops", "traces.steps.critical_path.top"), one row per object;
 *  - inside a row, an object is flattened: its members are columns "key.member" (as pandas'
 *    json_normalize names them); a scalar is a cell;
 *  - an array of scalars or of arrays, and an empty array, is one cell of type KS_COL_JSON holding
 *    the array's JSON text (compact);
 *  - a row of a table below "" has the column "_parent": the index of its row in the parent
 *    table;
 *  - a key absent from a row, or null, is a null cell (the validity byte 0), never 0.
 * Column names are the JSON field names. A column's type is that of its values: KS_COL_INT64
 * (integers exactly as written: nanoseconds, counts, bytes), KS_COL_DOUBLE (the double the writer
 * was given, at full precision: the text rounds it to 6 significant digits), KS_COL_STRING,
 * KS_COL_BOOL (int64 0/1), KS_COL_NULL (every cell null); a column whose rows hold values of two
 * kinds (an integer and a string) is KS_COL_JSON, each cell the value's JSON text. An integer
 * column that meets a double becomes KS_COL_DOUBLE.
 *
 * Memory: fixed-width cells are 8 bytes (int64_t or double); strings and JSON text are one buffer
 * of bytes (UTF-8, no NUL between them) with int64 offsets, rows + 1 of them, as Apache Arrow lays
 * out strings. Pointers stay valid until ks_tables_free.
 *
 * Threads: runs on different threads may go at once (each reads, analyses and writes its own
 * objects, and a writer's values are caught per thread; kinesift/common.h). A binding calls them
 * without its interpreter lock (Python's ctypes.CDLL releases the GIL during a foreign call). */
#ifndef KINESIFT_TABLES_H
#define KINESIFT_TABLES_H

#include <stddef.h>
#include <stdint.h>

#include "kinesift/common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum ks_col_type {
    KS_COL_NULL = 0,
    KS_COL_INT64 = 1,
    KS_COL_DOUBLE = 2,
    KS_COL_STRING = 3,
    KS_COL_BOOL = 4,
    KS_COL_JSON = 5
} ks_col_type;

/* The options of a run, by the long names of the command's options and their text, as on the
 * command line (docs/python.md lists them): analyze: "window", "step-label", "warmup",
 * "overlap", "gap-threshold", "data-label", "min-impact", "all-diagnoses", "top", "sort", "peak";
 * redact: below; every command: "threads", "strict" (a flag: "1" or "0"), and "text" (a flag,
 * "1" by default; "0": the document's text is not kept, only its tables: ks_tables_json gives ""
 * — the text of a large trace's analysis is megabytes of memory to fill). */
typedef struct ks_tables_opts ks_tables_opts;
KS_API ks_tables_opts *ks_tables_opts_new(void);
/* 0, or -1 for an unknown name or a value it does not take: the one-line reason in
 * ks_tables_opts_error. */
KS_API int ks_tables_opts_set(ks_tables_opts *o, const char *name, const char *value);
KS_API const char *ks_tables_opts_error(const ks_tables_opts *o);
KS_API void ks_tables_opts_free(ks_tables_opts *o);

/* A run's tables, or its error. */
typedef struct ks_tables ks_tables;

/* `kinesift analyze --format json PATH` (schema kinesift.analyze/1): PATH is one trace (a file,
 * gzip or any compression, or an archive of one member; "-" is not taken). o may be NULL (the
 * defaults). Never NULL: the result or the error (ks_tables_error). */
KS_API ks_tables *ks_tables_analyze(const char *path, const ks_tables_opts *o);
/* `kinesift stats --format json PATH` (schema kinesift.stats/1): every trace of PATH. */
KS_API ks_tables *ks_tables_stats(const char *path, const ks_tables_opts *o);
/* `kinesift diff --format json BEFORE AFTER` (schema kinesift.diff/1): one trace each. */
KS_API ks_tables *ks_tables_diff(const char *before, const char *after, const ks_tables_opts *o);
/* `kinesift ranks --format json PATH...` (schema kinesift.ranks/3): one trace or summary
 * (kinesift summarize) per rank (files, archives' members, directories expanded as the command
 * does). */
KS_API ks_tables *ks_tables_ranks(const char *const *paths, size_t npaths, const ks_tables_opts *o);

/* `kinesift redact SRC -o DST` (one trace, not an archive): DST written as the command writes
 * it (atomically, never over SRC, nor over an existing file without "force"); the tables are
 * its report, schema kinesift.redact-report/1. Options: "force", "shapes", "keep-logs" (flags),
 * "key-file" (else $KINESIFT_REDACT_KEY, else a random key). */
KS_API ks_tables *ks_tables_redact(const char *src, const char *dst, const ks_tables_opts *o);

/* The error of a failed run: the one line the command prints after "kinesift: " (the input's
 * name, then "byte N (line L, column C): " where the input has a position), or NULL when it
 * succeeded. ks_tables_error_at: 1 and pos[0..2] = byte (0-based), line, column (1-based) when
 * the error has a position, else 0. */
KS_API const char *ks_tables_error(const ks_tables *t);
KS_API int ks_tables_error_at(const ks_tables *t, uint64_t pos[3]);

/* The document's text, as the command writes it to its standard output; *len its length ("" and
 * 0 when the run's option "text" was "0"). */
KS_API const char *ks_tables_json(const ks_tables *t, size_t *len);

KS_API size_t ks_tables_count(const ks_tables *t);
/* The index of the table named name, or -1. */
KS_API long ks_tables_find(const ks_tables *t, const char *name);
KS_API const char *ks_tables_name(const ks_tables *t, size_t table);
KS_API size_t ks_tables_rows(const ks_tables *t, size_t table);
KS_API size_t ks_tables_columns(const ks_tables *t, size_t table);
KS_API const char *ks_tables_column_name(const ks_tables *t, size_t table, size_t col);
KS_API int ks_tables_column_type(const ks_tables *t, size_t table, size_t col); /* ks_col_type */
/* rows bytes: 1 where the cell has a value, 0 where it is null */
KS_API const uint8_t *ks_tables_column_valid(const ks_tables *t, size_t table, size_t col);
/* KS_COL_INT64, KS_COL_BOOL, KS_COL_NULL: rows int64_t; KS_COL_DOUBLE: rows double (0 where
 * null); KS_COL_STRING, KS_COL_JSON: the bytes of every cell, one after the other */
KS_API const void *ks_tables_column_data(const ks_tables *t, size_t table, size_t col);
/* KS_COL_STRING, KS_COL_JSON: rows + 1 offsets into the bytes (cell i is [off[i], off[i+1]));
 * NULL for the other types */
KS_API const int64_t *ks_tables_column_offsets(const ks_tables *t, size_t table, size_t col);

KS_API void ks_tables_free(ks_tables *t);

#ifdef __cplusplus
}
#endif
#endif
