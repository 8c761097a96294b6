/* libuniprof: sample a Xen guest's stacks from dom0, without changing it.
 *
 * What is stable. This header includes the stable API: calls keep their
 * meaning within soname libuniprof.so.0, structs passed by pointer only
 * grow at the end, and a configuration says its layout by its version
 * (up_sampler_config, up_output_opts, up_pprof_meta: set up by their
 * _INIT macro or _init function, a version unknown refused). The evolving API is in uniprof/sys/ and is not
 * included here: include uniprof/sys/unwind.h (the CFI and libunwind
 * tables) or uniprof/sys/kernel.h (the kernel map) by name; they follow
 * the unwinders and targets, and a change there bumps the soname (as
 * libgit2's git2/sys/). The shared library exports what these headers
 * declare, and only what xl profile and uniprofd use
 * (tests/unit/exports.test); everything else is private to core/. */
#ifndef UNIPROF_H
#define UNIPROF_H

#include "error.h"
#include "target.h"
#include "crash_guard.h"
#include "symbols.h"
#include "profile.h"
#include "stored.h"
#include "diff.h"
#include "sampler.h"
#include "text.h"

/* The library version, "MAJOR.MINOR.PATCH". */
const char *up_version(void);

#endif
