/* json/repair.h: the streaming pre-filter between the decompressed bytes and yajl. It repairs
 * the malformed strings real Kineto writers produce (unescaped '"' inside names, raw control
 * characters, invalid '\' escapes from Windows paths, invalid UTF-8) and drops trailing commas
 * ("},]"), counting each repair. Valid JSON passes through byte for byte. Internal to parser/. */
#ifndef KS_REPAIR_H
#define KS_REPAIR_H

#include <stddef.h>
#include <stdint.h>

/* The repairs, one row each: the kind, its diagnostic id, what the diagnostic says, and whether
 * it is a lenient one: counted as information and accepted under --strict (a trailing comma),
 * where the others are warnings and the first of them is --strict's error. */
#define KS_REPAIR_KINDS(X)                                                                       \
    /* unescaped '"' inside a string -> \" */                                                   \
    X(QUOTE, "parse.repaired_unescaped_quote", "unescaped '\"' inside a string escaped", 0)      \
    /* raw control character inside a string -> \u00XX */                                       \
    X(CONTROL, "parse.repaired_control_character", "raw control character inside a string escaped", 0) \
    /* invalid escape "\c" -> "\\c" */                                                          \
    X(ESCAPE, "parse.repaired_invalid_escape", "invalid escape: backslash taken literally", 0)   \
    /* invalid UTF-8 byte -> U+FFFD */                                                           \
    X(UTF8, "parse.repaired_invalid_utf8", "invalid UTF-8 byte replaced by U+FFFD", 0)          \
    /* trailing comma before ']' or '}' removed */                                               \
    X(COMMA, "parse.trailing_comma", "trailing comma removed", 1)

enum ks_repair_kind {
#define KS_REPAIR_ENUM(name, id, what, lenient) KS_REPAIR_##name,
    KS_REPAIR_KINDS(KS_REPAIR_ENUM)
#undef KS_REPAIR_ENUM
    KS_REPAIR_NKINDS
};

/* A point where the output offset and the input offset start to differ by a new amount, and how
 * they go on up to the next point (sorted by out; map[0] = {0, 0}):
 *   - gin == 0: one byte for one byte from (out, in), except that the output bytes at or past the
 *     next point's in - 1 all map to it (the bytes of a repair's expansion, \u00XX, \", U+FFFD,
 *     come from the one input byte before the next point);
 *   - gin > 0: a run of repairs of one shape: groups of gout output bytes from gin input bytes
 *     each, gin - 1 bytes copied and then one repaired byte whose expansion fills the rest of the
 *     group (gout > 0), up to the next point. A string of 32 MiB of raw control characters is one
 *     point (groups of 1 byte to 6), not 32 million: the map is as long as the runs, not the
 *     repairs. */
typedef struct ks_repair_map {
    size_t out;
    size_t in;
    uint32_t gin, gout;
} ks_repair_map;

typedef struct ks_repair {
    int in_string;                  /* state carried between runs */
    int no_blocks;                  /* tests: use only the byte-by-byte path */
    int narrow_blocks;              /* tests: the 16-byte (SSE2) block path even where the CPU
                                     * has AVX2, whose 32-byte path is taken otherwise */
    int no_runs;                    /* tests: one map point per repair (no run of one shape
                                     * made one point) */
    uint64_t count[KS_REPAIR_NKINDS];
    /* called at every repair with the kind and the input offset (relative to the run's input) */
    void (*on_repair)(void *ctx, int kind, size_t in_off);
    void *ctx;
    /* the newlines in the input bytes the last run consumed (json/textpos.c counts the same),
     * counted by the 64-byte blocks as they are classified */
    uint64_t newlines;
    /* output of the last run: res points into the input itself when nothing was repaired */
    const char *res;
    size_t res_len;
    char *out;                      /* buffer for repaired output */
    size_t out_cap;
    ks_repair_map *map;             /* the offset map of the output (ks_repair_map) */
    size_t nmap, map_cap;
} ks_repair;

void ks_repair_init(ks_repair *r);
void ks_repair_free(ks_repair *r);
/* Reset the string state (after a resynchronisation). */
void ks_repair_reset(ks_repair *r);

/* Filter in[0..n): sets r->res / r->res_len and the offset map, and returns how many input
 * bytes were consumed. Bytes whose treatment depends on input not yet seen (a '"' or ',' whose
 * next non-blank byte is missing, an escape or UTF-8 sequence cut at the end) are left
 * unconsumed unless eof is set: the caller passes them again with more input. */
size_t ks_repair_run(ks_repair *r, const char *in, size_t n, int eof);

/* Map an output offset of the last run back to its input offset. */
size_t ks_repair_in_offset(const ks_repair *r, size_t out_off);

/* A filtered run as the parser consumes it: the bytes for yajl and the map of their offsets to
 * the run's input offsets (the repair filter's own output, or elide.c's on top of it). */
typedef struct ks_run {
    const char *res;
    size_t len;
    const ks_repair_map *map; /* map[0] = {0, 0}; sorted by out (ks_repair_map) */
    size_t nmap;
} ks_run;

/* The run of the last ks_repair_run. */
ks_run ks_repair_last_run(const ks_repair *r);

/* Map an output offset of a run back to its input offset. */
size_t ks_run_in_offset(const ks_run *run, size_t out_off);
/* The same, starting from the entry *hint (0 at first) and leaving the one used there: cheap for
 * offsets that mostly increase, as a parser's are. */
size_t ks_run_in_offset_hint(const ks_run *run, size_t out_off, size_t *hint);

const char *ks_repair_kind_id(int kind);
/* what a repair of that kind did, as its diagnostic says it */
const char *ks_repair_kind_what(int kind);
/* 1 for a lenient kind (information, accepted under --strict) */
int ks_repair_kind_lenient(int kind);

#endif
