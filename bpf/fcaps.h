/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fcaps: the one definition of everything shared by the BPF programs, the
 * loader and the tests: the on-disk formats (format.h) and the map and
 * record ABI (abi.h).
 */
#ifndef FCAPS_H
#define FCAPS_H

#include "format.h"
#include "abi.h"

#endif /* FCAPS_H */
