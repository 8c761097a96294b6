#include "config.h"

#include <stdio.h>

#include "symbols_find.h"
#include "uniprof/error.h"

int xlp_find_symbols(const char *explicit_file, const char *kernel,
		     int verbose, struct up_symtab **out, const char **used)
{
	*out = NULL;
	*used = NULL;
	if (explicit_file) {
		if (up_symtab_load(out, explicit_file) < 0) {
			fprintf(stderr, "xl profile: %s\n", up_error_last());
			return -1;
		}
		*used = explicit_file;
		if (verbose)
			fprintf(stderr, "xl profile: symbols: %s (-s): %zu functions\n",
				explicit_file, up_symtab_count(*out));
		return 0;
	}
	if (kernel) {
		if (up_symtab_load(out, kernel) == 0) {
			*used = kernel;
			if (verbose)
				fprintf(stderr, "xl profile: symbols: %s (domain kernel): %zu functions\n",
					kernel, up_symtab_count(*out));
			return 0;
		}
		if (verbose)
			fprintf(stderr, "xl profile: symbols: %s: %s\n", kernel,
				up_error_last());
	}
	fprintf(stderr, "xl profile: no symbols found: profiling addresses; pass the unstripped image with -s FILE\n");
	return 0;
}
