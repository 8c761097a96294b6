/* The arm64 Image header (Linux's Documentation/arch/arm64/booting.rst,
 * which Xen's domain builder, Mini-OS and Unikraft follow): 64 bytes at the
 * image's start, "ARM\\x64" at offset 56, and code0/code1, whose branch
 * leads to the real entry. A kernel linked with the header at its ELF entry
 * point has that branch's target as its outermost function. */
#include "config.h"

#include "arm64.h"

#define IMAGE_MAGIC_OFFSET 56
#define IMAGE_MAGIC 0x644d5241u        /* "ARM\x64", little-endian */
#define B_MASK 0xfc000000u             /* B imm26 */
#define B_OPCODE 0x14000000u

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

uint64_t arm64_image_header_target(const uint8_t *bytes, size_t len, uint64_t va)
{
	if (len < 64 || le32(bytes + IMAGE_MAGIC_OFFSET) != IMAGE_MAGIC)
		return 0;
	/* code0 is the branch, or (EFI-bootable images) code1 after the
	 * "MZ" instruction. */
	for (unsigned i = 0; i < 2; i++) {
		uint32_t insn = le32(bytes + 4 * i);
		int64_t off;

		if ((insn & B_MASK) != B_OPCODE)
			continue;
		off = (int64_t)((uint64_t)(insn & 0x03ffffffu) << 38) >> 36;
		return va + 4 * i + (uint64_t)off;
	}
	return 0;
}
