/* cli/heap.h: the command's heap on transparent huge pages (cli/heap.c). glibc reads its malloc
 * tunables once, when the process starts; so when the inputs are big enough to pay for it, the
 * command runs itself again, once, with glibc.malloc.hugetlb set; smaller inputs get the heap's
 * first KS_HEAP_RESERVE bytes on huge pages from inside the process (docs/performance.md, "The
 * heap on huge pages"). */
#ifndef KS_CLI_HEAP_H
#define KS_CLI_HEAP_H

/* Inputs of this many bytes or more on the command line are worth running again for: a gzip file
 * counted at the size it says its contents have, another compressed file at KS_HEAP_PACKED_FACTOR
 * times its size (the corpus's traces compress 12-30 times). Below it the heap reserved in the
 * process is faster (the exec saved: 14-15 MB traces took 0.91-0.95 of the wall); at 35 MB it is
 * no faster (1.00 of the run again's wall), and at 1 GiB it takes twice the faults and more
 * memory. */
#define KS_HEAP_MIN_INPUT ((long long)16 << 20)
#define KS_HEAP_MIN_INPUT_TEXT "16 MiB"
#define KS_HEAP_PACKED_FACTOR 12

/* Inputs under this many bytes (counted as above) keep the heap in 4 KiB pages: they fault in
 * fewer of them than the first 2 MiB page costs to clear (bench/ab.py, a one-event trace: 0.86 of
 * the wall in 4 KiB pages; 25 KB 0.89, 100 KB 0.97, 250-500 KB 1.00, a 1 MB trace 1.06). */
#define KS_HEAP_RESERVE_MIN_INPUT ((long long)256 << 10)
#define KS_HEAP_RESERVE_MIN_INPUT_TEXT "256 KiB"

/* Inputs from there up to KS_HEAP_MIN_INPUT: the main heap's first this many bytes advised for
 * huge pages in the process, and the blocks under KS_HEAP_RESERVE_MMAP kept in the heap (1 MiB:
 * blocks of 4 MiB and more kept there too took 1.5 times the wall on a trace of one 4 MiB string,
 * grown by copies). */
#define KS_HEAP_RESERVE ((size_t)32 << 20)
#define KS_HEAP_RESERVE_TEXT "32 MiB"
#define KS_HEAP_RESERVE_MMAP ((size_t)1 << 20)

/* First thing in main: either returns (the heap as it is or reserved on huge pages, or this is
 * the process run again, whose environment it puts back as the user gave it) or does not (the
 * process runs again). */
void ks_cli_heap_init(int argc, char **argv);

/* What became of the heap, for --timings: "huge pages (...)" or "4 KiB pages (why)". */
const char *ks_cli_heap_state(void);

#endif
