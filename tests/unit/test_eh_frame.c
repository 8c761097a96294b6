/* The .eh_frame FDE parser: on the test guest (every function readelf
 * sees gets an FDE), and on malformed sections: truncated, bad lengths,
 * CIE pointers out of range, unknown augmentations, garbage. */
#include <unistd.h>

#include "unwind/eh_frame.h"
#include "guest.h"
#include "test.h"

TEST_GLOBALS;

static char guest_nofp[4096];

/* Read a section with objcopy into memory. */
static uint8_t *section_of(const char *elf, const char *name, size_t *len,
			   uint64_t *addr)
{
	char cmd[16384], path[] = "/tmp/uniprof-sec-XXXXXX";
	int fd = mkstemp(path);
	uint8_t *buf = NULL;
	FILE *f;
	long n;

	close(fd);
	snprintf(cmd, sizeof(cmd),
		 "objcopy -O binary --only-section=%s '%s' '%s' && readelf -SW '%s' | awk '{ for (i = 1; i < NF; i++) if ($i == \"%s\") print $(i + 2) }'",
		 name, elf, path, elf, name);
	f = popen(cmd, "r");
	if (!f || fscanf(f, "%lx", (unsigned long *)addr) != 1) {
		if (f)
			pclose(f);
		unlink(path);
		return NULL;
	}
	pclose(f);
	f = fopen(path, "rb");
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc((size_t)n);
	*len = fread(buf, 1, (size_t)n, f);
	fclose(f);
	unlink(path);
	return buf;
}

static void test_guest_fdes(void)
{
	size_t len;
	uint64_t addr;
	uint8_t *sec = section_of(guest_nofp, ".eh_frame", &len, &addr);
	struct fde_list l;
	char cmd[4200];
	unsigned long want = 0;
	FILE *f;

	REQUIRE(sec != NULL);
	CHECK(eh_frame_list_fdes(sec, len, addr, true, &l) == 0);
	CHECK(!l.truncated);
	CHECK(l.skipped == 0);
	snprintf(cmd, sizeof(cmd), "readelf --debug-dump=frames '%s' | grep -c ' FDE '", guest_nofp);
	f = popen(cmd, "r");
	REQUIRE(f && fscanf(f, "%lu", &want) == 1);
	pclose(f);
	CHECK(l.count == want);
	/* Every tg_ function of the workload lies inside an FDE. */
	snprintf(cmd, sizeof(cmd), "nm '%s' | awk '$2 ~ /^[Tt]$/ && $3 ~ /^tg_(chain|hot|round|workload|main)/ { print $1 }'", guest_nofp);
	f = popen(cmd, "r");
	REQUIRE(f != NULL);
	{
		unsigned long a;
		unsigned n = 0;

		while (fscanf(f, "%lx", &a) == 1) {
			CHECK(fde_list_find(&l, a) != NULL);
			n++;
		}
		CHECK(n >= 14);
	}
	pclose(f);
	for (size_t i = 1; i < l.count; i++)
		CHECK(l.fdes[i - 1].pc_begin <= l.fdes[i].pc_begin);
	fde_list_release(&l);
	free(sec);
}

/* A minimal well-formed section: one CIE "zR" (pcrel|sdata4), one FDE. */
static size_t build(uint8_t *b, const char *aug)
{
	size_t n = 0, cie_start, fde_start;
	int32_t pc;

#define PUT32(v) do { uint32_t v_ = (v); memcpy(b + n, &v_, 4); n += 4; } while (0)
	cie_start = n;
	PUT32(0);                 /* length, patched */
	PUT32(0);                 /* CIE id */
	b[n++] = 1;               /* version */
	memcpy(b + n, aug, strlen(aug) + 1);
	n += strlen(aug) + 1;
	b[n++] = 1;               /* code align */
	b[n++] = 0x78;            /* data align -8 */
	b[n++] = 16;              /* RA register */
	if (aug[0] == 'z') {
		b[n++] = 1;           /* augmentation length */
		b[n++] = 0x1b;        /* pcrel | sdata4 */
	}
	while ((n - cie_start) % 4)
		b[n++] = 0;           /* DW_CFA_nop */
	{
		uint32_t l = (uint32_t)(n - cie_start - 4);

		memcpy(b + cie_start, &l, 4);
	}
	fde_start = n;
	PUT32(0);
	PUT32((uint32_t)(n - cie_start));   /* CIE pointer */
	pc = 0x1000 - (int32_t)n;           /* pcrel: target 0x1000 at addr 0 */
	PUT32((uint32_t)pc);
	PUT32(0x40);                        /* range */
	if (aug[0] == 'z')
		b[n++] = 0;                 /* augmentation length */
	while ((n - fde_start) % 4)
		b[n++] = 0;
	{
		uint32_t l = (uint32_t)(n - fde_start - 4);

		memcpy(b + fde_start, &l, 4);
	}
	PUT32(0);                           /* terminator */
#undef PUT32
	return n;
}

static void test_synthetic(void)
{
	uint8_t b[256];
	size_t n = build(b, "zR");
	struct fde_list l;

	CHECK(eh_frame_list_fdes(b, n, 0, true, &l) == 0);
	CHECK(l.count == 1 && !l.truncated);
	if (l.count == 1) {
		CHECK_U64(l.fdes[0].pc_begin, 0x1000);
		CHECK_U64(fde_end(&l.fdes[0]), 0x1040);
	}
	CHECK(fde_list_find(&l, 0x103f) != NULL);
	CHECK(fde_list_find(&l, 0x1040) == NULL);
	fde_list_release(&l);
}

static void test_malformed(void)
{
	uint8_t b[256], c[256];
	size_t n = build(b, "zR");
	struct fde_list l;

	/* Truncated anywhere: never reads past the end. */
	for (size_t cut = 0; cut < n; cut++) {
		uint8_t *copy = malloc(cut ? cut : 1);

		memcpy(copy, b, cut);
		CHECK(eh_frame_list_fdes(copy, cut, 0, true, &l) == 0);
		CHECK(l.count <= 1);
		fde_list_release(&l);
		free(copy);
	}
	/* A length running past the section. */
	memcpy(c, b, n);
	c[0] = 0xf0;
	CHECK(eh_frame_list_fdes(c, n, 0, true, &l) == 0);
	CHECK(l.truncated && l.count == 0);
	CHECK(strstr(l.error, "past the section") != NULL);
	fde_list_release(&l);
	/* 64-bit length escape with a huge length. */
	memcpy(c, b, n);
	memset(c, 0xff, 4);
	CHECK(eh_frame_list_fdes(c, n, 0, true, &l) == 0);
	CHECK(l.truncated);
	fde_list_release(&l);
	/* FDE's CIE pointer out of the section. */
	{
		size_t fde = 4 + ((uint32_t)b[0] | (uint32_t)b[1] << 8);

		memcpy(c, b, n);
		c[fde + 4] = 0xff;
		c[fde + 5] = 0x7f;
		CHECK(eh_frame_list_fdes(c, n, 0, true, &l) == 0);
		CHECK(l.truncated && l.count == 0);
		fde_list_release(&l);
	}
	/* Unknown augmentation: its FDEs are skipped and counted. */
	n = build(b, "zX");
	CHECK(eh_frame_list_fdes(b, n, 0, true, &l) == 0);
	CHECK(l.count == 0 && l.skipped == 1 && !l.truncated);
	fde_list_release(&l);
	n = build(b, "weird");
	CHECK(eh_frame_list_fdes(b, n, 0, true, &l) == 0);
	CHECK(l.count == 0 && l.skipped == 1);
	fde_list_release(&l);
}

/* The walk sanitize makes is skipped only where it would change nothing:
 * every FDE listed, every CIE one of theirs. */
static void test_sanitize_skip(void)
{
	uint8_t b[256], c[256];
	size_t n = build(b, "zR"), fde = 4 + ((uint32_t)b[0] | (uint32_t)b[1] << 8);
	struct fde_list l;

	CHECK(eh_frame_list_fdes(b, n, 0, true, &l) == 0);
	CHECK(l.count == 1 && l.all_listed);
	memcpy(c, b, n);
	CHECK(eh_frame_sanitize(c, n, true, &l) == 0);
	CHECK(memcmp(b, c, n) == 0);
	fde_list_release(&l);
	/* An FDE of no range is not listed: it and its CIE are hidden. */
	memcpy(c, b, n);
	memset(c + fde + 12, 0, 4);
	CHECK(eh_frame_list_fdes(c, n, 0, true, &l) == 0);
	CHECK(l.count == 0 && !l.all_listed);
	CHECK(eh_frame_sanitize(c, n, true, &l) == 0);
	CHECK(c[4] == 0 && c[8] == 0);          /* the CIE: version 0 */
	CHECK(c[fde + 4] == 0 && c[fde + 8] == 0);  /* the FDE: a CIE, version 0 */
	fde_list_release(&l);
	/* A CIE we cannot decode: its FDE skipped, both hidden. */
	n = build(b, "zX");
	CHECK(eh_frame_list_fdes(b, n, 0, true, &l) == 0);
	CHECK(l.count == 0 && l.skipped == 1 && !l.all_listed);
	fde_list_release(&l);
	/* .debug_frame, listed in two walks, the same way. */
	{
		uint8_t d[64] = { 0 };
		size_t m = 0;
		uint32_t v;

#define PUT32(x) do { v = (x); memcpy(d + m, &v, 4); m += 4; } while (0)
		PUT32(12);              /* CIE: length */
		PUT32(0xffffffffu);     /* id */
		d[m++] = 1;             /* version */
		d[m++] = 0;             /* no augmentation */
		d[m++] = 1;             /* code align */
		d[m++] = 0x78;          /* data align -8 */
		d[m++] = 16;            /* RA register */
		d[m++] = 0; d[m++] = 0; d[m++] = 0;
		PUT32(20);              /* FDE: length */
		PUT32(0);               /* its CIE at 0 */
		PUT32(0x2000); PUT32(0);        /* pc_begin, 8 bytes */
		PUT32(0x10); PUT32(0);          /* range, 8 bytes */
#undef PUT32
		CHECK(eh_frame_list_fdes(d, m, 0, false, &l) == 0);
		CHECK(l.count == 1 && l.all_listed && !l.truncated);
		if (l.count == 1)
			CHECK_U64(fde_end(&l.fdes[0]), 0x2010);
		fde_list_release(&l);
		/* A range of 4 GiB or more: no table row could hold it. */
		d[36] = 1;
		CHECK(eh_frame_list_fdes(d, m, 0, false, &l) == 0);
		CHECK(l.count == 0 && l.skipped == 1 && !l.all_listed);
		fde_list_release(&l);
	}
}

/* The rows an FDE is allowed: never fewer than it has (its work counts a
 * byte a row at least), and the plain flag apart from its cost. */
static void test_rows_bound(void)
{
	struct fde_ref f = { 0 };

	for (uint64_t rows = 1; rows < 3000; rows += rows < 64 ? 1 : 97) {
		for (uint64_t work = rows - 1; work < rows + 40; work += 3) {
			f.cost = (uint32_t)(rows * work);
			CHECK(fde_rows_bound(&f) >= rows);
			CHECK(fde_rows_bound(&f) <= rows + 21);
		}
	}
	f.cost = FDE_PLAIN | 7;
	CHECK(fde_plain(&f) && fde_cost(&f) == 7 && fde_rows_bound(&f) == 3);
	f.cost = FDE_COST_MAX;
	CHECK(!fde_plain(&f) && fde_rows_bound(&f) == 46341);
}

static void test_garbage(void)
{
	uint64_t x = 0x9e3779b97f4a7c15ULL;
	uint8_t buf[512];

	for (int i = 0; i < 20000; i++) {
		struct fde_list l;
		size_t len = (size_t)(x % sizeof(buf));

		for (size_t k = 0; k < len; k++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			buf[k] = (uint8_t)x;
		}
		if (len > 8 && (i & 1)) {       /* plausible small lengths */
			buf[0] = (uint8_t)(len / 2);
			buf[1] = buf[2] = buf[3] = 0;
		}
		CHECK(eh_frame_list_fdes(buf, len, 0, i % 3 != 0, &l) == 0);
		fde_list_release(&l);
	}
}

int main(void)
{
	const char *b = getenv("top_builddir");

	snprintf(guest_nofp, sizeof(guest_nofp), "%s/tests/guest/tg-nofp.elf", b ? b : ".");
	RUN(test_guest_fdes);
	RUN(test_synthetic);
	RUN(test_malformed);
	RUN(test_sanitize_skip);
	RUN(test_rows_bound);
	RUN(test_garbage);
	TEST_MAIN_END();
}
