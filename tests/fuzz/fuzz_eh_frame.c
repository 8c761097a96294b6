/* libFuzzer target: the .eh_frame / .debug_frame FDE lister on raw section
 * bytes, the form in which an image hands them over. Input:
 *   u8 kind    bit 0: .eh_frame (else .debug_frame)
 *   u64 addr   the section's virtual address (little-endian)
 *   bytes      the section
 * The list must come out sorted with non-empty ranges, say why when it
 * stops early, and find every FDE by its own start address; sanitizing
 * must hide the same entries whether it skips its walk (all_listed) or
 * not. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "unwind/eh_frame.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int take_all(void *arg, const struct fde_ref *f)
{
	(void)arg;
	(void)f;
	return FDE_TAKEN;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fde_list l;
	uint64_t addr = 0;

	if (size < 9)
		return 0;
	for (int i = 8; i >= 1; i--)
		addr = addr << 8 | data[i];
	if (eh_frame_list_fdes(data + 9, size - 9, addr, data[0] & 1, &l) < 0)
		return 0;                     /* out of memory only */
	if (l.truncated && !l.error[0])
		abort();
	if (l.count > (size - 9) / 10)
		abort();                      /* more FDEs than could fit */
	if (l.all_listed && (l.skipped || l.overlapping || l.capped))
		abort();
	for (size_t i = 0; i < l.count; i++) {
		const struct fde_ref *f = &l.fdes[i];

		if (f->len == 0 || fde_end(f) <= f->pc_begin ||
		    f->fde_offset >= size - 9)
			abort();
		if (i && f->pc_begin < l.fdes[i - 1].pc_begin)
			abort();
		if (!fde_list_find(&l, f->pc_begin))
			abort();
	}
	fde_list_find(&l, 0);
	fde_list_find(&l, UINT64_MAX);
	if (l.all_listed) {
		/* The walk it skipped, made anyway: it must change nothing
		 * the skip does not. */
		struct fde_list walked = l;
		uint8_t *a = malloc(size - 9 + 1), *b = malloc(size - 9 + 1);

		walked.all_listed = false;
		if (a && b) {
			memcpy(a, data + 9, size - 9);
			memcpy(b, data + 9, size - 9);
			if (eh_frame_sanitize(a, size - 9, data[0] & 1, &l) == 0 &&
			    eh_frame_sanitize(b, size - 9, data[0] & 1, &walked) == 0 &&
			    memcmp(a, b, size - 9) != 0)
				abort();
		}
		free(a);
		free(b);
	}
	/* The one walk of a stream, taking all: the FDEs the list holds
	 * before it drops those overlapping. */
	if (data[0] & 1) {
		uint8_t *w = malloc(size - 9 + 1);
		struct fde_list s;

		if (w) {
			memcpy(w, data + 9, size - 9);
			if (eh_frame_stream_fdes(w, size - 9, addr, &s, take_all, NULL) == 0 &&
			    !s.capped && !l.capped &&
			    (s.count != l.count + l.overlapping || s.skipped != l.skipped ||
			     s.end != l.end || s.truncated != l.truncated))
				abort();
			free(w);
		}
	}
	fde_list_release(&l);
	return 0;
}
