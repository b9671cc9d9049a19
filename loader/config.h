/* SPDX-License-Identifier: GPL-2.0 */
#ifndef FCAPS_CONFIG_H
#define FCAPS_CONFIG_H

#include <linux/types.h>
#include "fcaps.h"

int fcaps_config_store(int fd, const struct fcaps_config *cfg);

#endif
