/* libuniprof: sample a Xen guest's stacks from dom0, without changing it.
 *
 * What is stable. The shared library exports exactly the functions these
 * headers declare (tests/unit/exports.test); everything else (core/, the
 * image target's test hooks) is private and may change at any commit.
 * Within soname libuniprof.so.0:
 *   - stable: error.h, target.h, sampler.h, profile.h, symbols.h,
 *     stored.h, diff.h, text.h (calls keep their meaning; structs passed
 *     by pointer only grow at the end);
 *   - evolving: unwind.h, kernel.h, memory.h, image.h, crash_guard.h
 *     (they follow the unwinders and targets; a change bumps the soname).
 * xl profile and uniprofd use nothing else. */
#ifndef UNIPROF_H
#define UNIPROF_H

#include "error.h"
#include "target.h"
#include "memory.h"
#include "kernel.h"
#include "unwind.h"
#include "symbols.h"
#include "profile.h"
#include "stored.h"
#include "diff.h"
#include "sampler.h"
#include "image.h"
#include "crash_guard.h"
#include "text.h"

/* The library version, "MAJOR.MINOR.PATCH". */
const char *up_version(void);

#endif
