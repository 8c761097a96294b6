/* Whether a return address follows a call instruction: the bytes before
 * it decode as one of x86-64's calls (call rel32; call through a register
 * or memory, ModRM's reg field 2, with or without a REX prefix, with no,
 * an 8-bit or a 32-bit displacement, or RIP-relative). A word that only
 * looks like a code address rarely does. 1: a call; 0: not; -1: the
 * bytes cannot be read. */
#include "config.h"

#include "x86.h"
#include "mem/memory.h"

#define CALL_REL32 0xe8
#define GROUP5 0xff           /* its /2 is call */

/* ModRM of ff /2 taking len bytes after the opcode (with its SIB byte
 * when rm is 4, and its displacement). */
static bool call_modrm(uint8_t modrm, unsigned len)
{
	unsigned mod = modrm >> 6, reg = (modrm >> 3) & 7, rm = modrm & 7;
	unsigned sib = rm == 4 && mod != 3;
	unsigned disp = mod == 1 ? 1 : mod == 2 || (mod == 0 && rm == 5) ? 4 : 0;

	return reg == 2 && 1 + sib + disp == len;
}

int x86_after_call(struct up_mem *m, const struct up_regs *regs, uint64_t ra)
{
	uint8_t b[7];

	if (ra < sizeof(b))
		return 0;
	if (up_mem_read(m, regs, ra - sizeof(b), b, sizeof(b)) < 0)
		return -1;
	/* b[6] is the byte just before ra. */
	if (b[2] == CALL_REL32)
		return 1;
	/* ff /2: 2 to 7 bytes with its ModRM, SIB and displacement. */
	for (unsigned len = 1; len <= 6; len++)
		if (b[6 - len] == GROUP5 && call_modrm(b[7 - len], len))
			return 1;
	return 0;
}
