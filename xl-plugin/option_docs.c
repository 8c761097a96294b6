/* Option tables as data: their getopt_long tables and their --help. */
#include "config.h"

#include <string.h>

#include "option_docs.h"
#include "toolkit/formats.h"

void xlp_print_option_docs(FILE *out, const struct xlp_option_doc *table,
			   size_t n)
{
	xlp_print_option_docs_for(out, table, n, 0);
}

void xlp_print_option_docs_for(FILE *out, const struct xlp_option_doc *table,
			       size_t n, unsigned command)
{
	for (size_t i = 0; i < n; i++) {
		char left[64], formats[320];
		const struct xlp_option_doc *d = &table[i];
		const char *help = d->help;

		if (d->key < 256)
			snprintf(left, sizeof(left), "-%c, --%s%s%s", d->key,
				 d->opt.name, d->arg ? " " : "",
				 d->arg ? d->arg : "");
		else
			snprintf(left, sizeof(left), "    --%s%s%s", d->opt.name,
				 d->arg ? " " : "", d->arg ? d->arg : "");
		if (command && d->key == 'F') {
			tk_format_help(command, d->help, formats, sizeof(formats));
			help = formats;
		}
		fprintf(out, "  %-28s %s\n", left, help);
	}
}

void xlp_getopt_tables(const struct xlp_option_doc *d, size_t nd,
		       struct option *longopts, char *shortopts)
{
	size_t n = 0;

	shortopts[n++] = ':';   /* options may follow the arguments */
	for (size_t i = 0; i < nd; i++) {
		longopts[i] = d[i].opt;
		if (d[i].key < 256) {
			shortopts[n++] = (char)d[i].key;
			if (d[i].arg)
				shortopts[n++] = ':';
		}
	}
	shortopts[n] = '\0';
	memset(&longopts[nd], 0, sizeof(longopts[nd]));
}
