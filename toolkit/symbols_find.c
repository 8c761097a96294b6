#include "config.h"

#include <elf.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "debuginfod_fetch.h"
#include "image_cache.h"
#include "symbols_find.h"
#include "uniprof/error.h"

static void note(const struct tk_symbol_query *q, const char *fmt, const char *path,
		 const char *why)
{
	if (q->verbose) {
		fprintf(stderr, "xl profile: symbols: ");
		fprintf(stderr, fmt, path, why);
		fputc('\n', stderr);
	}
}

/* The table must describe a guest of the domain's architecture and the
 * width the hypervisor reports. */
static int fits_guest(const struct tk_symbol_query *q, const struct up_symtab *s,
		      const char *path)
{
	unsigned m = up_symtab_elf_machine(s), w = up_symtab_elf_width(s);

	if (up_symtab_format_of(s) != UP_SYMTAB_ELF)
		return 0;
	if (!up_arch_runs_elf_machine(q->arch, m)) {
		fprintf(stderr, "xl profile: %s is for ELF machine %u, not %s: pass the guest's own image with -s\n",
			path, m, up_arch_name(q->arch));
		return -1;
	}
	if (q->guest_width && w != q->guest_width) {
		fprintf(stderr, "xl profile: %s is a %u-bit image but the domain runs %u-bit code: pass the guest's own image with -s\n",
			path, w * 8, q->guest_width * 8);
		return -1;
	}
	return 0;
}

/* Load path if it exists; 1 = loaded, 0 = not usable (reported with -v),
 * -1 = unusable and fatal (explicit file). */
static int try_file(const struct tk_symbol_query *q, const char *path,
		    const char *kernel_id, const char *why, bool fatal,
		    struct up_symtab **out)
{
	struct up_symtab *s;
	const char *id;

	if (!fatal && access(path, R_OK) != 0) {
		note(q, "%s (%s): not found", path, why);
		return 0;
	}
	if (tk_symtab_load(&s, path) < 0) {
		if (fatal) {
			fprintf(stderr, "xl profile: %s\n", up_error_last());
			return -1;
		}
		note(q, "%s: %s", path, up_error_last());
		return 0;
	}
	id = up_symtab_build_id(s);
	if (kernel_id && kernel_id[0] && id && strcmp(id, kernel_id) != 0) {
		if (!q->force) {
			if (fatal) {
				fprintf(stderr, "xl profile: %s has build-id %s but the kernel has %s: pass the matching file, or --force-symbols\n",
					path, id, kernel_id);
				up_symtab_free(s);
				return -1;
			}
			note(q, "%s: build-id differs from the kernel's (%s), refused", path, kernel_id);
			up_symtab_free(s);
			return 0;
		}
		note(q, "%s: build-id differs from the kernel's (%s), used anyway (--force-symbols)",
		     path, kernel_id);
	}
	if (fits_guest(q, s, path) < 0) {
		up_symtab_free(s);
		return -1;
	}
	if (q->verbose)
		fprintf(stderr, "xl profile: symbols: %s (%s): %zu functions%s%s\n", path,
			why, up_symtab_count(s), id ? ", build-id " : "", id ? id : "");
	if (up_symtab_warning(s))       /* caps hit: said even without -v */
		fprintf(stderr, "xl profile: symbols: %s: %s\n", path, up_symtab_warning(s));
	*out = s;
	return 1;
}

/* A refused download leaves the cache: kept, it would be read and refused
 * again on every run, and never fetched again. Its directory goes too
 * when that empties it. */
static void forget(const char *path)
{
	char *dir = strdup(path);

	unlink(path);
	if (dir)
		rmdir(dirname(dir));
	free(dir);
}

/* Step 5: ID's debug file from the debuginfod servers. 1 = loaded, into
 * *out and *used; 0 = none, ERR says why. Only a file that carries ID is
 * taken, whatever --force-symbols says: the server is not the user. */
static int from_debuginfod(const struct tk_symbol_query *q, const char *id,
			   struct up_symtab **out, char **used, char *err, size_t errlen)
{
	struct tk_symbol_query strict = *q;
	char from[512], why[600], *path;
	const char *got;
	int rc;

	if (q->verbose)
		fprintf(stderr, "xl profile: symbols: asking debuginfod (%s) for build-id %s\n",
			q->debuginfod, id);
	if (tk_debuginfod_fetch(id, q->stop, &path, from, sizeof(from), err, errlen) < 0)
		return 0;
	snprintf(why, sizeof(why), "debuginfod, from %s", from);
	strict.force = false;
	rc = try_file(&strict, path, id, why, false, out);
	got = rc == 1 ? up_symtab_build_id(*out) : NULL;
	if (rc == 1 && (!got || strcmp(got, id) != 0)) {
		up_symtab_free(*out);
		*out = NULL;
		rc = 0;
	}
	if (rc == 1) {
		*used = path;
		return 1;
	}
	snprintf(err, errlen, "the file served for build-id %s is not usable or does not carry that build-id: removed from the cache",
		 id);
	forget(path);
	free(path);
	return 0;
}

/* The one line said when no symbols were found. */
static void say_none(const struct tk_symbol_query *q, const char *what,
		     const char *id, const char *fetch_err)
{
	if (fetch_err[0])
		fprintf(stderr, "xl profile: no symbols found for %s, and from debuginfod: %s: profiling raw addresses; pass the unstripped image with -s FILE\n",
			what, fetch_err);
	else if (q->debuginfod && !id[0])
		fprintf(stderr, "xl profile: no symbols found for %s, which has no build-id to ask debuginfod for: profiling raw addresses; pass the unstripped image with -s FILE\n",
			what);
	else
		fprintf(stderr, "xl profile: no symbols found for %s: profiling raw addresses; pass the unstripped image with -s FILE\n",
			what);
}

static char *join(const char *a, const char *b, const char *c)
{
	char *p;

	return asprintf(&p, "%s%s%s", a, b, c) < 0 ? NULL : p;
}

int tk_find_symbols(const struct tk_symbol_query *q, struct up_symtab **out,
		     char **used)
{
	struct up_elf_identity kid = { { 0 } };
	const char *debug = q->debug_dir ? q->debug_dir : "/usr/lib/debug";
	char *cand[10] = { NULL }, *dir = NULL, *tmp;
	struct up_symtab *plain = NULL;   /* the kernel's, without DWARF */
	const char *why[10];
	char fetch_err[1024] = "";
	int n = 0, rc = 0;

	*out = NULL;
	*used = NULL;
	if (q->kernel && tk_elf_identify(q->kernel, &kid) < 0)
		note(q, "%s (domain kernel): %s", q->kernel, up_error_last());
	/* The kernel image itself must fit the domain, symbols or not. */
	if (kid.machine && !up_arch_runs_elf_machine(q->arch, kid.machine)) {
		fprintf(stderr, "xl profile: the domain's kernel %s is for ELF machine %u, not %s: is the configuration stale?\n",
			q->kernel, kid.machine, up_arch_name(q->arch));
		return -1;
	}
	if (kid.machine && q->guest_width && kid.width != q->guest_width) {
		fprintf(stderr, "xl profile: the domain's kernel %s is a %u-bit image but the hypervisor runs the domain %u-bit: is the configuration stale?\n",
			q->kernel, kid.width * 8, q->guest_width * 8);
		return -1;
	}
	if (q->explicit_file) {
		rc = try_file(q, q->explicit_file, kid.build_id, "-s", true, out);
		if (rc == 1)
			*used = strdup(q->explicit_file);
		return rc < 0 ? -1 : 0;
	}
	if (!q->kernel && q->debuginfod && q->build_id && q->build_id[0]) {
		rc = from_debuginfod(q, q->build_id, out, used, fetch_err, sizeof(fetch_err));
		if (rc == 0)
			say_none(q, "the core", q->build_id, fetch_err);
		return rc < 0 ? -1 : 0;
	}
	if (!q->kernel) {
		fprintf(stderr, "xl profile: the domain's configuration names no kernel: profiling raw addresses; pass symbols with -s FILE\n");
		return 0;
	}
	if (kid.has_symtab) {
		rc = try_file(q, q->kernel, kid.build_id, "domain kernel", false, out);
		/* Symbols without DWARF: a debug file may have the lines. */
		if (rc < 0 || (rc == 1 && up_symtab_has_source(*out)))
			goto done;
		if (rc == 1) {
			plain = *out;
			*out = NULL;
			rc = 0;
			note(q, "%s (%s): no DWARF, looking for its debug file for source lines",
			     q->kernel, "domain kernel");
		}
	} else if (kid.machine) {
		note(q, "%s (%s): no symbol table, looking for its debug file", q->kernel,
		     "domain kernel");
	}

	tmp = strdup(q->kernel);
	dir = tmp ? strdup(dirname(tmp)) : NULL;
	free(tmp);
	if (!dir) {
		*out = plain;
		*used = plain ? strdup(q->kernel) : NULL;
		return 0;
	}
	if (strlen(kid.build_id) > 2) {
		char sub[3] = { kid.build_id[0], kid.build_id[1], '\0' };
		char *p;

		if (asprintf(&p, "%s/.build-id/%s/%s.debug", debug, sub, kid.build_id + 2) >= 0) {
			cand[n] = p;
			why[n++] = "build-id";
		}
	}
	if (kid.debuglink[0]) {
		cand[n] = join(dir, "/", kid.debuglink);
		why[n++] = ".gnu_debuglink";
		cand[n] = join(dir, "/.debug/", kid.debuglink);
		why[n++] = ".gnu_debuglink";
		if (asprintf(&tmp, "%s%s/%s", debug, dir, kid.debuglink) >= 0) {
			cand[n] = tmp;
			why[n++] = ".gnu_debuglink";
		}
	}
	cand[n] = join(q->kernel, ".debug", "");
	why[n++] = "beside the kernel";
	cand[n] = join(q->kernel, ".dbg", "");
	why[n++] = "beside the kernel";
	cand[n] = join(q->kernel, ".syms", "");
	why[n++] = "beside the kernel";
	cand[n] = join(dir, "/System.map", "");
	why[n++] = "beside the kernel";
	for (int i = 0; i < n && rc == 0; i++) {
		if (!cand[i])
			continue;
		rc = try_file(q, cand[i], kid.build_id, why[i], false, out);
		/* Beside the kernel's own symbols, only the same build with
		 * DWARF is better; anything else, even an error, is ignored. */
		if (plain && (rc < 0 || (rc == 1 && (!up_symtab_has_source(*out) ||
				!up_symtab_build_id(*out) || !kid.build_id[0] ||
				strcmp(up_symtab_build_id(*out), kid.build_id) != 0)))) {
			up_symtab_free(*out);
			*out = NULL;
			rc = 0;
		} else if (rc == 1) {
			*used = cand[i];
			cand[i] = NULL;
		}
	}
	if (rc == 0 && !plain && q->debuginfod && kid.build_id[0])
		rc = from_debuginfod(q, kid.build_id, out, used, fetch_err, sizeof(fetch_err));
	if (plain && rc == 0) {
		*out = plain;
		rc = 1;
	} else {
		up_symtab_free(plain);
	}
done:
	if (rc == 1 && !*used)
		*used = strdup(q->kernel);
	for (int i = 0; i < n; i++)
		free(cand[i]);
	free(dir);
	if (rc < 0)
		return -1;
	if (!*out)
		say_none(q, q->kernel, kid.build_id, fetch_err);
	return 0;
}
