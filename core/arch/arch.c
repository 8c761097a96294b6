/* The architectures libuniprof knows, by name, register set and ELF
 * machine. */
#include "config.h"

#include <elf.h>
#include <stddef.h>

#include "arch.h"

const struct arch *arch_get(enum up_arch a)
{
	switch (a) {
	case UP_ARCH_X86_64:
		return &arch_x86_64;
	case UP_ARCH_AARCH64:
		return &arch_aarch64;
	}
	return NULL;
}

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

const struct arch *arch_of_elf_machine(unsigned machine)
{
	static const struct arch *const known[] = { &arch_x86_64, &arch_aarch64 };

	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (known[i]->elf_machine == machine)
			return known[i];
	return NULL;
}
