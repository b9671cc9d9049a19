/* SPDX-License-Identifier: GPL-2.0 */
/* fcaps_tamper: its result lines, and the ops of tamper_tty.c */
#ifndef FCAPS_TAMPER_TTY_H
#define FCAPS_TAMPER_TTY_H

/* "OP: ok" or "OP: ERRNO"; 0 */
int tamper_result(const char *op, int err);
/* the setup around the attempt failed: a message, 3 */
int tamper_setup_failed(const char *op, const char *what);
/* @op of tamper_tty.c with its arguments, or -1 when it is none of them */
int tamper_tty_op(const char *op, int argc, char **argv);

#endif
