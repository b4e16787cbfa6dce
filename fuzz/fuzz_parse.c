/* fuzz/fuzz_parse.c: the trace reader on a buffer, differentially. The first four bytes choose a
 * chunk size (1 byte to 8 MiB), the reader thread (never; as the defaults choose: for an input of
 * a few chunks with one parser thread, the reader's two slots filled by the parser, no thread;
 * always; always with every optional step; and that with the workers held until the main parser
 * waits for them, so that it scans its own chunks ahead) and the parser threads; the rest is the
 * trace. parse.h promises the same trace, diagnostics, positions and errors whatever the chunking
 * and threads: the rendering of the whole result (tests/parser/trace_digest.h) must equal the one
 * of a plain single-threaded read with the default chunk, in tolerant and in strict mode. */
#include "fuzz/fuzz.h"
#include "kinesift/parse.h"
#include "tests/parser/trace_digest.h"

static size_t pick_chunk(uint32_t sel, size_t len)
{
    static const size_t big[] = {4096, 65536, 256 * 1024, 1024 * 1024, 8 * 1024 * 1024};
    if (sel & 0x8000)
        return big[(sel & 0x7fff) % (sizeof big / sizeof big[0])];
    return 1 + (sel & 0x7fff) % (len + 1); /* small enough to cut the input somewhere */
}

static void compare(const uint8_t *p, size_t n, size_t chunk, int reader, int threads, int strict)
{
    ks_parse_opts ref, o;
    ks_parse_opts_init(&ref);
    ref.reader_thread = -1;
    ref.strict = strict;
    ks_parse_opts_init(&o);
    o.chunk_size = chunk;
    o.reader_thread = reader;
    o.threads = threads;
    o.strict = strict;
    char *a = digest_parse(p, n, &ref);
    char *b = digest_parse(p, n, &o);
    FUZZ_CHECK(strcmp(a, b) == 0, "chunk %zu reader %d threads %d strict %d: line %zu differs\n--- default\n%s\n--- chunked\n%s",
               chunk, reader, threads, strict, digest_first_diff_line(a, b), a, b);
    free(a);
    free(b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_in in = {data, size};
    uint32_t sel = fuzz_take(&in, 2);
    static const int readers[] = {-1, 0, 1, 2, 3};
    int reader = readers[fuzz_take(&in, 1) % 5];
    int threads = fuzz_take(&in, 1) % 2 ? 1 : 0;
    size_t chunk = pick_chunk(sel, in.n);
    compare(in.p, in.n, chunk, reader, threads, 0);
    compare(in.p, in.n, chunk, reader, threads, 1);
    return 0;
}
