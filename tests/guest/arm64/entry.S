/* The AArch64 test guest's boot: the arm64 Image header Xen's domain
 * builder loads (at guest RAM + text_offset, entered at EL1 with the MMU
 * off and x0 = the device tree), a stack, BSS cleared, exceptions caught,
 * then C (tg_boot in mmu.c turns the MMU on, then tg_main). */
	.section .text.head, "ax"
	.globl	_head
_head:
	b	tg_start		/* code0 */
	.long	0			/* code1 */
	.quad	0x80000			/* text_offset: linked at RAM + 512 KiB */
	.quad	_end - _head		/* image_size */
	.quad	0x2			/* flags: little-endian, 4 KiB pages */
	.quad	0, 0, 0
	.ascii	"ARM\x64"		/* magic */
	.long	0

	.text
	.globl	tg_start
	.type	tg_start, %function
tg_start:
	mov	x19, x0			/* the device tree, kept across the clear */
	msr	daifset, #0xf		/* no interrupts: the guest polls */
	adrp	x1, tg_boot_stack_top
	add	x1, x1, :lo12:tg_boot_stack_top
	mov	sp, x1
	adrp	x1, tg_vectors
	add	x1, x1, :lo12:tg_vectors
	msr	vbar_el1, x1
	isb
	adrp	x1, __bss_start
	add	x1, x1, :lo12:__bss_start
	adrp	x2, _end
	add	x2, x2, :lo12:_end
1:	cmp	x1, x2
	b.hs	2f
	str	xzr, [x1], #8
	b	1b
2:	mov	x29, xzr		/* the outermost frame record ends the chain */
	mov	x30, xzr
	mov	x0, x19
	bl	tg_boot
3:	wfe
	b	3b
	.size	tg_start, . - tg_start

/* Every exception goes to tg_exception (hyp.c), which reports and crashes
 * the domain: the guest takes none on purpose. */
	.macro	VECTOR kind
	.balign	0x80
	mov	x0, #\kind
	mrs	x1, esr_el1
	mrs	x2, elr_el1
	mrs	x3, far_el1
	b	tg_exception
	.endm
	.balign	0x800
tg_vectors:
	.irp	k, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15
	VECTOR	\k
	.endr

	.section .bss.stack, "aw", %nobits
	.balign	16
	.space	16384
	.globl	tg_boot_stack_top
tg_boot_stack_top:

/* vCPU 1, started by PSCI CPU_ON (main.c): its own stack, the same
 * vectors and tables. */
	.text
	.globl	tg_ap_start
	.type	tg_ap_start, %function
tg_ap_start:
	msr	daifset, #0xf
	adrp	x1, tg_ap_stack_top
	add	x1, x1, :lo12:tg_ap_stack_top
	mov	sp, x1
	adrp	x1, tg_vectors
	add	x1, x1, :lo12:tg_vectors
	msr	vbar_el1, x1
	isb
	mov	x29, xzr
	mov	x30, xzr
	bl	tg_ap_boot
4:	wfe
	b	4b
	.size	tg_ap_start, . - tg_ap_start

	.section .bss.stack, "aw", %nobits
	.balign	16
	.space	16384
	.globl	tg_ap_stack_top
tg_ap_stack_top:
