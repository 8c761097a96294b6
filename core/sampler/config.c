/* The sampler's settings: defaults, the names the outputs print, and
 * the check a configuration passes before any sample is taken. */
#include "config.h"

#include "util/error_impl.h"
#include "sampler/sampler_impl.h"
#include "target/target_impl.h"
#include "util/layout_version.h"

const char *up_unwinder_name(enum up_unwinder u)
{
	switch (u) {
	case UP_UNWINDER_FP: return "fp";
	case UP_UNWINDER_CFI: return "cfi";
	case UP_UNWINDER_AUTO: return "auto";
	case UP_UNWINDER_LIBUNWIND: return "libunwind";
	}
	return "unknown";
}

const char *up_consistency_name(enum up_consistency c)
{
	switch (c) {
	case UP_CONSISTENCY_PAUSED: return "paused";
	case UP_CONSISTENCY_RELAXED: return "relaxed";
	}
	return "unknown";
}

const char *up_stop_reason_name(enum up_stop_reason r)
{
	switch (r) {
	case UP_STOP_DURATION: return "duration reached";
	case UP_STOP_REQUESTED: return "stopped by signal";
	case UP_STOP_SHUTDOWN: return "domain shut down";
	case UP_STOP_GONE: return "domain destroyed";
	case UP_STOP_MAX_SAMPLES: return "sample limit reached";
	case UP_STOP_ERROR: return "error";
	}
	return "unknown";
}

static int check_version(unsigned int version)
{
	return layout_version_check(version, UP_SAMPLER_CONFIG_VERSION, "sampler configuration",
				    "set it up with up_sampler_config_init or UP_SAMPLER_CONFIG_INIT");
}

int up_sampler_config_init(struct up_sampler_config *c, unsigned int version)
{
	static const struct up_sampler_config defaults = UP_SAMPLER_CONFIG_INIT;
	int rc = check_version(version);

	if (rc < 0)
		return rc;
	*c = defaults;
	return 0;
}

int sampler_check_config(const struct up_target *t,
			const struct up_sampler_config *c)
{
	int rc = check_version(c->version);

	if (rc < 0)
		return rc;
	if (!(c->hz > 0) || c->hz > UP_SAMPLER_MAX_HZ)
		return up_fail(UP_EINVAL, "frequency %g Hz out of range (0, %g]",
			       c->hz, UP_SAMPLER_MAX_HZ);
	if (!(c->duration_s >= 0) || c->duration_s > 1e7)
		return up_fail(UP_EINVAL, "duration %g s out of range",
			       c->duration_s);
	if (c->vcpu >= 0 && (unsigned)c->vcpu >= up_target_info(t)->max_vcpus)
		return up_fail(UP_EINVAL, "vCPU %d does not exist (domain has %u)",
			       c->vcpu, up_target_info(t)->max_vcpus);
	if (c->unwind.max_depth > UP_UNWIND_MAX_DEPTH_LIMIT)
		return up_fail(UP_EINVAL, "depth limit %u above %u",
			       c->unwind.max_depth, UP_UNWIND_MAX_DEPTH_LIMIT);
	if (!(c->max_stall_pct >= 0) ||
	    c->max_stall_pct > UP_SAMPLER_NO_STALL_BUDGET)
		return up_fail(UP_EINVAL, "stall budget %g%% out of range (0, 100]",
			       c->max_stall_pct);
	if (c->consistency > UP_CONSISTENCY_RELAXED)
		return up_fail(UP_EINVAL, "unknown consistency %d",
			       (int)c->consistency);
	if (c->unwinder > UP_UNWINDER_LIBUNWIND)
		return up_fail(UP_EINVAL, "unknown unwinder %d", (int)c->unwinder);
	if (c->unwinder == UP_UNWINDER_LIBUNWIND && !c->libunwind)
		return up_fail(UP_EINVAL, "the libunwind unwinder needs its tables");
	if ((c->unwinder == UP_UNWINDER_CFI || c->unwinder == UP_UNWINDER_AUTO) && !c->cfi)
		return up_fail(UP_EINVAL, "the %s unwinder needs a CFI table",
			       up_unwinder_name(c->unwinder));
	return 0;
}
