/* C++ names through the C++ runtime's own demangler, at load time only. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "symtab_impl.h"

char *__cxa_demangle(const char *mangled, char *buf, size_t *len,
		     int *status);

char *symbol_demangle(const char *name)
{
	int status = 0;
	char *out;

	if (strncmp(name, "_Z", 2) != 0)
		return NULL;
	out = __cxa_demangle(name, NULL, NULL, &status);
	if (status != 0) {
		free(out);
		return NULL;
	}
	return out;
}
