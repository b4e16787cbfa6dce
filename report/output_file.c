/* report/output_file.c: a finished report (a buffer) written to a file the safe way, through the
 * library's one atomic output file (common/afile.h): the target is checked (never an input,
 * never an existing file unless force, never a directory or a device), the bytes go to a
 * temporary file next to it that is renamed into place (a reader never sees half a file, and a
 * failed run leaves nothing). Used by `kinesift report`. */
#include "common/afile.h"
#include "kinesift/report.h"

int ks_report_write_file(const char *path, int force, char *const *inputs, size_t ninputs, const void *buf,
                         size_t n, ks_error *err)
{
    for (size_t i = 0; i < (ninputs ? ninputs : 1); i++)
        if (ks_afile_check_target(path, force, ninputs ? inputs[i] : NULL, NULL, 0, err) != KS_OK)
            return KS_ERR;
    ks_afile *s;
    if (ks_afile_open(path, KS_COMPRESS_NONE, &s, err) != KS_OK)
        return KS_ERR;
    if (ks_afile_write(s, buf, n) != 0) {
        ks_error e2;
        ks_afile_close(s, &e2);
        ks_afile_abort(s);
        return ks_error_set(err, "%s: cannot write the output", path);
    }
    if (ks_afile_close(s, err) != KS_OK) {
        ks_afile_abort(s);
        return KS_ERR;
    }
    return ks_afile_commit(s, force, err);
}
