# The test unikernels, x86_64 and AArch64 (included by the top Makefile.am: one non-recursive make).
# A freestanding x86_64 ELF booting as a Xen PV or PVH guest (built by
# TG_CC, an x86_64 compiler also in cross builds), four ways from one source: with frame pointers, without them (.eh_frame only),
# and without them but with .eh_frame_hdr.
GUEST_SRCS = $(srcdir)/tests/guest/x86/entry.S $(srcdir)/tests/guest/x86/hyp.c \
	$(srcdir)/tests/guest/lib.c $(srcdir)/tests/guest/workload.c \
	$(srcdir)/tests/guest/console.c $(srcdir)/tests/guest/x86/main.c $(srcdir)/tests/guest/x86/smp.c \
	$(srcdir)/tests/guest/x86/events.c $(srcdir)/tests/guest/x86/idt.c $(srcdir)/tests/guest/x86/io.c \
	$(srcdir)/tests/guest/x86/p2m.c $(srcdir)/tests/guest/x86/stall.c \
	$(srcdir)/tests/guest/x86/core_fit.c $(srcdir)/tests/guest/x86/xenstore.c
GUEST_DEPS = $(GUEST_SRCS) $(srcdir)/tests/guest/x86/hyp.h $(srcdir)/tests/guest/x86/tg_arch.h \
	$(srcdir)/tests/guest/lib.h $(srcdir)/tests/guest/workload.h $(srcdir)/tests/guest/console.h \
	$(srcdir)/tests/guest/x86/smp.h \
	$(srcdir)/tests/guest/x86/events.h $(srcdir)/tests/guest/x86/idt.h $(srcdir)/tests/guest/x86/io.h \
	$(srcdir)/tests/guest/x86/p2m.h $(srcdir)/tests/guest/x86/stall.h \
	$(srcdir)/tests/guest/x86/core_fit.h $(srcdir)/tests/guest/x86/xenstore.h \
	$(srcdir)/tests/guest/x86/tg.lds
TG_COMPILEFLAGS = -O2 -g -std=gnu11 -ffreestanding -fno-pie -fno-pic \
	-fno-stack-protector -fcf-protection=none -mno-red-zone \
	-mgeneral-regs-only -fno-optimize-sibling-calls -fno-inline \
	-D__XEN_INTERFACE_VERSION__=0x00040d00 -Wall -Wextra \
	-I$(srcdir)/tests/guest/x86 -I$(srcdir)/tests/guest
TG_LINKFLAGS = -nostdlib -static -no-pie -Wl,-T,$(srcdir)/tests/guest/x86/tg.lds \
	-Wl,--build-id=sha1 -Wl,-z,max-page-size=4096 -Wl,-z,noexecstack
GUEST_FP = -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer -DTG_FRAME_POINTERS
GUEST_NOFP = -fomit-frame-pointer -fasynchronous-unwind-tables
# The fourth way is Unikraft's: C's CFI in .debug_frame only (no unwind
# tables, -g), the assembly's in .eh_frame, no build-id; the image
# stripped, its symbols and CFI in the IMAGE.dbg beside it.
GUEST_SPLIT = -fomit-frame-pointer -fno-asynchronous-unwind-tables -fno-unwind-tables
GUEST_ELFS = tests/guest/tg-fp.elf tests/guest/tg-nofp.elf \
	tests/guest/tg-nofp-hdr.elf tests/guest/tg-split.elf tests/guest/tg-split.elf.dbg
noinst_DATA = $(GUEST_ELFS)
CLEANFILES += $(GUEST_ELFS)

tests/guest/tg-fp.elf: $(GUEST_DEPS)
	$(AM_V_GEN)$(MKDIR_P) tests/guest && \
	$(TG_CC) $(TG_COMPILEFLAGS) $(GUEST_FP) $(TG_LINKFLAGS) -o $@ $(GUEST_SRCS)
tests/guest/tg-nofp.elf: $(GUEST_DEPS)
	$(AM_V_GEN)$(MKDIR_P) tests/guest && \
	$(TG_CC) $(TG_COMPILEFLAGS) $(GUEST_NOFP) $(TG_LINKFLAGS) -o $@ $(GUEST_SRCS)
tests/guest/tg-nofp-hdr.elf: $(GUEST_DEPS)
	$(AM_V_GEN)$(MKDIR_P) tests/guest && \
	$(TG_CC) $(TG_COMPILEFLAGS) $(GUEST_NOFP) $(TG_LINKFLAGS) -Wl,--eh-frame-hdr \
	-o $@ $(GUEST_SRCS)

tests/guest/tg-split.elf.dbg: $(GUEST_DEPS)
	$(AM_V_GEN)$(MKDIR_P) tests/guest && \
	$(TG_CC) $(TG_COMPILEFLAGS) $(GUEST_SPLIT) $(TG_LINKFLAGS) -Wl,--build-id=none \
	-o $@ $(GUEST_SRCS)
tests/guest/tg-split.elf: $(GUEST_DEPS)
	$(AM_V_GEN)$(MKDIR_P) tests/guest && \
	$(TG_CC) $(TG_COMPILEFLAGS) $(GUEST_SPLIT) $(TG_LINKFLAGS) -Wl,--build-id=none -s \
	-o $@ $(GUEST_SRCS)

# The AArch64 test unikernel (tests/guest/arm64 and the shared workload), for
# Xen/Arm: an arm64 Image (xl's kernel=) and its ELF, which goes beside it
# as NAME.img.dbg the way Unikraft ships its images; FP and no-FP builds.
# Built whenever an aarch64 compiler is there (AARCH64_CC).
A64_GUEST_SRCS = $(srcdir)/tests/guest/arm64/entry.S \
	$(srcdir)/tests/guest/arm64/hypercall.S $(srcdir)/tests/guest/arm64/mmu.c \
	$(srcdir)/tests/guest/arm64/hyp.c $(srcdir)/tests/guest/arm64/main.c \
	$(srcdir)/tests/guest/lib.c $(srcdir)/tests/guest/workload.c \
	$(srcdir)/tests/guest/console.c
A64_GUEST_DEPS = $(A64_GUEST_SRCS) $(srcdir)/tests/guest/arm64/hyp.h \
	$(srcdir)/tests/guest/arm64/tg_arch.h $(srcdir)/tests/guest/arm64/tg.lds \
	$(srcdir)/tests/guest/lib.h $(srcdir)/tests/guest/workload.h \
	$(srcdir)/tests/guest/console.h
# -mstrict-align: the boot code runs with the MMU off, where every access
# is a device access and must be aligned.
A64_COMPILEFLAGS = -O2 -g -std=gnu11 -ffreestanding -fno-pie -fno-pic \
	-fno-stack-protector -mgeneral-regs-only -mstrict-align \
	-mbranch-protection=none -fno-optimize-sibling-calls -fno-inline \
	-D__XEN_INTERFACE_VERSION__=0x00040d00 -Wall -Wextra \
	-I$(srcdir)/tests/guest/arm64 -I$(srcdir)/tests/guest
A64_LINKFLAGS = -nostdlib -static -no-pie -Wl,-T,$(srcdir)/tests/guest/arm64/tg.lds \
	-Wl,--build-id=sha1 -Wl,-z,max-page-size=4096 -Wl,-z,noexecstack
A64_GUESTS = tests/guest/tg-a64-fp.elf tests/guest/tg-a64-fp.img \
	tests/guest/tg-a64-nofp.elf tests/guest/tg-a64-nofp.img
if HAVE_AARCH64_CC
noinst_DATA += $(A64_GUESTS)
endif
CLEANFILES += $(A64_GUESTS)
EXTRA_DIST += tests/guest/arm64 tests/guest/x86 tests/xen-vm/xen-arm64.test

tests/guest/tg-a64-fp.elf: $(A64_GUEST_DEPS)
	$(AM_V_GEN)$(MKDIR_P) tests/guest && \
	$(AARCH64_CC) $(A64_COMPILEFLAGS) $(GUEST_FP) $(A64_LINKFLAGS) -o $@ $(A64_GUEST_SRCS)
tests/guest/tg-a64-nofp.elf: $(A64_GUEST_DEPS)
	$(AM_V_GEN)$(MKDIR_P) tests/guest && \
	$(AARCH64_CC) $(A64_COMPILEFLAGS) $(GUEST_NOFP) $(A64_LINKFLAGS) -o $@ $(A64_GUEST_SRCS)
# The Image is the ELF's loaded bytes from its first address (objcopy of
# the same toolchain family; BSS is in image_size, not in the file).
.elf.img:
	$(AM_V_GEN)$(AARCH64_OBJCOPY) -O binary $< $@
SUFFIXES = .elf .img
