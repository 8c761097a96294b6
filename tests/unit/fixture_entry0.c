/* An image linked at address 0 with its entry there, as Mini-OS and
 * Unikraft are: e_entry 0 is a real entry point (kernel map tests). */
void _start(void);
int helper(int x);

void _start(void)
{
	for (;;)
		__asm__ volatile("hlt");
}

int helper(int x)
{
	return x * 3;
}
