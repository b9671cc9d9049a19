/* SPDX-License-Identifier: GPL-2.0 */
/* fcaps_tamper: the ops of tamper_reuse.c */
#ifndef FCAPS_TAMPER_REUSE_H
#define FCAPS_TAMPER_REUSE_H

/* @op of tamper_reuse.c with its arguments, or -1 when it is none of them */
int tamper_reuse_op(const char *op, int argc, char **argv);

#endif
