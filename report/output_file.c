/* report/output_file.c: a finished report (a buffer) written to a file the safe way: redact's
 * target check (never an input, never an existing file unless force, never a directory or a
 * device) and its sink (a temporary file next to the target, renamed into place: a reader never
 * sees half a file, and a failed run leaves nothing). Used by `kinesift report`. */
#include "kinesift/report.h"
#include "redact/redact_int.h"

int ks_report_write_file(const char *path, int force, char *const *inputs, size_t ninputs, const void *buf,
                         size_t n, ks_error *err)
{
    for (size_t i = 0; i < (ninputs ? ninputs : 1); i++) {
        ks_redact_output o = {.path = path, .compress = KS_COMPRESS_NONE, .force = force,
                              .input = ninputs ? inputs[i] : NULL};
        if (ks_rd_check_target(&o, err) != KS_OK)
            return KS_ERR;
    }
    ks_rd_sink *s;
    if (ks_rd_sink_open(path, KS_COMPRESS_NONE, &s, err) != KS_OK)
        return KS_ERR;
    if (ks_rd_sink_write(s, buf, n) != 0) {
        ks_error e2;
        ks_rd_sink_close(s, &e2);
        ks_rd_sink_abort(s);
        return ks_error_set(err, "%s: cannot write the output", path);
    }
    if (ks_rd_sink_close(s, err) != KS_OK) {
        ks_rd_sink_abort(s);
        return KS_ERR;
    }
    return ks_rd_sink_commit(s, force, err);
}
