/* cli/heap.h: the command's heap on transparent huge pages (cli/heap.c). glibc reads its malloc
 * tunables once, when the process starts; so when the inputs are big enough to pay for it, the
 * command runs itself again, once, with glibc.malloc.hugetlb set (docs/performance.md, "The heap
 * on huge pages"). */
#ifndef KS_CLI_HEAP_H
#define KS_CLI_HEAP_H

/* Inputs of this many bytes or more on the command line are worth running again for: a gzip file
 * counted at the size it says its contents have, another compressed file at KS_HEAP_PACKED_FACTOR
 * times its size (the corpus's traces compress 12-30 times). */
#define KS_HEAP_MIN_INPUT ((long long)8 << 20)
#define KS_HEAP_MIN_INPUT_TEXT "8 MiB"
#define KS_HEAP_PACKED_FACTOR 12

/* First thing in main: either returns (the heap as it is, or this is the process run again, whose
 * environment it puts back as the user gave it) or does not (the process runs again). */
void ks_cli_heap_init(int argc, char **argv);

/* What became of the heap, for --timings: "huge pages (...)" or "4 KiB pages (why)". */
const char *ks_cli_heap_state(void);

#endif
