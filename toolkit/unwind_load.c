/* Loading the unwinders' tables (see unwind_load.h). */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "image_cache.h"
#include "unwind_load.h"

/* The symbol file's CFI for the code the image's does not cover. Not an
 * ELF file (a System.map): nothing to add. */
static void add_symbol_file_cfi(struct up_cfi_table *t, const char *path,
				int verbose)
{
	size_t added;
	int rc = tk_cfi_table_add(t, path, &added);

	if (rc == UP_EFORMAT)
		return;
	if (rc < 0)
		fprintf(stderr, "xl profile: unwind: %s: %s\n", path, up_error_last());
	else if (verbose)
		fprintf(stderr, "xl profile: unwind: %s: %zu FDEs more, for code the image's CFI does not cover\n",
			path, added);
}

int tk_unwind_load(enum up_unwinder want, const char *kernel,
		    const char *symbols_file, int verbose, struct tk_unwind *u)
{
	const char *tried[2] = { kernel, symbols_file };
	char why[256] = "no kernel image or symbol file to read it from";

	memset(u, 0, sizeof(*u));
	u->unwinder = want;
	if (want == UP_UNWINDER_FP)
		return 0;
	for (int i = 0; i < 2 && !u->cfi && !u->libunwind; i++) {
		if (!tried[i] || (i == 1 && tried[0] && strcmp(tried[0], tried[1]) == 0))
			continue;
		if (want == UP_UNWINDER_LIBUNWIND) {
			if (tk_libunwind_load(&u->libunwind, tried[i]) == 0) {
				if (verbose)
					fprintf(stderr, "xl profile: unwind: libunwind over %s\n", tried[i]);
			} else {
				snprintf(why, sizeof(why), "%s", up_error_last());
			}
			continue;
		}
		if (tk_cfi_table_load(&u->cfi, tried[i]) == 0) {
			const struct up_cfi_info *ci = up_cfi_table_info(u->cfi);

			if (verbose)
				fprintf(stderr, "xl profile: unwind: %s: %zu FDEs\n",
					tried[i], ci->fdes);
			/* A stripped image's build may have left its unwind
			 * tables in the debug file only (Unikraft keeps them
			 * in .debug_frame): that file fills what the image's
			 * own CFI does not cover. */
			if (i == 0 && tried[1] && strcmp(tried[0], tried[1]) != 0)
				add_symbol_file_cfi(u->cfi, tried[1], verbose);
			if (verbose)
				fprintf(stderr, "xl profile: unwind: %zu CFI rows from %zu FDEs (%zu not expressible)\n",
					ci->rows, ci->fdes, ci->unsupported);
			if (ci->warning[0])     /* caps hit: said even without -v */
				fprintf(stderr, "xl profile: unwind: %s: %s\n", tried[i], ci->warning);
			/* Rows the table cannot express: libunwind takes
			 * those frames, read from the same image. */
			if (ci->unsupported &&
			    tk_libunwind_load(&u->libunwind, tried[i]) < 0 && verbose)
				fprintf(stderr, "xl profile: unwind: no libunwind for the %zu rows: %s\n",
					ci->unsupported, up_error_last());
		} else {
			snprintf(why, sizeof(why), "%s", up_error_last());
		}
	}
	if (u->cfi || u->libunwind)
		return 0;
	if (want != UP_UNWINDER_AUTO) {
		fprintf(stderr, "xl profile: -u %s: %s\n", up_unwinder_name(want), why);
		return -1;
	}
	if (verbose)
		fprintf(stderr, "xl profile: unwind: %s; using frame pointers\n", why);
	u->unwinder = UP_UNWINDER_FP;
	return 0;
}

void tk_unwind_release(struct tk_unwind *u)
{
	up_cfi_table_free(u->cfi);
	up_libunwind_free(u->libunwind);
	memset(u, 0, sizeof(*u));
}

void tk_unwind_configure(const struct tk_unwind *u, struct up_kernel_map *kmap,
			  struct up_sampler_config *cfg)
{
	cfg->unwinder = u->unwinder;
	cfg->cfi = u->cfi;
	cfg->libunwind = u->libunwind;
	/* Rows the CFI table cannot express go to libunwind. */
	if (u->cfi)
		cfg->unwind.cfi_fallback = u->libunwind;
	cfg->unwind.kernel = kmap;
}
