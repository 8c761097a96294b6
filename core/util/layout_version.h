/* The version a caller's configuration struct was laid out by (a stable
 * API config: up_sampler_config, up_output_opts, up_pprof_meta): any
 * other than the library's is refused before a field is read, so a
 * program built against other headers gets one clear error, never a
 * misread configuration. */
#ifndef UP_LAYOUT_VERSION_H
#define UP_LAYOUT_VERSION_H

/* 0 when have is want, else UP_EINVAL after one line: "WHAT version HAVE
 * unknown (this libuniprof takes WANT: HOW)". */
int layout_version_check(unsigned int have, unsigned int want,
			 const char *what, const char *how);

#endif
