/* common/limits.h: every limit of the library, named in one place (SQLite's sqliteLimit.h idea).
 *
 * What: a limit is a number past which the library behaves differently from the general rule --
 * it refuses the input, stops looking, keeps only the first few, or puts the rest in one bucket.
 * Each one here says why it exists, what happens at it, and whether an option raises it. Sizes
 * that only tune speed (read blocks, chunk sizes, cache slots) are listed last: no result depends
 * on them.
 * Why it is correct: the files that apply a limit use the name below (some through a local alias
 * of the same value), so the number is stated once; tests that probe a limit use the name too.
 * When it does not apply: limits that are part of the public API (an array size in a public
 * struct) stay in their public header, and are listed at the end with where they live.
 * Who may use it: any room of the library and cli/. Internal (not installed). */
#ifndef KS_LIMITS_H
#define KS_LIMITS_H

/* ---- input --------------------------------------------------------------------------------- */

/* Directories a directory argument is walked into (each level's device and inode are kept to
 * find symbolic-link loops). Deeper is an error naming the directory: trace folders are a few
 * levels deep. No option. */
#define KS_LIMIT_DIR_DEPTH 32

/* JSON nesting depth the parser and the redactor follow. Deeper input is refused with an error
 * naming the offset: real traces nest a few levels, so depth beyond this is hostile, and a bound
 * keeps the skip counter and the redactor's frame stack small. No option. */
#define KS_LIMIT_JSON_DEPTH (1 << 20)

/* Bytes of one top-level metadata value (outside "traceEvents") that are kept. A longer value is
 * skipped and counted ("parse.long_metadata_skipped"): metadata are short names and versions;
 * a megabyte-long one would only bloat the store. No option. */
#define KS_LIMIT_META_VALUE 4096
/* Bytes of the JSON text of one shape arg ("Input Dims", "Input type", "Concrete Inputs") that are
 * kept. A longer value (an op over thousands of tensors) is dropped and counted
 * ("parse.shape_args_skipped"): its shapes are then not observed. No option. */
#define KS_LIMIT_SHAPE_TEXT 8192
/* Bytes of shape args (as the trace writes them) a parser remembers with their string ids, so that
 * a text met again is neither compacted nor interned again (parser/shapememo.c). Past it, new
 * texts are not remembered: read as before, only slower. No option. */
#define KS_LIMIT_SHAPE_MEMO (64u << 20)

/* Blank bytes the repairing pre-filter looks ahead before it decides how to repair a quote or a
 * comma: a bound on the work per byte. Past it, the decision is taken on what was seen. No
 * option. */
#define KS_LIMIT_REPAIR_LOOKAHEAD 4096

/* Distinct categories ("cat") a trace may have: they are stored as 16-bit indices. Categories
 * past the last slot share it and are counted ("parse.too_many_categories"). No option. */
#define KS_LIMIT_CATEGORIES 65535

/* Nesting depth and values of a JSON document read whole into a tree (common/jsontree.h: a
 * budget, a validate result, a redaction rules file) and of each line of a summary, which is
 * streamed (ranks/summary_stream.c: the values it keeps and those it drops count alike). Deeper
 * or larger is refused, naming the byte: the tree costs ~95 bytes a value (a document of 2^20
 * tiny values: 95 MB, 1.6 s) and is freed by recursion, one stack frame a level. What kinesift
 * writes nests 9 levels and holds a value every 25 bytes or more (a summary of 1 MB: 33 000
 * values; a summary line of ~50 000 collectives reaches the limit). No option. */
#define KS_LIMIT_TREE_DEPTH 128
#define KS_LIMIT_TREE_VALUES (1 << 20)

/* Bytes of a string of a summary that no reader reads (a value under a key it does not know, a
 * key of an object of known fields) that reach the JSON parser; the rest of the string is checked
 * (no control character, valid escapes and UTF-8) and dropped, so it costs no memory (the parser
 * would buffer it whole). Longer than every key a summary has. No option. */
#define KS_LIMIT_SUMMARY_SKIPPED_STRING 4096
/* Bytes of one number of a summary: longer is refused (what kinesift writes has 25 at most; yajl
 * would buffer a longer one whole). No option. */
#define KS_LIMIT_SUMMARY_NUMBER 4096

/* Nesting depth of what the JSON writer writes (common/jsonw.h): yajl_gen's own limit
 * (YAJL_MAX_DEPTH, 128: a container opened at depth 127 fails), which it keeps. A writer given
 * deeper fails at ks_jw_close. What kinesift writes nests 9 levels, a tree written back at most
 * KS_LIMIT_TREE_DEPTH. No option. */
#define KS_LIMIT_JW_DEPTH 128

/* Bytes of the side inputs read whole, after decompression: a summary (kinesift summarize: a
 * summary of a trace of hundreds of MB is a few MB), a budget, a validate result, a redaction
 * rules file, an nvidia-smi CSV, an @LIST. Larger is an error naming the file and the limit (an
 * endless input, /dev/zero, stops there). No option. */
#define KS_LIMIT_SUMMARY_BYTES (64u << 20)
#define KS_LIMIT_BUDGET_BYTES (16u << 20)
#define KS_LIMIT_VALIDATE_RESULT_BYTES (64u << 20)
#define KS_LIMIT_SMI_BYTES (256u << 20)
#define KS_LIMIT_LIST_BYTES (16u << 20)

/* ---- reports -------------------------------------------------------------------------------- */

/* Points of a device's memory timeline in reports (ks_mem_device.timeline): past it, per bucket of
 * time the points of the highest allocated and reserved levels and the last one, so every peak is
 * drawn. The exact events stay in ks_mem_device.ev. No option. */
#define KS_LIMIT_MEMORY_POINTS 1536

/* ---- store and diagnostics ------------------------------------------------------------------ */

/* Bytes of one diagnostic example's text (longer ones are cut): an example is one line that
 * names what was seen, not a copy of the input. No option. (KS_DIAG_EXAMPLES, the examples
 * kept per kind, is public: include/kinesift/diag.h.) */
#define KS_LIMIT_DIAG_TEXT 512

/* ---- analysis ------------------------------------------------------------------------------- */

/* Lanes a slice looks through (first fit) for a place to nest on an overlapping track; past them
 * it opens a new lane. Bounds the work per slice on hostile tracks; nothing is left out. No
 * option. */
#define KS_LIMIT_LANE_SCAN 256

/* Worker threads: `--threads 0` (the default) uses the online CPUs up to KS_LIMIT_THREADS_AUTO;
 * `--threads N` raises it up to KS_LIMIT_THREADS (the thread pool's fixed table). */
#define KS_LIMIT_THREADS_AUTO 8
#define KS_LIMIT_THREADS 64

/* Overlap examples kept per class (the worst by length) for the diagnostics. No option. */
#define KS_LIMIT_WORST_OVERLAPS 5

/* What-if factors (--shrink LABEL=FACTOR): new time = FACTOR x old time, FACTOR in [0, this].
 * Past it the option is refused: a factor of 1e308 would only saturate every time. No option. */
#define KS_LIMIT_WHATIF_FACTOR 1000

/* --shrink options of one whatif run (a GPU node keeps the shrink that scales it in a byte). No
 * option. */
#define KS_LIMIT_WHATIF_SHRINKS 250

/* ---- statistics ----------------------------------------------------------------------------- */

/* Largest sample size on each side for which Mann-Whitney's p-value is exact (the null
 * distribution counted); above it, or with ties, the normal approximation. No option. */
#define KS_LIMIT_MWU_EXACT 50

/* ---- redaction ------------------------------------------------------------------------------ */

/* Path components a path detector splits a value into; the rest of a longer path stays one
 * component. No option. */
#define KS_LIMIT_PATH_COMPONENTS 256

/* Lengths of a learned literal (a secret value seen once and replaced everywhere): shorter ones
 * would replace common substrings; longer ones are whole blobs, replaced where they occur by
 * their own rule. No option. */
#define KS_LIMIT_LITERAL_MIN 3
#define KS_LIMIT_LITERAL_MAX 253

/* Bytes of a terms file (`redact --deny-file`, one term a line): a larger file (or an endless
 * one, /dev/zero) is refused with an error naming it, before any trace is read. No option. */
#define KS_LIMIT_TERMS_FILE (16 << 20)

/* Bytes of a user rules file (`redact --rules`, JSON): a larger one is refused the same way.
 * No option. */
#define KS_LIMIT_RULES_FILE (1 << 20)

/* Bytes of a JSON key the redactor matches rules against; a longer key is compared by its first
 * KS_LIMIT_RD_KEY bytes. No option. */
#define KS_LIMIT_RD_KEY 64

/* ---- ranks ---------------------------------------------------------------------------------- */

/* Differences sequence alignment explores in one step of one process group (ranks/sequence.c,
 * Myers: about this squared in ints of memory); past it the calls pair by index. No option. */
#define KS_LIMIT_SEQ_MAX_D 1024
/* Shared collectives a clock fit takes at most (evenly spread; Theil-Sen over their pairs). */
#define KS_LIMIT_FIT_POINTS 64
/* The largest slope a clock fit takes as a drift, in ppm: a quartz clock drifts tens of ppm, an
 * unsynchronised one a few hundred at worst; a steeper slope (1 ms per second) is no clock's (calls
 * that do not synchronise, calls paired wrongly) and the rank is aligned by its offset alone. */
#define KS_LIMIT_DRIFT_PPM 1000.0
/* Absent ranks listed (JSON absent_ranks, the text's ranges); the count is always exact. */
#define KS_LIMIT_ABSENT_LISTED (1 << 20)
/* Missed calls the text and Markdown reports list (JSON lists them all). */
#define KS_LIMIT_MISSED_TEXT 50

/* ---- validate ------------------------------------------------------------------------------- */

/* Arms of one validated workload (--variants: baseline and candidates), workloads in one run
 * (names on the command line), and parameters of one built-in workload. The CLI keeps them in
 * fixed arrays; more is a usage error (exit 2), never a silent cut. No option. */
#define KS_LIMIT_VALIDATE_ARMS 8
#define KS_LIMIT_VALIDATE_WORKLOADS 8
#define KS_LIMIT_VALIDATE_PARAMS 8

/* ---- public limits (defined in the public headers, listed here) ----------------------------
 * KS_DIAG_EXAMPLES        include/kinesift/diag.h     examples kept per diagnostic kind (5)
 * KS_SETTINGS_MAX         include/kinesift/compare.h  setting mismatches reported by diff (8)
 * KS_RANK_TOP             include/kinesift/ranks.h    kernels kept before each collective (3)
 * KS_RANK_NAMES           include/kinesift/ranks.h    kernels and ops kept per rank, each (32)
 * KS_RANK_EVIDENCE        include/kinesift/ranks.h    the straggler's evidence rows (5)
 * KS_REDACT_KEY_MIN       include/kinesift/redact.h   bytes of a redaction key, at least (32)
 * KS_BOOTSTRAP_RESAMPLES  include/kinesift/stats.h    bootstrap resamples (10000)
 *
 * ---- sizes that tune speed only (no result depends on them) ---------------------------------
 * parser chunk (parser/parser_int.h DEFAULT_CHUNK) and the chunks an input needs for the reader
 * thread and the parse workers by default (MIN_THREAD_CHUNKS, there), source read block
 * (source/source.c BLOCK), string table chunk (store/strtab.c CHUNK), huge-page thresholds
 * (common/hugemem.h, store/bigarray.h), redactor chunk and output buffer (redact/rewrite.c),
 * cache slots (redact/scan.c, redact/pseudonym.c, redact/fields.c), O_TMPFILE files open at once
 * (common/afile.c). */

#endif
