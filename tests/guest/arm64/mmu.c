/* The AArch64 test guest's stage-1 tables, as real unikernels set them up:
 * 4 KiB granule, 48-bit addresses through TTBR0 (a walk from level 0),
 * virtual == guest physical. The low GiB (Xen's magic pages: console,
 * xenstore) is one level-1 block; guest RAM is 2 MiB level-2 blocks except
 * its first 2 MiB, where the kernel lives, in 4 KiB level-3 pages: a
 * profile walks all three kinds. TTBR1 walks are off (TCR_EL1.EPD1). */
#include <stdint.h>

#include "hyp.h"

#define DESC_TABLE 3ULL              /* levels 0-2: next table */
#define DESC_PAGE 3ULL               /* level 3: a 4 KiB page */
#define DESC_BLOCK 1ULL              /* levels 1-2: a block */
#define ATTR(i) ((uint64_t)(i) << 2) /* MAIR_EL1 index */
#define SH_INNER (3ULL << 8)
#define AF (1ULL << 10)
#define MAIR_VALUE 0x4400ffULL       /* 0: normal write-back, 1: device, 2: normal uncached */
#define NORMAL (ATTR(0) | SH_INNER | AF)
#define UNCACHED (ATTR(2) | AF)

#define RAM_BASE 0x40000000ULL

/* T0SZ 16 (48 bits), write-back inner shareable walks, TG0 4 KiB; EPD1
 * with TG1 4 KiB; IPS 40 bits, what Xen gives its guests. */
#define TCR_VALUE (16ULL | 1ULL << 8 | 1ULL << 10 | 3ULL << 12 | \
		   16ULL << 16 | 1ULL << 23 | 2ULL << 30 | 2ULL << 32)
#define SCTLR_M (1ULL << 0)
#define SCTLR_C (1ULL << 2)
#define SCTLR_I (1ULL << 12)

static uint64_t l0[512] __attribute__((aligned(4096), section(".bss.pagetables")));
static uint64_t l1[512] __attribute__((aligned(4096), section(".bss.pagetables")));
static uint64_t l2_ram[512] __attribute__((aligned(4096), section(".bss.pagetables")));
static uint64_t l3_kernel[512] __attribute__((aligned(4096), section(".bss.pagetables")));

static void tables_build(void)
{
	l0[0] = (uint64_t)(uintptr_t)l1 | DESC_TABLE;
	l1[0] = 0 | UNCACHED | DESC_BLOCK;
	l1[1] = (uint64_t)(uintptr_t)l2_ram | DESC_TABLE;
	l2_ram[0] = (uint64_t)(uintptr_t)l3_kernel | DESC_TABLE;
	for (uint64_t i = 1; i < 512; i++)
		l2_ram[i] = (RAM_BASE + (i << 21)) | NORMAL | DESC_BLOCK;
	for (uint64_t i = 0; i < 512; i++)
		l3_kernel[i] = (RAM_BASE + (i << 12)) | NORMAL | DESC_PAGE;
}

/* Written with the MMU and caches off: drop any stale cached copy before
 * the cacheable walks read them. */
static void tables_clean(void)
{
	for (uintptr_t p = (uintptr_t)l0; p < (uintptr_t)(l3_kernel + 512); p += 64)
		__asm__ volatile("dc ivac, %0" : : "r"(p) : "memory");
	__asm__ volatile("dsb sy" ::: "memory");
}

/* Per vCPU: the same tables for every vCPU. */
void tg_mmu_on(void)
{
	uint64_t sctlr;

	__asm__ volatile("msr mair_el1, %0\n\t"
			 "msr tcr_el1, %1\n\t"
			 "msr ttbr0_el1, %2\n\t"
			 "isb\n\t"
			 "tlbi vmalle1\n\t"
			 "dsb nsh\n\t"
			 "isb"
			 : : "r"(MAIR_VALUE), "r"(TCR_VALUE), "r"((uint64_t)(uintptr_t)l0)
			 : "memory");
	__asm__ volatile("mrs %0, sctlr_el1" : "=r"(sctlr));
	sctlr |= SCTLR_M | SCTLR_C | SCTLR_I;
	__asm__ volatile("msr sctlr_el1, %0\n\tisb" : : "r"(sctlr) : "memory");
}

void tg_boot(uintptr_t dtb);

void tg_boot(uintptr_t dtb)
{
	tables_build();
	tables_clean();
	tg_mmu_on();
	tg_main(dtb);
}
