/* SPDX-License-Identifier: GPL-2.0 */
#ifndef FCAPS_SCAN_H
#define FCAPS_SCAN_H

#include "policyfile.h"

/*
 * Add every file under @dir that has a security.capability value (any
 * format, malformed included), mounts below it included. Returns 0, or -1
 * with a message when a value could not be read.
 */
int policy_scan_dir(const char *dir, struct policy *p);

#endif
