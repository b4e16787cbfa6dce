/* fuzz/replay.c: a plain main() for a fuzz target, so its seed corpus and every regression input
 * (a finding, once fixed) replay in the normal test suite without libFuzzer. Arguments are files
 * or directories (their regular files, sorted; a missing directory is skipped); each file is one
 * input. Exit 0 when every input ran (a failed property aborts). */
#include <dirent.h>
#include <sys/stat.h>

#include "fuzz/fuzz.h"

__attribute__((weak)) int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    return 0;
}

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "replay: cannot open %s\n", path);
        return 1;
    }
    size_t cap = 1 << 16, n = 0;
    uint8_t *buf = malloc(cap);
    size_t got;
    while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap)
            buf = realloc(buf, cap *= 2);
    }
    fclose(f);
    if (!buf)
        abort();
    /* an exact-size copy, so that ASan sees reads past the end of the input */
    uint8_t *exact = malloc(n ? n : 1);
    memcpy(exact, buf, n);
    free(buf);
    LLVMFuzzerTestOneInput(exact, n);
    free(exact);
    return 0;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int run_path(const char *path, size_t *count)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return 0; /* no regression inputs yet */
    if (!S_ISDIR(st.st_mode)) {
        (*count)++;
        return run_file(path);
    }
    DIR *d = opendir(path);
    if (!d)
        return 1;
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        if (n == cap)
            names = realloc(names, (cap = cap ? cap * 2 : 64) * sizeof *names);
        size_t len = strlen(path) + strlen(e->d_name) + 2;
        names[n] = malloc(len);
        snprintf(names[n++], len, "%s/%s", path, e->d_name);
    }
    closedir(d);
    if (n)
        qsort(names, n, sizeof *names, by_name);
    int rc = 0;
    for (size_t i = 0; i < n; i++) {
        if (stat(names[i], &st) == 0 && S_ISREG(st.st_mode)) {
            (*count)++;
            rc |= run_file(names[i]);
        }
        free(names[i]);
    }
    free(names);
    return rc;
}

int main(int argc, char **argv)
{
    LLVMFuzzerInitialize(&argc, &argv);
    size_t count = 0;
    int rc = 0;
    for (int i = 1; i < argc; i++)
        rc |= run_path(argv[i], &count);
    printf("replayed %zu inputs\n", count);
    return rc;
}
