/* Reading a guest's image or symbol file (see image_file.h). */
#include "config.h"


#include "util/file_read.h"
#include "util/image_file.h"
#include "uniprof/symbols.h"
#include "private.h"

/* Symbol files: 2 GiB at most, gzip ones at most 32 times their size (at
 * least 64 MiB): ELF code and symbols compress 3-5x, debug info up to
 * ~10x, while a gzip bomb of zeros reaches 1000x. */
static const struct file_read_caps symbol_file_caps = {
	.noun = "symbol file", .max = UP_SYMTAB_MAX_FILE, .gzip_ratio = 32,
	.gzip_min = 64ULL << 20,
};

int image_file_read(const char *path, uint8_t **out, size_t *len)
{
	return file_read(path, &symbol_file_caps, out, len);
}

int up_file_read(const char *path, uint8_t **out, size_t *len)
{
	return image_file_read(path, out, len);
}

int up_file_map(const char *path, const uint8_t **out, size_t *len)
{
	uint8_t *buf;
	int rc = file_read_mapped(path, &symbol_file_caps, &buf, len);

	if (rc == 0)
		*out = buf;
	return rc;
}

void up_file_release(const uint8_t *buf)
{
	file_read_release((uint8_t *)buf);
}

int image_file_parse(const char *path, image_parse_fn parse, void *arg)
{
	uint8_t *buf;
	size_t len;
	int rc = file_read_mapped(path, &symbol_file_caps, &buf, &len);

	if (rc < 0)
		return rc;
	rc = parse(buf, len, path, arg);
	file_read_release(buf);
	return rc;
}
