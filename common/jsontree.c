/* common/jsontree.c: a small JSON document read into a yajl tree after a scan that bounds its
 * depth and its number of values (see jsontree.h).
 *
 * The scan counts what yajl will build: a '[' or '{' opens a level (and is a value), a ']' or
 * '}' closes one, a string or a scalar token outside strings is a value (a key counts as one: it
 * costs a string too). It does not check the grammar; yajl does, afterwards, on bounded input. A
 * quote inside a string is skipped with its backslash, so brackets in strings never count. */
#include "common/jsontree.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/limits.h"
#include "common/util.h"

/* 0, or 1 after writing why into msg */
static int scan(const char *p, size_t len, char *msg, size_t n)
{
    size_t depth = 0, values = 0;
    int in_str = 0, in_tok = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)p[i];
        if (c == 0) {
            snprintf(msg, n, "not a JSON text: NUL byte at byte %zu", i);
            return 1;
        }
        if (in_str) {
            if (c == '\\')
                i++;
            else if (c == '"')
                in_str = 0;
            continue;
        }
        int blank = c == ' ' || c == '\t' || c == '\n' || c == '\r';
        int punct = c == '[' || c == '{' || c == ']' || c == '}' || c == ',' || c == ':' || c == '"';
        if (blank || punct)
            in_tok = 0;
        else if (!in_tok) {
            in_tok = 1;
            values++;
        }
        if (c == '"') {
            in_str = 1;
            values++;
        } else if (c == '[' || c == '{') {
            values++;
            if (++depth > KS_LIMIT_TREE_DEPTH) {
                snprintf(msg, n, "nested deeper than %d levels at byte %zu", KS_LIMIT_TREE_DEPTH, i);
                return 1;
            }
        } else if ((c == ']' || c == '}') && depth)
            depth--;
        if (values > KS_LIMIT_TREE_VALUES) {
            snprintf(msg, n, "more than %d values (at byte %zu)", KS_LIMIT_TREE_VALUES, i);
            return 1;
        }
    }
    return 0;
}

yajl_val ks_json_tree_parse(const char *text, size_t len, char *msg, size_t n)
{
    if (scan(text, len, msg, n))
        return NULL;
    char *copy = ks_xstrndup(text, len); /* yajl_tree_parse wants a NUL-terminated text */
    char eb[256] = "";
    yajl_val root = yajl_tree_parse(copy, eb, sizeof eb);
    free(copy);
    if (!root) {
        /* yajl's message spans lines (a piece of the text and a caret): one line, and no control
         * character of the text reaches a terminal */
        for (char *q = eb; *q; q++)
            if ((unsigned char)*q < 0x20 || *q == 0x7f)
                *q = ' ';
        size_t l = strlen(eb);
        while (l && eb[l - 1] == ' ')
            eb[--l] = 0;
        snprintf(msg, n, "%s", eb[0] ? eb : "parse error");
    }
    return root;
}
