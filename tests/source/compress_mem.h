/* tests/source/compress_mem.h: data compressed in memory by libarchive's writer (zlib, libzstd,
 * liblzma, libbz2: another implementation than the reader's), as one raw stream. Who may use it:
 * the cmocka tests of tests/parser (include after ks_test.h). */
#ifndef KS_COMPRESS_MEM_H
#define KS_COMPRESS_MEM_H

#include <archive.h>
#include <archive_entry.h>

/* data[0..n) through filter ("gzip", "zstd", "xz", "bzip2") at level (NULL: the filter's default)
 * into *out (malloc'ed, *outn bytes); fails the test when libarchive refuses. */
static inline void ks_test_compress(const char *filter, const char *level, const void *data, size_t n, char **out,
                                    size_t *outn)
{
    size_t cap = n + n / 100 + 4096;
    *out = malloc(cap);
    struct archive *a = archive_write_new();
    assert_int_equal(archive_write_add_filter_by_name(a, filter), ARCHIVE_OK);
    if (level)
        assert_int_equal(archive_write_set_filter_option(a, filter, "compression-level", level), ARCHIVE_OK);
    assert_int_equal(archive_write_set_format_raw(a), ARCHIVE_OK);
    archive_write_set_bytes_in_last_block(a, 1);
    assert_int_equal(archive_write_open_memory(a, *out, cap, outn), ARCHIVE_OK);
    struct archive_entry *e = archive_entry_new();
    archive_entry_set_filetype(e, AE_IFREG);
    archive_entry_set_pathname(e, "data");
    archive_write_header(a, e);
    if (n)
        assert_int_equal(archive_write_data(a, data, n), (la_ssize_t)n);
    archive_entry_free(e);
    archive_write_close(a);
    archive_write_free(a);
}

#endif
