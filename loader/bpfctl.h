/* SPDX-License-Identifier: GPL-2.0 */
/* fcapsctl commands that load, drive and read the fcaps BPF programs. */
#ifndef FCAPS_BPFCTL_H
#define FCAPS_BPFCTL_H

int cmd_load(int argc, char **argv);
int cmd_unload(int argc, char **argv);
int cmd_status(int argc, char **argv);
int cmd_mode(int argc, char **argv);
int cmd_set(int argc, char **argv);
int cmd_decisions(int argc, char **argv);
int cmd_policy(int argc, char **argv);

#endif
