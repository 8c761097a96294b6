/* The words a stack walk read, kept so they can be read again after the
 * walk: sampling without a domain pause (relaxed consistency) reads a
 * stack while its vCPU runs, and a word that changed between the walk and
 * the check means the walk may have mixed two states of the stack. */
#ifndef UP_MEMORY_LOG_H
#define UP_MEMORY_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "uniprof/sys/kernel.h"
#include "mem/memory.h"

struct mem_log_entry {
	uint64_t va, val;
};

struct mem_log {
	struct mem_log_entry *e;   /* preallocated: nothing allocates here */
	size_t n, cap;
	bool overflow;             /* more words read than cap: unverifiable */
};

/* Every word read through m is appended to log until mem_log_stop. */
void mem_log_start(struct up_mem *m, struct mem_log *log);
void mem_log_stop(struct up_mem *m);

/* Read every logged word again: MEM_LOG_SAME if all are unchanged,
 * MEM_LOG_CHANGED if one changed or could no longer be read,
 * MEM_LOG_UNKNOWN if the walk read more words than the log holds. A word
 * that went from
 * one return address to another in the same function of kernel (when
 * given) is unchanged at function granularity: the function returned
 * into, or the caller made another call, from the same frame. */
enum { MEM_LOG_SAME = 0, MEM_LOG_CHANGED, MEM_LOG_UNKNOWN };
int mem_log_changed(struct up_mem *m, const struct up_regs *regs,
		    const struct mem_log *log,
		    const struct up_kernel_map *kernel);

#endif
