/* The architectures libuniprof knows, by name, register set and ELF
 * machine. */
#include "config.h"

#include <elf.h>

#include "arch.h"

const char *up_arch_name(enum up_arch a)
{
	const struct arch *d = arch_get(a);

	return d ? d->name : "unknown";
}

bool up_arch_runs_elf_machine(enum up_arch a, unsigned machine)
{
	const struct arch *d = arch_get(a);

	return d && (machine == d->elf_machine ||
		     (a == UP_ARCH_X86_64 && machine == EM_386));
}
