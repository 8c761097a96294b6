/* The image target: a guest snapshot from a file (format in image.h). The
 * file is untrusted input: every count and offset is checked. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util/clock.h"
#include "util/error_impl.h"
#include "util/file_read.h"
#include "target/image_format.h"
#include "target/target_impl.h"
#include "target/image.h"
#include "target/image_hooks.h"

struct image_target {
	struct up_target base;
	uint8_t *buf;
	size_t len;
	struct up_regs *vcpus;
	bool *blocked;
	/* A simulated run clock: a vCPU not blocked runs whenever the domain
	 * is not paused, as Xen accounts it. */
	uint64_t *run_ns;
	uint64_t running_since;   /* last unpause (or open); 0 while paused */
	const uint8_t **frames;   /* sorted by (kind, number) */
	size_t nr_frames;
	long mapped;              /* outstanding mappings, for tests */
	uint64_t pauses;
	uint64_t shutdown_after;  /* 0: never */
	uint64_t gone_after;      /* 0: never */
	uint64_t stall_pause;     /* 0: never */
	uint64_t stall_max_ns;
	unsigned fail_unpauses;
	/* The scribble hook (image.h): the guest writing its stack. */
	struct {
		unsigned vcpu;
		uint64_t from, count, reads, flip;
		uint8_t *word;
	} scribble;
	uint64_t read_delay_ns;   /* read delay hook */
	unsigned block_vcpu;      /* block hook: that vCPU blocks on read */
	uint64_t block_on_read, block_reads;
	uint64_t state_reads, unpaused_reg_reads;   /* pause counts hook */
};

static struct image_target *to_image(struct up_target *t)
{
	return (struct image_target *)t;
}

static int frame_cmp(const void *a, const void *b)
{
	const uint8_t *fa = *(const uint8_t *const *)a;
	const uint8_t *fb = *(const uint8_t *const *)b;
	uint32_t ka = up_le32(fa + 8), kb = up_le32(fb + 8);
	uint64_t na = up_le64(fa), nb = up_le64(fb);

	if (ka != kb)
		return ka < kb ? -1 : 1;
	return na < nb ? -1 : na > nb;
}

static int image_pause(struct up_target *t)
{
	struct image_target *it = to_image(t);

	if (it->gone_after && it->pauses >= it->gone_after)
		return up_fail(UP_EGONE, "domain no longer exists");
	it->pauses++;
	if (it->running_since) {
		uint64_t ran = mono_ns() - it->running_since;

		for (unsigned v = 0; v < t->info.max_vcpus; v++)
			if (!it->blocked[v])
				it->run_ns[v] += ran;
		it->running_since = 0;
	}
	ps_image_pause(t->ps);
	return 0;
}

static int image_unpause(struct up_target *t)
{
	struct image_target *it = to_image(t);

	if (it->fail_unpauses) {
		it->fail_unpauses--;
		return up_fail(UP_EIO, "image domain: unpause refused (test hook)");
	}
	if (ps_image_unpause(t->ps) < 0)
		return up_fail(UP_EINVAL, "image domain is not paused");
	it->running_since = mono_ns();
	return 0;
}

/* The stall hook: wait while the pause is ours, as a stuck walk would. */
static void stall(struct image_target *it)
{
	uint64_t start = mono_ns();

	while (ps_phase(atomic_load(&it->base.ps->word)) == PS_PAUSED &&
	       mono_ns() - start < it->stall_max_ns)
		nanosleep(&(struct timespec){ .tv_nsec = 200000 }, NULL);
}

static int image_get_regs(struct up_target *t, unsigned vcpu,
			  struct up_regs *out)
{
	struct image_target *it = to_image(t);

	if (vcpu == 0 && it->stall_pause &&
	    (it->pauses == it->stall_pause || it->stall_pause == UP_IMAGE_STALL_EVERY))
		stall(it);
	if (it->running_since)
		it->unpaused_reg_reads++;
	if (it->read_delay_ns && it->running_since)
		nanosleep(&(struct timespec){
				  .tv_sec = (time_t)(it->read_delay_ns / 1000000000u),
				  .tv_nsec = (long)(it->read_delay_ns % 1000000000u) },
			  NULL);
	*out = it->vcpus[vcpu];
	return 0;
}

static int image_map_frame(struct up_target *t, enum up_frame_kind kind,
			   uint64_t frame, const void **page);

static int image_activity(struct up_target *t, unsigned vcpu,
			  enum up_vcpu_activity *activity, bool *online,
			  uint64_t *run_ns)
{
	struct image_target *it = to_image(t);

	it->state_reads++;
	if (it->block_on_read && vcpu == it->block_vcpu &&
	    ++it->block_reads == it->block_on_read)
		it->blocked[vcpu] = !it->blocked[vcpu];
	*activity = it->blocked[vcpu] ? UP_VCPU_BLOCKED : UP_VCPU_BUSY;
	*online = it->vcpus[vcpu].online;
	*run_ns = it->run_ns[vcpu];
	/* Not paused: a busy vCPU's clock runs on. */
	if (it->running_since && !it->blocked[vcpu])
		*run_ns += mono_ns() - it->running_since;
	if (it->scribble.word && vcpu == it->scribble.vcpu &&
	    ++it->scribble.reads >= it->scribble.from &&
	    it->scribble.reads - it->scribble.from < it->scribble.count) {
		uint64_t w = up_le64(it->scribble.word) ^ it->scribble.flip;

		memcpy(it->scribble.word, &w, sizeof(w));
	}
	return 0;
}

void up_target_image_block_on_read(struct up_target *t, unsigned vcpu,
				   uint64_t n)
{
	struct image_target *it = to_image(t);

	it->block_vcpu = vcpu;
	it->block_on_read = n;
	it->block_reads = 0;
}

void up_target_image_set_scribble(struct up_target *t, unsigned vcpu,
				  enum up_frame_kind kind, uint64_t frame,
				  unsigned offset, uint64_t flip,
				  uint64_t from, uint64_t count)
{
	struct image_target *it = to_image(t);
	const void *page;

	it->scribble.word = NULL;
	if (offset > UP_PAGE_SIZE - 8 ||
	    image_map_frame(t, kind, frame, &page) < 0)
		return;
	it->mapped--;
	/* The image's own copy of the file: ours to write. */
	it->scribble.word = (uint8_t *)page + offset;
	it->scribble.vcpu = vcpu;
	it->scribble.from = from;
	it->scribble.count = count;
	it->scribble.reads = 0;
	it->scribble.flip = flip;
}

static int image_map_frame(struct up_target *t, enum up_frame_kind kind,
			   uint64_t frame, const void **page)
{
	struct image_target *it = to_image(t);
	size_t lo = 0, hi = it->nr_frames;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const uint8_t *f = it->frames[mid];
		uint32_t k = up_le32(f + 8);
		uint64_t n = up_le64(f);

		if (k == (uint32_t)kind && n == frame) {
			*page = f + UP_IMAGE_FRAME_HDR;
			it->mapped++;
			return 0;
		}
		if (k < (uint32_t)kind || (k == (uint32_t)kind && n < frame))
			lo = mid + 1;
		else
			hi = mid;
	}
	return up_fail(UP_EFAULT, "guest frame %#llx (%s) is not in the image",
		       (unsigned long long)frame,
		       kind == UP_FRAME_MFN ? "mfn" : "gfn");
}

static void image_unmap_frame(struct up_target *t, const void *page)
{
	(void)page;
	to_image(t)->mapped--;
}

static int image_state(struct up_target *t, enum up_domain_state *state)
{
	struct image_target *it = to_image(t);

	if (it->gone_after && it->pauses >= it->gone_after)
		*state = UP_STATE_GONE;
	else if (it->shutdown_after && it->pauses >= it->shutdown_after)
		*state = UP_STATE_SHUTDOWN;
	else
		*state = UP_STATE_RUNNING;
	return 0;
}

static void image_close(struct up_target *t)
{
	struct image_target *it = to_image(t);

	free(it->frames);
	free(it->vcpus);
	free(it->blocked);
	free(it->run_ns);
	free(it->buf);
	free(it);
}

static const struct up_target_ops image_ops = {
	.pause = image_pause,
	.unpause = image_unpause,
	.get_regs = image_get_regs,
	.map_frame = image_map_frame,
	.unmap_frame = image_unmap_frame,
	.state = image_state,
	.activity = image_activity,
	.close = image_close,
};

static int parse(struct image_target *it)
{
	const uint8_t *b = it->buf, *p;
	uint32_t version, type, nv, nf;
	size_t need, vcpu_size;

	if (it->len < UP_IMAGE_HEADER_SIZE || memcmp(b, UP_IMAGE_MAGIC, 8))
		return up_fail(UP_EFORMAT, "not a uniprof guest image");
	version = up_le32(b + 8);
	type = up_le32(b + 12);
	nv = up_le32(b + 16);
	nf = up_le32(b + 20);
	if (version < 1 || version > UP_IMAGE_VERSION)
		return up_fail(UP_EFORMAT, "guest image version %u, expected 1 to %u",
			       version, UP_IMAGE_VERSION);
	/* Version 1 has x86 registers only, version 2 no argument ones. */
	vcpu_size = version == 1 ? UP_IMAGE_VCPU_SIZE_V1 :
		    version == 2 ? UP_IMAGE_VCPU_SIZE_V2 : UP_IMAGE_VCPU_SIZE;
	if (type > UP_DOMAIN_HVM)
		return up_fail(UP_EFORMAT, "guest image: bad domain type %u", type);
	if (nv == 0 || nv > UP_IMAGE_MAX_VCPUS || nf > UP_IMAGE_MAX_FRAMES)
		return up_fail(UP_EFORMAT,
			       "guest image: bad counts (%u vCPUs, %u frames)",
			       nv, nf);
	need = UP_IMAGE_HEADER_SIZE + (size_t)nv * vcpu_size +
	       (size_t)nf * UP_IMAGE_FRAME_SIZE;
	if (it->len != need)
		return up_fail(UP_EFORMAT,
			       "guest image: size %zu does not match its header (%zu)",
			       it->len, need);

	it->vcpus = calloc(nv, sizeof(*it->vcpus));
	it->blocked = calloc(nv, sizeof(*it->blocked));
	it->run_ns = calloc(nv, sizeof(*it->run_ns));
	it->frames = calloc(nf ? nf : 1, sizeof(*it->frames));
	if (!it->vcpus || !it->blocked || !it->run_ns || !it->frames)
		return up_fail(UP_ENOMEM, "out of memory");
	p = b + UP_IMAGE_HEADER_SIZE;
	for (uint32_t i = 0; i < nv; i++, p += vcpu_size) {
		struct up_regs *r = &it->vcpus[i];
		uint32_t flags = up_le32(p + 44);

		r->ip = up_le64(p);
		r->sp = up_le64(p + 8);
		r->fp = up_le64(p + 16);
		r->cr3 = up_le64(p + 24);
		/* Out-of-range enums are kept as values the walker rejects. */
		r->paging = (enum up_paging)(up_le32(p + 32) & 0xff);
		r->frame_kind = up_le32(p + 36) ? UP_FRAME_MFN : UP_FRAME_GFN;
		r->guest_width = up_le32(p + 40);
		r->online = flags & UP_IMAGE_VCPU_ONLINE;
		r->kernel_mode = flags & UP_IMAGE_VCPU_KERNEL;
		it->blocked[i] = flags & UP_IMAGE_VCPU_BLOCKED;
		if (version >= 2) {
			r->ttbr1 = up_le64(p + 48);
			r->tcr = up_le64(p + 56);
			r->lr = up_le64(p + 64);
			/* Kept as read: an unknown one is refused by the walk. */
			r->arch = (enum up_arch)(up_le32(p + 72) & 0xff);
		}
		if (version >= 3) {
			r->arg0 = up_le64(p + 80);
			r->x16 = up_le64(p + 88);
		}
	}
	for (uint32_t i = 0; i < nf; i++, p += UP_IMAGE_FRAME_SIZE)
		it->frames[i] = p;
	qsort(it->frames, nf, sizeof(*it->frames), frame_cmp);
	for (uint32_t i = 1; i < nf; i++)
		if (frame_cmp(&it->frames[i - 1], &it->frames[i]) == 0)
			return up_fail(UP_EFORMAT,
				       "guest image: frame %#llx appears twice",
				       (unsigned long long)up_le64(it->frames[i]));
	it->nr_frames = nf;
	it->base.info.type = type;
	it->base.info.max_vcpus = nv;
	it->base.info.guest_width = it->vcpus[0].guest_width;
	it->base.info.arch = it->vcpus[0].arch;
	it->base.info.domid = UINT32_MAX;
	it->base.info.hypercalls = "image";
	it->running_since = mono_ns();
	return 0;
}

static int open_owned(struct up_target **out, uint8_t *buf, size_t len)
{
	struct image_target *it = calloc(1, sizeof(*it));
	int rc;

	if (!it) {
		free(buf);
		return up_fail(UP_ENOMEM, "out of memory");
	}
	target_init(&it->base, &image_ops);
	it->buf = buf;
	it->len = len;
	rc = parse(it);
	if (rc < 0) {
		image_close(&it->base);
		return rc;
	}
	*out = &it->base;
	return 0;
}

int up_target_open_image_mem(struct up_target **out, const void *buf,
			     size_t len)
{
	uint8_t *copy = malloc(len ? len : 1);

	if (!copy)
		return up_fail(UP_ENOMEM, "out of memory");
	memcpy(copy, buf, len);
	return open_owned(out, copy, len);
}

int up_target_open_image(struct up_target **out, const char *path)
{
	int fd = file_open_regular(path);
	FILE *f;
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0, n;

	if (fd == FILE_NOT_REGULAR)
		return up_fail(UP_EINVAL, "guest image %s is not a regular file", path);
	if (fd < 0 || !(f = fdopen(fd, "rb"))) {
		int e = errno;

		if (fd >= 0)
			close(fd);
		return up_fail(e == ENOENT ? UP_ENOENT : UP_EIO,
			       "cannot open guest image %s: %s", path, strerror(e));
	}
	do {
		if (len == cap) {
			uint8_t *nb;

			cap = cap ? cap * 2 : 65536;
			if (cap > (size_t)UP_IMAGE_MAX_FRAMES * UP_IMAGE_FRAME_SIZE * 2)
				break;
			nb = realloc(buf, cap);
			if (!nb) {
				free(buf);
				fclose(f);
				return up_fail(UP_ENOMEM, "out of memory");
			}
			buf = nb;
		}
		n = fread(buf + len, 1, cap - len, f);
		len += n;
	} while (n > 0);
	if (ferror(f)) {
		free(buf);
		fclose(f);
		return up_fail(UP_EIO, "cannot read guest image %s", path);
	}
	fclose(f);
	return open_owned(out, buf, len);
}

void up_target_image_set_lifetime(struct up_target *t,
				  uint64_t shutdown_after, uint64_t gone_after)
{
	to_image(t)->shutdown_after = shutdown_after;
	to_image(t)->gone_after = gone_after;
}

long up_target_image_mapped(struct up_target *t)
{
	return to_image(t)->mapped;
}

void up_target_image_set_read_delay(struct up_target *t, uint64_t ns)
{
	to_image(t)->read_delay_ns = ns;
}

void up_target_image_set_stall(struct up_target *t, uint64_t stall_pause,
			       uint64_t max_ns)
{
	to_image(t)->stall_pause = stall_pause;
	to_image(t)->stall_max_ns = max_ns;
}

void up_target_image_fail_unpauses(struct up_target *t, unsigned n)
{
	to_image(t)->fail_unpauses = n;
}

void up_target_image_pause_counts(struct up_target *t,
				  struct up_image_pause_counts *out)
{
	out->pauses = to_image(t)->pauses;
	out->unpauses = atomic_load(&t->ps->image_unpauses);
	out->bad_unpauses = atomic_load(&t->ps->image_bad_unpauses);
	out->guard_releases = atomic_load(&t->ps->guard_releases);
	out->held = atomic_load(&t->ps->image_held);
	out->state_reads = to_image(t)->state_reads;
	out->unpaused_reg_reads = to_image(t)->unpaused_reg_reads;
}
