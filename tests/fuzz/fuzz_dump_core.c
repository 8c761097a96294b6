/* libFuzzer target: a hostile Xen core file (xl profile core's input). The
 * input is the file. Whatever opens must serve every vCPU's registers and
 * a walk of each (page tables through the core's frame index, the
 * frame-pointer unwinder) within its limits, and the scan of its pages for
 * build-id notes must return at most what was asked; anything else must
 * fail with an error. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "uniprof/uniprof.h"
#include "private.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct up_target *t;
	struct up_sampler_config c;
	struct up_sampler_stats st;
	struct up_profile *p;
	struct up_core_info ci;

	if (up_target_open_core_mem(&t, data, size) < 0)
		return 0;
	char ids[4][41];
	size_t n;

	if (up_target_core_info(t, &ci) < 0)
		abort();
	if (up_target_core_build_ids(t, ids, 4, &n) == 0 &&
	    (n > 4 || (n && strlen(ids[n - 1]) != 40)))
		abort();
	for (unsigned v = 0; v < up_target_info(t)->max_vcpus; v++) {
		struct up_named_regs nr;
		struct up_regs r;

		if (up_target_get_regs(t, v, &r) < 0 ||
		    up_target_get_named_regs(t, v, &nr) < 0 ||
		    nr.count > UP_MAX_NAMED_REGS)
			abort();
	}
	up_sampler_config_init(&c, UP_SAMPLER_CONFIG_VERSION);
	c.max_samples = 1;
	c.stopped_ok = true;
	c.no_activity = true;
	c.unwinder = UP_UNWINDER_FP;
	if (up_profile_new(&p, up_target_info(t)->max_vcpus) == 0) {
		if (up_sample(t, &c, p, NULL, &st) == 0) {
			if (st.samples > 1)
				abort();
			up_sampler_stats_release(&st);
		}
		up_profile_free(p);
	}
	up_target_close(t);
	return 0;
}
