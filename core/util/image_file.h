/* Reading a guest's image or symbol file (an ELF kernel, an nm map),
 * bounded and gunzipped, and handing its bytes to a parser: the one body
 * of every up_*_load(path) (symbols, CFI table, kernel map, libunwind). */
#ifndef UP_IMAGE_FILE_H
#define UP_IMAGE_FILE_H

#include <stddef.h>
#include <stdint.h>

/* A whole file, gunzipped if it is gzip-compressed; *out is malloc'ed. */
int image_file_read(const char *path, uint8_t **out, size_t *len);

/* One of the _mem loaders, given the file's bytes and its path to name in
 * messages; arg is the caller's (where the result goes). */
typedef int (*image_parse_fn)(const uint8_t *buf, size_t len,
			      const char *path, void *arg);

/* Read path whole (mapped: file_map.h), hand its bytes to parse, give
 * them back: parse's result,
 * or image_file_read's failure. */
int image_file_parse(const char *path, image_parse_fn parse, void *arg);

#endif
