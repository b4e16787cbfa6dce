/* report/gate_escape.c: escaping for the JUnit XML and Markdown writers of gate and diff. Names
 * come from traces (kernel names full of <, >, &; labels with any character a user typed), so
 * they are escaped, never trusted: XML gets entities and loses the characters XML 1.0 cannot
 * carry; Markdown table cells get their syntax characters escaped and HTML turned into text
 * (GitHub renders HTML in a step summary). */
#include <stdlib.h>
#include <string.h>

#include "common/jsonw.h"
#include "common/util.h"
#include "kinesift/compare.h"
#include "report/report_int.h"

/* s as valid UTF-8 (invalid sequences as U+FFFD): returns s or a malloc'ed copy in *tofree. */
static const char *valid_utf8(const char *s, char **tofree)
{
    size_t n = strlen(s), outlen;
    *tofree = ks_utf8_sanitize(s, n, &outlen);
    return *tofree ? *tofree : s;
}

void ks_xml_escape(FILE *out, const char *s)
{
    char *copy;
    const unsigned char *p = (const unsigned char *)valid_utf8(s, &copy);
    for (; *p; p++) {
        switch (*p) {
        case '&': fputs("&amp;", out); break;
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '"': fputs("&quot;", out); break;
        case '\'': fputs("&apos;", out); break;
        case '\t': fputs("&#9;", out); break;
        case '\n': fputs("&#10;", out); break;
        case '\r': fputs("&#13;", out); break;
        default:
            if (*p < 0x20)
                fputs("\xEF\xBF\xBD", out); /* not allowed in XML 1.0, not even as a reference */
            else
                fputc(*p, out);
        }
    }
    free(copy);
}

void ks_md_escape(FILE *out, const char *s)
{
    char *copy;
    const unsigned char *p = (const unsigned char *)valid_utf8(s, &copy);
    for (; *p; p++) {
        switch (*p) {
        case '&': fputs("&amp;", out); break;
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '\r':
        case '\n': fputc(' ', out); break;
        case '|': case '\\': case '`': case '*': case '_': case '[': case ']': case '#': case '~':
            fputc('\\', out);
            fputc(*p, out);
            break;
        default:
            if (*p < 0x20)
                fputc(' ', out);
            else
                fputc(*p, out);
        }
    }
    free(copy);
}
