/* Building guest images in memory and writing them out (tests, fuzzing). */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/error_impl.h"
#include "util/grow.h"
#include "target/image_format.h"
#include "target/image.h"

struct image_frame {
	uint64_t number;
	enum up_frame_kind kind;
	uint8_t data[UP_PAGE_SIZE];
};

struct up_image {
	enum up_domain_type type;
	struct up_regs *vcpus;
	bool *blocked;
	unsigned nr_vcpus;
	struct image_frame **frames;
	size_t nr_frames, cap_frames;
};

int up_image_new(struct up_image **out, enum up_domain_type type)
{
	struct up_image *img = calloc(1, sizeof(*img));

	if (!img)
		return up_fail(UP_ENOMEM, "out of memory");
	img->type = type;
	*out = img;
	return 0;
}

void up_image_free(struct up_image *img)
{
	if (!img)
		return;
	for (size_t i = 0; i < img->nr_frames; i++)
		free(img->frames[i]);
	free(img->frames);
	free(img->vcpus);
	free(img->blocked);
	free(img);
}

int up_image_add_vcpu(struct up_image *img, const struct up_regs *regs)
{
	struct up_regs *v;
	bool *b;

	if (img->nr_vcpus >= UP_IMAGE_MAX_VCPUS)
		return up_fail(UP_EINVAL, "too many vCPUs in image");
	v = realloc(img->vcpus, (img->nr_vcpus + 1) * sizeof(*v));
	if (!v)
		return up_fail(UP_ENOMEM, "out of memory");
	img->vcpus = v;
	b = realloc(img->blocked, (img->nr_vcpus + 1) * sizeof(*b));
	if (!b)
		return up_fail(UP_ENOMEM, "out of memory");
	img->blocked = b;
	v[img->nr_vcpus] = *regs;
	b[img->nr_vcpus] = false;
	return (int)img->nr_vcpus++;
}

int up_image_set_blocked(struct up_image *img, unsigned vcpu, bool blocked)
{
	if (vcpu >= img->nr_vcpus)
		return up_fail(UP_EINVAL, "vCPU %u is not in the image", vcpu);
	img->blocked[vcpu] = blocked;
	return 0;
}

int up_image_frame(struct up_image *img, enum up_frame_kind kind,
		   uint64_t number, uint8_t **data)
{
	struct image_frame *f;

	for (size_t i = 0; i < img->nr_frames; i++) {
		f = img->frames[i];
		if (f->number == number && f->kind == kind) {
			*data = f->data;
			return 0;
		}
	}
	if (img->nr_frames >= UP_IMAGE_MAX_FRAMES)
		return up_fail(UP_EINVAL, "too many frames in image");
	if (grow_array(&img->frames, &img->cap_frames, img->nr_frames + 1,
		    sizeof(*img->frames), 16) < 0)
		return UP_ENOMEM;
	f = calloc(1, sizeof(*f));
	if (!f)
		return up_fail(UP_ENOMEM, "out of memory");
	f->number = number;
	f->kind = kind;
	img->frames[img->nr_frames++] = f;
	*data = f->data;
	return 0;
}

int up_image_serialize(const struct up_image *img, void **buf, size_t *len)
{
	size_t n = UP_IMAGE_HEADER_SIZE + img->nr_vcpus * UP_IMAGE_VCPU_SIZE +
		   img->nr_frames * UP_IMAGE_FRAME_SIZE;
	uint8_t *b = calloc(1, n), *p;

	if (!b)
		return up_fail(UP_ENOMEM, "out of memory");
	memcpy(b, UP_IMAGE_MAGIC, 8);
	up_put32(b + 8, UP_IMAGE_VERSION);
	up_put32(b + 12, img->type);
	up_put32(b + 16, img->nr_vcpus);
	up_put32(b + 20, (uint32_t)img->nr_frames);
	p = b + UP_IMAGE_HEADER_SIZE;
	for (unsigned i = 0; i < img->nr_vcpus; i++, p += UP_IMAGE_VCPU_SIZE) {
		const struct up_regs *r = &img->vcpus[i];

		up_put64(p, r->ip);
		up_put64(p + 8, r->sp);
		up_put64(p + 16, r->fp);
		up_put64(p + 24, r->cr3);
		up_put32(p + 32, r->paging);
		up_put32(p + 36, r->frame_kind);
		up_put32(p + 40, r->guest_width);
		up_put32(p + 44, (r->online ? UP_IMAGE_VCPU_ONLINE : 0) |
				 (r->kernel_mode ? UP_IMAGE_VCPU_KERNEL : 0) |
				 (img->blocked[i] ? UP_IMAGE_VCPU_BLOCKED : 0));
		up_put64(p + 48, r->ttbr1);
		up_put64(p + 56, r->tcr);
		up_put64(p + 64, r->lr);
		up_put32(p + 72, r->arch);
		up_put64(p + 80, r->arg0);
		up_put64(p + 88, r->x16);
	}
	for (size_t i = 0; i < img->nr_frames; i++, p += UP_IMAGE_FRAME_SIZE) {
		up_put64(p, img->frames[i]->number);
		up_put32(p + 8, img->frames[i]->kind);
		memcpy(p + UP_IMAGE_FRAME_HDR, img->frames[i]->data,
		       UP_PAGE_SIZE);
	}
	*buf = b;
	*len = n;
	return 0;
}

int up_image_write(const struct up_image *img, const char *path)
{
	void *buf;
	size_t len;
	FILE *f;
	int rc = up_image_serialize(img, &buf, &len);

	if (rc < 0)
		return rc;
	f = fopen(path, "wb");
	if (!f) {
		rc = up_fail(UP_EIO, "cannot create %s: %s", path,
			     strerror(errno));
	} else {
		if (fwrite(buf, 1, len, f) != len)
			rc = up_fail(UP_EIO, "cannot write %s: %s", path,
				     strerror(errno));
		if (fclose(f) != 0 && rc == 0)
			rc = up_fail(UP_EIO, "cannot write %s: %s", path,
				     strerror(errno));
	}
	free(buf);
	return rc;
}
