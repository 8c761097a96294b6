/* Entry points of the test guest, and the notes Xen's loader reads.
 *  PV:  64-bit, paging on with the domain builder's tables, %rsi = start_info.
 *  PVH: 32-bit protected mode, paging off, %ebx = hvm_start_info; we build
 *       an identity map of the low 4 GiB with 2 MiB pages and enter long mode.
 * Both end in tg_entry64, the root frame of every stack the profiler sees. */
#include <xen/elfnote.h>

#define ELFNOTE(type, kind, value)                     \
	.pushsection .note.Xen, "a", @note;            \
	.p2align 2;                                    \
	.long 2f - 1f;                                 \
	.long 4f - 3f;                                 \
	.long type;                                    \
1:	.asciz "Xen";                                  \
2:	.p2align 2;                                    \
3:	kind value;                                    \
4:	.p2align 2;                                    \
	.popsection

ELFNOTE(XEN_ELFNOTE_GUEST_OS, .asciz, "uniprof-testguest")
ELFNOTE(XEN_ELFNOTE_GUEST_VERSION, .asciz, "1")
ELFNOTE(XEN_ELFNOTE_XEN_VERSION, .asciz, "xen-3.0")
ELFNOTE(XEN_ELFNOTE_LOADER, .asciz, "generic")
ELFNOTE(XEN_ELFNOTE_VIRT_BASE, .quad, 0)
ELFNOTE(XEN_ELFNOTE_PADDR_OFFSET, .quad, 0)
ELFNOTE(XEN_ELFNOTE_ENTRY, .quad, pv_start)
ELFNOTE(XEN_ELFNOTE_HYPERCALL_PAGE, .quad, hypercall_page)
ELFNOTE(XEN_ELFNOTE_PHYS32_ENTRY, .long, pvh_start32)

	.section .text.entry, "ax"

	.code64
	.globl pv_start
pv_start:
	mov %rsi, %rdi          /* start_info */
	xor %esi, %esi          /* mode 0: PV */
	jmp tg_entry64

	.code32
	.globl pvh_start32, pvh_pml4
pvh_start32:
	cld
	mov %ebx, %esi
	/* PML4[0] -> PDPT; PDPT[0..3] -> four PDs of 512 x 2 MiB pages. */
	movl $pvh_pdpt + 3, pvh_pml4
	xor %ecx, %ecx
1:	mov %ecx, %eax
	shl $12, %eax
	add $pvh_pd + 3, %eax
	mov %eax, pvh_pdpt(,%ecx,8)
	inc %ecx
	cmp $4, %ecx
	jb 1b
	xor %ecx, %ecx
2:	mov %ecx, %eax
	shl $21, %eax
	or $0x83, %eax          /* present, writable, 2 MiB */
	mov %eax, pvh_pd(,%ecx,8)
	mov %ecx, %eax
	shr $11, %eax           /* bits 32.. of ecx << 21 */
	mov %eax, pvh_pd+4(,%ecx,8)
	inc %ecx
	cmp $2048, %ecx
	jb 2b
	mov $pvh_pml4, %eax
	mov %eax, %cr3
	mov %cr4, %eax
	or $0x20, %eax          /* PAE */
	mov %eax, %cr4
	mov $0xc0000080, %ecx   /* EFER.LME */
	rdmsr
	or $0x100, %eax
	wrmsr
	mov %cr0, %eax
	or $0x80000001, %eax    /* PG | PE */
	mov %eax, %cr0
	lgdt pvh_gdt_desc
	ljmp $0x08, $pvh_start64

	.code64
pvh_start64:
	mov $0x10, %eax
	mov %eax, %ds
	mov %eax, %es
	mov %eax, %ss
	mov %eax, %fs
	mov %eax, %gs
	mov %esi, %edi          /* hvm_start_info (physical = virtual) */
	mov $1, %esi            /* mode 1: PVH */
	jmp tg_entry64

/* The outermost frames say so in their CFI (return address undefined),
 * as a C runtime's _start does: unwinders without frame pointers know the
 * stack is whole there. */
	.globl tg_entry64
	.type tg_entry64, @function
tg_entry64:
	.cfi_startproc
	.cfi_undefined rip
	lea tg_boot_stack_top(%rip), %rsp
	xor %ebp, %ebp
	call tg_main
3:	hlt
	jmp 3b
	.cfi_endproc
	.size tg_entry64, . - tg_entry64

/* vCPU 1 (see smp.c): the root frame of its stacks. */
	.globl tg_ap_entry64
	.type tg_ap_entry64, @function
tg_ap_entry64:
	.cfi_startproc
	.cfi_undefined rip
	lea tg_ap_stack_top(%rip), %rsp
	xor %ebp, %ebp
	call tg_ap_main
4:	hlt
	jmp 4b
	.cfi_endproc
	.size tg_ap_entry64, . - tg_ap_entry64

/* A thread's first frame, as Mini-OS's thread_starter: no unwind
 * information; it pops the argument and the function tg_thread_run left,
 * pushes a zero, zeroes rbp and calls the function: the x86-64 psABI's
 * mark of the outermost frame, which an unwinder without frame pointers
 * reads from rbp as the CFI below recovers it. */
	.globl tg_thread_starter, tg_thread_run
tg_thread_starter:
	pop %rdi
	pop %rbx
	push $0
	xor %ebp, %ebp
	call *%rbx
5:	hlt
	jmp 5b

/* tg_thread_run(fn, arg, stack_top): fn(arg) on a stack of its own,
 * entered through tg_thread_starter; never returns. */
tg_thread_run:
	lea -8(%rdx), %rsp
	push %rdi
	push %rsi
	jmp tg_thread_starter

/* Call fn from an event or exception entry: the registers C may clobber
 * saved around it (rbp last, holding the stack pointer to restore), the
 * stack aligned; with frame=1, fn's first argument is the CPU's frame
 * above them (rip first). */
.macro call_saving_scratch fn, frame=0
	push %rax
	push %rcx
	push %rdx
	push %rsi
	push %rdi
	push %r8
	push %r9
	push %r10
	push %r11
	push %rbp
	.if \frame
	lea 80(%rsp), %rdi
	.endif
	mov %rsp, %rbp
	and $-16, %rsp
	call \fn
	mov %rbp, %rsp
	pop %rbp
	pop %r11
	pop %r10
	pop %r9
	pop %r8
	pop %rdi
	pop %rsi
	pop %rdx
	pop %rcx
	pop %rax
.endm

/* PV event upcall (registered by events.c). Xen enters it on the kernel
 * stack with rcx and r11 pushed over an iret frame (rip, cs, rflags, rsp,
 * ss), events masked. Like Mini-OS's, it has no unwind information: a
 * sample that lands here is an honest truncation. */
	.globl tg_pv_upcall, tg_pv_failsafe
tg_pv_upcall:
	pop %rcx
	pop %r11
	call_saving_scratch tg_upcall
	/* Xen shows the kernel ring 0 selectors; we run in ring 3. */
	orb $3, 8(%rsp)
	orb $3, 32(%rsp)
	iretq

tg_pv_failsafe:
	call tg_failsafe

/* PVH event upcall: the callback vector (events.c), an interrupt gate;
 * tg_hvm_event gets the CPU's frame. */
	.globl tg_hvm_upcall
tg_hvm_upcall:
	call_saving_scratch tg_hvm_event, 1
	iretq

/* PVH #BP (trap=1, idt.c): on IST1, a stack of its own; the round's
 * third part, tg_hot_15, runs here, then back after the int3. */
	.globl tg_hvm_trap
tg_hvm_trap:
	call_saving_scratch tg_hot_15
	iretq

	/* Writable: ltr marks the TSS descriptor busy. */
	.section .data
	.p2align 3
	.globl pvh_gdt
pvh_gdt:
	.quad 0
	.quad 0x00af9a000000ffff        /* 0x08: 64-bit code */
	.quad 0x00cf92000000ffff        /* 0x10: data */
	.quad 0, 0                      /* 0x18: the TSS (idt.c) */
pvh_gdt_end:
pvh_gdt_desc:
	.word pvh_gdt_end - pvh_gdt - 1
	.long pvh_gdt

	.section .bss.pagetables, "aw", @nobits
	.p2align 12
pvh_pml4: .skip 4096
pvh_pdpt: .skip 4096
pvh_pd:   .skip 4 * 4096

	.section .bss
	.p2align 12
	.globl tg_shared_info_page
tg_shared_info_page: .skip 4096
	.p2align 4
	.globl tg_boot_stack
tg_boot_stack: .skip 65536
tg_boot_stack_top:
	.p2align 4
	.globl tg_ap_stack_top
tg_ap_stack: .skip 65536
tg_ap_stack_top:

	.section .note.GNU-stack, "", @progbits
