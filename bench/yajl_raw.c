/* bench/yajl_raw.c: the baseline of every benchmark: yajl tokenising a plain JSON file with
 * empty callbacks (default options, UTF-8 validation on), in the same 256 KiB chunks kinesift
 * reads. Prints bytes and seconds. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <yajl/yajl_parse.h>

static int cb_null(void *c) { (void)c; return 1; }
static int cb_bool(void *c, int b) { (void)c; (void)b; return 1; }
static int cb_num(void *c, const char *s, size_t n) { (void)c; (void)s; (void)n; return 1; }
static int cb_str(void *c, const unsigned char *s, size_t n) { (void)c; (void)s; (void)n; return 1; }
static int cb_map(void *c) { (void)c; return 1; }

static const yajl_callbacks cbs = {cb_null, cb_bool, NULL, NULL, cb_num, cb_str,
                                   cb_map, cb_str, cb_map, cb_map, cb_map};

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: yajl_raw FILE.json\n");
        return 2;
    }
    FILE *f = fopen(argv[1], "rb");
    if (!f) {
        perror(argv[1]);
        return 2;
    }
    static char buf[256 * 1024];
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    yajl_handle h = yajl_alloc(&cbs, NULL, NULL);
    size_t n, total = 0;
    int ok = 1;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) {
        total += n;
        if (yajl_parse(h, (unsigned char *)buf, n) != yajl_status_ok) {
            ok = 0;
            break;
        }
    }
    if (ok && yajl_complete_parse(h) != yajl_status_ok)
        ok = 0;
    clock_gettime(CLOCK_MONOTONIC, &b);
    yajl_free(h);
    fclose(f);
    double s = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
    printf("%zu %.6f %s\n", total, s, ok ? "ok" : "error");
    return ok ? 0 : 1;
}
