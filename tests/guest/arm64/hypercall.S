/* Hypercall stubs, one function each as Mini-OS and Unikraft have them:
 * the number in x16, arguments in x0-x4, `hvc #0xea1`, the result in x0.
 * A vCPU blocked in Xen stands right after the hvc, its caller in x30. */
	.macro	HYPERCALL name, nr
	.globl	HYPERVISOR_\name
	.type	HYPERVISOR_\name, %function
HYPERVISOR_\name:
	mov	x16, #\nr
	hvc	#0xea1
	ret
	.size	HYPERVISOR_\name, . - HYPERVISOR_\name
	.endm

	.text
	HYPERCALL	sched_op, 29
	HYPERCALL	event_channel_op, 32
	HYPERCALL	hvm_op, 34
	HYPERCALL	vcpu_op, 24
