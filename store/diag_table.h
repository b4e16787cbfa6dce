/* store/diag_table.h: every diagnostic id of the library, as one X-macro table: the id, its
 * severity, whether each occurrence is an element of "traceEvents" that was read but is counted
 * in no phase (so that "events read" adds up: ks_trace_events_read), and its one-line doc.
 *
 * Why it is correct: the table is the only list. tests/layout/diag_ids.py fails when an id is
 * emitted anywhere in the library (a string literal of the dotted form) without a row here, when
 * it is emitted with another severity than its row's, and when the list of docs/input.md
 * ("Every diagnostic") differs from this table in any id, severity or doc.
 * When it does not apply: ids are still passed as strings to ks_diag_count/ks_diag_add (a public
 * API that programs using the library may extend with ids of their own); the table describes the
 * library's own.
 * Who may use it: store/diag.c only (the public view is ks_diag_infos in kinesift/diag.h).
 *
 * Rows are sorted by id. KS_DIAG_ROW(id, severity, uncounted_event, doc) */
#ifndef KS_DIAG_TABLE_H
#define KS_DIAG_TABLE_H

#define KS_DIAG_TABLE(X)                                                                           \
    X("links.gpu_without_launch", INFO, 0,                                                         \
      "GPU work whose correlation id matches no CPU launch call")                                  \
    X("links.launch_without_gpu", INFO, 0,                                                         \
      "a CPU launch call whose correlation id matches no GPU work")                                \
    X("parse.array_unclosed", INFO, 0,                                                             \
      "the traceEvents array has no closing bracket (allowed by the format); events kept")         \
    X("parse.bad_dur", WARNING, 0,                                                                 \
      "\"dur\" not a number, ts + dur outside int64 ns, or \"dur\" longer than 78 hours "           \
      "(2^48 − 2^32 − 1 ns, the most an event record keeps, `KS_EVENT_MAX_DUR`): event skipped")   \
    X("parse.bad_ts", WARNING, 0, "\"ts\" not a number (`true`, `false` and `null` included) or outside int64 ns: event skipped") \
    X("parse.bom", INFO, 0, "a UTF-8 byte order mark, skipped")                                    \
    X("parse.duplicate_key", INFO, 0, "a key kinesift reads given twice in one event: the last wins") \
    X("parse.empty_event", INFO, 1, "an empty {} event, skipped")                                  \
    X("parse.ignored_metadata", INFO, 0, "an M event kinesift does not use")                       \
    X("parse.ignored_phase", INFO, 0, "an event of a phase kinesift does not use (counted by phase)") \
    X("parse.kinesift_annotation", INFO, 1, "an event kinesift annotate added (category kinesift, the kinesift process), left out") \
    X("parse.long_metadata_skipped", INFO, 0,                                                      \
      "a top-level metadata value longer than KS_LIMIT_META_VALUE bytes, skipped")                 \
    X("parse.missing_ph", WARNING, 1, "an event without \"ph\", skipped")                          \
    X("parse.missing_ts", WARNING, 0, "a non-M event without \"ts\", skipped")                     \
    X("parse.negative_dur", WARNING, 0, "an X event with a negative \"dur\", skipped")             \
    X("parse.negative_ts", INFO, 0, "a negative \"ts\", kept")                                     \
    X("parse.non_object_event", WARNING, 1, "an element of traceEvents that is not an object, skipped") \
    X("parse.numeric_string_id", INFO, 0, "a pid or tid string that is exactly a number, read as it") \
    X("parse.read_error", ERROR, 0, "the input could not be read (or decompressed) to its end")    \
    X("parse.repaired_control_character", WARNING, 0, "a raw control character in a string, escaped") \
    X("parse.repaired_invalid_escape", WARNING, 0, "an invalid escape; the backslash taken literally") \
    X("parse.repaired_invalid_utf8", WARNING, 0, "an invalid UTF-8 byte, replaced by U+FFFD")      \
    X("parse.repaired_unescaped_quote", WARNING, 0, "an unescaped quote inside a string, escaped") \
    X("parse.resync_bytes_skipped", WARNING, 0, "bytes skipped to find the next event after a syntax error") \
    X("parse.shape_args_skipped", INFO, 0,                                                         \
      "a shape arg (Input Dims, Input type, Concrete Inputs) holding an object or longer than KS_LIMIT_SHAPE_TEXT bytes, not kept") \
    X("parse.skipped_event", ERROR, 0, "an event with a syntax error, skipped")                    \
    X("parse.skipped_metadata", WARNING, 0, "metadata with a syntax error before traceEvents, skipped") \
    X("parse.skipped_tail", WARNING, 0, "metadata with a syntax error after the events, ignored")  \
    X("parse.thread_metadata_without_events", INFO, 0, "a thread_name or thread_sort_index for a thread with no event") \
    X("parse.too_many_categories", WARNING, 0,                                                     \
      "categories past KS_LIMIT_CATEGORIES share the last one")                                    \
    X("parse.trace_events_not_array", WARNING, 0, "traceEvents is not an array: ignored")          \
    X("parse.trailing_comma", INFO, 0, "a trailing comma, removed")                                \
    X("parse.trailing_garbage", WARNING, 0, "bytes after the trace, ignored; a second JSON document there (a concatenated file, JSON Lines) is named as such: only the first trace is read, and under `--strict` it is an error (exit 2)") \
    X("parse.truncated", ERROR, 0, "the input ends inside the trace (a killed job); complete events kept") \
    X("parse.ts_rounded", INFO, 0, "a ts or dur with digits below the nanosecond, rounded half away from zero") \
    X("parse.x_without_dur", WARNING, 0, "an X event without \"dur\", skipped")                    \
    X("timeline.end_name_mismatch", WARNING, 0, "an E event that closes a B below the innermost open one") \
    X("timeline.exact_duplicates", INFO, 0, "slices identical in name, start and end on one track") \
    X("timeline.gpu_overlap", INFO, 0, "GPU slices on one stream that partially overlap")          \
    X("timeline.partial_overlap", WARNING, 0, "CPU slices that partially overlap the slice they start in") \
    X("timeline.python_frame_cut", INFO, 0, "a Python frame cut at the start of a slice it overlaps") \
    X("timeline.self_time", INFO, 0, "self time re-assigned from overflow lanes, cut or dropped (the overlap policy)")      \
    X("timeline.unclosed_begin", WARNING, 0, "a B event never closed: it ends at the trace end")   \
    X("timeline.unmatched_end", WARNING, 0, "an E event with no open B on its track")

#endif
