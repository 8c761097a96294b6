/* libFuzzer target: reading stored profiles (pprof protobuf or folded
 * stacks, as they are after gunzip). Whatever loads is rendered by every
 * writer, compared with itself by diff, and written back as pprof: that
 * must read back to the same folded stacks and mappings (the store loses
 * nothing it took in). The start and duration a merge skims from a pprof
 * before decoding it are the decoder's. */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "profile/stored_impl.h"
#include "uniprof/uniprof.h"
#include "private.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int fuzz_gunzip(const void *in, size_t len, uint8_t **out, size_t *out_len);

/* Every mapping read back is one of those written, at the same place in
 * the file: the strings may differ only where the writer made them valid
 * UTF-8 (which may make two mappings one). */
static void same_mappings(const struct up_stored *s, const struct up_stored *back)
{
	size_t n, nb;
	const struct up_pprof_mapping *m = up_stored_mappings(s, &n);
	const struct up_pprof_mapping *mb = up_stored_mappings(back, &nb);

	if (nb > n)
		abort();
	for (size_t i = 0, j = 0; i < nb; i++, j++) {
		while (j < n && (m[j].start != mb[i].start || m[j].limit != mb[i].limit ||
				 m[j].file_offset != mb[i].file_offset))
			j++;
		if (j == n || !m[j].file != !mb[i].file || !m[j].build_id != !mb[i].build_id)
			abort();
	}
}

static char *folded(const struct up_stored *s)
{
	const struct up_output_opts all = { .version = UP_OUTPUT_OPTS_VERSION,
					    .vcpu = -1, .with_idle = true };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		abort();
	if (up_profile_write_folded(up_stored_profile(s), up_stored_symtab(s), &all, f) < 0)
		abort();
	fclose(f);
	return buf;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct up_output_opts view = UP_OUTPUT_OPTS_INIT;
	struct up_stored *s, *back;
	struct up_diff_entry *e;
	size_t n, plen = 0;
	uint64_t kb, ka;
	char *pbuf = NULL, *a, *b;
	FILE *f;

	if (size > (1 << 20))
		return 0;
	if (up_stored_load_mem(&s, data, size, "fuzz", NULL) < 0)
		return 0;
	/* What a merge reads of each file before decoding it: the start and
	 * duration the decoder read. */
	if (up_stored_format_of(s) == UP_STORED_PPROF) {
		int64_t start, duration;

		stored_pprof_clock(data, size, &start, &duration);
		if ((start > 0 ? start : 0) != up_stored_time_nanos(s) ||
		    (duration > 0 ? duration : 0) != up_stored_duration_nanos(s))
			abort();
	}
	f = fopen("/dev/null", "w");
	if (!f)
		abort();
	up_profile_write_svg(up_stored_profile(s), up_stored_symtab(s), &view, "t", f);
	up_profile_write_top(up_stored_profile(s), up_stored_symtab(s), &view, 20, f);
	/* Times from the file: the heat map, and a slice of its first half
	 * holds no more samples than the whole. */
	up_profile_write_heatmap(up_stored_profile(s), up_stored_symtab(s), &view,
				 "t", "l", f);
	if (up_profile_has_times(up_stored_profile(s))) {
		struct up_profile *half;
		uint64_t end = up_profile_time_end(up_stored_profile(s));

		if (up_profile_slice(up_stored_profile(s), 0, end / 2 + 1, &half) == 0) {
			if (up_profile_samples(half) > up_profile_samples(up_stored_profile(s)))
				abort();
			up_profile_free(half);
		}
	}
	if (up_profile_diff(up_stored_profile(s), up_stored_symtab(s),
			    up_stored_profile(s), up_stored_symtab(s), &view,
			    &e, &n, &kb, &ka) == 0) {
		for (size_t i = 0; i < n; i++)
			if (e[i].delta != 0)
				abort();      /* a profile against itself */
		up_diff_free(e, n);
	}
	up_profile_write_diff_svg(up_stored_profile(s), up_stored_symtab(s),
				  up_stored_profile(s), up_stored_symtab(s), &view, "d", f);
	fclose(f);

	/* Round trip: written as pprof (not gzip'ed here: the loader reads
	 * what file_read hands it), read back, the same folded stacks. */
	f = open_memstream(&pbuf, &plen);
	if (!f)
		abort();
	{
		struct up_pprof_meta m = { .version = UP_PPROF_META_VERSION,
					   .hz = up_stored_hz(s),
					   .names_only = up_stored_names_only(s) };

		m.mappings = up_stored_mappings(s, &m.nr_mappings);

		if (up_profile_write_pprof(up_stored_profile(s), up_stored_symtab(s), &m, f) < 0)
			abort();
	}
	fclose(f);
	/* pbuf is gzip: inflate it with zlib's one-shot helper. */
	{
		uint8_t *raw;
		size_t rlen;

		if (fuzz_gunzip(pbuf, plen, &raw, &rlen) < 0)
			abort();
		if (up_stored_load_mem(&back, raw, rlen, "again", NULL) < 0) {
			fprintf(stderr, "round trip: %s\n", up_error_last());
			abort();
		}
		free(raw);
	}
	same_mappings(s, back);
	a = folded(s);
	b = folded(back);
	if (strcmp(a, b) != 0) {
		fprintf(stderr, "round trip differs:\n--- first\n%s--- again\n%s", a, b);
		abort();
	}
	free(a);
	free(b);
	free(pbuf);
	up_stored_free(back);
	up_stored_free(s);
	return 0;
}

int fuzz_gunzip(const void *in, size_t len, uint8_t **out, size_t *out_len)
{
	z_stream z;
	size_t cap = len * 4 + 4096;
	uint8_t *buf = malloc(cap);
	int rc;

	memset(&z, 0, sizeof(z));
	if (!buf || inflateInit2(&z, 15 + 16) != Z_OK) {
		free(buf);
		return -1;
	}
	z.next_in = (uint8_t *)in;
	z.avail_in = (unsigned)len;
	for (;;) {
		z.next_out = buf + z.total_out;
		z.avail_out = (unsigned)(cap - z.total_out);
		rc = inflate(&z, Z_NO_FLUSH);
		if (rc == Z_STREAM_END)
			break;
		if (rc != Z_OK && rc != Z_BUF_ERROR) {
			inflateEnd(&z);
			free(buf);
			return -1;
		}
		cap *= 2;
		buf = realloc(buf, cap);
		if (!buf)
			abort();
	}
	*out = buf;
	*out_len = z.total_out;
	inflateEnd(&z);
	return 0;
}
