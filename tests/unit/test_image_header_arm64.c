/* The arm64 Image header at a kernel's ELF entry point: its branch (code0,
 * or code1 after an EFI "MZ" instruction) leads to the real entry, which
 * the kernel map then holds as an outermost function. Headers without the
 * magic, too short, or with no branch give nothing. */
#include <unistd.h>

#include "arch/arm64/arm64.h"
#include "test.h"
#include "uniprof/error.h"
#include "uniprof/sys/kernel.h"
#include "uniprof/symbols.h"
#include "private.h"

TEST_GLOBALS;

#define VA 0x40080000ULL
#define ADD_X13_X18 0x91005a4du          /* "MZ" as an instruction */
#define NOP 0xd503201fu

static void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* A header whose code0/code1 are the given words. */
static void header(uint8_t h[64], uint32_t code0, uint32_t code1)
{
	memset(h, 0, 64);
	put32(h, code0);
	put32(h + 4, code1);
	memcpy(h + 56, "ARM\x64", 4);
}

static uint32_t b(int64_t bytes)
{
	return 0x14000000u | ((uint32_t)(bytes / 4) & 0x03ffffffu);
}

static void test_branch(void)
{
	uint8_t h[64];

	header(h, b(0x40), 0);
	CHECK_U64(arm64_image_header_target(h, 64, VA), VA + 0x40);
	header(h, b(0x10000), 0);
	CHECK_U64(arm64_image_header_target(h, sizeof(h), VA), VA + 0x10000);
	header(h, b(-0x1000), 0);                    /* backwards */
	CHECK_U64(arm64_image_header_target(h, 64, VA), VA - 0x1000);
	header(h, ADD_X13_X18, b(0x80));              /* EFI-bootable form */
	CHECK_U64(arm64_image_header_target(h, 64, VA), VA + 4 + 0x80);
}

static void test_not_a_header(void)
{
	uint8_t h[64];

	header(h, b(0x40), 0);
	CHECK(arm64_image_header_target(h, 63, VA) == 0);      /* too short */
	h[59] = 0;
	CHECK(arm64_image_header_target(h, 64, VA) == 0);      /* no magic */
	header(h, NOP, NOP);
	CHECK(arm64_image_header_target(h, 64, VA) == 0);      /* no branch */
	header(h, 0x94000010u, 0);                             /* bl, not b */
	CHECK(arm64_image_header_target(h, 64, VA) == 0);
}

/* Our AArch64 test unikernel: ELF entry _head, a header whose branch goes
 * to tg_start, the function that has no caller. */
static void test_kernel_map(void)
{
	const char *dir = getenv("top_builddir");
	char path[512];
	struct up_symtab *s;
	struct up_kernel_map *k;
	uint64_t start = 0, head = 0, main_fn = 0;

	snprintf(path, sizeof(path), "%s/tests/guest/tg-a64-nofp.elf", dir ? dir : ".");
	if (access(path, R_OK) != 0) {
		printf("# skip: %s not built (no aarch64 compiler)\n", path);
		return;
	}
	REQUIRE(up_symtab_load(&s, path) == 0);
	for (size_t i = 0; i < up_symtab_count(s); i++) {
		const struct up_symbol *y = up_symtab_symbol(s, i);

		if (strcmp(y->name, "tg_start") == 0)
			start = y->addr;
		if (strcmp(y->name, "_head") == 0)
			head = y->addr;
		if (strcmp(y->name, "tg_main") == 0)
			main_fn = y->addr;
	}
	REQUIRE(start && head && main_fn);
	REQUIRE(up_kernel_map_load(&k, path, s) == 0);
	CHECK(up_kernel_map_is_entry(k, head));
	CHECK(up_kernel_map_is_entry(k, start + 8));
	CHECK(!up_kernel_map_is_entry(k, main_fn));
	up_kernel_map_free(k);
	up_symtab_free(s);
}

int main(void)
{
	RUN(test_branch);
	RUN(test_not_a_header);
	RUN(test_kernel_map);
	TEST_MAIN_END();
}
