/* SPDX-License-Identifier: GPL-2.0 */
/* fcaps_tamper: the ops of tamper_userns.c */
#ifndef FCAPS_TAMPER_USERNS_H
#define FCAPS_TAMPER_USERNS_H

/* @op of tamper_userns.c (no arguments), or -1 when it is none of them */
int tamper_userns_op(const char *op, int argc);

#endif
