/* libuniprof: sample a Xen guest's stacks from dom0, without changing it. */
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
