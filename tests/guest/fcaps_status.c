// SPDX-License-Identifier: GPL-2.0
/*
 * fcaps_status: the probe's status line (status_line.h) and nothing else,
 * without a libc. xattr events copy a file afresh for each write and run
 * it: TCG translates a fresh file's code at its first exec, and this one
 * runs a few hundred instructions of its own where a libc's start-up costs
 * milliseconds. Built -nostdlib -static (Makefile).
 */
#include <elf.h>		/* AT_SECURE */
#include "status_line.h"

/* called by _start below, with the kernel's initial stack: argc, argv,
 * NULL, envp, NULL, auxv */
__attribute__((used, noreturn)) void status(long *sp)
{
	struct status_line l;

	if (status_line(&l, status_auxv((char **)(sp + *sp + 2), AT_SECURE)))
		status_sys(__NR_exit_group, 1, 0, 0);
	status_sys(__NR_write, 1, (long)l.buf, l.n);
	status_sys(__NR_exit_group, 0, 0, 0);
	__builtin_unreachable();
}

__asm__(".globl _start\n"
	"_start:\n"
	"	mov %rsp, %rdi\n"
	"	and $-16, %rsp\n"
	"	call status\n"
	"	hlt\n");
