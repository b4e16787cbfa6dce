/* cli/terminal.c: standard output to a terminal never carries terminal codes. A trace's names are
 * the user's data and may hold any byte; an ESC or another control character printed to a
 * terminal would move the cursor, recolour, retitle or hide the report. When standard output is a
 * terminal, stdout is replaced by a stream that writes each control character other than newline
 * and tab as the four characters \xNN (as the text reports and error lines already do), whatever
 * the format: text, CSV, markdown, folded. To a file or a pipe every byte goes as it is, so a
 * CSV's names stay exact. */
#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include "cli/cli.h"

static int put_all(const char *p, size_t n)
{
    while (n) {
        ssize_t w = write(STDOUT_FILENO, p, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

static ssize_t escaped_write(void *cookie, const char *buf, size_t size)
{
    (void)cookie;
    size_t run = 0; /* the start of the bytes that need no escape */
    for (size_t i = 0; i < size; i++) {
        unsigned char c = (unsigned char)buf[i];
        if ((c >= 0x20 && c != 0x7f) || c == '\n' || c == '\t')
            continue;
        char esc[4] = {'\\', 'x', "0123456789abcdef"[c >> 4], "0123456789abcdef"[c & 15]};
        if (put_all(buf + run, i - run) != 0 || put_all(esc, sizeof esc) != 0)
            return -1;
        run = i + 1;
    }
    if (put_all(buf + run, size - run) != 0)
        return -1;
    return (ssize_t)size;
}

void ks_cli_terminal_guard(void)
{
    if (!isatty(STDOUT_FILENO))
        return;
    cookie_io_functions_t io = {.write = escaped_write};
    FILE *f = fopencookie(NULL, "w", io);
    if (!f)
        return; /* out of memory this early: the text reports escape their names themselves */
    setvbuf(f, NULL, _IOLBF, BUFSIZ);
    fflush(stdout);
    stdout = f; /* glibc's stdout is a variable (the GNU C Library manual, "Standard Streams") */
}
