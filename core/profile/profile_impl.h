/* What readers of stored profiles need beyond the public profile API. */
#ifndef UP_PROFILE_IMPL_H
#define UP_PROFILE_IMPL_H

#include <stdbool.h>
#include <stdint.h>
#include "uniprof/profile.h"

/* Count n samples of a vCPU in its [dropped] stack, as a profile past its
 * limits does (a stored profile says how many were dropped), taken at
 * t_ns (or UP_PROFILE_NO_TIME), credited for missed periods or not. */
int profile_add_dropped(struct up_profile *p, unsigned vcpu,
			enum up_vcpu_activity act, uint64_t n, uint64_t t_ns,
			bool credited);

/* Lower the vCPU count to n, when the stored stacks turn out to name
 * fewer than the profile was made for: vCPUs n and up must hold nothing. */
int profile_set_nr_vcpus(struct up_profile *p, unsigned n);

#endif
