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

#endif
