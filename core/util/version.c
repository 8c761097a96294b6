#include "config.h"

#include "uniprof/uniprof.h"

const char *up_version(void)
{
	return PACKAGE_VERSION;
}
