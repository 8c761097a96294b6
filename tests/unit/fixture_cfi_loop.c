/* A fixture image whose unwind information is hostile: in loop_leaf's
 * body the CFA is the DWARF expression "DW_OP_skip -3", which jumps back
 * to itself forever. libunwind evaluates it without a step limit; the CFI
 * table cannot express it, so -u auto hands that frame to libunwind.
 * Never run: only its .eh_frame and addresses are used. */
__asm__(
	"	.text\n"
	"	.globl loop_leaf, loop_leaf_body\n"
	"loop_leaf:\n"
	"	.cfi_startproc\n"
	"	nop\n"
	/* DW_CFA_def_cfa_expression, 3 bytes: DW_OP_skip (0x2f), -3 */
	"	.cfi_escape 0x0f, 0x03, 0x2f, 0xfd, 0xff\n"
	"loop_leaf_body:\n"
	"	nop\n"
	"	ret\n"
	"	.cfi_endproc\n");

int main(void)
{
	return 0;
}
