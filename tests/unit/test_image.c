/* The guest image format: round trip through a file, and malformed files
 * rejected with a clear message. */
#include <unistd.h>

#include "guest.h"
#include "test.h"
#include "target/image.h"

TEST_GLOBALS;

static void test_round_trip(void)
{
	struct up_image *img;
	struct up_regs r0 = { .ip = 1, .sp = 2, .fp = 3, .cr3 = 0x5000,
			      .paging = UP_PAGING_X86_64,
			      .frame_kind = UP_FRAME_GFN, .guest_width = 8,
			      .online = true, .kernel_mode = true };
	struct up_regs r1 = { .ip = 9, .guest_width = 8,
			      .arch = UP_ARCH_AARCH64, .paging = UP_PAGING_AARCH64,
			      .ttbr1 = 0x41000, .tcr = 0x5b5103510ULL,
			      .lr = 0xffff000000081234ULL }, got;
	struct up_target *t;
	char path[] = "/tmp/uniprof-img-XXXXXX";
	uint8_t *d;
	const void *page;
	int fd = mkstemp(path);

	REQUIRE(fd >= 0);
	close(fd);
	REQUIRE(up_image_new(&img, UP_DOMAIN_HVM) == 0);
	CHECK(up_image_add_vcpu(img, &r0) == 0);
	CHECK(up_image_add_vcpu(img, &r1) == 1);
	REQUIRE(up_image_frame(img, UP_FRAME_GFN, 0x77, &d) == 0);
	d[100] = 0xab;
	REQUIRE(up_image_write(img, path) == 0);
	up_image_free(img);

	REQUIRE(up_target_open_image(&t, path) == 0);
	CHECK(up_target_info(t)->max_vcpus == 2);
	CHECK(up_target_info(t)->type == UP_DOMAIN_HVM);
	CHECK(up_target_get_regs(t, 0, &got) == 0);
	CHECK(got.ip == 1 && got.sp == 2 && got.fp == 3 && got.cr3 == 0x5000);
	CHECK(got.paging == UP_PAGING_X86_64 && got.online && got.kernel_mode);
	CHECK(up_target_get_regs(t, 1, &got) == 0);
	CHECK(got.ip == 9 && !got.online);
	CHECK(got.arch == UP_ARCH_AARCH64 && got.paging == UP_PAGING_AARCH64);
	CHECK_U64(got.ttbr1, 0x41000);
	CHECK_U64(got.tcr, 0x5b5103510ULL);
	CHECK_U64(got.lr, 0xffff000000081234ULL);
	CHECK(up_target_get_regs(t, 2, &got) == UP_EINVAL);
	CHECK(up_target_map_frame(t, UP_FRAME_GFN, 0x77, &page) == 0);
	CHECK(((const uint8_t *)page)[100] == 0xab);
	up_target_unmap_frame(t, page);
	CHECK(up_target_map_frame(t, UP_FRAME_MFN, 0x77, &page) == UP_EFAULT);
	CHECK(up_target_map_frame(t, UP_FRAME_GFN, 0x78, &page) == UP_EFAULT);
	up_target_close(t);
	unlink(path);
}

static void *valid_image(size_t *len)
{
	struct up_image *img;
	struct up_regs r = { .guest_width = 8 };
	uint8_t *d;
	void *buf;

	up_image_new(&img, UP_DOMAIN_PV);
	up_image_add_vcpu(img, &r);
	up_image_frame(img, UP_FRAME_MFN, 1, &d);
	up_image_frame(img, UP_FRAME_MFN, 2, &d);
	up_image_serialize(img, &buf, len);
	up_image_free(img);
	return buf;
}

static int open_mem(const void *buf, size_t len)
{
	struct up_target *t = NULL;
	int rc = up_target_open_image_mem(&t, buf, len);

	up_target_close(t);
	return rc;
}

static void test_malformed(void)
{
	size_t len;
	uint8_t *buf = valid_image(&len);

	CHECK(open_mem(buf, len) == 0);
	CHECK(open_mem(buf, len - 1) == UP_EFORMAT);          /* truncated */
	CHECK(strstr(up_error_last(), "size") != NULL);
	CHECK(open_mem(buf, 10) == UP_EFORMAT);
	CHECK(open_mem(buf, 0) == UP_EFORMAT);
	buf[0] = 'X';
	CHECK(open_mem(buf, len) == UP_EFORMAT);              /* magic */
	CHECK(strstr(up_error_last(), "not a uniprof guest image") != NULL);
	buf[0] = 'U';
	buf[8] = 4;                                            /* version */
	CHECK(open_mem(buf, len) == UP_EFORMAT);
	buf[8] = 1;              /* version 1's vCPU records are shorter */
	CHECK(open_mem(buf, len) == UP_EFORMAT);
	CHECK(strstr(up_error_last(), "size") != NULL);
	buf[8] = 2;              /* and version 2's */
	CHECK(open_mem(buf, len) == UP_EFORMAT);
	CHECK(strstr(up_error_last(), "size") != NULL);
	buf[8] = 3;
	buf[16] = 0;                                           /* 0 vCPUs */
	CHECK(open_mem(buf, len) == UP_EFORMAT);
	buf[16] = 1;
	buf[23] = 0x7f;                                        /* huge count */
	CHECK(open_mem(buf, len) == UP_EFORMAT);
	buf[23] = 0;
	/* Second frame numbered like the first: duplicate. */
	buf[24 + 96 + 4112] = 1;             /* after one vCPU record */
	CHECK(open_mem(buf, len) == UP_EFORMAT);
	CHECK(strstr(up_error_last(), "twice") != NULL);
	free(buf);
	CHECK(up_target_open_image(&(struct up_target *){ NULL },
				   "/nonexistent.img") == UP_ENOENT);
}

/* Images written before AArch64 (version 1: x86 registers only) still
 * open, their vCPUs x86_64. */
static void test_version_1(void)
{
	uint8_t b[24 + 48 + 16 + 4096];
	struct up_target *t;
	struct up_regs got;

	memset(b, 0, sizeof(b));
	memcpy(b, UP_IMAGE_MAGIC, 8);
	b[8] = 1;                      /* version */
	b[12] = UP_DOMAIN_HVM;
	b[16] = 1;                     /* vCPUs */
	b[20] = 1;                     /* frames */
	b[24] = 0x42;                  /* ip */
	b[24 + 24 + 1] = 0x50;         /* cr3 0x5000 */
	b[24 + 32] = UP_PAGING_X86_64;
	b[24 + 40] = 8;
	b[24 + 44] = 1;                /* online */
	b[24 + 48] = 0x50;             /* frame 0x50 */
	REQUIRE(up_target_open_image_mem(&t, b, sizeof(b)) == 0);
	CHECK(up_target_get_regs(t, 0, &got) == 0);
	CHECK(got.ip == 0x42 && got.cr3 == 0x5000 && got.online);
	CHECK(got.arch == UP_ARCH_X86_64 && got.paging == UP_PAGING_X86_64);
	CHECK(got.ttbr1 == 0 && got.tcr == 0 && got.lr == 0);
	up_target_close(t);
}

int main(void)
{
	RUN(test_round_trip);
	RUN(test_malformed);
	RUN(test_version_1);
	TEST_MAIN_END();
}
