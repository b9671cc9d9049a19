// SPDX-License-Identifier: GPL-2.0
/*
 * The sweep's exec target: exits 10 + AT_SECURE, nothing else. No libc
 * (gcc -static -Os -nostdlib): the kernel's initial stack is argc, argv[],
 * NULL, envp[], NULL, then the auxiliary vector's (type, value) pairs.
 */
#define AT_SECURE 23

__asm__(".text\n.globl _start\n_start:\n\tmov %rsp, %rdi\n\tcall tiny\n");

__attribute__((noreturn, used)) void tiny(long *sp)
{
	long *p = sp + 1 + sp[0] + 1;	/* envp */
	long secure = 0;

	while (*p)
		p++;
	for (p++; p[0]; p += 2)
		if (p[0] == AT_SECURE)
			secure = p[1];
	__asm__ volatile("syscall" : : "a"(231 /* exit_group */), "D"(10 + secure)
			 : "rcx", "r11", "memory");
	__builtin_unreachable();
}
