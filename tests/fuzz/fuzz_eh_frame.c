/* libFuzzer target: the .eh_frame / .debug_frame FDE lister on raw section
 * bytes, the form in which an image hands them over. Input:
 *   u8 kind    bit 0: .eh_frame (else .debug_frame)
 *   u64 addr   the section's virtual address (little-endian)
 *   bytes      the section
 * The list must come out sorted with non-empty ranges, say why when it
 * stops early, and find every FDE by its own start address. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "unwind/eh_frame.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

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
	if (l.count > (size - 9) / 8)
		abort();                      /* more FDEs than could fit */
	for (size_t i = 0; i < l.count; i++) {
		const struct fde_ref *f = &l.fdes[i];

		if (f->pc_end <= f->pc_begin || f->fde_offset >= size - 9)
			abort();
		if (i && f->pc_begin < l.fdes[i - 1].pc_begin)
			abort();
		if (!fde_list_find(&l, f->pc_begin))
			abort();
	}
	fde_list_find(&l, 0);
	fde_list_find(&l, UINT64_MAX);
	fde_list_release(&l);
	return 0;
}
