/* One symbolized stack per vCPU on stdout, as text or JSON: xl profile
 * --once on a live or crash-kept domain, and xl profile core on a core
 * file. */
#ifndef XLP_STACK_PRINT_H
#define XLP_STACK_PRINT_H

#include <stdbool.h>
#include <stdio.h>

#include "uniprof/uniprof.h"

struct xlp_stack_print {
	const struct up_profile *profile;   /* one sample of each vCPU */
	const struct up_symtab *symtab;     /* may be NULL */
	int vcpu;                           /* -1: all */
	/* Per vCPU, or NULL: registers printed under each stack. */
	const struct up_named_regs *regs;
	/* Why a vCPU without a stack has none. */
	const char *missing_why;
};

/* The text form: "vcpuN (state, truncation):" and its frames. Returns the
 * number of vCPUs with a stack. */
unsigned xlp_print_stacks_text(const struct xlp_stack_print *sp, FILE *out);

/* The same as a "vcpus" array in an open JSON object. */
struct yajl_gen_t;
unsigned xlp_print_stacks_json(const struct xlp_stack_print *sp,
			       struct yajl_gen_t *g);

#endif
