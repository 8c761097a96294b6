/* xl profile core's run, shared by its files: cmd_core.c parses the
 * options and walks the core, core_kernel.c finds the kernel it ran,
 * core_print.c prints the stacks. */
#ifndef XLP_CORE_RUN_H
#define XLP_CORE_RUN_H

#include <stdbool.h>

#include "stack_print.h"
#include "options.h"
#include "toolkit/unwind_load.h"
#include "uniprof/uniprof.h"

struct core_run {
	struct xlp_options opt;
	const char *file;
	const char *config;
	bool json;
	char *name;            /* the domain's name, guessed from the file */
	char *config_used;
	char *kernel;          /* from the configuration */
	char build_id[41];     /* the core's, when no kernel file has it */
	struct up_core_info info;
	struct up_target_info tinfo;
	struct up_named_regs *regs;
	struct up_symtab *symtab;
	char *symbols_used;
	struct tk_unwind uw;
	struct up_kernel_map *kmap;
	struct up_profile *profile;
	struct up_sampler_stats stats;
};

/* The domain's name: the core's file name, as on_crash gives it
 * (XEN_DUMP_DIR/NAME), less a trailing ".core". NULL when out of memory. */
char *xlp_core_guess_name(const char *file);
/* The kernel the domain's configuration names (-c, else
 * XEN_CONFIG_DIR/NAME.cfg): 0, with r->kernel NULL when there is none;
 * -1 after one line. */
int xlp_core_find_config(struct core_run *r);
/* Without a configuration that fits: the build-ids in the core's memory,
 * against the kernels of every configuration in XEN_CONFIG_DIR, then the
 * debug directory's .build-id tree; else r->build_id for debuginfod. */
int xlp_core_find_by_build_id(struct core_run *r, struct up_target *t);

void xlp_core_print_text(struct core_run *r, const struct xlp_stack_print *sp);
/* 0, or -1 when out of memory. */
int xlp_core_print_json(struct core_run *r, const struct xlp_stack_print *sp);

#endif
