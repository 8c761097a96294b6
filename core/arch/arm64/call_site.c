/* Whether a return address follows a call instruction: the word before it
 * is BL (imm26) or BLR/BLRAA-family (register), the only instructions that
 * leave a return address. 1: a call; 0: not; -1: unreadable. */
#include "config.h"

#include "arm64.h"
#include "mem/memory.h"

int arm64_after_call(struct up_mem *m, const struct up_regs *regs,
		     uint64_t ra)
{
	uint8_t b[4];
	uint32_t insn;

	if (ra < 4 || (ra & 3))
		return 0;
	if (up_mem_read(m, regs, ra - 4, b, 4) < 0)
		return -1;
	insn = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
	       (uint32_t)b[3] << 24;
	return (insn & 0xfc000000u) == 0x94000000u ||     /* bl */
	       (insn & 0xfffffc1fu) == 0xd63f0000u ||     /* blr */
	       (insn & 0xfefff800u) == 0xd63f0800u;       /* blraa/blrab(z) */
}
