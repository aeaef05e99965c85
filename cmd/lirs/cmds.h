/* cmds.h: the lirs subcommands, one file each (cmd/lirs/<name>.c). */
#ifndef LIRS_CMDS_H
#define LIRS_CMDS_H
int cmd_cat(int argc, char **argv);
int cmd_validate(int argc, char **argv);
int cmd_pack(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_atom(int argc, char **argv);
#endif
