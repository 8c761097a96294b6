/* A fixture image whose unwind information holds one rule the CFI table
 * cannot express: far_leaf saves the caller's frame pointer 40016 bytes
 * below its CFA, beyond the table's 16-bit offsets. libunwind must take
 * that frame. far_caller is an ordinary frame-pointer function. Never run:
 * only its .eh_frame and addresses are used. */
__asm__(
	"	.text\n"
	"	.globl far_leaf, far_leaf_body, far_caller, far_caller_ret\n"
	"far_leaf:\n"
	"	.cfi_startproc\n"
	"	sub $40008, %rsp\n"
	"	.cfi_adjust_cfa_offset 40008\n"
	"	mov %rbp, 0(%rsp)\n"
	"	.cfi_offset %rbp, -40016\n"
	"far_leaf_body:\n"
	"	nop\n"
	"	mov 0(%rsp), %rbp\n"
	"	add $40008, %rsp\n"
	"	.cfi_adjust_cfa_offset -40008\n"
	"	ret\n"
	"	.cfi_endproc\n"
	"far_caller:\n"
	"	.cfi_startproc\n"
	"	push %rbp\n"
	"	.cfi_def_cfa_offset 16\n"
	"	.cfi_offset %rbp, -16\n"
	"	mov %rsp, %rbp\n"
	"	.cfi_def_cfa_register %rbp\n"
	"	call far_leaf\n"
	"far_caller_ret:\n"
	"	pop %rbp\n"
	"	.cfi_def_cfa %rsp, 8\n"
	"	ret\n"
	"	.cfi_endproc\n");

int main(void)
{
	return 0;
}
