/* parser/keys.c: the key tables. A JSON key of the top-level object, of an event or of its "args"
 * is turned into its enum key (parser_int.h) by its length and then its bytes, so only the exact
 * spelling matches (keys are case-sensitive in the format). An unknown event or args key is
 * K_IGNORE (its value is skipped); an unknown top-level key is K_META (kept as trace metadata).
 * Pure functions of (text, length): any thread. Internal to parser/ (callbacks.c). */
#include "parser/parser_int.h"

#include <string.h>

int ks_ps_top_key(const char *k, size_t len)
{
    if (KEYIS("traceEvents")) return K_TRACE_EVENTS;
    if (KEYIS("schemaVersion")) return K_SCHEMA;
    if (KEYIS("deviceProperties")) return K_DEVPROPS;
    if (KEYIS("distributedInfo")) return K_DIST;
    if (KEYIS("baseTimeNanoseconds")) return K_BASETIME;
    if (KEYIS("displayTimeUnit")) return K_DTU;
    if (KEYIS("traceName")) return K_TRACENAME;
    return K_META;
}

int ks_ps_event_key(const char *k, size_t len)
{
    switch (len) {
    case 1: if (k[0] == 's') return K_SCOPE; break;
    case 2:
        if (k[0] == 'p' && k[1] == 'h') return K_PH;
        if (k[0] == 't' && k[1] == 's') return K_TS;
        if (k[0] == 'i' && k[1] == 'd') return K_ID;
        if (k[0] == 'b' && k[1] == 'p') return K_BP;
        break;
    case 3:
        if (!memcmp(k, "pid", 3)) return K_PID;
        if (!memcmp(k, "tid", 3)) return K_TID;
        if (!memcmp(k, "cat", 3)) return K_CAT;
        if (!memcmp(k, "dur", 3)) return K_DUR;
        if (!memcmp(k, "id2", 3)) return K_ID2;
        break;
    case 4:
        if (!memcmp(k, "name", 4)) return K_NAME;
        if (!memcmp(k, "args", 4)) return K_ARGS;
        break;
    }
    return K_IGNORE;
}

int ks_ps_args_key(const char *k, size_t len)
{
    switch (len) {
    case 3: if (!memcmp(k, "Seq", 3)) return K_COLL_SEQ; break;
    case 4:
        if (!memcmp(k, "name", 4)) return K_ARG_NAME;
        if (!memcmp(k, "grid", 4)) return K_L_GRID;
        if (!memcmp(k, "Addr", 4)) return K_MEM_ADDR;
        break;
    case 5:
        if (!memcmp(k, "bytes", 5) || !memcmp(k, "Bytes", 5)) return K_BYTES;
        if (!memcmp(k, "dtype", 5)) return K_COLL_DTYPE;
        if (!memcmp(k, "block", 5)) return K_L_BLOCK;
        break;
    case 6:
        if (!memcmp(k, "stream", 6)) return K_STREAM;
        if (!memcmp(k, "device", 6) || !memcmp(k, "Device", 6)) return K_DEVICE;
        if (!memcmp(k, "labels", 6)) return K_ARG_LABELS;
        break;
    case 8: if (!memcmp(k, "finished", 8)) return K_FINISHED; break;
    case 9: if (!memcmp(k, "Device Id", 9)) return K_MEM_ID; break;
    case 10:
        if (!memcmp(k, "sort_index", 10)) return K_ARG_SORT;
        if (!memcmp(k, "Group size", 10)) return K_COLL_GS;
        if (!memcmp(k, "Input Dims", 10)) return K_INPUT_DIMS;
        if (!memcmp(k, "Input type", 10)) return K_INPUT_TYPE;
        break;
    case 11:
        if (!memcmp(k, "Device Type", 11)) return K_MEM_TYPE;
        if (!memcmp(k, "External id", 11) || !memcmp(k, "external id", 11)) return K_EXT;
        if (!memcmp(k, "correlation", 11)) return K_CORR;
        break;
    case 12: if (!memcmp(k, "warps per SM", 12)) return K_L_WARPS_SM; break;
    case 13:
        if (!memcmp(k, "In msg nelems", 13)) return K_COLL_IN;
        if (!memcmp(k, "shared memory", 13)) return K_L_SHMEM;
        if (!memcmp(k, "blocks per SM", 13)) return K_L_BLOCKS_SM;
        break;
    case 20: if (!memcmp(k, "registers per thread", 20)) return K_L_REGS; break;
    case 25: if (!memcmp(k, "est. achieved occupancy %", 25)) return K_L_OCC; break;
    case 14:
        if (!memcmp(k, "wait_on_stream", 14)) return K_WAIT_STREAM;
        if (!memcmp(k, "Out msg nelems", 14)) return K_COLL_OUT;
        if (!memcmp(k, "Total Reserved", 14)) return K_MEM_RESERVED;
        break;
    case 15:
        if (!memcmp(k, "Collective name", 15)) return K_COLL_NAME;
        if (!memcmp(k, "Concrete Inputs", 15)) return K_CONCRETE;
        if (!memcmp(k, "Total Allocated", 15)) return K_MEM_ALLOCATED;
        break;
    case 18: if (!memcmp(k, "Process Group Name", 18)) return K_COLL_PG; break;
    case 19: if (!memcmp(k, "Process Group Ranks", 19)) return K_COLL_RANKS; break;
    case 33: if (!memcmp(k, "wait_on_cuda_event_record_corr_id", 33)) return K_WAIT_RECORD; break;
    }
    return K_IGNORE;
}
