/* insights/telemetry.c: nvidia-smi samples beside the trace. Reads the CSV of
 * `nvidia-smi --query-gpu=timestamp,uuid,utilization.gpu,memory.used,memory.total --format=csv
 * --loop=1` (or -lms; columns found by their header, units kept), converts its local timestamps
 * to Unix time with the time zone the user gives (nvidia-smi writes none: a fixed offset, or an
 * IANA zone with its DST through tzone.c) plus a skew correction,
 * and aligns them on the trace's clock (baseTimeNanoseconds + ts, or absolute ts). N/A and
 * [Not Supported] stay unknown (NaN), never 0. Per window and per step: utilization min/mean/max
 * and memory used, of one GPU: the only one of the CSV, the one --smi-gpu names, or the trace's
 * device when that match is certain (select_by_trace); several GPUs are never averaged.
 * utilization.gpu is the share of sample time with at least one kernel running, not efficiency. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>

#include "insights/tzone.h"
#include "common/limits.h"
#include "common/util.h"
#include "kinesift/insights.h"
#include "kinesift/parse.h"

enum { COL_TS, COL_UUID, COL_UTIL, COL_MEM_USED, COL_MEM_TOTAL, COL_INDEX, COL_NAME, COL_BUS, NCOLS };

/* what the CSV says of each GPU, parallel to tm->uuids (its identity: UUID, else bus id, else index) */
typedef struct gpu_info {
    char index[16], name[96], bus[32];
} gpu_info;

typedef struct csv_gpus {
    gpu_info *v;
    size_t cap;
} csv_gpus;

static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    size_t n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1]))
        s[--n] = 0;
    return s;
}

/* split a CSV line in place on commas (nvidia-smi never quotes) */
static size_t split(char *line, char **f, size_t max)
{
    size_t n = 0;
    char *p = line;
    while (n < max) {
        char *c = strchr(p, ',');
        if (c)
            *c = 0;
        f[n++] = trim(p);
        if (!c)
            break;
        p = c + 1;
    }
    return n;
}

/* "utilization.gpu [%]" -> column id, and the unit */
static int column_of(const char *h, char *unit, size_t un)
{
    static const char *const names[NCOLS] = {"timestamp", "uuid", "utilization.gpu", "memory.used",
                                             "memory.total", "index", "name", "pci.bus_id"};
    for (int c = 0; c < NCOLS; c++) {
        size_t l = strlen(names[c]);
        if (strncmp(h, names[c], l) || (h[l] && h[l] != ' '))
            continue;
        const char *b = strchr(h, '['), *e = b ? strchr(b, ']') : NULL;
        if (unit && b && e && (size_t)(e - b - 1) < un) {
            memcpy(unit, b + 1, (size_t)(e - b - 1));
            unit[e - b - 1] = 0;
        }
        return c;
    }
    return -1;
}

static int unknown_value(const char *v)
{
    return !*v || !strcmp(v, "N/A") || v[0] == '[';
}

/* "45 %", "1234 MiB", "45": the number; NaN when unknown */
static int number(const char *v, double *out, uint64_t *unknown)
{
    if (unknown_value(v)) {
        *out = NAN;
        (*unknown)++;
        return 0;
    }
    char *end;
    *out = strtod(v, &end);
    if (end == v)
        return -1;
    while (isspace((unsigned char)*end))
        end++;
    /* a unit may follow */
    return 0;
}

/* "2024/05/01 12:00:00.123" -> the wall-clock fields and the fraction in ns */
static int parse_stamp(const char *s, struct tm *tm, ks_ns *frac_out)
{
    int Y, M, D, h, m, sec, n = 0;
    if (sscanf(s, "%4d/%2d/%2d %2d:%2d:%2d%n", &Y, &M, &D, &h, &m, &sec, &n) != 6)
        return -1;
    /* years int64 ns since the epoch can hold (1678..2261) with room for the offsets */
    if (Y < 1700 || Y > 2200)
        return -1;
    if (M < 1 || M > 12 || D < 1 || D > 31 || h > 23 || m > 59 || sec > 60)
        return -1;
    memset(tm, 0, sizeof *tm);
    tm->tm_year = Y - 1900;
    tm->tm_mon = M - 1;
    tm->tm_mday = D;
    tm->tm_hour = h;
    tm->tm_min = m;
    tm->tm_sec = sec;
    ks_ns frac = 0;
    const char *p = s + n;
    if (*p == '.') {
        p++;
        ks_ns scale = 100000000;
        while (isdigit((unsigned char)*p)) {
            frac += (*p - '0') * scale;
            scale /= 10;
            p++;
        }
    }
    while (isspace((unsigned char)*p))
        p++;
    if (*p)
        return -1;
    *frac_out = frac;
    return 0;
}

/* the sample's Unix time: a fixed offset, or the named zone (entered by the caller) */
static int stamp_to_unix(const ks_smi_opts *o, const struct tm *local, ks_ns frac, int *have_prev, time_t *prev,
                         ks_ns *out)
{
    time_t t;
    if (o->tz_zone) {
        if (ks_tz_local_to_unix(local, *have_prev, *prev, &t) != 0)
            return -1;
        *out = (ks_ns)t * 1000000000LL + frac;
    } else {
        struct tm u = *local;
        t = timegm(&u);
        if (t == (time_t)-1)
            return -1;
        *out = (ks_ns)t * 1000000000LL + frac - o->tz_offset_ns;
    }
    *have_prev = 1;
    *prev = t;
    return 0;
}

static void stats(const ks_telemetry *tm, ks_ns t0, ks_ns t1, ks_smi_stats *s)
{
    memset(s, 0, sizeof *s);
    double sum = 0;
    s->util_min = s->util_max = s->util_mean = NAN;
    s->mem_used_min = s->mem_used_max = NAN;
    for (size_t i = 0; i < tm->n; i++) {
        const ks_smi_sample *x = &tm->s[i];
        if (x->t < t0 || x->t >= t1)
            continue;
        s->n++;
        if (!isnan(x->util)) {
            if (!s->util_known++ || x->util < s->util_min)
                s->util_min = x->util;
            if (s->util_known == 1 || x->util > s->util_max)
                s->util_max = x->util;
            sum += x->util;
        }
        if (!isnan(x->mem_used)) {
            if (!s->mem_known++ || x->mem_used < s->mem_used_min)
                s->mem_used_min = x->mem_used;
            if (s->mem_known == 1 || x->mem_used > s->mem_used_max)
                s->mem_used_max = x->mem_used;
        }
    }
    if (s->util_known)
        s->util_mean = sum / (double)s->util_known;
}

static const char *field(char **fld, size_t nf, int c)
{
    return c >= 0 && (size_t)c < nf ? fld[c] : "";
}

/* the GPU of a row, added on first sight with what the CSV says of it */
static uint32_t gpu_of(ks_telemetry *tm, csv_gpus *g, char **fld, size_t nf, const int *col)
{
    const char *u = field(fld, nf, col[COL_UUID]);
    if (!*u)
        u = field(fld, nf, col[COL_BUS]);
    if (!*u)
        u = field(fld, nf, col[COL_INDEX]);
    for (size_t i = 0; i < tm->nuuids; i++)
        if (!strcmp(tm->uuids[i], u))
            return (uint32_t)i;
    tm->uuids = ks_xrealloc(tm->uuids, (tm->nuuids + 1) * sizeof *tm->uuids);
    tm->uuids[tm->nuuids] = ks_xstrdup(u);
    if (tm->nuuids >= g->cap) {
        g->cap = g->cap ? 2 * g->cap : 4;
        g->v = ks_xrealloc(g->v, g->cap * sizeof *g->v);
    }
    gpu_info *x = &g->v[tm->nuuids];
    snprintf(x->index, sizeof x->index, "%s", field(fld, nf, col[COL_INDEX]));
    snprintf(x->name, sizeof x->name, "%s", field(fld, nf, col[COL_NAME]));
    snprintf(x->bus, sizeof x->bus, "%s", field(fld, nf, col[COL_BUS]));
    return (uint32_t)tm->nuuids++;
}

/* a directory, an image or other binary data is not a CSV: say which */
static int not_a_csv(const char *path, FILE *f, ks_error *err)
{
    struct stat sb;
    if (fstat(fileno(f), &sb) != 0)
        return KS_OK;
    if (S_ISDIR(sb.st_mode))
        return ks_error_set(err, "%s: is a directory, not an nvidia-smi CSV file", path);
    if (!S_ISREG(sb.st_mode))
        return KS_OK; /* a pipe cannot be read twice: its lines are checked as they come */
    unsigned char b[512];
    size_t n = fread(b, 1, sizeof b, f);
    rewind(f);
    static const struct { const char *magic; size_t len; const char *what; } kinds[] = {
        {"\x89PNG", 4, "a PNG image"}, {"\xff\xd8\xff", 3, "a JPEG image"}, {"GIF8", 4, "a GIF image"},
        {"%PDF", 4, "a PDF document"}, {"\x1f\x8b", 2, "gzip-compressed data (decompress it first)"},
        {"PK\x03\x04", 4, "a zip archive"}, {"BM", 2, "a BMP image"}, {"RIFF", 4, "a RIFF (WebP?) file"},
    };
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
        if (n >= kinds[k].len && !memcmp(b, kinds[k].magic, kinds[k].len))
            return ks_error_set(err, "%s: is %s, not an nvidia-smi CSV file", path, kinds[k].what);
    if (memchr(b, 0, n))
        return ks_error_set(err, "%s: is binary data, not an nvidia-smi CSV file", path);
    return KS_OK;
}

/* One line of at most cap - 1 bytes into buf (its newline dropped): 1, 0 at the end of the
 * input, -1 with err set for a NUL byte (binary data, /dev/zero), a line longer than the buffer
 * or an input past KS_LIMIT_SMI_BYTES (an endless one). *total counts the bytes read. */
static int csv_line(FILE *f, char *buf, size_t cap, size_t *total, const char *path, size_t lineno,
                    ks_error *err)
{
    size_t n = 0;
    int c;
    while ((c = getc(f)) != EOF) {
        if (++*total > KS_LIMIT_SMI_BYTES) {
            ks_error_set(err, "%s: larger than %u MiB: not an nvidia-smi CSV file", path, KS_LIMIT_SMI_BYTES >> 20);
            return -1;
        }
        if (c == 0) {
            ks_error_set(err, "%s: line %zu: NUL byte: binary data, not an nvidia-smi CSV file", path, lineno);
            return -1;
        }
        if (c == '\n')
            break;
        if (n + 1 >= cap) {
            ks_error_set(err, "%s: line %zu: longer than %zu bytes: not an nvidia-smi CSV line", path, lineno,
                         cap - 1);
            return -1;
        }
        buf[n++] = (char)c;
    }
    buf[n] = 0;
    return c != EOF || n ? 1 : 0;
}

static int read_csv(const ks_smi_opts *o, ks_telemetry *tm, csv_gpus *g, ks_error *err)
{
    FILE *f = fopen(o->path, "r");
    if (!f)
        return ks_error_set(err, "%s: cannot open: %m", o->path);
    if (not_a_csv(o->path, f, err) != KS_OK) {
        fclose(f);
        return KS_ERR;
    }
    char line[4096];
    int col[NCOLS];
    for (int c = 0; c < NCOLS; c++)
        col[c] = -1;
    size_t lineno = 0, cap = 0, total = 0;
    int header = 0, have_prev = 0, rc = KS_OK, got;
    time_t prev = 0;
    ks_tz_scope zone = {0};
    if (o->tz_zone)
        ks_tz_enter(&zone, o->tz_zone);
    while ((got = csv_line(f, line, sizeof line, &total, o->path, lineno + 1, err)) != 0) {
        if (got < 0) {
            rc = KS_ERR;
            break;
        }
        lineno++;
        char *l = trim(line);
        if (!*l || *l == '#')
            continue;
        char *fld[32];
        size_t nf = split(l, fld, 32);
        if (!header) {
            for (size_t i = 0; i < nf; i++) {
                char unit[16] = "";
                int c = column_of(fld[i], unit, sizeof unit);
                if (c < 0)
                    continue;
                col[c] = (int)i;
                if (c == COL_UTIL)
                    snprintf(tm->units_util, sizeof tm->units_util, "%s", unit);
                if (c == COL_MEM_USED)
                    snprintf(tm->units_mem, sizeof tm->units_mem, "%s", unit);
            }
            if (col[COL_TS] < 0) {
                rc = ks_error_set(err, "%s: line %zu: not an nvidia-smi CSV header: no timestamp column "
                                  "(expected --query-gpu=timestamp,... --format=csv)", o->path, lineno);
                break;
            }
            header = 1;
            continue;
        }
        ks_smi_sample x;
        memset(&x, 0, sizeof x);
        struct tm local;
        ks_ns frac;
        if (parse_stamp(field(fld, nf, col[COL_TS]), &local, &frac) != 0) {
            rc = ks_error_set(err, "%s: line %zu: bad timestamp '%s' (expected YYYY/MM/DD HH:MM:SS.mmm)", o->path,
                              lineno, field(fld, nf, col[COL_TS]));
            break;
        }
        if (stamp_to_unix(o, &local, frac, &have_prev, &prev, &x.t) != 0) {
            rc = ks_error_set(err, "%s: line %zu: %s does not exist in %s (skipped by a daylight saving change)",
                              o->path, lineno, field(fld, nf, col[COL_TS]), o->tz_zone ? o->tz_zone : "UTC");
            break;
        }
        x.t = ks_sat_add(x.t, o->offset_ns);
        x.gpu = gpu_of(tm, g, fld, nf, col);
        x.util = x.mem_used = x.mem_total = NAN;
        double *dst[COL_INDEX] = {NULL, NULL, &x.util, &x.mem_used, &x.mem_total};
        for (int c = COL_UTIL; c < COL_INDEX && rc == KS_OK; c++) {
            if (col[c] < 0 || (size_t)col[c] >= nf)
                continue;
            if (number(fld[col[c]], dst[c], &tm->unknown_values) != 0)
                rc = ks_error_set(err, "%s: line %zu: '%s' is not a number", o->path, lineno, fld[col[c]]);
        }
        if (rc != KS_OK)
            break;
        KS_PUSH(tm->s, tm->n, cap, x);
    }
    if (o->tz_zone)
        ks_tz_leave(&zone);
    fclose(f);
    if (rc == KS_OK && !header)
        rc = ks_error_set(err, "%s: empty CSV (no header line)", o->path);
    return rc;
}

/* the number that names GPU i: the CSV's index column, else its order of appearance */
static long gpu_index(const csv_gpus *g, size_t i)
{
    char *end;
    long v = strtol(g->v[i].index, &end, 10);
    return end != g->v[i].index && !*end ? v : (long)i;
}

static void keep_only(ks_telemetry *tm, size_t gpu)
{
    size_t o = 0;
    for (size_t i = 0; i < tm->n; i++)
        if (tm->s[i].gpu == gpu)
            tm->s[o++] = tm->s[i];
    tm->n = o;
    tm->gpu = tm->uuids[gpu];
}

/* "0 GPU-aaa (NVIDIA H100), 1 GPU-bbb (...)"; with many GPUs (the message must fit one error
 * line), the first 12 characters of each UUID and no names: the index is enough for --smi-gpu */
static void gpu_list(const ks_telemetry *tm, const csv_gpus *g, char *buf, size_t n)
{
    for (int brief = 0; brief < 2; brief++) {
        size_t o = 0;
        buf[0] = 0;
        for (size_t i = 0; i < tm->nuuids && o < n; i++) {
            const char *nm = brief ? "" : g->v[i].name;
            o += (size_t)snprintf(buf + o, n - o, "%s%ld %.*s%s%s%s", i ? ", " : "", gpu_index(g, i),
                                  brief ? 12 : (int)strlen(tm->uuids[i]), tm->uuids[i], nm[0] ? " (" : "", nm,
                                  nm[0] ? ")" : "");
        }
        if (o < 280)
            return;
    }
}

/* --smi-gpu: a UUID, a PCI bus id or an index */
static int select_given(ks_telemetry *tm, const csv_gpus *g, const char *sel)
{
    char *end;
    long idx = strtol(sel, &end, 10);
    int by_index = end != sel && !*end;
    for (size_t i = 0; i < tm->nuuids; i++) {
        if (by_index ? gpu_index(g, i) == idx : !strcmp(tm->uuids[i], sel) || !strcasecmp(g->v[i].bus, sel)) {
            keep_only(tm, i);
            snprintf(tm->gpu_match, sizeof tm->gpu_match, "--smi-gpu %s", sel);
            return 0;
        }
    }
    return -1;
}

/* Several GPUs in the CSV: the one the trace ran on, when that is certain. The trace records a
 * CUDA device ordinal (args.device) and, in deviceProperties, every device the process saw; the
 * ordinal names the same GPU as nvidia-smi's index only when the process saw as many GPUs as the
 * CSV lists (no CUDA_VISIBLE_DEVICES subset) and, where both record a name, the names agree.
 * Kineto records no UUID nor bus id. Returns 0 and keeps that GPU, or -1 with why in why. */
static int select_by_trace(ks_telemetry *tm, const csv_gpus *g, const ks_analysis *a, char *why, size_t wn)
{
    const ks_meta *m = &a->trace->meta;
    if (!a->gpu || !a->ngpu) {
        snprintf(why, wn, "the trace has no GPU work to match");
        return -1;
    }
    if (a->ngpu > 1) {
        snprintf(why, wn, "the trace ran on %zu GPUs", a->ngpu);
        return -1;
    }
    int32_t dev = a->gpu[0].device;
    if (m->ndevices != tm->nuuids) {
        if (m->ndevices)
            snprintf(why, wn, "the profiled process saw %zu GPU%s (deviceProperties) and the CSV has %zu, so the "
                     "trace's device %d need not be the CSV's index %d (CUDA_VISIBLE_DEVICES?)",
                     m->ndevices, m->ndevices == 1 ? "" : "s", tm->nuuids, (int)dev, (int)dev);
        else
            snprintf(why, wn, "the trace has no deviceProperties to tell whether its device %d is the CSV's "
                     "index %d (CUDA_VISIBLE_DEVICES?)", (int)dev, (int)dev);
        return -1;
    }
    for (size_t i = 0; i < tm->nuuids; i++) {
        if (gpu_index(g, i) != dev)
            continue;
        for (size_t d = 0; d < m->ndevices; d++) {
            const char *tn = ks_trace_str(a->trace, m->devices[d].name);
            if (m->devices[d].id == dev && g->v[i].name[0] && tn && *tn && strcmp(tn, g->v[i].name)) {
                snprintf(why, wn, "the trace's device %d is a %s but the CSV's index %d is a %s", (int)dev, tn,
                         (int)dev, g->v[i].name);
                return -1;
            }
        }
        keep_only(tm, i);
        snprintf(tm->gpu_match, sizeof tm->gpu_match, "the trace's device %d, index %d of the %zu in the CSV",
                 (int)dev, (int)dev, tm->nuuids);
        return 0;
    }
    snprintf(why, wn, "the CSV has no GPU of index %d", (int)dev);
    return -1;
}

static int select_gpu(const ks_smi_opts *o, ks_telemetry *tm, const csv_gpus *g, const ks_analysis *a, ks_error *err)
{
    char list[1024];
    gpu_list(tm, g, list, sizeof list);
    if (o->gpu) {
        if (select_given(tm, g, o->gpu) != 0)
            return ks_error_set(err, "%s: --smi-gpu %s matches none of its GPUs: %s", o->path, o->gpu, list);
        return KS_OK;
    }
    if (tm->nuuids <= 1) {
        tm->gpu = tm->nuuids ? tm->uuids[0] : NULL;
        snprintf(tm->gpu_match, sizeof tm->gpu_match, "the only GPU in the CSV");
        return KS_OK;
    }
    char why[400];
    if (select_by_trace(tm, g, a, why, sizeof why) != 0)
        return ks_error_set(err, "%s: %zu GPUs and %s: pick one with --smi-gpu INDEX|UUID (never averaged): %s",
                            o->path, tm->nuuids, why, list);
    return KS_OK;
}

int ks_telemetry_load(const ks_smi_opts *o, const ks_analysis *a, const ks_steps *st, ks_telemetry *tm, ks_error *err)
{
    memset(tm, 0, sizeof *tm);
    if (!o->tz_set)
        return ks_error_set(err, "--smi needs --smi-tz: nvidia-smi timestamps carry no time zone (give UTC, "
                                 "the offset of the machine that ran it, e.g. +02:00, or its zone, e.g. Europe/Paris)");
    csv_gpus g = {0};
    int rc = read_csv(o, tm, &g, err);
    if (rc == KS_OK)
        rc = select_gpu(o, tm, &g, a, err);
    free(g.v);
    if (rc != KS_OK) {
        ks_telemetry_free(tm);
        return KS_ERR;
    }
    const ks_meta *m = &a->trace->meta;
    if (m->has_base_time)
        tm->trace_to_unix = m->base_time_ns;
    else if (a->has_events && a->win_start > 100000000000000000LL) /* after 1973: absolute epoch ts */
        tm->trace_to_unix = 0;
    else
        tm->reason = "not aligned: the trace has no baseTimeNanoseconds and relative timestamps";
    if (tm->reason)
        return KS_OK;
    ks_ns off = tm->trace_to_unix;
    stats(tm, ks_sat_add(a->win_start, off), ks_sat_add(a->win_end, off), &tm->window);
    if (!tm->window.n)
        tm->reason = "not observed: no nvidia-smi sample falls inside the trace window (check --smi-tz and "
                     "--smi-offset)";
    if (st && st->n) {
        tm->per_step = ks_xcalloc(st->n, sizeof *tm->per_step);
        tm->nsteps = st->n;
        for (size_t i = 0; i < st->n; i++)
            stats(tm, ks_sat_add(st->v[i].start, off), ks_sat_add(st->v[i].end, off), &tm->per_step[i]);
    }
    return KS_OK;
}

void ks_telemetry_free(ks_telemetry *tm)
{
    free(tm->s);
    for (size_t i = 0; i < tm->nuuids; i++)
        free(tm->uuids[i]);
    free(tm->uuids);
    free(tm->per_step);
    memset(tm, 0, sizeof *tm);
}
