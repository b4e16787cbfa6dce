/* json/scan.h: a fast scanner for the elements of a JSON array held whole in one buffer, that
 * calls yajl's callbacks (yajl_callbacks, yajl_number for every number) exactly as yajl 2 would:
 * the same calls, in the same order, with the same arguments, and with `consumed` equal at every
 * call to what yajl_get_bytes_consumed() returns there (the offset just after the token); one
 * departure, only when the client asks for it: an array handed over whole (raw_array, below).
 *
 * Why it is correct: it accepts only a strict subset of what yajl accepts and refuses everything
 * else before anything could differ. Whitespace is ' ' '\t' '\n' '\r' (yajl also takes '\v' '\f');
 * strings hold no byte below 0x20 and no escape but \" \\ \/ \b \f \n \r \t and \uXXXX outside the
 * high surrogates (decoded as yajl_string_decode does; bytes >= 0x80 pass as yajl passes them with
 * yajl_dont_validate_strings); numbers follow yajl's lexer and must be followed by a blank, ',', '}'
 * or ']'; no comments, no ']' at the outer level, nothing deeper than KS_JSCAN_DEPTH, no token cut
 * by the end of the buffer. On KS_JSCAN_REFUSED some callbacks may have run: the caller discards
 * what they did and hands the same bytes to yajl. tests/json/test_scan.c and fuzz/fuzz_scan.c
 * compare every call and offset with yajl's on the inputs the scanner accepts.
 *
 * Why it exists: yajl's byte-at-a-time lexer is half of the instructions of a parse
 * (docs/performance.md); the parser's workers run their clean runs of events through this instead.
 * Internal to parser/ (spec.c; its blanks also where the parser looks for event boundaries). */
#ifndef KS_JSON_SCAN_H
#define KS_JSON_SCAN_H

#include <stddef.h>

#include <yajl/yajl_parse.h>

#include "common/util.h"

/* A blank as the scanner takes it: ' ' '\t' '\n' '\r' (yajl also takes '\v' '\f'). */
static inline int ks_jscan_blank(unsigned char c)
{
    return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

/* Past the blanks of buf[0, len) at i (len if none): the indentation after a line break 8 spaces
 * at a time. */
static inline size_t ks_jscan_skip_blanks(const unsigned char *buf, size_t len, size_t i)
{
    while (i < len && ks_jscan_blank(buf[i])) {
        if (buf[i++] == '\n')
            i = ks_skip_spaces(buf, i, len);
    }
    return i;
}

#define KS_JSCAN_DEPTH 128 /* containers inside one element; deeper: refused (yajl reads it) */

enum {
    KS_JSCAN_OK = 0,       /* every byte consumed; yajl would have returned yajl_status_ok */
    KS_JSCAN_CANCELED = 1, /* a callback returned 0 (yajl_status_client_canceled) */
    KS_JSCAN_REFUSED = 2   /* not in the subset: yajl must read these bytes */
};

/* The one departure from yajl's calls, and only when asked: a whole array handed over as its
 * bytes. The map key callback of a client that wants the value of that key whole sets want_raw;
 * when the value is an array of arrays, strings with no escape, numbers and literals (no object,
 * nothing deeper than KS_JSCAN_DEPTH, all in the buffer), raw_array gets its bytes from '[' to
 * ']' once, with `consumed` after the ']', instead of the calls yajl would make for it; any other
 * value gets the usual calls. want_raw is cleared at every value. The client must read the bytes
 * as those calls would have told it (the parser keeps the array's compact text: the bytes less
 * the blanks outside strings). */
typedef int (*ks_jscan_raw_fn)(void *ctx, const unsigned char *s, size_t n);

typedef struct ks_jscan {
    size_t consumed;  /* during a callback: bytes of the buffer up to the end of its token */
    unsigned char *dec; /* decoded strings with escapes */
    size_t dec_cap;
    int want_raw;           /* set by a map key callback: its value whole, if it can be */
    ks_jscan_raw_fn raw_array; /* NULL: never */
} ks_jscan;

/* Scan buf[0, len) as what follows a '[' (or an element's ','): elements separated by ','. The
 * buffer must end at the end of an element or after a ','; a ']' closing the array is refused. */
int ks_jscan_elements(ks_jscan *s, const yajl_callbacks *cb, void *ctx, const unsigned char *buf,
                      size_t len);
void ks_jscan_free(ks_jscan *s);

#endif
