/* A pprof file's bytes, gunzipped and unpacked, for the tests that look
 * at what the writer wrote (up to 1 MiB; NULL when it cannot be read). */
#ifndef TEST_PPROF_UNPACK_H
#define TEST_PPROF_UNPACK_H

#include <stdint.h>
#include <zlib.h>

#include "pprof/profile.pb-c.h"

static inline Perftools__Profiles__Profile *test_pprof_unpack(const char *path)
{
	static uint8_t raw[1 << 20];
	gzFile g = gzopen(path, "rb");
	int n;

	if (!g)
		return NULL;
	n = gzread(g, raw, sizeof(raw));
	gzclose(g);
	return n > 0 ? perftools__profiles__profile__unpack(NULL, (size_t)n, raw) : NULL;
}

#endif
