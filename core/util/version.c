#include "config.h"

#include "uniprof/uniprof.h"
#include "util/error_impl.h"
#include "util/layout_version.h"

const char *up_version(void)
{
	return PACKAGE_VERSION;
}

int layout_version_check(unsigned int have, unsigned int want,
			 const char *what, const char *how)
{
	if (have != want)
		return up_fail(UP_EINVAL, "%s version %u unknown (this libuniprof takes %u: %s)",
			       what, have, want, how);
	return 0;
}
