/* libFuzzer target: a hostile guest. The input is a guest image (see
 * core/target/image.h) behind a small prefix that chooses walk options
 * and a CFI table:
 *   u8 flags   bit 0: -u auto (frame-pointer fallback) for the CFI walk,
 *              bits 1-2: frame cache size (1, 2, 8 or the default),
 *              bits 3-7: depth limit (0: the default)
 *   u8 rows    CFI rows that follow (at most 32)
 *   rows       struct cfi_row each (24 bytes: start, len, kind, cfa_reg,
 *              fp_rule, pad, cfa_off, ra_off, fp_off), sanitized into what
 *              the table compiler can produce
 *   image      up_target_open_image_mem's input
 * For every vCPU: the page walk (translate, reads across pages), the
 * frame-pointer walk and the CFI walk. The walks must stay within their
 * limits and report how they stopped; no frame stays mapped. Then one
 * relaxed sample (no pause; every word a walk read is read again): the
 * image never changes, so no stack may be found to have moved. And the
 * hypercall page looked for in its memory. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "unwind/cfi_table.h"
#include "uniprof/uniprof.h"
#include "mem/memory.h"
#include "target/image_hooks.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_ROWS 32

static int row_cmp(const void *x, const void *y)
{
	const struct cfi_row *a = x, *b = y;

	return a->start < b->start ? -1 : a->start > b->start;
}

/* Rows as unwind/cfi_table.c makes them: sorted, not overlapping, not wrapping,
 * with a known kind, CFA register and FP rule. */
static size_t make_rows(struct cfi_row *rows, const uint8_t *p, size_t n)
{
	size_t out = 0;

	for (size_t i = 0; i < n; i++) {
		memcpy(&rows[i], p + i * sizeof(*rows), sizeof(*rows));
		rows[i].kind %= 3;
		rows[i].cfa_reg = rows[i].cfa_reg & 1 ? CFI_CFA_FP : CFI_CFA_SP;
		rows[i].fp_rule %= 2;
		rows[i].ra_rule %= 2;
	}
	qsort(rows, n, sizeof(*rows), row_cmp);
	for (size_t i = 0; i < n; i++) {
		struct cfi_row r = rows[i];

		if (out && r.start < rows[out - 1].start + rows[out - 1].len)
			continue;
		if (r.len == 0 || r.start + r.len < r.start)
			continue;
		if (i + 1 < n && r.start + r.len > rows[i + 1].start)
			r.len = (uint32_t)(rows[i + 1].start - r.start);
		if (r.len)
			rows[out++] = r;
	}
	return out;
}

static void check_stack(const struct up_stack *st, const struct up_regs *regs,
			unsigned max_depth)
{
	if (st->depth < 1 || st->depth > max_depth || st->frames[0] != regs->ip)
		abort();
	if ((unsigned)st->trunc > UP_TRUNC_BAD_CFA || !up_trunc_name(st->trunc))
		abort();
	if (st->trunc == UP_TRUNC_DEPTH && st->depth != max_depth)
		abort();
}

/* A kernel map whose code is nearly everything and that keeps no frame
 * pointers: the CFI walk then tries every way out of a frame without CFI
 * (an event upcall's interrupted frame above all) on hostile words. */
static const struct up_kernel_map *wide_map(void)
{
	static struct up_kernel_map *k;

	if (!k && up_kernel_map_new(&k) == 0) {
		up_kernel_map_add_text(k, 0x1000, UINT64_MAX - 0xfff);
		up_kernel_map_set_frame_pointers(k, UP_FP_OMITTED);
	}
	return k;
}

static void walk_vcpu(struct up_mem *m, const struct up_regs *regs,
		      const struct up_cfi_table *table, uint8_t flags,
		      enum up_domain_type type)
{
	static uint64_t frames[UP_UNWIND_MAX_DEPTH_LIMIT];
	struct up_stack st = { .frames = frames, .capacity = UP_UNWIND_MAX_DEPTH_LIMIT };
	struct up_unwind_opts opts = { .max_depth = flags >> 3 };
	unsigned max_depth = opts.max_depth ? opts.max_depth : UP_UNWIND_DEFAULT_MAX_DEPTH;
	struct up_unwind_counts counts = { 0 };
	uint8_t buf[64];
	uint64_t frame, word;
	const uint64_t probes[] = {
		regs->ip, regs->sp, regs->fp, regs->sp - 8, regs->fp + 8,
		(regs->sp | (UP_PAGE_SIZE - 1)) - 3,     /* a read across pages */
	};

	up_mem_new_sample(m);
	for (size_t i = 0; i < sizeof(probes) / sizeof(probes[0]); i++) {
		up_mem_translate(m, regs, probes[i], &frame);
		up_mem_read_u64(m, regs, probes[i], &word);
		up_mem_read(m, regs, probes[i], buf, sizeof(buf));
	}
	if (up_unwind_fp(m, regs, &opts, &st) == 0)
		check_stack(&st, regs, max_depth);
	if (table && up_unwind_cfi(m, regs, table, &opts, flags & 1, &st,
				   &counts) == 0) {
		check_stack(&st, regs, max_depth);
		/* Every frame past the IP is counted, hypercall stubs too. */
		if (counts.cfi + counts.fp + counts.hypercall + 1 < st.depth)
			abort();
	}
	opts.kernel = wide_map();
	opts.domain_type = type;
	if (table && opts.kernel &&
	    up_unwind_cfi(m, regs, table, &opts, false, &st, NULL) == 0 &&
	    (st.depth < 1 || st.depth > max_depth || st.frames[0] != regs->ip ||
	     st.trunc >= UP_TRUNC_COUNT))
		abort();
	/* PVH/HVM: interrupt stacks named by a TSS the guest wrote (here
	 * anywhere its frame pointer says). */
	if (type != UP_DOMAIN_PV && table && opts.kernel) {
		struct up_regs hostile = *regs;

		hostile.tss = regs->fp;
		if (up_unwind_cfi(m, &hostile, table, &opts, flags & 1, &st, NULL) == 0 &&
		    (st.depth < 1 || st.depth > max_depth || st.frames[0] != regs->ip ||
		     st.trunc >= UP_TRUNC_COUNT))
			abort();
	}
}

/* The hypercall page looked for in the guest's memory, around vCPU 0's
 * pc: found only where three stubs have Xen's shape, within the code. */
static void probe_hypercall_page(struct up_target *t)
{
	struct up_kernel_map *k;
	struct up_regs regs;
	const char *how;
	uint64_t page;

	if (up_target_get_regs(t, 0, &regs) < 0 || up_kernel_map_new(&k) < 0)
		return;
	page = regs.ip & ~(uint64_t)(UP_PAGE_SIZE - 1);
	up_kernel_map_add_text(k, page > 4 * UP_PAGE_SIZE ? page - 4 * UP_PAGE_SIZE : 0,
			       page + 4 * UP_PAGE_SIZE > page ? page + 4 * UP_PAGE_SIZE : UINT64_MAX);
	if (up_kernel_map_probe_hypercall_page(k, t, &how) == 1 &&
	    (up_kernel_map_hypercall_page(k) % UP_PAGE_SIZE ||
	     !up_kernel_map_in_text(k, up_kernel_map_hypercall_page(k))))
		abort();
	up_kernel_map_free(k);
}

/* One relaxed sample of every vCPU, with the walks above. */
static void relaxed_sample(struct up_target *t, const struct up_cfi_table *table,
			   uint8_t flags)
{
	static const size_t caches[] = { 1, 2, 8, 0 };
	struct up_sampler_config c;
	struct up_sampler_stats st;
	struct up_profile *p;

	if (up_profile_new(&p, up_target_info(t)->max_vcpus) < 0)
		return;
	up_sampler_config_init(&c, UP_SAMPLER_CONFIG_VERSION);
	c.consistency = UP_CONSISTENCY_RELAXED;
	c.hz = UP_SAMPLER_MAX_HZ;
	c.no_jitter = true;
	c.max_samples = 1;
	c.unwind.max_depth = flags >> 3;
	c.cache_frames = caches[(flags >> 1) & 3];
	c.unwinder = !table ? UP_UNWINDER_FP :
		     flags & 1 ? UP_UNWINDER_AUTO : UP_UNWINDER_CFI;
	c.cfi = table;
	/* An image never changes under the walk: a stack is cut to its IP
	 * only when it would end whole on a word no call left (a vCPU that
	 * ran), and each one so cut is counted. */
	if (up_sample(t, &c, p, NULL, &st) != 0 ||
	    st.relaxed_dropped != up_profile_truncated_by(p, UP_TRUNC_RACED))
		abort();
	if (st.samples && st.relaxed_still + st.relaxed_stable +
			  st.relaxed_unverified + st.offline_vcpus +
			  st.reg_failures != up_target_info(t)->max_vcpus)
		abort();          /* every vCPU accounted for once */
	up_sampler_stats_release(&st);
	up_profile_free(p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const size_t caches[] = { 1, 2, 8, 0 };
	struct cfi_row rows[MAX_ROWS];
	struct up_cfi_table table = { .rows = rows };
	struct up_target *t;
	struct up_mem *m;
	uint8_t flags;
	size_t nrows;

	if (size < 2)
		return 0;
	flags = data[0];
	nrows = data[1];
	if (nrows > MAX_ROWS || size - 2 < nrows * sizeof(struct cfi_row))
		return 0;
	table.count = make_rows(rows, data + 2, nrows);
	cfi_table_index(&table);
	data += 2 + nrows * sizeof(struct cfi_row);
	size -= 2 + nrows * sizeof(struct cfi_row);

	if (up_target_open_image_mem(&t, data, size) < 0) {
		free(table.index);
		return 0;
	}
	if (up_mem_new(&m, t, caches[(flags >> 1) & 3]) == 0) {
		const struct up_target_info *info = up_target_info(t);

		up_target_pause(t);
		for (unsigned v = 0; v < info->max_vcpus; v++) {
			struct up_regs regs;

			if (up_target_get_regs(t, v, &regs) == 0)
				walk_vcpu(m, &regs, table.count ? &table : NULL, flags,
					  info->type);
		}
		up_target_unpause(t);
		up_mem_free(m);
		relaxed_sample(t, table.count ? &table : NULL, flags);
		probe_hypercall_page(t);
	}
	if (up_target_image_mapped(t) != 0)
		abort();                  /* a frame left mapped */
	up_target_close(t);
	free(table.index);
	return 0;
}
